// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsmcbpf: see smcbpf.h.  The skeletons are generated at build time from bpf/NAME.bpf.c by
 * "bpftool gen skeleton" (bpf/Makefile.inc); this file only opens, loads, attaches and
 * turns failures into sentences.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/bpf-reason.h"
#include "common/macro.h"
#include "common/util.h"
#include "bpf/smcbpf.h"
#include "bpf/smc_select.skel.h"
#include "bpf/smc_bufs.skel.h"
#include "bpf/smc_excl.skel.h"
#include "bpf/smc_fallback.skel.h"
#include "bpf/smc_assess.skel.h"
#include "bpf/smc_assess_smc.skel.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* ---- libbpf messages ------------------------------------------------------------------ */

static void (*log_fn)(int level, const char *line);
/*
 * The reason for a failure, for why: the verifier's last words about the program (the line
 * before its "processed N insns" summary, such as "unknown func bpf_xyz#158"), or else the
 * last warning libbpf printed.
 */
static char last_warning[256];
static char verifier_line[256];
static bool in_prog_log;

static void note_verifier_line(const char *line)
{
	if (strstr(line, "-- BEGIN PROG LOAD LOG --")) {
		in_prog_log = true;
		verifier_line[0] = '\0';
	} else if (strstr(line, "-- END PROG LOAD LOG --"))
		in_prog_log = false;
	else if (in_prog_log && line[0] && strncmp(line, "processed ", 10) != 0 &&
		 strncmp(line, "verification time", 17) != 0 && strncmp(line, "stack depth", 11) != 0)
		snprintf(verifier_line, sizeof(verifier_line), "%.255s", line);
}

static int print_cb(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[8192], *line, *save = NULL;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (level == LIBBPF_WARN && line[0]) {
			note_verifier_line(line);
			snprintf(last_warning, sizeof(last_warning), "%.255s", line);
		}
		if (log_fn)
			log_fn(level == LIBBPF_WARN ? 0 : level == LIBBPF_INFO ? 1 : 2, line);
	}
	return 0;
}

/* The most useful of the two, for a why. */
static const char *failure_detail(void)
{
	return verifier_line[0] ? verifier_line : last_warning;
}

/*
 * A failed load or attach of WHAT (which needs CAPS, attaches to TARGET), in words: the
 * reason of common/bpf-reason.c from the errno, this process's capabilities, the kernel's
 * lockdown, BTF and unprivileged_bpf_disabled, and libbpf's last words.  Every loader
 * below says why through this.
 */
static int smcbpf_load_reason(int err, const char *step, const char *what, const char *target,
			      uint64_t caps, const char *hint, char *why, size_t len)
{
	struct bpf_load_facts f = { .err = err,
				    .step = step,
				    .what = what,
				    .target = target,
				    .caps_needed = caps,
				    .hint = hint,
				    .detail = failure_detail() };

	bpf_load_facts_read(&f);
	return bpf_load_reason(&f, why, len);
}

void smcbpf_set_log(void (*fn)(int level, const char *line))
{
	log_fn = fn;
}

static void log_init(void)
{
	libbpf_set_print(print_cb);
	last_warning[0] = '\0';
	verifier_line[0] = '\0';
	in_prog_log = false;
}

_printf_(4, 5) static int smcbpf_why_set(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return err < 0 ? err : -err;
}

/* ---- BTF questions ---------------------------------------------------------------------- */

/* 1 when the running kernel's vmlinux BTF has name of kind, 0 when not, -errno. */
static int btf_has(const char *name, int kind)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int r;

	if (!btf)
		return negative_errno();
	r = btf__find_by_name_kind(btf, name, kind) > 0;
	btf__free(btf);
	return r;
}

/* The same for a module's BTF (split on top of vmlinux's). */
static int module_btf_has(const char *module, const char *name, int kind)
{
	struct btf *base = btf__load_vmlinux_btf(), *btf;
	char path[128];
	int r;

	if (!base)
		return negative_errno();
	snprintf(path, sizeof(path), "/sys/kernel/btf/%s", module);
	btf = btf__parse_split(path, base);
	if (!btf) {
		r = negative_errno();
		btf__free(base);
		return r;
	}
	r = btf__find_by_name_kind(btf, name, kind) > 0;
	btf__free(btf);
	btf__free(base);
	return r;
}

static int need_btf(char *why, size_t len)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0)
		return smcbpf_why_set(
			why, len, -ENOTSUP,
			"this kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF), which BPF programs that attach to kernel functions need");
	return 0;
}

int smcbpf_probe_select(char *why, size_t len)
{
	int fd, r, err;

	log_init();
	r = need_btf(why, len);
	if (r < 0)
		return r;
	r = btf_has("update_socket_protocol", BTF_KIND_FUNC);
	if (r < 0)
		return smcbpf_why_set(why, len, r, "cannot read the kernel's BTF: %s", strerror(-r));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, SMCBPF_IPPROTO_SMC);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	/* Both missing (6.1): name both, or a user would take 6.6 to be enough. */
	if (r == 0 && err)
		return smcbpf_why_set(
			why, len, -ENOTSUP,
			"this kernel has no update_socket_protocol hook (Linux 6.6) and no IPPROTO_SMC (6.11): switching sockets through BPF needs Linux 6.11 or later");
	if (r == 0)
		return smcbpf_why_set(
			why, len, -ENOTSUP,
			"this kernel has no update_socket_protocol hook (Linux 6.6 or later)");
	if (err)
		return smcbpf_why_set(
			why, len, -ENOTSUP,
			"this kernel cannot create IPPROTO_SMC sockets (Linux 6.11 or later with SMC; socket() says: %s)",
			strerror(err));
	return 0;
}

/* A load or attach failure of the selection programs, in words. */
static int explain_select_failure(int err, const char *step, const char *target, char *why, size_t len)
{
	/* Not a question of rights, and no errno says it: the kernel lets BPF modify
	 * update_socket_protocol only with MPTCP, which declares it modifiable. */
	if (err != -EPERM && btf_has("mptcp_sock", BTF_KIND_STRUCT) == 0)
		return smcbpf_why_set(
			why, len, -ENOTSUP,
			"this kernel has no MPTCP (CONFIG_MPTCP), which is what allows BPF programs to modify update_socket_protocol");
	return smcbpf_load_reason(
		err == -ENOTSUP ? -EOPNOTSUPP : err, step, "the SMC selection programs", target,
		BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON) | BPF_REASON_CAP(NET_ADMIN),
		"or a running smcd-agent", why, len);
}

/* ---- pins -------------------------------------------------------------------------------- */

#define SMCBPF_BPF_FS_MAGIC 0xcafe4a11

/*
 * Under the pin root (SMCBPF_PIN_DIR) each kind of object has one directory per layout,
 * select-HASH and excl-HASH, HASH being FNV-1a over the BPF objects this library was built
 * with: an agent adopts only the layout it speaks and replaces any other.  A directory is
 * filled as new-KIND-HASH-PID and renamed into place, so a crash never leaves a layout that
 * looks complete and is not; leftovers are removed like any other stale layout.  (No dots
 * in any name: bpffs refuses them, EPERM, "reserved for future extensions".)
 */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void layout_name(char *buf, size_t len, bool excl)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const void *p;
	size_t sz;

	if (excl) {
		p = smc_excl__elf_bytes(&sz);
		h = fnv1a(h, p, sz);
	} else {
		p = smc_select__elf_bytes(&sz);
		h = fnv1a(h, p, sz);
		p = smc_bufs__elf_bytes(&sz);
		h = fnv1a(h, p, sz);
	}
	snprintf(buf, len, "%s-%016" PRIx64, excl ? "excl" : "select", h);
}

/* Is name (an entry of the pin root) a directory of this kind, current or stale? */
static bool layout_of_kind(const char *name, bool excl)
{
	const char *kind = excl ? "excl-" : "select-";

	if (startswith(name, kind))
		return true;
	if (startswith(name, "new-"))
		return startswith(name + 4, kind);
	if (startswith(name, "stale-"))
		return startswith(name + 6, kind);
	return false;
}

/* The pin root exists on a BPF filesystem (mounted on its parent if nothing is). */
static int pin_root_ready(const char *root, char *why, size_t len)
{
	char parent[PATH_MAX], *slash;
	struct statfs sf;

	if ((size_t)snprintf(parent, sizeof(parent), "%s", root) >= sizeof(parent))
		return smcbpf_why_set(why, len, -ENAMETOOLONG, "the pin directory %s is too long",
				      root);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return smcbpf_why_set(why, len, -EINVAL,
				      "the pin directory %s is not below a BPF filesystem mount",
				      root);
	*slash = '\0';
	if (statfs(parent, &sf) < 0)
		return smcbpf_why_set(why, len, negative_errno(), "cannot look at %s: %s", parent,
				      strerror(errno));
	if ((unsigned long)sf.f_type != SMCBPF_BPF_FS_MAGIC) {
		struct stat self, init;

		/* Mounted in a private mount namespace, it would end with that namespace and
		 * the pins with it, while looking pinned: only in the initial one. */
		if (stat("/proc/self/ns/mnt", &self) < 0 || stat("/proc/1/ns/mnt", &init) < 0 ||
		    self.st_ino != init.st_ino)
			return smcbpf_why_set(
				why, len, -ENOTSUP,
				"%s is not a BPF filesystem here, and this process is not in the initial mount namespace, where one mounted would outlive it (systemd mounts it at boot; or mount -t bpf bpf %s)",
				parent, parent);
		if (mount("bpf", parent, "bpf", 0, "mode=0700") < 0)
			return smcbpf_why_set(
				why, len, negative_errno(),
				"%s is not a BPF filesystem and mounting one there failed (%s; systemd mounts it at boot)",
				parent, strerror(errno));
	}
	if (mkdir(root, 0700) < 0 && errno != EEXIST)
		return smcbpf_why_set(why, len, negative_errno(), "cannot create %s: %s", root,
				      strerror(errno));
	return smcbpf_pin_dir_check(root, why, len);
}

/*
 * A pin directory that was there already is used only when it is as mkdir() above makes
 * it: a directory (no link), the agent's own and not writable by group or others.
 * Another user who could create or replace it (or swap a pin in it) would choose which
 * maps and programs the agent adopts.  Nothing is changed about one that is not.
 */
int smcbpf_pin_dir_check(const char *dir, char *why, size_t len)
{
	_cleanup_(closep) int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	/* O_DIRECTORY on a link says ENOTDIR, O_NOFOLLOW on one ELOOP. */
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) && lstat(dir, &st) == 0 &&
	    S_ISLNK(st.st_mode))
		return smcbpf_why_set(
			why, len, -ELOOP,
			"the pin directory %s is a symbolic link, which is not followed (expected the directory itself: remove the link, and the agent creates it)",
			dir);
	if (fd < 0 || fstat(fd, &st) < 0)
		return smcbpf_why_set(why, len, negative_errno(),
				      "cannot open the pin directory %s: %s", dir, strerror(errno));
	if (!stat_is_ours(&st, false))
		return smcbpf_why_set(
			why, len, -EPERM,
			"the pin directory %s is owned by uid %u with mode %04o, not the agent's own (expected owned by uid %u and not writable by group or others, as the agent creates it: remove it, and the agent creates it)",
			dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
			(unsigned)geteuid());
	return 0;
}

static int obj_get(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

static int obj_pin(int fd, const char *dir, const char *name)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return bpf_obj_pin(fd, path) < 0 ? -errno : 0;
}

static int obj_unpin(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return unlink(path) < 0 && errno != ENOENT ? negative_errno() : 0;
}

/* Unpin everything in dir and remove it: links whose last holder that was detach. */
static int remove_layout(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int r = 0;

	if (!d)
		return errno == ENOENT ? 0 : negative_errno();
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && unlinkat(dirfd(d), de->d_name, 0) < 0 && r == 0)
			r = negative_errno();
	closedir(d);
	if (rmdir(dir) < 0 && errno != ENOENT && r == 0)
		r = negative_errno();
	return r;
}

/* Calls fn for every directory of this kind in root except keep ("": none). */
static int each_layout(const char *root, bool excl, const char *keep,
		       int (*fn)(const char *dir, void *arg), void *arg)
{
	DIR *d = opendir(root);
	struct dirent *de;
	int r = 0, k;

	if (!d)
		return errno == ENOENT ? 0 : negative_errno();
	while ((de = readdir(d))) {
		char dir[PATH_MAX];

		if (!layout_of_kind(de->d_name, excl) || streq(de->d_name, keep))
			continue;
		if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", root, de->d_name) >= sizeof(dir))
			continue;
		k = fn(dir, arg);
		if (k < 0 && r == 0)
			r = k;
		if (k > 0)
			break;
	}
	closedir(d);
	return r;
}

static int remove_layout_cb(const char *dir, void *arg)
{
	(void)arg;
	return remove_layout(dir);
}

/* Fill tmp, then put it in place as dir (a stale dir of the same name moves aside). */
static int layout_commit(const char *root, const char *tmp, const char *dir)
{
	char stale[PATH_MAX];

	if (rename(tmp, dir) == 0)
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST)
		return negative_errno();
	if ((size_t)snprintf(stale, sizeof(stale), "%s/stale-%s-%d", root, strrchr(dir, '/') + 1,
			     (int)getpid()) >= sizeof(stale))
		return -ENAMETOOLONG;
	if (rename(dir, stale) < 0 || rename(tmp, dir) < 0)
		return negative_errno();
	return 0;
}

/* An mmap of an array map's single value (the programs' .bss). */
static void *bss_map(int fd, size_t want, size_t *ret_len)
{
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	void *p;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
		return NULL;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.value_size < want || info.max_entries != 1 ||
	    !(info.map_flags & BPF_F_MMAPABLE)) {
		errno = EPROTO;
		return NULL;
	}
	len = ((size_t)info.value_size + (size_t)page - 1) / (size_t)page * (size_t)page;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	*ret_len = len;
	return p;
}

static int dup_fd(int fd)
{
	int r = fcntl(fd, F_DUPFD_CLOEXEC, 3);

	return r < 0 ? negative_errno() : r;
}

/* ---- selection -------------------------------------------------------------------------- */

enum { SEL_RUN_TASKS, SEL_CGROUP_IDS, SEL_CGROUP_PATHS, SEL_NETNS, SEL_BSS, SEL_N_MAPS };
static const char *const sel_map_pin[SEL_N_MAPS] = { "run_tasks", "cgroup_ids", "cgroup_paths",
						     "netns_cookies", "bss" };
enum { SEL_LINK_SELECT, SEL_LINK_FORK, SEL_LINK_MKDIR, SEL_LINK_BUFS, SEL_N_LINKS };
static const char *const sel_link_pin[SEL_N_LINKS] = { "link_select", "link_fork", "link_mkdir",
						       "link_bufs" };
#define SEL_PROG_MKDIR "prog_mkdir"
/* smc_bufs' map: pinned with the link, when the buffer program is attached. */
#define SEL_MAP_CGROUP_BUFS "cgroup_bufs"

/*
 * Everything is held by file descriptors of our own, whether loaded here (the skeleton is
 * destroyed once they are taken) or adopted from pins: one code path for both.
 */
struct smcbpf_select {
	int map_fd[SEL_N_MAPS];
	int link_fd[SEL_N_LINKS];
	int mkdir_prog_fd;
	int cgroup_bufs_fd;	     /* -1: the buffer program is not attached */
	struct smc_select__bss *bss; /* mmap'ed .bss */
	size_t bss_len;
	char root[PATH_MAX]; /* the pin root, "" when nothing is pinned */
	char dir[PATH_MAX];  /* root/select-HASH */
	bool adopted;
	bool others; /* other layouts were pinned: smcbpf_select_settle() removes them */
	bool reused; /* their maps are ours now, with their entries */
	char pin_why[SMCBPF_WHY_LEN];  /* why nothing is pinned, when pinning was asked for */
	char bufs_why[SMCBPF_WHY_LEN]; /* empty: buffer sizes are applied */
};

static struct smcbpf_select *select_new(void)
{
	struct smcbpf_select *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	for (size_t i = 0; i < SEL_N_MAPS; i++)
		s->map_fd[i] = -1;
	for (size_t i = 0; i < SEL_N_LINKS; i++)
		s->link_fd[i] = -1;
	s->mkdir_prog_fd = -1;
	s->cgroup_bufs_fd = -1;
	return s;
}

struct smcbpf_select *smcbpf_select_free(struct smcbpf_select *s)
{
	if (!s)
		return NULL;
	/* Closing detaches only what is not pinned. */
	for (size_t i = 0; i < SEL_N_LINKS; i++)
		safe_close(s->link_fd[i]);
	if (s->bss)
		munmap(s->bss, s->bss_len);
	for (size_t i = 0; i < SEL_N_MAPS; i++)
		safe_close(s->map_fd[i]);
	safe_close(s->mkdir_prog_fd);
	safe_close(s->cgroup_bufs_fd);
	free(s);
	return NULL;
}

static inline void smcbpf_select_freep(struct smcbpf_select **s)
{
	smcbpf_select_free(*s);
}

struct smcbpf_select *smcbpf_select_unload(struct smcbpf_select *s)
{
	if (s && s->dir[0])
		(void)remove_layout(s->dir);
	return smcbpf_select_free(s);
}

static int cgroup2_root_fd(void)
{
	char root[PATH_MAX];
	int r = smcbpf_cgroup2_root(root, sizeof(root));

	if (r < 0)
		return r;
	r = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return r < 0 ? negative_errno() : r;
}

/* A tracing program (fmod_ret, tp_btf) attached where it was loaded for. */
static int attach_tracing(int prog_fd)
{
	int fd = bpf_raw_tracepoint_open(NULL, prog_fd);

	return fd < 0 ? -errno : fd;
}

#define BUFS_CAPS (BPF_REASON_CAP(BPF) | BPF_REASON_CAP(NET_ADMIN))

static bool reuse_compatible(struct bpf_map *m, const char *other_dir, const char *name);

struct bufs_reuse_arg {
	struct bpf_map *map;
	bool leftovers; /* as in reuse_arg */
	bool found;
};

static int bufs_reuse_from(const char *dir, void *arg)
{
	struct bufs_reuse_arg *a = arg;
	const char *name = strrchr(dir, '/') + 1;

	if (a->found || (startswith(name, "new-") || startswith(name, "stale-")) != a->leftovers)
		return 0;
	a->found = reuse_compatible(a->map, dir, SEL_MAP_CGROUP_BUFS);
	return 0;
}

/*
 * The per-cgroup sizes of another layout go on (the first that has a compatible map, those
 * put in place before a crash's leftovers); a layout from before the map starts empty.
 */
static void bufs_reuse(struct smcbpf_select *s, struct bpf_map *m)
{
	struct bufs_reuse_arg a = { .map = m };

	(void)each_layout(s->root, false, "", bufs_reuse_from, &a);
	a.leftovers = true;
	(void)each_layout(s->root, false, "", bufs_reuse_from, &a);
	s->reused |= a.found;
}

/* The optional part: failures leave bufs_why set and the rest working. */
static void bufs_open(struct smcbpf_select *s)
{
	_cleanup_(closep) int cg = -1;
	struct smc_bufs *bufs;
	int r;

	last_warning[0] = verifier_line[0] = '\0';
	bufs = smc_bufs__open();
	if (!bufs) {
		snprintf(s->bufs_why, sizeof(s->bufs_why), "cannot open the buffer program: %s",
			 strerror(errno));
		return;
	}
	r = bpf_map__reuse_fd(bufs->maps.run_tasks, s->map_fd[SEL_RUN_TASKS]);
	if (r == 0 && s->root[0])
		bufs_reuse(s, bufs->maps.cgroup_bufs);
	if (r == 0)
		r = smc_bufs__load(bufs);
	if (r == -EPERM) {
		(void)smcbpf_load_reason(r, "load", "the buffer program", NULL, BUFS_CAPS, NULL,
					 s->bufs_why, sizeof(s->bufs_why));
		goto out;
	}
	if (r < 0) {
		snprintf(s->bufs_why, sizeof(s->bufs_why),
			 "this kernel does not let BPF set SO_SNDBUF/SO_RCVBUF as a socket is created (the verifier says: %s)",
			 failure_detail()[0] ? failure_detail() : strerror(-r));
		goto out;
	}
	cg = cgroup2_root_fd();
	if (cg < 0) {
		snprintf(s->bufs_why, sizeof(s->bufs_why), "no cgroup2 hierarchy is mounted: %s",
			 strerror(-cg));
		goto out;
	}
	r = bpf_link_create(bpf_program__fd(bufs->progs.smcd_bufs), cg, BPF_CGROUP_INET_SOCK_CREATE,
			    NULL);
	if (r < 0) {
		(void)smcbpf_load_reason(negative_errno(), "attach", "the buffer program",
					 "cgroup socket-creation hook", BUFS_CAPS, NULL,
					 s->bufs_why, sizeof(s->bufs_why));
		goto out;
	}
	s->link_fd[SEL_LINK_BUFS] = r;
	r = dup_fd(bpf_map__fd(bufs->maps.cgroup_bufs));
	if (r < 0) {
		snprintf(s->bufs_why, sizeof(s->bufs_why), "cannot hold the cgroup buffer map: %s",
			 strerror(-r));
		s->link_fd[SEL_LINK_BUFS] = safe_close(s->link_fd[SEL_LINK_BUFS]);
		goto out;
	}
	s->cgroup_bufs_fd = r;
out:
	smc_bufs__destroy(bufs);
}

/* A map of another layout that the new programs can use as it is (same definition). */
static bool reuse_compatible(struct bpf_map *m, const char *other_dir, const char *name)
{
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info);
	_cleanup_(closep) int fd = obj_get(other_dir, name);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
		return false;
	if (info.type != bpf_map__type(m) || info.key_size != bpf_map__key_size(m) ||
	    info.value_size != bpf_map__value_size(m) ||
	    info.max_entries != bpf_map__max_entries(m) || info.map_flags != bpf_map__map_flags(m))
		return false;
	return bpf_map__reuse_fd(m, fd) == 0;
}

struct reuse_arg {
	struct smc_select *skel;
	bool leftovers; /* this pass: new-* and stale-* (a crash's), else complete layouts */
	bool reused;	/* a map of the layout looked at was taken */
	bool found;	/* done: one layout lent its maps */
};

/*
 * The first other layout lends its maps: enrollments and rules go on in the new programs.
 * Layouts that were put in place go first; a crash's leftovers only when there is none.
 */
static int reuse_from(const char *dir, void *arg)
{
	struct reuse_arg *a = arg;
	struct bpf_map *maps[] = { a->skel->maps.run_tasks, a->skel->maps.cgroup_ids,
				   a->skel->maps.cgroup_paths, a->skel->maps.netns_cookies };
	const char *name = strrchr(dir, '/') + 1;

	if ((startswith(name, "new-") || startswith(name, "stale-")) != a->leftovers)
		return 0;
	for (size_t i = 0; !a->found && i < ELEMENTSOF(maps); i++)
		a->reused |= reuse_compatible(maps[i], dir, sel_map_pin[i]);
	a->found = a->reused;
	return 0;
}

static int any_cb(const char *dir, void *arg)
{
	(void)dir;
	*(bool *)arg = true;
	return 1;
}

bool smcbpf_pinned_any(const char *pin_root, bool excl)
{
	bool any = false;

	(void)each_layout(pin_root, excl, "", any_cb, &any);
	return any;
}

/* Any selection layout but keep? */
static bool smcbpf_pinned_others(const char *pin_root, const char *keep)
{
	bool any = false;

	(void)each_layout(pin_root, false, keep, any_cb, &any);
	return any;
}

/* Pin everything of s as root/select-HASH. */
static int select_pin(struct smcbpf_select *s, const char *layout, char *why, size_t len)
{
	char tmp[PATH_MAX];
	int r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/new-%s-%d", s->root, layout, (int)getpid()) >=
	    sizeof(tmp))
		return smcbpf_why_set(why, len, -ENAMETOOLONG, "the pin directory %s is too long",
				      s->root);
	(void)remove_layout(tmp);
	if (mkdir(tmp, 0700) < 0)
		return smcbpf_why_set(why, len, negative_errno(), "cannot create %s: %s", tmp,
				      strerror(errno));
	for (size_t i = 0; i < SEL_N_MAPS; i++) {
		r = obj_pin(s->map_fd[i], tmp, sel_map_pin[i]);
		if (r < 0)
			goto fail;
	}
	r = obj_pin(s->mkdir_prog_fd, tmp, SEL_PROG_MKDIR);
	if (r == 0 && s->cgroup_bufs_fd >= 0)
		r = obj_pin(s->cgroup_bufs_fd, tmp, SEL_MAP_CGROUP_BUFS);
	for (size_t i = 0; r == 0 && i < SEL_N_LINKS; i++)
		if (s->link_fd[i] >= 0)
			r = obj_pin(s->link_fd[i], tmp, sel_link_pin[i]);
	if (r == 0)
		r = layout_commit(s->root, tmp, s->dir);
	if (r == 0)
		return 0;
fail:
	(void)remove_layout(tmp);
	return smcbpf_why_set(why, len, r, "cannot pin the programs in %s: %s", s->root,
			      strerror(-r));
}

int smcbpf_select_open(bool buffers, const char *pin_root, struct smcbpf_select **ret, char *why,
		       size_t len)
{
	_cleanup_(smcbpf_select_freep) struct smcbpf_select *s = select_new();
	struct reuse_arg reuse = {};
	struct smc_select *skel;
	char layout[64];
	int r;

	if (!s)
		return -ENOMEM;
	log_init();
	r = smcbpf_probe_select(why, len);
	if (r < 0)
		return r;
	layout_name(layout, sizeof(layout), false);
	if (pin_root) {
		r = pin_root_ready(pin_root, s->pin_why, sizeof(s->pin_why));
		if (r == 0) {
			snprintf(s->root, sizeof(s->root), "%s", pin_root);
			snprintf(s->dir, sizeof(s->dir), "%s/%s", pin_root, layout);
		}
	}
	skel = smc_select__open();
	if (!skel)
		return explain_select_failure(negative_errno(), "open", NULL, why, len);
	if (s->root[0]) {
		/* Ours too, when it is there: adoption refused it as incomplete. */
		reuse.skel = skel;
		(void)each_layout(s->root, false, "", reuse_from, &reuse);
		reuse.leftovers = true;
		(void)each_layout(s->root, false, "", reuse_from, &reuse);
		s->others = smcbpf_pinned_any(s->root, false);
		s->reused = reuse.found;
	}
	r = smc_select__load(skel);
	if (r < 0) {
		smc_select__destroy(skel);
		return explain_select_failure(r, "load", "update_socket_protocol function", why, len);
	}
	{
		struct bpf_map *maps[SEL_N_MAPS] = { skel->maps.run_tasks, skel->maps.cgroup_ids,
						     skel->maps.cgroup_paths,
						     skel->maps.netns_cookies, skel->maps.bss };

		for (size_t i = 0; i < SEL_N_MAPS && r >= 0; i++)
			r = s->map_fd[i] = dup_fd(bpf_map__fd(maps[i]));
	}
	if (r >= 0)
		r = s->mkdir_prog_fd = dup_fd(bpf_program__fd(skel->progs.smcd_cgroup_mkdir));
	if (r >= 0) {
		s->bss = bss_map(s->map_fd[SEL_BSS], sizeof(*s->bss), &s->bss_len);
		if (!s->bss)
			r = negative_errno();
	}
	if (r < 0) {
		smc_select__destroy(skel);
		return explain_select_failure(r, "load", "update_socket_protocol function", why, len);
	}
	r = s->link_fd[SEL_LINK_SELECT] = attach_tracing(bpf_program__fd(skel->progs.smcd_select));
	if (r < 0) {
		smc_select__destroy(skel);
		return explain_select_failure(r, "attach", "update_socket_protocol function", why,
					      len);
	}
	r = s->link_fd[SEL_LINK_FORK] = attach_tracing(bpf_program__fd(skel->progs.smcd_fork));
	smc_select__destroy(skel);
	if (r < 0)
		return explain_select_failure(r, "attach", "sched_process_fork tracepoint", why, len);
	if (buffers)
		bufs_open(s);
	else
		snprintf(s->bufs_why, sizeof(s->bufs_why), "not requested");
	if (s->root[0] && select_pin(s, layout, s->pin_why, sizeof(s->pin_why)) < 0) {
		s->root[0] = s->dir[0] = '\0';
		s->others = false;
	}
	*ret = TAKE_PTR(s);
	return 0;
}

int smcbpf_select_adopt(const char *pin_root, struct smcbpf_select **ret, char *why, size_t len)
{
	_cleanup_(smcbpf_select_freep) struct smcbpf_select *s = select_new();
	char layout[64];
	struct stat st;
	int r;

	if (!s)
		return -ENOMEM;
	why[0] = '\0';
	layout_name(layout, sizeof(layout), false);
	snprintf(s->root, sizeof(s->root), "%s", pin_root);
	snprintf(s->dir, sizeof(s->dir), "%s/%s", pin_root, layout);
	if (stat(s->dir, &st) < 0)
		return errno == ENOENT
			       ? 0
			       : smcbpf_why_set(why, len, negative_errno(), "cannot look at %s: %s",
						s->dir, strerror(errno));
	for (size_t i = 0; i < SEL_N_MAPS; i++) {
		r = s->map_fd[i] = obj_get(s->dir, sel_map_pin[i]);
		if (r < 0)
			goto incomplete;
	}
	r = s->mkdir_prog_fd = obj_get(s->dir, SEL_PROG_MKDIR);
	if (r < 0)
		goto incomplete;
	for (size_t i = 0; i < SEL_N_LINKS; i++) {
		s->link_fd[i] = obj_get(s->dir, sel_link_pin[i]);
		r = s->link_fd[i] >= 0 || i == SEL_LINK_MKDIR || i == SEL_LINK_BUFS ? 0
										    : s->link_fd[i];
		if (r < 0)
			goto incomplete;
	}
	if (s->link_fd[SEL_LINK_BUFS] >= 0) {
		r = s->cgroup_bufs_fd = obj_get(s->dir, SEL_MAP_CGROUP_BUFS);
		if (r < 0)
			goto incomplete;
	}
	s->bss = bss_map(s->map_fd[SEL_BSS], sizeof(*s->bss), &s->bss_len);
	if (!s->bss) {
		r = negative_errno();
		goto incomplete;
	}
	if (s->link_fd[SEL_LINK_BUFS] < 0)
		snprintf(s->bufs_why, sizeof(s->bufs_why),
			 "the agent that loaded the pinned programs could not attach the buffer program");
	s->adopted = true;
	/* Another layout beside ours: a replacement was killed before it settled. */
	s->others = smcbpf_pinned_others(s->root, layout);
	*ret = TAKE_PTR(s);
	return 1;
incomplete:
	/* Replaced like any other layout by smcbpf_select_open(). */
	snprintf(why, len, "%s is incomplete (%s: %s); loading the programs again", s->dir,
		 strerror(-r), "a crash while it was written, or someone removed pins");
	return 0;
}

int smcbpf_select_settle(struct smcbpf_select *s)
{
	char keep[PATH_MAX];
	int r;

	if (!s->root[0] || !s->others)
		return 0;
	snprintf(keep, sizeof(keep), "%s", strrchr(s->dir, '/') + 1);
	r = each_layout(s->root, false, keep, remove_layout_cb, NULL);
	if (r == 0)
		s->others = false;
	return r;
}

bool smcbpf_select_reused(const struct smcbpf_select *s)
{
	return s->reused;
}

void smcbpf_select_pins(const struct smcbpf_select *s, const char **ret_dir, bool *ret_adopted,
			const char **ret_why)
{
	*ret_dir = s->dir[0] ? s->dir : NULL;
	*ret_adopted = s->adopted;
	*ret_why = s->dir[0] ? NULL : s->pin_why[0] ? s->pin_why : "not asked to pin";
}

const char *smcbpf_select_buffers(const struct smcbpf_select *s)
{
	return s->bufs_why[0] ? s->bufs_why : NULL;
}

int smcbpf_cgroup_bufs_put(struct smcbpf_select *s, uint64_t cgroup_id, uint32_t sndbuf,
			   uint32_t rcvbuf)
{
	struct smcbpf_bufs v = { .sndbuf = sndbuf, .rcvbuf = rcvbuf };

	if (s->cgroup_bufs_fd < 0)
		return -EOPNOTSUPP;
	if (bpf_map_update_elem(s->cgroup_bufs_fd, &cgroup_id, &v, BPF_ANY) < 0)
		return negative_errno(); /* -E2BIG: SMCBPF_MAX_CGROUP_BUFS are there */
	return 0;
}

int smcbpf_cgroup_bufs_del(struct smcbpf_select *s, uint64_t cgroup_id)
{
	if (s->cgroup_bufs_fd < 0)
		return -EOPNOTSUPP;
	if (bpf_map_delete_elem(s->cgroup_bufs_fd, &cgroup_id) < 0)
		return negative_errno();
	return 0;
}

int smcbpf_cgroup_bufs_list(struct smcbpf_select *s, struct smcbpf_cgroup_bufs **ret, size_t *ret_n)
{
	struct smcbpf_cgroup_bufs *v;
	uint64_t key, next;
	void *prev = NULL;
	size_t n = 0;

	if (s->cgroup_bufs_fd < 0)
		return -EOPNOTSUPP;
	v = calloc(SMCBPF_MAX_CGROUP_BUFS, sizeof(*v));
	if (!v)
		return -ENOMEM;
	while (n < SMCBPF_MAX_CGROUP_BUFS &&
	       bpf_map_get_next_key(s->cgroup_bufs_fd, prev, &next) == 0) {
		struct smcbpf_bufs b;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(s->cgroup_bufs_fd, &key, &b) < 0)
			continue; /* deleted meanwhile */
		v[n++] = (struct smcbpf_cgroup_bufs){ .cgroup_id = key,
						      .sndbuf = b.sndbuf,
						      .rcvbuf = b.rcvbuf };
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int smcbpf_enroll(struct smcbpf_select *s, int pidfd, uint32_t run_id, uint32_t sndbuf,
		  uint32_t rcvbuf)
{
	struct smcbpf_run_mark m = { .run_id = run_id, .sndbuf = sndbuf, .rcvbuf = rcvbuf };

	if (bpf_map_update_elem(s->map_fd[SEL_RUN_TASKS], &pidfd, &m, BPF_ANY) < 0)
		return negative_errno();
	return 0;
}

int smcbpf_rule_counts(struct smcbpf_select *s, uint32_t n_cgroup, uint32_t n_netns)
{
	__atomic_store_n(&s->bss->n_cgroup_rules, n_cgroup, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->bss->n_netns_rules, n_netns, __ATOMIC_SEQ_CST);
	return 0;
}

int smcbpf_cgroup_mkdir_attach(struct smcbpf_select *s, bool on)
{
	int fd, r;

	if (!on) {
		if (s->dir[0]) {
			r = obj_unpin(s->dir, sel_link_pin[SEL_LINK_MKDIR]);
			if (r < 0)
				return r;
		}
		s->link_fd[SEL_LINK_MKDIR] = safe_close(s->link_fd[SEL_LINK_MKDIR]);
		return 0;
	}
	if (s->link_fd[SEL_LINK_MKDIR] >= 0)
		return 0;
	fd = attach_tracing(s->mkdir_prog_fd);
	if (fd < 0)
		return fd;
	if (s->dir[0]) {
		r = obj_pin(fd, s->dir, sel_link_pin[SEL_LINK_MKDIR]);
		if (r < 0) {
			close(fd);
			return r;
		}
	}
	s->link_fd[SEL_LINK_MKDIR] = fd;
	return 0;
}

static int map_put(int fd, const void *key, const void *value)
{
	return bpf_map_update_elem(fd, key, value, BPF_ANY) < 0 ? negative_errno() : 0;
}

static int map_del(int fd, const void *key)
{
	if (bpf_map_delete_elem(fd, key) < 0 && errno != ENOENT)
		return negative_errno();
	return 0;
}

static void path_key(struct smcbpf_cgroup_path *k, const char *path)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->path, sizeof(k->path), "%s", path);
}

int smcbpf_cgroup_path_put(struct smcbpf_select *s, const char *path, uint32_t idx)
{
	struct smcbpf_cgroup_path k;

	if (strlen(path) >= sizeof(k.path))
		return -ENAMETOOLONG;
	path_key(&k, path);
	return map_put(s->map_fd[SEL_CGROUP_PATHS], &k, &idx);
}

int smcbpf_cgroup_path_del(struct smcbpf_select *s, const char *path)
{
	struct smcbpf_cgroup_path k;

	path_key(&k, path);
	return map_del(s->map_fd[SEL_CGROUP_PATHS], &k);
}

int smcbpf_cgroup_id_put(struct smcbpf_select *s, uint64_t id, uint32_t idx)
{
	return map_put(s->map_fd[SEL_CGROUP_IDS], &id, &idx);
}

int smcbpf_cgroup_id_del(struct smcbpf_select *s, uint64_t id)
{
	return map_del(s->map_fd[SEL_CGROUP_IDS], &id);
}

int smcbpf_netns_put(struct smcbpf_select *s, uint64_t cookie, uint32_t idx)
{
	return map_put(s->map_fd[SEL_NETNS], &cookie, &idx);
}

int smcbpf_netns_del(struct smcbpf_select *s, uint64_t cookie)
{
	return map_del(s->map_fd[SEL_NETNS], &cookie);
}

/* All entries of a hash map with u64 keys and u32 values. */
static int list_u64(int fd, struct smcbpf_entry **ret, size_t *ret_n)
{
	size_t n = 0, cap = 16;
	struct smcbpf_entry *v = malloc(cap * sizeof(*v));
	uint64_t key, next;
	void *prev = NULL;

	if (!v)
		return -ENOMEM;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		uint32_t idx;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &idx) < 0)
			continue; /* deleted meanwhile */
		if (n == cap) {
			struct smcbpf_entry *w = realloc(v, 2 * cap * sizeof(*v));

			if (!w) {
				free(v);
				return -ENOMEM;
			}
			v = w;
			cap *= 2;
		}
		v[n++] = (struct smcbpf_entry){ .key = key, .idx = idx };
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int smcbpf_cgroup_ids(struct smcbpf_select *s, struct smcbpf_entry **ret, size_t *ret_n)
{
	return list_u64(s->map_fd[SEL_CGROUP_IDS], ret, ret_n);
}

int smcbpf_netns_list(struct smcbpf_select *s, struct smcbpf_entry **ret, size_t *ret_n)
{
	return list_u64(s->map_fd[SEL_NETNS], ret, ret_n);
}

int smcbpf_cgroup_paths(struct smcbpf_select *s, char (**ret)[SMCBPF_CGROUP_PATH_MAX],
			uint32_t **ret_idx, size_t *ret_n)
{
	int fd = s->map_fd[SEL_CGROUP_PATHS];
	char(*paths)[SMCBPF_CGROUP_PATH_MAX] = calloc(SMCBPF_MAX_RULES, sizeof(*paths));
	uint32_t *idx = calloc(SMCBPF_MAX_RULES, sizeof(*idx));
	struct smcbpf_cgroup_path key, next;
	void *prev = NULL;
	size_t n = 0;

	if (!paths || !idx) {
		free(paths);
		free(idx);
		return -ENOMEM;
	}
	while (n < SMCBPF_MAX_RULES && bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &idx[n]) < 0)
			continue;
		memcpy(paths[n], key.path, sizeof(key.path));
		paths[n][SMCBPF_CGROUP_PATH_MAX - 1] = '\0';
		n++;
	}
	*ret = paths;
	*ret_idx = idx;
	*ret_n = n;
	return 0;
}

void smcbpf_select_state(struct smcbpf_select *s, uint32_t *ret_n_cgroup, uint32_t *ret_n_netns,
			 bool *ret_mkdir)
{
	*ret_n_cgroup = __atomic_load_n(&s->bss->n_cgroup_rules, __ATOMIC_SEQ_CST);
	*ret_n_netns = __atomic_load_n(&s->bss->n_netns_rules, __ATOMIC_SEQ_CST);
	*ret_mkdir = s->link_fd[SEL_LINK_MKDIR] >= 0;
}

int smcbpf_counters(struct smcbpf_select *s, uint64_t ret[SMCBPF_N_COUNTERS])
{
	for (size_t i = 0; i < SMCBPF_N_COUNTERS; i++)
		ret[i] = __atomic_load_n(&s->bss->counters[i], __ATOMIC_RELAXED);
	return 0;
}

void smcbpf_counters_reset(struct smcbpf_select *s, uint32_t first, uint32_t n)
{
	for (uint32_t i = first; i < first + n && i < SMCBPF_N_COUNTERS; i++)
		__atomic_store_n(&s->bss->counters[i], 0, __ATOMIC_RELAXED);
}

/* ---- exclusions ------------------------------------------------------------------------- */

struct smcbpf_excl {
	int ops_fd; /* the struct_ops map: registered while the kernel has it */
	uint32_t ops_id;
	bool keep; /* free must not unregister (an incomplete layout being given up) */
	int bss_fd;
	struct smc_excl__bss *bss;
	size_t bss_len;
	char root[PATH_MAX];
	char dir[PATH_MAX]; /* root/excl-HASH, "" when not pinned */
	bool adopted;
	char pin_why[SMCBPF_WHY_LEN];
};

int smcbpf_probe_excl(char *why, size_t len)
{
	int r;

	log_init();
	r = need_btf(why, len);
	if (r < 0)
		return r;
	r = btf_has("smc_hs_ctrl", BTF_KIND_STRUCT);
	if (r < 0)
		return smcbpf_why_set(why, len, r, "cannot read the kernel's BTF: %s", strerror(-r));
	if (r > 0)
		return 0;
	if (module_btf_has("smc", "smc_hs_ctrl", BTF_KIND_STRUCT) > 0)
		return smcbpf_why_set(
			why, len, -ENOTSUP,
			"smc_hs_ctrl is in the smc module's BTF, and the libbpf this was built with (%d.%d) registers struct_ops of vmlinux only (libbpf 1.4 or later can)",
			LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
	return smcbpf_why_set(
		why, len, -ENOTSUP,
		"this kernel has no smc_hs_ctrl (Linux 6.19 or later with CONFIG_SMC_HS_CTRL_BPF)");
}

/* A struct_ops map of ours registered by an earlier agent: unregister it. */
static int unregister_stale(void)
{
	uint32_t id = 0;
	int n = 0;

	while (bpf_map_get_next_id(id, &id) == 0) {
		struct bpf_map_info info = {};
		uint32_t info_len = sizeof(info);
		_cleanup_(closep) int fd = bpf_map_get_fd_by_id(id);
		int zero = 0;

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
			continue;
		if (info.type != BPF_MAP_TYPE_STRUCT_OPS || !streq(info.name, SMCBPF_EXCL_NAME))
			continue;
		if (bpf_map_delete_elem(fd, &zero) == 0) {
			n++;
			if (log_fn)
				log_fn(1,
				       "unregistered a stale smcd_excl smc_hs_ctrl left by an earlier agent");
		}
	}
	return n;
}

static struct smcbpf_excl *excl_new(void)
{
	struct smcbpf_excl *e = calloc(1, sizeof(*e));

	if (e)
		e->ops_fd = e->bss_fd = -1;
	return e;
}

static void excl_close(struct smcbpf_excl *e)
{
	if (e->bss)
		munmap(e->bss, e->bss_len);
	safe_close(e->bss_fd);
	safe_close(e->ops_fd);
	free(e);
}

static void excl_unregister(struct smcbpf_excl *e)
{
	int zero = 0;

	if (e->ops_fd >= 0)
		(void)bpf_map_delete_elem(e->ops_fd, &zero);
}

struct smcbpf_excl *smcbpf_excl_free(struct smcbpf_excl *e)
{
	if (!e)
		return NULL;
	/* Pinned: it stays registered for the next agent.  Not pinned: nobody could adopt it. */
	if (!e->dir[0] && !e->keep)
		excl_unregister(e);
	excl_close(e);
	return NULL;
}

struct smcbpf_excl *smcbpf_excl_unload(struct smcbpf_excl *e)
{
	if (!e)
		return NULL;
	/* Unpinned first: a kill in between leaves a registration unregister_stale() finds,
	 * never a pinned layout that looks adoptable and is not registered. */
	if (e->dir[0])
		(void)remove_layout(e->dir);
	excl_unregister(e);
	excl_close(e);
	return NULL;
}

static uint32_t map_id(int fd)
{
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0 ? 0 : info.id;
}

/* Is the struct_ops map registered (in use by the kernel)?  Its value begins with the
 * kernel's struct bpf_struct_ops_common_value { refcount_t refcnt; enum state; }. */
static bool struct_ops_registered(int fd)
{
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info), state;
	_cleanup_(freep) void *v = NULL;
	int zero = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0 || info.value_size < 8)
		return false;
	v = calloc(1, info.value_size);
	if (!v || bpf_map_lookup_elem(fd, &zero, v) < 0)
		return false;
	memcpy(&state, (char *)v + 4, sizeof(state));
	return state == 1; /* BPF_STRUCT_OPS_STATE_INUSE */
}

bool smcbpf_excl_others_alive(const struct smcbpf_excl *e)
{
	uint32_t id = 0;

	while (bpf_map_get_next_id(id, &id) == 0) {
		struct bpf_map_info info = {};
		uint32_t info_len = sizeof(info);
		_cleanup_(closep) int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
			continue;
		if (info.type == BPF_MAP_TYPE_STRUCT_OPS && streq(info.name, SMCBPF_EXCL_NAME) &&
		    info.id != e->ops_id)
			return true;
	}
	return false;
}

static inline void smcbpf_excl_freep(struct smcbpf_excl **e)
{
	smcbpf_excl_free(*e);
}

static int excl_pin(struct smcbpf_excl *e, const char *layout, char *why, size_t len)
{
	char tmp[PATH_MAX];
	int r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/new-%s-%d", e->root, layout, (int)getpid()) >=
	    sizeof(tmp))
		return smcbpf_why_set(why, len, -ENAMETOOLONG, "the pin directory %s is too long",
				      e->root);
	(void)remove_layout(tmp);
	if (mkdir(tmp, 0700) < 0)
		return smcbpf_why_set(why, len, negative_errno(), "cannot create %s: %s", tmp,
				      strerror(errno));
	r = obj_pin(e->ops_fd, tmp, "struct_ops");
	if (r == 0)
		r = obj_pin(e->bss_fd, tmp, "bss");
	if (r == 0)
		r = layout_commit(e->root, tmp, e->dir);
	if (r == 0)
		return 0;
	(void)remove_layout(tmp);
	return smcbpf_why_set(why, len, r, "cannot pin smc_hs_ctrl in %s: %s", e->root, strerror(-r));
}

int smcbpf_excl_open(const char *pin_root, struct smcbpf_excl **ret, char *why, size_t len)
{
	_cleanup_(smcbpf_excl_freep) struct smcbpf_excl *e = excl_new();
	struct smc_excl *skel;
	struct bpf_link *reg;
	char layout[64];
	int r;

	if (!e)
		return -ENOMEM;
	r = smcbpf_probe_excl(why, len);
	if (r < 0)
		return r;
	layout_name(layout, sizeof(layout), true);
	if (pin_root && pin_root_ready(pin_root, e->pin_why, sizeof(e->pin_why)) == 0) {
		snprintf(e->root, sizeof(e->root), "%s", pin_root);
		snprintf(e->dir, sizeof(e->dir), "%s/%s", pin_root, layout);
	}
	skel = smc_excl__open();
	if (!skel)
		return smcbpf_why_set(why, len, negative_errno(),
				      "cannot open the exclusion program: %s", strerror(errno));
	r = smc_excl__load(skel);
	if (r < 0) {
		smc_excl__destroy(skel);
		return smcbpf_load_reason(r, "load", "the smc_hs_ctrl programs", "smc_hs_ctrl hook",
					  BPF_REASON_CAP(BPF) | BPF_REASON_CAP(NET_ADMIN), NULL,
					  why, len);
	}
	r = e->ops_fd = dup_fd(bpf_map__fd(skel->maps.smcd_excl));
	if (r >= 0) {
		e->ops_id = map_id(e->ops_fd);
		r = e->bss_fd = dup_fd(bpf_map__fd(skel->maps.bss));
	}
	if (r >= 0) {
		e->bss = bss_map(e->bss_fd, sizeof(*e->bss), &e->bss_len);
		if (!e->bss)
			r = negative_errno();
	}
	if (r < 0) {
		smc_excl__destroy(skel);
		return smcbpf_why_set(why, len, r, "cannot take the exclusion program's maps: %s",
				      strerror(-r));
	}
	/* The name is the kernel's key: another registration of it (another layout, or one
	 * that was never pinned) goes first.  Network namespaces that selected it keep it until
	 * net.smc.hs_ctrl names the new one (the caller writes it again). */
	unregister_stale();
	if (e->root[0])
		(void)each_layout(e->root, true, "", remove_layout_cb, NULL);
	reg = bpf_map__attach_struct_ops(skel->maps.smcd_excl);
	if (!reg) {
		r = negative_errno();
		smc_excl__destroy(skel);
		return smcbpf_why_set(why, len, r,
				      "the kernel refused to register smc_hs_ctrl '%s': %s",
				      SMCBPF_EXCL_NAME, strerror(-r));
	}
	/* Ours now (through ops_fd): destroying libbpf's handle must not unregister it. */
	bpf_link__disconnect(reg);
	bpf_link__destroy(reg);
	smc_excl__destroy(skel);
	if (e->root[0] && excl_pin(e, layout, e->pin_why, sizeof(e->pin_why)) < 0)
		e->root[0] = e->dir[0] = '\0';
	*ret = TAKE_PTR(e);
	return 0;
}

int smcbpf_excl_adopt(const char *pin_root, struct smcbpf_excl **ret, char *why, size_t len)
{
	_cleanup_(smcbpf_excl_freep) struct smcbpf_excl *e = excl_new();
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info);
	char layout[64];
	struct stat st;
	int r;

	if (!e)
		return -ENOMEM;
	why[0] = '\0';
	layout_name(layout, sizeof(layout), true);
	snprintf(e->root, sizeof(e->root), "%s", pin_root);
	snprintf(e->dir, sizeof(e->dir), "%s/%s", pin_root, layout);
	if (stat(e->dir, &st) < 0) {
		r = errno == ENOENT ? 0 : -errno;
		e->dir[0] = '\0'; /* nothing to keep registered on free */
		return r == 0 ? 0
			      : smcbpf_why_set(why, len, r, "cannot look at %s/%s: %s", pin_root,
					       layout, strerror(-r));
	}
	r = e->ops_fd = obj_get(e->dir, "struct_ops");
	if (r >= 0)
		r = e->bss_fd = obj_get(e->dir, "bss");
	if (r >= 0 && (bpf_obj_get_info_by_fd(e->ops_fd, &info, &info_len) < 0 ||
		       info.type != BPF_MAP_TYPE_STRUCT_OPS || !streq(info.name, SMCBPF_EXCL_NAME)))
		r = -EPROTO;
	/* Pinned but no longer registered (an unload or flush killed half-way): not adoptable,
	 * registering anew replaces it. */
	if (r >= 0 && !struct_ops_registered(e->ops_fd))
		r = -ENOENT;
	if (r >= 0)
		e->ops_id = info.id;
	if (r >= 0) {
		e->bss = bss_map(e->bss_fd, sizeof(*e->bss), &e->bss_len);
		if (!e->bss)
			r = negative_errno();
	}
	if (r < 0) {
		snprintf(why, len,
			 "%s is incomplete or not registered (%s); registering smc_hs_ctrl again",
			 e->dir, strerror(-r));
		e->keep = true; /* whatever it is, it is not ours to unregister from here */
		return 0;
	}
	e->adopted = true;
	*ret = TAKE_PTR(e);
	return 1;
}

void smcbpf_excl_pins(const struct smcbpf_excl *e, const char **ret_dir, bool *ret_adopted,
		      const char **ret_why)
{
	*ret_dir = e->dir[0] ? e->dir : NULL;
	*ret_adopted = e->adopted;
	*ret_why = e->dir[0] ? NULL : e->pin_why[0] ? e->pin_why : "not asked to pin";
}

int smcbpf_excl_set_rules(struct smcbpf_excl *e, const struct smcbpf_excl_rule *rules, size_t n)
{
	struct smc_excl__bss *b = e->bss;

	if (n > SMCBPF_MAX_EXCL)
		return -E2BIG;
	/* Never a half-written rule in use: none while they change. */
	__atomic_store_n(&b->n_rules, 0, __ATOMIC_SEQ_CST);
	memcpy(b->rules, rules, n * sizeof(*rules));
	memset(b->hits, 0, sizeof(b->hits));
	__atomic_store_n(&b->n_rules, (uint32_t)n, __ATOMIC_SEQ_CST);
	return 0;
}

void smcbpf_excl_rules_get(struct smcbpf_excl *e, struct smcbpf_excl_rule *ret, size_t *ret_n)
{
	uint32_t n = __atomic_load_n(&e->bss->n_rules, __ATOMIC_SEQ_CST);

	if (n > SMCBPF_MAX_EXCL)
		n = SMCBPF_MAX_EXCL;
	memcpy(ret, e->bss->rules, n * sizeof(*ret));
	*ret_n = n;
}

int smcbpf_excl_hits(struct smcbpf_excl *e, uint64_t *ret, size_t n, uint64_t *ret_checked)
{
	for (size_t i = 0; i < n && i < SMCBPF_MAX_EXCL; i++)
		ret[i] = __atomic_load_n(&e->bss->hits[i], __ATOMIC_RELAXED);
	if (ret_checked)
		*ret_checked = __atomic_load_n(&e->bss->checked, __ATOMIC_RELAXED);
	return 0;
}

/* ---- flush -------------------------------------------------------------------------------- */

static int clear_hs_cb(const char *path, void *arg)
{
	char v[32] = "";

	(void)arg;
	if (smcbpf_hs_ctrl_get(path, v, sizeof(v)) == 0 && streq(v, SMCBPF_EXCL_NAME))
		(void)smcbpf_hs_ctrl_set(path, "");
	return 0;
}

struct flush_arg {
	unsigned n;
};

static int flush_cb(const char *dir, void *arg)
{
	struct flush_arg *a = arg;
	_cleanup_(closep) int ops = obj_get(dir, "struct_ops");
	int zero = 0, r;

	a->n++;
	/* Unpinned first (see smcbpf_excl_unload), unregistered through the fd we hold. */
	r = remove_layout(dir);
	if (ops >= 0)
		(void)bpf_map_delete_elem(ops, &zero);
	return r;
}

int smcbpf_excl_retire(const char *pin_root)
{
	bool any = smcbpf_pinned_any(pin_root, true);
	int n, r;

	r = each_layout(pin_root, true, "", remove_layout_cb, NULL);
	n = unregister_stale();
	return r < 0 ? r : n + any;
}

int smcbpf_pin_lock(const char *pin_root, bool wait)
{
	int fd = open(pin_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return negative_errno();
	if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		int r = negative_errno();

		close(fd);
		return r == -EAGAIN ? -EWOULDBLOCK : r;
	}
	return fd;
}

int smcbpf_flush(const char *pin_root, unsigned *ret_n, char *why, size_t len)
{
	struct flush_arg a = {};
	_cleanup_(closep) int lock = -1;
	int r;

	why[0] = '\0';
	lock = smcbpf_pin_lock(pin_root, false);
	if (lock == -EWOULDBLOCK)
		return smcbpf_why_set(
			why, len, -EBUSY,
			"a running smcd-agent holds the programs pinned in %s: stop it first (systemctl stop smcd-agent), then flush",
			pin_root);
	if (lock < 0 && lock != -ENOENT)
		return smcbpf_why_set(why, len, lock, "cannot open %s: %s", pin_root,
				      strerror(-lock));
	/* Exclusions first, out of every netns (a netns that names them keeps them alive). */
	(void)smcbpf_netns_each(clear_hs_cb, NULL);
	r = each_layout(pin_root, true, "", flush_cb, &a);
	unregister_stale(); /* one that was never pinned too */
	if (r == 0)
		r = each_layout(pin_root, false, "", flush_cb, &a);
	if (r < 0)
		return smcbpf_why_set(why, len, r, "cannot remove the pins in %s: %s", pin_root,
				      strerror(-r));
	if (rmdir(pin_root) < 0 && errno != ENOENT && errno != ENOTEMPTY)
		return smcbpf_why_set(why, len, negative_errno(), "cannot remove %s: %s", pin_root,
				      strerror(errno));
	*ret_n = a.n;
	return 0;
}
/* ---- resolving targets ------------------------------------------------------------------ */

int smcbpf_cgroup2_root(char *buf, size_t len)
{
	_cleanup_(fclosep) FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];

	if (!f)
		return negative_errno();
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER */
		char root[PATH_MAX], point[PATH_MAX];
		const char *sep = strstr(line, " - ");
		char fstype[32];

		if (!sep || sscanf(sep, " - %31s", fstype) != 1 || !streq(fstype, "cgroup2"))
			continue;
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2)
			continue;
		if (!streq(root, "/"))
			continue; /* a bind mount of a subtree (inside a container) */
		if ((size_t)snprintf(buf, len, "%s", point) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	return -ENOENT;
}

/* Run fn in the netns at path (the calling thread only), then come back. */
static int in_netns(const char *path, int (*fn)(void *), void *arg)
{
	_cleanup_(closep) int self = -1, target = -1;
	int r, r2;

	if (!path)
		return fn(arg);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return negative_errno();
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return negative_errno();
	if (setns(target, CLONE_NEWNET) < 0)
		return errno == EINVAL ? -ENOTSUP : negative_errno(); /* EINVAL: not a netns */
	r = fn(arg);
	r2 = setns(self, CLONE_NEWNET) < 0 ? negative_errno() : 0;
	if (r2 < 0)
		abort(); /* stuck in the wrong namespace: nothing after this would be right */
	return r;
}

static int cookie_here(void *arg)
{
	_cleanup_(closep) int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof(uint64_t);

	if (fd < 0)
		return negative_errno();
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, arg, &len) < 0)
		return negative_errno();
	return 0;
}

int smcbpf_netns_cookie(const char *path, uint64_t *ret)
{
	return in_netns(path, cookie_here, ret);
}

struct hs_arg {
	char *buf;
	size_t len;
	const char *name;
};

static int hs_get_here(void *arg)
{
	struct hs_arg *a = arg;
	_cleanup_(fclosep) FILE *f = fopen("/proc/sys/net/smc/hs_ctrl", "re");

	if (!f)
		return negative_errno();
	if (!fgets(a->buf, (int)a->len, f))
		a->buf[0] = '\0';
	a->buf[strcspn(a->buf, "\n")] = '\0';
	return 0;
}

static int hs_set_here(void *arg)
{
	struct hs_arg *a = arg;
	_cleanup_(closep) int fd = open("/proc/sys/net/smc/hs_ctrl", O_WRONLY | O_CLOEXEC);
	const char *v = a->name[0] ? a->name : "\n"; /* an empty write would not clear */

	if (fd < 0)
		return negative_errno();
	if (write(fd, v, strlen(v)) < 0)
		return negative_errno();
	return 0;
}

int smcbpf_hs_ctrl_get(const char *netns_path, char *buf, size_t len)
{
	struct hs_arg a = { .buf = buf, .len = len };

	return in_netns(netns_path, hs_get_here, &a);
}

int smcbpf_hs_ctrl_set(const char *netns_path, const char *name)
{
	struct hs_arg a = { .name = name };

	return in_netns(netns_path, hs_set_here, &a);
}

/*
 * Every network namespace that has a process or a name in /run/netns, once each (by the
 * inode of its nsfs file), at most SMCBPF_MAX_NETNS_WALK.
 */
int smcbpf_netns_each(int (*fn)(const char *path, void *arg), void *arg)
{
	_cleanup_(freep) ino_t *seen = calloc(SMCBPF_MAX_NETNS_WALK, sizeof(ino_t));
	const char *const dirs[] = { "/run/netns", "/proc" };
	size_t n = 0;
	int r;

	if (!seen)
		return -ENOMEM;
	for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *de;

		if (!dir)
			continue;
		while ((de = readdir(dir)) && n < SMCBPF_MAX_NETNS_WALK) {
			char path[64];
			struct stat st;
			bool seen_before = false;

			if (de->d_name[0] == '.')
				continue;
			if (d == 1 && strspn(de->d_name, "0123456789") != strlen(de->d_name))
				continue;
			if ((size_t)snprintf(path, sizeof(path),
					     d == 1 ? "/proc/%s/ns/net" : "/run/netns/%s",
					     de->d_name) >= sizeof(path))
				continue;
			if (stat(path, &st) < 0)
				continue;
			for (size_t i = 0; i < n && !seen_before; i++)
				seen_before = seen[i] == st.st_ino;
			if (seen_before)
				continue;
			seen[n++] = st.st_ino;
			r = fn(path, arg);
			if (r < 0) {
				closedir(dir);
				return r;
			}
		}
		closedir(dir);
	}
	return 0;
}

/* ---- fallback attribution ----------------------------------------------------------------- */

#define FALLBACK_TP "btf_trace_smc_switch_to_fallback"

int smcbpf_probe_fallback(char *why, size_t len)
{
	int r;

	log_init();
	r = need_btf(why, len);
	if (r < 0)
		return r;
	r = btf_has(FALLBACK_TP, BTF_KIND_TYPEDEF);
	if (r < 0)
		return smcbpf_why_set(why, len, r, "cannot read the kernel's BTF: %s", strerror(-r));
	if (r > 0)
		return 0;
	if (access("/sys/kernel/btf/smc", R_OK) == 0) {
		if (module_btf_has("smc", FALLBACK_TP, BTF_KIND_TYPEDEF) > 0)
			return 0;
		return smcbpf_why_set(why, len, -ENOTSUP,
				      "the smc module's BTF has no smc:smc_switch_to_fallback tracepoint "
				      "(Linux 5.17 or later)");
	}
	if (access("/sys/module/smc", F_OK) == 0)
		return smcbpf_why_set(
			why, len, -ENOTSUP,
			"the smc module carries no BTF (/sys/kernel/btf/smc; "
			"CONFIG_DEBUG_INFO_BTF_MODULES), which the fallback tracepoint needs");
	return smcbpf_why_set(why, len, -ENOENT,
			      "SMC is not loaded (the smc:smc_switch_to_fallback tracepoint comes with "
			      "the smc module)");
}

struct smcbpf_fallback {
	struct smc_fallback *skel;
	struct ring_buffer *ring;
	smcbpf_fallback_fn fn;
	void *arg;
};

static int ring_cb(void *ctx, void *data, size_t size)
{
	struct smcbpf_fallback *f = ctx;

	if (size >= sizeof(struct smcbpf_fallback_event))
		f->fn(data, f->arg);
	return 0;
}

int smcbpf_fallback_open(smcbpf_fallback_fn fn, void *arg, struct smcbpf_fallback **ret, char *why,
			 size_t len)
{
	struct smcbpf_fallback *f;
	int r;

	r = smcbpf_probe_fallback(why, len);
	if (r < 0)
		return r;
	f = calloc(1, sizeof(*f));
	if (!f)
		return smcbpf_why_set(why, len, -ENOMEM, "out of memory");
	f->fn = fn;
	f->arg = arg;
	f->skel = smc_fallback__open();
	if (!f->skel) {
		r = negative_errno();
		smcbpf_fallback_free(f);
		return smcbpf_why_set(why, len, r, "cannot open the fallback program: %s",
				      strerror(-r));
	}
	r = smc_fallback__load(f->skel);
	if (r < 0) {
		smcbpf_fallback_free(f);
		return smcbpf_load_reason(
			r, "load", "the fallback program", "smc:smc_switch_to_fallback tracepoint",
			BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON), NULL, why, len);
	}
	r = smc_fallback__attach(f->skel);
	if (r < 0) {
		smcbpf_fallback_free(f);
		return smcbpf_load_reason(r, "attach", "the fallback program",
					  "smc:smc_switch_to_fallback tracepoint",
					  BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON), NULL, why,
					  len);
	}
	f->ring = ring_buffer__new(bpf_map__fd(f->skel->maps.events), ring_cb, f, NULL);
	if (!f->ring) {
		r = negative_errno();
		smcbpf_fallback_free(f);
		return smcbpf_why_set(why, len, r, "cannot read the fallback ring buffer: %s",
				      strerror(-r));
	}
	*ret = f;
	return 0;
}

int smcbpf_fallback_fd(const struct smcbpf_fallback *f)
{
	return ring_buffer__epoll_fd(f->ring);
}

int smcbpf_fallback_consume(struct smcbpf_fallback *f)
{
	return ring_buffer__consume(f->ring);
}

void smcbpf_fallback_counts(const struct smcbpf_fallback *f, uint64_t *ret_seen, uint64_t *ret_dropped)
{
	*ret_seen = f->skel->bss->seen;
	*ret_dropped = f->skel->bss->dropped;
}

struct smcbpf_fallback *smcbpf_fallback_free(struct smcbpf_fallback *f)
{
	if (!f)
		return NULL;
	ring_buffer__free(f->ring);
	smc_fallback__destroy(f->skel);
	free(f);
	return NULL;
}

/* ---- assessment ---------------------------------------------------------------------------- */

int smcbpf_probe_assess(char *why, size_t len)
{
	int r;

	log_init();
	r = need_btf(why, len);
	if (r < 0)
		return r;
	r = btf_has("btf_trace_inet_sock_set_state", BTF_KIND_TYPEDEF);
	if (r < 0)
		return smcbpf_why_set(why, len, r, "cannot read the kernel's BTF: %s", strerror(-r));
	if (r == 0)
		return smcbpf_why_set(why, len, -ENOTSUP,
				      "this kernel's BTF has no sock:inet_sock_set_state tracepoint "
				      "(Linux 4.16 or later)");
	r = btf_has("tcp_sendmsg", BTF_KIND_FUNC);
	if (r <= 0)
		return smcbpf_why_set(why, len, r < 0 ? r : -ENOTSUP,
				      "this kernel's BTF has no tcp_sendmsg to attach to");
	return 0;
}

#define ASSESS_TARGETS "sock:inet_sock_set_state tracepoint or tcp_sendmsg function"

struct smcbpf_assess {
	struct smc_assess *skel;
	struct smc_assess_smc *smc; /* NULL: SMC's send and receive are not traced */
	struct ring_buffer *ring;
	smcbpf_assess_fn fn;
	void *arg;
	char smc_why[SMCBPF_WHY_LEN]; /* else why not */
};

/* Are SMC's send and receive functions in a BTF (vmlinux's, or the loaded smc module's)? */
static bool smc_traceable(char *why, size_t len)
{
	static const char *const fns[] = { "smc_sendmsg", "smc_recvmsg" };

	for (size_t i = 0; i < ELEMENTSOF(fns); i++) {
		if (btf_has(fns[i], BTF_KIND_FUNC) > 0)
			continue;
		if (access("/sys/kernel/btf/smc", R_OK) == 0) {
			if (module_btf_has("smc", fns[i], BTF_KIND_FUNC) > 0)
				continue;
			snprintf(why, len, "the smc module's BTF has no %s", fns[i]);
			return false;
		}
		if (access("/sys/module/smc", F_OK) == 0)
			snprintf(why, len,
				 "the smc module carries no BTF (/sys/kernel/btf/smc; "
				 "CONFIG_DEBUG_INFO_BTF_MODULES)");
		else
			snprintf(why, len,
				 "SMC's %s is in no BTF: the smc module is not loaded (modprobe smc), "
				 "or this kernel has no SMC",
				 fns[i]);
		return false;
	}
	return true;
}

#define ASSESS_SMC_TARGETS "smc_sendmsg or smc_recvmsg function"

/* The optional part (smc_assess_smc): failures leave smc_why set and the rest working. */
static void assess_smc_open(struct smcbpf_assess *a)
{
	struct smc_assess_smc *skel;
	int r;

	if (!smc_traceable(a->smc_why, sizeof(a->smc_why)))
		return;
	last_warning[0] = verifier_line[0] = '\0';
	skel = smc_assess_smc__open();
	if (!skel) {
		snprintf(a->smc_why, sizeof(a->smc_why),
			 "cannot open SMC's assessment programs: %s", strerror(errno));
		return;
	}
	r = bpf_map__reuse_fd(skel->maps.open_conns, bpf_map__fd(a->skel->maps.open_conns));
	if (r == 0) {
		r = smc_assess_smc__load(skel);
		if (r < 0)
			(void)smcbpf_load_reason(r, "load", "SMC's assessment programs",
						 ASSESS_SMC_TARGETS,
						 BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON),
						 NULL, a->smc_why, sizeof(a->smc_why));
	} else {
		snprintf(a->smc_why, sizeof(a->smc_why), "cannot share the connection map: %s",
			 strerror(-r));
	}
	if (r == 0) {
		r = smc_assess_smc__attach(skel);
		if (r < 0)
			(void)smcbpf_load_reason(r, "attach", "SMC's assessment programs",
						 ASSESS_SMC_TARGETS,
						 BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON),
						 NULL, a->smc_why, sizeof(a->smc_why));
	}
	if (r < 0) {
		smc_assess_smc__destroy(skel);
		return;
	}
	a->smc = skel;
	a->smc_why[0] = '\0';
}

static int assess_ring_cb(void *ctx, void *data, size_t size)
{
	struct smcbpf_assess *a = ctx;

	if (size >= sizeof(struct smcbpf_assess_rec))
		a->fn(data, a->arg);
	return 0;
}

int smcbpf_assess_open(smcbpf_assess_fn fn, void *arg, struct smcbpf_assess **ret, char *why,
		       size_t len)
{
	struct smcbpf_assess *a;
	int r;

	r = smcbpf_probe_assess(why, len);
	if (r < 0)
		return r;
	a = calloc(1, sizeof(*a));
	if (!a)
		return smcbpf_why_set(why, len, -ENOMEM, "out of memory");
	a->fn = fn;
	a->arg = arg;
	a->skel = smc_assess__open();
	if (!a->skel) {
		r = negative_errno();
		smcbpf_assess_free(a);
		return smcbpf_why_set(why, len, r, "cannot open the assessment programs: %s",
				      strerror(-r));
	}
	r = smc_assess__load(a->skel);
	if (r < 0) {
		smcbpf_assess_free(a);
		return smcbpf_load_reason(r, "load", "the assessment programs", ASSESS_TARGETS,
					  BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON), NULL, why,
					  len);
	}
	r = smc_assess__attach(a->skel);
	if (r < 0) {
		smcbpf_assess_free(a);
		return smcbpf_load_reason(r, "attach", "the assessment programs", ASSESS_TARGETS,
					  BPF_REASON_CAP(BPF) | BPF_REASON_CAP(PERFMON), NULL, why,
					  len);
	}
	assess_smc_open(a);
	a->ring = ring_buffer__new(bpf_map__fd(a->skel->maps.closed), assess_ring_cb, a, NULL);
	if (!a->ring) {
		r = negative_errno();
		smcbpf_assess_free(a);
		return smcbpf_why_set(why, len, r, "cannot read the assessment ring buffer: %s",
				      strerror(-r));
	}
	*ret = a;
	return 0;
}

int smcbpf_assess_fd(const struct smcbpf_assess *a)
{
	return ring_buffer__epoll_fd(a->ring);
}

int smcbpf_assess_consume(struct smcbpf_assess *a)
{
	return ring_buffer__consume(a->ring);
}

int smcbpf_assess_open_conns(struct smcbpf_assess *a, smcbpf_assess_fn fn, void *arg)
{
	int fd = bpf_map__fd(a->skel->maps.open_conns), n = 0;
	struct smcbpf_assess_rec rec;
	uint64_t key, next;
	void *prev = NULL;

	/*
	 * Detached first: no record comes or goes while the map is walked (a key deleted under
	 * the walk would restart it from the first key), and what closed until now is in the
	 * ring buffer for the caller's last consume.  Bounded all the same.
	 */
	smc_assess__detach(a->skel);
	if (a->smc)
		smc_assess_smc__detach(a->smc);
	errno = 0;
	for (unsigned steps = 0;
	     steps < 2 * SMCBPF_ASSESS_MAX_OPEN && bpf_map_get_next_key(fd, prev, &next) == 0;
	     steps++) {
		key = next;
		prev = &key;
		/* gone in between (closed: it came through the ring buffer) */
		if (bpf_map_lookup_elem(fd, &key, &rec) < 0)
			continue;
		fn(&rec, arg);
		n++;
	}
	if (errno != ENOENT && errno != 0)
		return -errno;
	return n;
}

int smcbpf_assess_snapshot(struct smcbpf_assess *a, smcbpf_assess_fn fn, void *arg)
{
	int fd = bpf_map__fd(a->skel->maps.open_conns), n = 0, r;
	struct smcbpf_assess_rec recs[64];
	uint64_t keys[64], in = 0, out = 0;
	bool first = true;
	uint32_t count;

	/*
	 * Attached: connections come and go while the map is read.  A batch lookup walks the
	 * hash table bucket by bucket (a deleted key does not restart the walk, as it would
	 * with get_next_key), so each connection there for the whole walk is read once; one
	 * opened or closed meanwhile may be missed or read (it closes in the next window).
	 */
	for (;;) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);

		count = ELEMENTSOF(recs);
		r = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, keys, recs, &count, &opts);
		if (r < 0 && errno != ENOENT)
			return -errno;
		for (uint32_t i = 0; i < count; i++)
			fn(&recs[i], arg);
		n += (int)count;
		if (r < 0) /* ENOENT: that was the last batch */
			return n;
		in = out;
		first = false;
	}
}

bool smcbpf_assess_sees_smc(const struct smcbpf_assess *a)
{
	return a->smc != NULL;
}

const char *smcbpf_assess_smc_why(const struct smcbpf_assess *a)
{
	return a->smc ? NULL : a->smc_why;
}

uint64_t smcbpf_assess_dropped(const struct smcbpf_assess *a)
{
	return a->skel->bss->dropped;
}

struct smcbpf_assess *smcbpf_assess_free(struct smcbpf_assess *a)
{
	if (!a)
		return NULL;
	ring_buffer__free(a->ring);
	smc_assess_smc__destroy(a->smc);
	smc_assess__destroy(a->skel);
	free(a);
	return NULL;
}
