// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel-ops: the guest time of single kernel operations that smcctl's read verbs make, each
 * repeated 101 times after 3 unmeasured ones, timed with CLOCK_MONOTONIC around each run.
 * Under QEMU's -icount shift=0 a guest nanosecond is one executed instruction, kernel and
 * user space together, so each line is the instructions an operation costs
 * (bench/smcctl-vs-smctools/README.md, "Where the kernel's time goes").
 *
 *   kernel-ops          every operation: "@@OP NAME MEDIAN MIN" (needs SMC loaded)
 *   kernel-ops PROGRAM ARGS... fork, exec PROGRAM and wait, 101 times; and the page faults of one
 *                       run ("@@OP minflt N majflt N")
 *
 * A bench tool, never installed, run in the guest by guest/kernel-ops.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
#define AF_SMC_ 43
#define RUNS 101

static char buf[65536];
static uint32_t seq = 1;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median and the minimum of RUNS runs of fn(arg), after 3 unmeasured ones. */
static void bench(const char *name, void (*fn)(void *), void *arg)
{
	uint64_t t[RUNS];

	for (int i = 0; i < 3; i++)
		fn(arg);
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = now_ns();

		fn(arg);
		t[i] = now_ns() - a;
	}
	qsort(t, RUNS, sizeof(t[0]), cmp_u64);
	printf("@@OP %-40s %8llu %8llu\n", name, (unsigned long long)t[RUNS / 2],
	       (unsigned long long)t[0]);
	fflush(stdout);
}

/* A generic netlink socket as libnl connects it; opts: smcctl's extended-ACK options too. */
static int genl_socket(bool opts)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 5 };
	int one = 1, size = 32768, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)); /* never hang the guest */
	if (opts) {
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
		setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	}
	return fd;
}

/* A genl request at m (cmd, version 1, a family name attribute if name); its length. */
static size_t genl_msg(char *m, uint16_t type, uint16_t flags, uint8_t cmd, const char *name)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m;
	struct genlmsghdr *g = NLMSG_DATA(h);
	size_t len = NLMSG_LENGTH(GENL_HDRLEN);

	memset(m, 0, 256);
	g->cmd = cmd;
	g->version = 1;
	if (name) {
		struct nlattr *a = (struct nlattr *)(m + NLMSG_ALIGN(len));

		a->nla_type = CTRL_ATTR_FAMILY_NAME;
		a->nla_len = (uint16_t)(NLA_HDRLEN + strlen(name) + 1);
		strcpy((char *)a + NLA_HDRLEN, name);
		len = NLMSG_ALIGN(len) + NLA_ALIGN(a->nla_len);
	}
	h->nlmsg_len = (uint32_t)len;
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = seq++;
	return len;
}

/* Read one answer (dump: until NLMSG_DONE or an error); the family id if one came. */
static int recv_answer(int fd, bool dump)
{
	int id = 0;

	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);

		if (r <= 0)
			return -1;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)r);
		     h = NLMSG_NEXT(h, r)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
				return id;
			if (h->nlmsg_type == GENL_ID_CTRL) {
				struct nlattr *a =
					(struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
				int l = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

				while (l >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
					if (a->nla_type == CTRL_ATTR_FAMILY_ID)
						id = *(uint16_t *)((char *)a + NLA_HDRLEN);
					l -= NLA_ALIGN(a->nla_len);
					a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
				}
			}
			if (!dump)
				return id;
		}
	}
}

static int resolve(int fd, const char *name)
{
	char m[256];
	size_t l = genl_msg(m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, name);

	send(fd, m, l, 0);
	return recv_answer(fd, false);
}

static void dump(int fd, int family, uint8_t cmd)
{
	char m[256];
	size_t l = genl_msg(m, (uint16_t)family, NLM_F_DUMP, cmd, NULL);

	send(fd, m, l, 0);
	recv_answer(fd, true);
}

/* As smcnl_read_file(): one read into a small buffer; dfd AT_FDCWD or a directory. */
static void read_small(int dfd, const char *path)
{
	char b[128];
	int fd = openat(dfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0) {
		(void)!read(fd, b, sizeof(b) - 1);
		close(fd);
	}
}

static void list_dir(const char *path)
{
	DIR *d = opendir(path);

	if (d) {
		while (readdir(d))
			;
		closedir(d);
	}
}

static int genl_fd, smc_id, pnet_id, diag_fd;

struct dumpop {
	int *family;
	uint8_t cmd;
};

static void op_dump(void *arg)
{
	const struct dumpop *d = arg;

	dump(genl_fd, *d->family, d->cmd);
}

static void op_resolve(void *arg)
{
	resolve(genl_fd, arg);
}

static void op_resolve_both(void *arg)
{
	char m[512];
	size_t l = genl_msg(m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, "SMC_GEN_NETLINK");

	l += genl_msg(m + l, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, "SMC_PNETID");
	send(genl_fd, m, l, 0);
	recv_answer(genl_fd, false);
	recv_answer(genl_fd, false);
}

static void op_diag(void *arg)
{
	struct {
		struct nlmsghdr h;
		uint8_t family, state, ext, pad;
		uint8_t id[48];
	} q = { .h = { .nlmsg_len = sizeof(q), .nlmsg_type = SOCK_DIAG_BY_FAMILY },
		.family = AF_SMC_ };

	q.h.nlmsg_flags = NLM_F_REQUEST | (arg ? NLM_F_DUMP : NLM_F_ACK);
	q.h.nlmsg_seq = seq++;
	send(diag_fd, &q, sizeof(q), 0);
	recv_answer(diag_fd, arg != NULL);
}

static void op_uname(void *arg)
{
	struct utsname u;

	uname(&u);
}

static void op_stat(void *arg)
{
	struct stat st;

	stat(arg, &st);
}

static void op_access(void *arg)
{
	access(arg, F_OK);
}

static void op_read(void *arg)
{
	read_small(AT_FDCWD, arg);
}

static void op_list(void *arg)
{
	list_dir(arg);
}

/* The device's directory once (O_PATH, as netlink/smcnl-sysfs.c opens it), then two files. */
static void op_dibs_dir(void *arg)
{
	int cfd = *(int *)arg, dfd = openat(cfd, "lo", O_PATH | O_DIRECTORY | O_CLOEXEC);

	read_small(dfd, "gid");
	read_small(dfd, "fabric_id");
	close(dfd);
}

static void op_dibs_paths(void *arg)
{
	read_small(AT_FDCWD, "/sys/class/dibs/lo/gid");
	read_small(AT_FDCWD, "/sys/class/dibs/lo/fabric_id");
}

struct sockop {
	int family, type, protocol;
};

static void op_socket(void *arg)
{
	const struct sockop *s = arg;
	int fd = socket(s->family, s->type | SOCK_CLOEXEC, s->protocol);

	if (fd >= 0)
		close(fd);
}

static void op_genl_socket(void *arg)
{
	int fd = genl_socket(arg != NULL);

	if (fd >= 0)
		close(fd);
}

static void op_fork(void *arg)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
}

static void op_exec(void *arg)
{
	char **argv = arg;
	pid_t p = fork();

	if (p == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(nul, 1);
		dup2(nul, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	waitpid(p, NULL, 0);
}

static int exec_only(char **argv)
{
	struct rusage r0, r1;

	getrusage(RUSAGE_CHILDREN, &r0);
	op_exec(argv);
	getrusage(RUSAGE_CHILDREN, &r1);
	printf("@@OP minflt %ld majflt %ld\n", r1.ru_minflt - r0.ru_minflt,
	       r1.ru_majflt - r0.ru_majflt);
	bench("fork+exec+wait", op_exec, argv);
	return 0;
}

int main(int argc, char **argv)
{
	static struct dumpop dumps[] = {
		{ &smc_id, 1 }, { &smc_id, 2 }, { &smc_id, 4 }, { &smc_id, 5 },	 { &smc_id, 6 },
		{ &smc_id, 7 }, { &smc_id, 8 }, { &smc_id, 9 }, { &smc_id, 13 }, { &pnet_id, 0 },
	};
	static const char *const dump_names[] = {
		"dump GET_SYS_INFO",	"dump GET_LGR_SMCR", "dump GET_LGR_SMCD",
		"dump GET_DEV_SMCD",	"dump GET_DEV_SMCR", "dump GET_STATS",
		"dump GET_FBACK_STATS", "dump DUMP_UEID",    "dump DUMP_SEID",
		"dump SMC_PNETID GET",
	};
	struct sockop af_smc = { AF_SMC_, SOCK_STREAM, 0 }, af_smc_dgram = { AF_SMC_, SOCK_DGRAM, 0 };
	struct sockop ipproto_smc = { AF_INET, SOCK_STREAM, 256 }, tcp = { AF_INET, SOCK_STREAM, 0 };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int cfd;

	if (argc > 1)
		return exec_only(argv + 1);
	genl_fd = genl_socket(true);
	smc_id = resolve(genl_fd, "SMC_GEN_NETLINK");
	pnet_id = resolve(genl_fd, "SMC_PNETID");
	if (smc_id <= 0 || pnet_id <= 0) {
		fputs("kernel-ops: no SMC families (load smc first)\n", stderr);
		return 1;
	}
	diag_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	bind(diag_fd, (struct sockaddr *)&sa, sizeof(sa));

	bench("uname", op_uname, NULL);
	bench("stat /sys/class/dibs", op_stat, "/sys/class/dibs");
	bench("stat /proc/sys/net/smc", op_stat, "/proc/sys/net/smc");
	bench("access /sys/module/smc_lo", op_access, "/sys/module/smc_lo");
	bench("read /proc/sys/net/smc/wmem", op_read, "/proc/sys/net/smc/wmem");
	bench("read /sys/class/dibs/lo/gid", op_read, "/sys/class/dibs/lo/gid");
	bench("read /sys/class/dibs/lo/fabric_id", op_read, "/sys/class/dibs/lo/fabric_id");
	bench("gid + fabric_id by full path", op_dibs_paths, NULL);
	cfd = open("/sys/class/dibs", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bench("gid + fabric_id from lo's directory", op_dibs_dir, &cfd);
	close(cfd);
	bench("list /sys/class/dibs", op_list, "/sys/class/dibs");
	bench("list /proc/sys/net/smc", op_list, "/proc/sys/net/smc");
	bench("socket(AF_SMC, STREAM) + close", op_socket, &af_smc);
	bench("socket(AF_SMC, DGRAM) (refused)", op_socket, &af_smc_dgram);
	bench("socket(AF_INET, STREAM, IPPROTO_SMC) + close", op_socket, &ipproto_smc);
	bench("socket(AF_INET, STREAM, TCP) + close", op_socket, &tcp);
	bench("genl socket as libnl + close", op_genl_socket, NULL);
	bench("... with EXT_ACK, CAP_ACK", op_genl_socket, "opts");
	bench("GETFAMILY SMC_GEN_NETLINK", op_resolve, "SMC_GEN_NETLINK");
	bench("GETFAMILY SMC_PNETID", op_resolve, "SMC_PNETID");
	bench("GETFAMILY both in one sendmsg", op_resolve_both, NULL);
	for (size_t i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++)
		bench(dump_names[i], op_dump, &dumps[i]);
	bench("smc_diag acknowledged probe", op_diag, NULL);
	bench("smc_diag dump (every socket)", op_diag, "dump");
	bench("fork + _exit + wait", op_fork, NULL);
	return 0;
}
