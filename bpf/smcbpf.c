// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsmcbpf: see smcbpf.h.  The skeletons are generated at build time from bpf/NAME.bpf.c by
 * "bpftool gen skeleton" (bpf/Makefile.inc); this file only opens, loads, attaches and
 * turns failures into sentences.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/macro.h"
#include "bpf/smcbpf.h"
#include "bpf/smc_select.skel.h"
#include "bpf/smc_bufs.skel.h"
#include "bpf/smc_excl.skel.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "not supported", seen by BPF callers */
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

_printf_(4, 5) static int why_set(char *why, size_t len, int err, const char *fmt, ...)
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
		return why_set(why, len, -ENOTSUP,
			       "this kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF), which BPF programs that attach to kernel functions need");
	return 0;
}

int smcbpf_probe_select(char *why, size_t len)
{
	int fd, r;

	log_init();
	r = need_btf(why, len);
	if (r < 0)
		return r;
	r = btf_has("update_socket_protocol", BTF_KIND_FUNC);
	if (r < 0)
		return why_set(why, len, r, "cannot read the kernel's BTF: %s", strerror(-r));
	if (r == 0)
		return why_set(why, len, -ENOTSUP,
			       "this kernel has no update_socket_protocol hook (Linux 6.6 or later)");
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, SMCBPF_IPPROTO_SMC);
	if (fd < 0)
		return why_set(why, len, -ENOTSUP,
			       "this kernel cannot create IPPROTO_SMC sockets (Linux 6.11 or later with SMC; socket() says: %s)",
			       strerror(errno));
	close(fd);
	return 0;
}

/* A load or attach failure of the selection programs, in words. */
static int explain_select_failure(int err, const char *step, char *why, size_t len)
{
	if (err == -EPERM || err == -EACCES)
		return why_set(why, len, err,
			       "loading BPF programs needs root (CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN) or a running smcd-agent");
	if (btf_has("mptcp_sock", BTF_KIND_STRUCT) == 0)
		return why_set(why, len, -ENOTSUP,
			       "this kernel has no MPTCP (CONFIG_MPTCP), which is what allows BPF programs to modify update_socket_protocol");
	if (err == -ENOTSUPP || err == -EOPNOTSUPP || err == -ENOTSUP)
		return why_set(why, len, -ENOTSUP,
			       "this kernel cannot attach BPF trampolines (CONFIG_BPF_JIT, and on x86 CONFIG_FUNCTION_TRACER with DYNAMIC_FTRACE)");
	return why_set(why, len, err, "the kernel refused the BPF programs (%s: %s)%s%s", step,
		       strerror(-err), failure_detail()[0] ? ": " : "", failure_detail());
}

/* ---- selection -------------------------------------------------------------------------- */

struct smcbpf_select {
	struct smc_select *skel;
	struct bpf_link *select_link;
	struct bpf_link *fork_link;
	struct bpf_link *mkdir_link;
	struct smc_bufs *bufs;
	struct bpf_link *bufs_link;
	char bufs_why[SMCBPF_WHY_LEN]; /* empty: buffer sizes are applied */
};

struct smcbpf_select *smcbpf_select_free(struct smcbpf_select *s)
{
	if (!s)
		return NULL;
	bpf_link__destroy(s->bufs_link);
	smc_bufs__destroy(s->bufs);
	bpf_link__destroy(s->mkdir_link);
	bpf_link__destroy(s->fork_link);
	bpf_link__destroy(s->select_link);
	smc_select__destroy(s->skel);
	free(s);
	return NULL;
}

static inline void smcbpf_select_freep(struct smcbpf_select **s)
{
	smcbpf_select_free(*s);
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

/* The optional part: failures leave bufs_why set and the rest working. */
static void bufs_open(struct smcbpf_select *s)
{
	_cleanup_(closep) int cg = -1;
	int r;

	last_warning[0] = verifier_line[0] = '\0';
	s->bufs = smc_bufs__open();
	if (!s->bufs) {
		snprintf(s->bufs_why, sizeof(s->bufs_why), "cannot open the buffer program: %s",
			 strerror(errno));
		return;
	}
	r = bpf_map__reuse_fd(s->bufs->maps.run_tasks, bpf_map__fd(s->skel->maps.run_tasks));
	if (r == 0)
		r = smc_bufs__load(s->bufs);
	if (r < 0) {
		snprintf(s->bufs_why, sizeof(s->bufs_why),
			 "this kernel does not let BPF set SO_SNDBUF/SO_RCVBUF as a socket is created (the verifier says: %s)",
			 failure_detail()[0] ? failure_detail() : strerror(-r));
		goto fail;
	}
	cg = cgroup2_root_fd();
	if (cg < 0) {
		snprintf(s->bufs_why, sizeof(s->bufs_why), "no cgroup2 hierarchy is mounted: %s",
			 strerror(-cg));
		goto fail;
	}
	s->bufs_link = bpf_program__attach_cgroup(s->bufs->progs.smcd_bufs, cg);
	if (!s->bufs_link) {
		snprintf(s->bufs_why, sizeof(s->bufs_why),
			 "cannot attach the buffer program to the cgroup2 root: %s", strerror(errno));
		goto fail;
	}
	return;
fail:
	smc_bufs__destroy(s->bufs);
	s->bufs = NULL;
}

int smcbpf_select_open(bool buffers, struct smcbpf_select **ret, char *why, size_t len)
{
	_cleanup_(smcbpf_select_freep) struct smcbpf_select *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	log_init();
	r = smcbpf_probe_select(why, len);
	if (r < 0)
		return r;
	s->skel = smc_select__open();
	if (!s->skel)
		return explain_select_failure(negative_errno(), "open", why, len);
	r = smc_select__load(s->skel);
	if (r < 0)
		return explain_select_failure(r, "load", why, len);
	s->select_link = bpf_program__attach(s->skel->progs.smcd_select);
	if (!s->select_link)
		return explain_select_failure(negative_errno(), "attach to update_socket_protocol",
					      why, len);
	s->fork_link = bpf_program__attach(s->skel->progs.smcd_fork);
	if (!s->fork_link)
		return explain_select_failure(negative_errno(), "attach to sched_process_fork",
					      why, len);
	if (buffers)
		bufs_open(s);
	else
		snprintf(s->bufs_why, sizeof(s->bufs_why), "not requested");
	*ret = TAKE_PTR(s);
	return 0;
}

const char *smcbpf_select_buffers(const struct smcbpf_select *s)
{
	return s->bufs_why[0] ? s->bufs_why : NULL;
}

int smcbpf_enroll(struct smcbpf_select *s, int pidfd, uint32_t run_id, uint32_t sndbuf,
		  uint32_t rcvbuf)
{
	struct smcbpf_run_mark m = { .run_id = run_id, .sndbuf = sndbuf, .rcvbuf = rcvbuf };

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.run_tasks), &pidfd, &m, BPF_ANY) < 0)
		return negative_errno();
	return 0;
}

int smcbpf_rule_counts(struct smcbpf_select *s, uint32_t n_cgroup, uint32_t n_netns)
{
	s->skel->bss->n_cgroup_rules = n_cgroup;
	s->skel->bss->n_netns_rules = n_netns;
	return 0;
}

int smcbpf_cgroup_mkdir_attach(struct smcbpf_select *s, bool on)
{
	if (!on) {
		bpf_link__destroy(s->mkdir_link);
		s->mkdir_link = NULL;
		return 0;
	}
	if (s->mkdir_link)
		return 0;
	s->mkdir_link = bpf_program__attach(s->skel->progs.smcd_cgroup_mkdir);
	return s->mkdir_link ? 0 : negative_errno();
}

static int map_put(struct bpf_map *m, const void *key, const void *value)
{
	return bpf_map_update_elem(bpf_map__fd(m), key, value, BPF_ANY) < 0 ? negative_errno() : 0;
}

static int map_del(struct bpf_map *m, const void *key)
{
	if (bpf_map_delete_elem(bpf_map__fd(m), key) < 0 && errno != ENOENT)
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
	return map_put(s->skel->maps.cgroup_paths, &k, &idx);
}

int smcbpf_cgroup_path_del(struct smcbpf_select *s, const char *path)
{
	struct smcbpf_cgroup_path k;

	path_key(&k, path);
	return map_del(s->skel->maps.cgroup_paths, &k);
}

int smcbpf_cgroup_id_put(struct smcbpf_select *s, uint64_t id, uint32_t idx)
{
	return map_put(s->skel->maps.cgroup_ids, &id, &idx);
}

int smcbpf_cgroup_id_del(struct smcbpf_select *s, uint64_t id)
{
	return map_del(s->skel->maps.cgroup_ids, &id);
}

int smcbpf_netns_put(struct smcbpf_select *s, uint64_t cookie, uint32_t idx)
{
	return map_put(s->skel->maps.netns_cookies, &cookie, &idx);
}

int smcbpf_netns_del(struct smcbpf_select *s, uint64_t cookie)
{
	return map_del(s->skel->maps.netns_cookies, &cookie);
}

/* All entries of a hash map with u64 keys and u32 values. */
static int list_u64(struct bpf_map *m, struct smcbpf_entry **ret, size_t *ret_n)
{
	int fd = bpf_map__fd(m);
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
	return list_u64(s->skel->maps.cgroup_ids, ret, ret_n);
}

int smcbpf_netns_list(struct smcbpf_select *s, struct smcbpf_entry **ret, size_t *ret_n)
{
	return list_u64(s->skel->maps.netns_cookies, ret, ret_n);
}

int smcbpf_cgroup_paths(struct smcbpf_select *s, char (**ret)[SMCBPF_CGROUP_PATH_MAX],
			uint32_t **ret_idx, size_t *ret_n)
{
	int fd = bpf_map__fd(s->skel->maps.cgroup_paths);
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
	*ret_n_cgroup = s->skel->bss->n_cgroup_rules;
	*ret_n_netns = s->skel->bss->n_netns_rules;
	*ret_mkdir = s->mkdir_link != NULL;
}

int smcbpf_counters(struct smcbpf_select *s, uint64_t ret[SMCBPF_N_COUNTERS])
{
	for (size_t i = 0; i < SMCBPF_N_COUNTERS; i++)
		ret[i] = __atomic_load_n(&s->skel->bss->counters[i], __ATOMIC_RELAXED);
	return 0;
}

void smcbpf_counters_reset(struct smcbpf_select *s, uint32_t first, uint32_t n)
{
	for (uint32_t i = first; i < first + n && i < SMCBPF_N_COUNTERS; i++)
		__atomic_store_n(&s->skel->bss->counters[i], 0, __ATOMIC_RELAXED);
}

/* ---- exclusions ------------------------------------------------------------------------- */

struct smcbpf_excl {
	struct smc_excl *skel;
	struct bpf_link *reg; /* libbpf's handle of the registration: destroying unregisters */
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
		return why_set(why, len, r, "cannot read the kernel's BTF: %s", strerror(-r));
	if (r > 0)
		return 0;
	if (module_btf_has("smc", "smc_hs_ctrl", BTF_KIND_STRUCT) > 0)
		return why_set(why, len, -ENOTSUP,
			       "smc_hs_ctrl is in the smc module's BTF, and the libbpf this was built with (%d.%d) registers struct_ops of vmlinux only (libbpf 1.4 or later can)",
			       LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
	return why_set(why, len, -ENOTSUP,
		       "this kernel has no smc_hs_ctrl (Linux 6.19 or later with CONFIG_SMC_HS_CTRL_BPF)");
}

/* A struct_ops map of ours registered by an earlier (crashed) agent: unregister it. */
static void unregister_stale(void)
{
	uint32_t id = 0;

	while (bpf_map_get_next_id(id, &id) == 0) {
		struct bpf_map_info info = {};
		uint32_t info_len = sizeof(info);
		_cleanup_(closep) int fd = bpf_map_get_fd_by_id(id);
		int zero = 0;

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
			continue;
		if (info.type != BPF_MAP_TYPE_STRUCT_OPS || !streq(info.name, SMCBPF_EXCL_NAME))
			continue;
		if (bpf_map_delete_elem(fd, &zero) == 0 && log_fn)
			log_fn(1, "unregistered a stale smcd_excl smc_hs_ctrl left by an earlier agent");
	}
}

struct smcbpf_excl *smcbpf_excl_free(struct smcbpf_excl *e)
{
	if (!e)
		return NULL;
	bpf_link__destroy(e->reg);
	smc_excl__destroy(e->skel);
	free(e);
	return NULL;
}

static inline void smcbpf_excl_freep(struct smcbpf_excl **e)
{
	smcbpf_excl_free(*e);
}

int smcbpf_excl_open(struct smcbpf_excl **ret, char *why, size_t len)
{
	_cleanup_(smcbpf_excl_freep) struct smcbpf_excl *e = calloc(1, sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	r = smcbpf_probe_excl(why, len);
	if (r < 0)
		return r;
	e->skel = smc_excl__open();
	if (!e->skel)
		return why_set(why, len, negative_errno(), "cannot open the exclusion program: %s",
			       strerror(errno));
	r = smc_excl__load(e->skel);
	if (r == -EPERM || r == -EACCES)
		return why_set(why, len, r, "loading BPF programs needs root (CAP_BPF, CAP_NET_ADMIN)");
	if (r < 0)
		return why_set(why, len, r, "the kernel refused the smc_hs_ctrl programs (%s)%s%s",
			       strerror(-r), failure_detail()[0] ? ": " : "", failure_detail());
	unregister_stale();
	e->reg = bpf_map__attach_struct_ops(e->skel->maps.smcd_excl);
	if (!e->reg)
		return why_set(why, len, negative_errno(),
			       "the kernel refused to register smc_hs_ctrl '%s': %s", SMCBPF_EXCL_NAME,
			       strerror(errno));
	*ret = TAKE_PTR(e);
	return 0;
}

int smcbpf_excl_set_rules(struct smcbpf_excl *e, const struct smcbpf_excl_rule *rules, size_t n)
{
	struct smc_excl__bss *b = e->skel->bss;

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
	uint32_t n = __atomic_load_n(&e->skel->bss->n_rules, __ATOMIC_SEQ_CST);

	if (n > SMCBPF_MAX_EXCL)
		n = SMCBPF_MAX_EXCL;
	memcpy(ret, e->skel->bss->rules, n * sizeof(*ret));
	*ret_n = n;
}

int smcbpf_excl_hits(struct smcbpf_excl *e, uint64_t *ret, size_t n, uint64_t *ret_checked)
{
	for (size_t i = 0; i < n && i < SMCBPF_MAX_EXCL; i++)
		ret[i] = __atomic_load_n(&e->skel->bss->hits[i], __ATOMIC_RELAXED);
	if (ret_checked)
		*ret_checked = __atomic_load_n(&e->skel->bss->checked, __ATOMIC_RELAXED);
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

int smcbpf_cgroup_id(const char *dir, uint64_t *ret)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct stat st;
	int mnt;

	/* The file handle of a cgroup2 directory is its kernfs id (systemd does the same). */
	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mnt, 0) == 0 &&
	    h.fh.handle_bytes == sizeof(uint64_t)) {
		memcpy(ret, h.fh.f_handle, sizeof(*ret));
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EOVERFLOW)
		return negative_errno();
	/* On 64-bit kernels the inode number is the id as well. */
	if (stat(dir, &st) < 0)
		return negative_errno();
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	*ret = st.st_ino;
	return 0;
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
