// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcbpf-bufs: libsmcbpf's per-cgroup buffer sizes (smcbpf_cgroup_bufs_*) driven from the
 * command line, for the VM tests (tests/vm/guest/autopilot-bpf-7x.sh); the agent's autopilot is
 * their user, and no smcctl verb reaches them.
 *
 *   smcbpf-bufs ROOT put CGROUP SNDBUF RCVBUF
 *                       the selection layout pinned under ROOT (adopted, or loaded with
 *                       the buffer program and pinned there), an entry for CGROUP (a
 *                       cgroup2 directory) put, the layout left pinned
 *   smcbpf-bufs ROOT del CGROUP
 *   smcbpf-bufs ROOT list
 *   smcbpf-bufs ROOT flush
 *                       everything pinned under ROOT removed
 *   smcbpf-bufs - put|del|list ...
 *                       the same on programs loaded without the buffer program and not
 *                       pinned (what -EOPNOTSUPP looks like)
 *   smcbpf-bufs sock    an SMC socket (IPPROTO_SMC) created and its SO_SNDBUF/SO_RCVBUF
 *                       printed, {"sndbuf":N,"rcvbuf":N}: what the buffer program set
 *                       (on SMC-D loopback the send buffer smc_diag shows is the peer's
 *                       DMB, whatever SO_SNDBUF says)
 *
 * One JSON line: {"op":..., "rc":"ok"|errno name, "adopted":bool, "entries":[{"cgroup_id":N,
 * "sndbuf":N,"rcvbuf":N}...]} (entries for list).  Exit status 0 when rc is "ok", 3 when it
 * is an errno, 1 when the programs could not be loaded, 2 on usage errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bpf/smcbpf.h"
#include "common/util.h"

static const char *rc_name(int r)
{
	switch (r) {
	case 0:
		return "ok";
	case -ENOENT:
		return "ENOENT";
	case -EOPNOTSUPP:
		return "EOPNOTSUPP";
	case -E2BIG:
		return "E2BIG";
	default:
		return strerror(-r);
	}
}

static int parse_u32(const char *s, uint32_t *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

static int cmd_sock(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, SMCBPF_IPPROTO_SMC), snd = -1, rcv = -1;
	socklen_t len = sizeof(int);

	if (fd < 0) {
		fprintf(stderr, "smcbpf-bufs: socket(IPPROTO_SMC): %s\n", strerror(errno));
		return 1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, &len) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, &len) < 0) {
		fprintf(stderr, "smcbpf-bufs: getsockopt: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	printf("{\"sndbuf\":%d,\"rcvbuf\":%d}\n", snd, rcv);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: smcbpf-bufs ROOT|- put CGROUP SNDBUF RCVBUF | del CGROUP | list | "
			"flush\n       smcbpf-bufs sock\n");
	return 2;
}

int main(int argc, char **argv)
{
	char why[SMCBPF_WHY_LEN] = "";
	struct smcbpf_select *s = NULL;
	const char *root, *op;
	uint64_t id = 0;
	bool pinned;
	int r;

	if (argc == 2 && strcmp(argv[1], "sock") == 0)
		return cmd_sock();
	if (argc < 3)
		return usage();
	root = argv[1];
	op = argv[2];
	pinned = strcmp(root, "-") != 0;
	if (strcmp(op, "flush") == 0) {
		unsigned n = 0;

		if (!pinned)
			return usage();
		r = smcbpf_flush(root, &n, why, sizeof(why));
		printf("{\"op\":\"flush\",\"rc\":\"%s\",\"removed\":%u}\n", rc_name(r), n);
		return r < 0 ? 3 : 0;
	}
	if ((strcmp(op, "put") == 0 && argc != 6) || (strcmp(op, "del") == 0 && argc != 4) ||
	    (strcmp(op, "list") == 0 && argc != 3))
		return usage();
	if (strcmp(op, "put") != 0 && strcmp(op, "del") != 0 && strcmp(op, "list") != 0)
		return usage();
	if (argc > 3) {
		r = cgroup_id_of(argv[3], &id);
		if (r < 0) {
			fprintf(stderr, "smcbpf-bufs: %s: not a cgroup2 directory: %s\n", argv[3],
				strerror(-r));
			return 2;
		}
	}
	r = 0;
	if (pinned)
		r = smcbpf_select_adopt(root, &s, why, sizeof(why));
	if (r <= 0)
		r = smcbpf_select_open(pinned, pinned ? root : NULL, &s, why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "smcbpf-bufs: cannot load the programs: %s\n", why);
		return 1;
	}
	printf("{\"op\":\"%s\",", op);
	{
		const char *dir, *pin_why;
		bool adopted;

		smcbpf_select_pins(s, &dir, &adopted, &pin_why);
		printf("\"adopted\":%s,\"reused\":%s,", adopted ? "true" : "false",
		       smcbpf_select_reused(s) ? "true" : "false");
	}
	if (strcmp(op, "put") == 0) {
		uint32_t snd, rcv;

		if (parse_u32(argv[4], &snd) < 0 || parse_u32(argv[5], &rcv) < 0) {
			printf("\"rc\":\"EINVAL\"}\n");
			smcbpf_select_free(s);
			return 2;
		}
		r = smcbpf_cgroup_bufs_put(s, id, snd, rcv);
		printf("\"cgroup_id\":%" PRIu64 ",", id);
	} else if (strcmp(op, "del") == 0) {
		r = smcbpf_cgroup_bufs_del(s, id);
		printf("\"cgroup_id\":%" PRIu64 ",", id);
	} else {
		struct smcbpf_cgroup_bufs *v = NULL;
		size_t n = 0;

		r = smcbpf_cgroup_bufs_list(s, &v, &n);
		printf("\"entries\":[");
		for (size_t i = 0; i < n; i++)
			printf("%s{\"cgroup_id\":%" PRIu64 ",\"sndbuf\":%" PRIu32
			       ",\"rcvbuf\":%" PRIu32 "}",
			       i ? "," : "", v[i].cgroup_id, v[i].sndbuf, v[i].rcvbuf);
		printf("],");
		free(v);
	}
	printf("\"rc\":\"%s\"", rc_name(r));
	if (smcbpf_select_buffers(s))
		printf(",\"buffers\":\"%s\"", smcbpf_select_buffers(s));
	printf("}\n");
	if (pinned)
		(void)smcbpf_select_settle(s);
	smcbpf_select_free(s);
	return r < 0 ? 3 : 0;
}
