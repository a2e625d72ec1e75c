/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libsmcbpf: loads, attaches and feeds the BPF programs of bpf/ (libbpf skeletons).  Used by
 * smcd-agent (policies, and smcctl run on behalf of callers) and by smcctl run itself when
 * no agent runs.
 *
 * Pinning.  Given a pin root (the agent passes SMCBPF_PIN_DIR), open pins every map,
 * program and link under root/select-HASH or root/excl-HASH, HASH naming the BPF objects
 * this library was built with, so that the datapath outlives its loader: enrolled
 * processes, policies and exclusions stay in force while the agent is stopped, crashed or
 * being upgraded.  adopt takes over the pins of the same layout; open with other layouts
 * pinned reuses their maps where the definitions match (enrollments and rules go on), and
 * attaches the new programs beside the old ones, which smcbpf_select_settle() then removes:
 * both run for a moment, never neither.  free closes (what is pinned stays), unload
 * removes.  Without a pin root nothing is pinned and everything ends with its holder (with
 * one exception the kernel imposes, see smcbpf_excl_open()).
 *
 * Every open/probe function says why it cannot work in why (one sentence for a user, no
 * trailing period) and returns a negative errno.  libbpf's own messages go to the log
 * function (smcbpf_set_log), never to stderr.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/smcbpf-abi.h"

/*
 * A call into this library where it is built, dflt where it is not (configure without
 * BPF): SMCBPF_OR(smcbpf_netns_cookie(path, &c), -ENOTSUP) names no symbol of it then.
 */
#ifdef HAVE_BPF
#define SMCBPF_OR(expr, dflt) (expr)
#else
#define SMCBPF_OR(expr, dflt) (dflt)
#endif

#define SMCBPF_WHY_LEN 512
#define SMCBPF_EXCL_NAME "smcd_excl"
#define SMCBPF_PIN_DIR "/sys/fs/bpf/smcd-agent"
#define SMCBPF_MAX_NETNS_WALK 4096

/* level: 0 warning, 1 info, 2 debug (libbpf's). */
void smcbpf_set_log(void (*fn)(int level, const char *line));

/* ---- socket selection (smc_select.bpf.c, smc_bufs.bpf.c) ---------------------------- */

struct smcbpf_select;

/*
 * Can this kernel switch sockets to SMC through update_socket_protocol?  Checks BTF, the
 * hook, IPPROTO_SMC (creating a test socket, which may load the smc module).  0 or -errno
 * with why.
 */
int smcbpf_probe_select(char *why, size_t len);

/*
 * Load and attach the selection programs (fmod_ret + fork tracepoint).  With buffers, also
 * cgroup/sock_create for SO_SNDBUF/SO_RCVBUF; if only that part fails, the rest works and
 * smcbpf_select_buffers() says why.  With pin_root, pinned there (the bpffs mounted on
 * its parent if none is); when pinning fails the programs work unpinned and
 * smcbpf_select_pins() says why.
 */
int smcbpf_select_open(bool buffers, const char *pin_root, struct smcbpf_select **ret, char *why,
		       size_t len);
/*
 * Take over the programs pinned under pin_root by an earlier holder of the same layout:
 * 1 adopted, 0 nothing to adopt (why says so when an incomplete layout was found, which
 * open replaces), -errno.
 */
int smcbpf_select_adopt(const char *pin_root, struct smcbpf_select **ret, char *why, size_t len);
/* After open replaced other layouts and the maps are filled: remove the others' pins. */
int smcbpf_select_settle(struct smcbpf_select *s);
/* open took over another layout's maps, entries included (look at them again). */
bool smcbpf_select_reused(const struct smcbpf_select *s);
/* Is any layout of this kind (selection, exclusion) pinned under pin_root? */
bool smcbpf_pinned_any(const char *pin_root, bool excl);
/*
 * Unregister every struct_ops named SMCBPF_EXCL_NAME and unpin every exclusion layout (the
 * config no longer wants them): how many were found, or -errno.
 */
int smcbpf_excl_retire(const char *pin_root);
/* Where it is pinned (NULL: not, and why says why), and whether it was adopted. */
void smcbpf_select_pins(const struct smcbpf_select *s, const char **ret_dir, bool *ret_adopted,
			const char **ret_why);
/* Close: what is pinned stays in the kernel. */
struct smcbpf_select *smcbpf_select_free(struct smcbpf_select *s);
/* Remove for good: unpinned, detached, enrollments end. */
struct smcbpf_select *smcbpf_select_unload(struct smcbpf_select *s);
/* NULL when buffer sizes are applied, else why not. */
const char *smcbpf_select_buffers(const struct smcbpf_select *s);

/*
 * Buffer sizes per cgroup (smc_bufs' cgroup_bufs map, SMCBPF_MAX_CGROUP_BUFS entries): an
 * SMC socket created by a task of cgroup_id (cgroup v2 id; that cgroup only, not its
 * descendants) gets SO_SNDBUF sndbuf and SO_RCVBUF rcvbuf (0: leave that one at the
 * netns's net.smc.wmem/rmem), as with smcctl run --sndbuf/--rcvbuf: capped at
 * net.core.wmem_max/rmem_max, doubled by the kernel.  A task enrolled by smcbpf_enroll()
 * gets its run's sizes instead.  Pinned with the selection layout: the sizes outlive the
 * loader, and a new layout takes the map over with its entries.  All three return
 * -EOPNOTSUPP when the buffer program is not attached (smcbpf_select_buffers() non-NULL
 * says why); put -E2BIG when the map is full, del -ENOENT when cgroup_id has no entry.
 */
struct smcbpf_cgroup_bufs {
	uint64_t cgroup_id;
	uint32_t sndbuf, rcvbuf;
};
int smcbpf_cgroup_bufs_put(struct smcbpf_select *s, uint64_t cgroup_id, uint32_t sndbuf,
			   uint32_t rcvbuf);
int smcbpf_cgroup_bufs_del(struct smcbpf_select *s, uint64_t cgroup_id);
/* The current entries, in no order (caller frees *ret). */
int smcbpf_cgroup_bufs_list(struct smcbpf_select *s, struct smcbpf_cgroup_bufs **ret, size_t *ret_n);

/*
 * Enroll the process behind pidfd (and, through the fork program, every thread and child it
 * creates from now on): its TCP stream sockets become SMC with these buffer sizes (0: the
 * netns's net.smc.wmem/rmem).  Threads it already has are not enrolled: callers enroll a
 * process before it starts threads (smcctl run enrolls itself before exec).
 */
int smcbpf_enroll(struct smcbpf_select *s, int pidfd, uint32_t run_id, uint32_t sndbuf,
		  uint32_t rcvbuf);

/* Policy maps: rule index (0..SMCBPF_MAX_RULES-1) per key. */
int smcbpf_rule_counts(struct smcbpf_select *s, uint32_t n_cgroup, uint32_t n_netns);
int smcbpf_cgroup_mkdir_attach(struct smcbpf_select *s, bool on);
int smcbpf_cgroup_path_put(struct smcbpf_select *s, const char *path, uint32_t idx);
int smcbpf_cgroup_path_del(struct smcbpf_select *s, const char *path);
int smcbpf_cgroup_id_put(struct smcbpf_select *s, uint64_t id, uint32_t idx);
int smcbpf_cgroup_id_del(struct smcbpf_select *s, uint64_t id);
int smcbpf_netns_put(struct smcbpf_select *s, uint64_t cookie, uint32_t idx);
int smcbpf_netns_del(struct smcbpf_select *s, uint64_t cookie);

struct smcbpf_entry {
	uint64_t key;
	uint32_t idx;
};
/* The current contents (caller frees *ret). */
int smcbpf_cgroup_ids(struct smcbpf_select *s, struct smcbpf_entry **ret, size_t *ret_n);
int smcbpf_netns_list(struct smcbpf_select *s, struct smcbpf_entry **ret, size_t *ret_n);
/* Paths: ret[i] points into one allocation (caller frees *ret and *ret_idx). */
int smcbpf_cgroup_paths(struct smcbpf_select *s, char (**ret)[SMCBPF_CGROUP_PATH_MAX],
			uint32_t **ret_idx, size_t *ret_n);

/* What the loader set: the rule counts, and whether cgroup_mkdir is attached. */
void smcbpf_select_state(struct smcbpf_select *s, uint32_t *ret_n_cgroup, uint32_t *ret_n_netns,
			 bool *ret_mkdir);

/* counters[SMCBPF_N_COUNTERS]: per rule, run, failures.  Reset sets them to 0. */
int smcbpf_counters(struct smcbpf_select *s, uint64_t ret[SMCBPF_N_COUNTERS]);
void smcbpf_counters_reset(struct smcbpf_select *s, uint32_t first, uint32_t n);

/* ---- exclusions (smc_excl.bpf.c, smc_hs_ctrl struct_ops) ----------------------------- */

struct smcbpf_excl;

/* Does this kernel have smc_hs_ctrl, in a BTF this libbpf can use? */
int smcbpf_probe_excl(char *why, size_t len);

/*
 * Load and register the struct_ops as SMCBPF_EXCL_NAME (pinned under pin_root as for
 * selection).  The kernel keeps a registered smc_hs_ctrl (and a netns that selected it
 * keeps a reference) after the loader is gone; open first unregisters any other one of
 * that name (another layout, or one never pinned; found among the kernel's struct_ops
 * maps).  The name cannot be registered twice, so a replacement cannot overlap: network
 * namespaces that selected the old one keep using it until net.smc.hs_ctrl is written
 * again, which the caller does.
 */
int smcbpf_excl_open(const char *pin_root, struct smcbpf_excl **ret, char *why, size_t len);
int smcbpf_excl_adopt(const char *pin_root, struct smcbpf_excl **ret, char *why, size_t len);
void smcbpf_excl_pins(const struct smcbpf_excl *e, const char **ret_dir, bool *ret_adopted,
		      const char **ret_why);
/*
 * Is another struct_ops named SMCBPF_EXCL_NAME alive (an older registration that a network
 * namespace still holds: net.smc.hs_ctrl must be written again there)?
 */
bool smcbpf_excl_others_alive(const struct smcbpf_excl *e);
/* Pinned: closes, it stays registered.  Not pinned: unregisters. */
struct smcbpf_excl *smcbpf_excl_free(struct smcbpf_excl *e);
/* Unregisters and unpins. */
struct smcbpf_excl *smcbpf_excl_unload(struct smcbpf_excl *e);
int smcbpf_excl_set_rules(struct smcbpf_excl *e, const struct smcbpf_excl_rule *rules, size_t n);
/* The rules in effect. */
void smcbpf_excl_rules_get(struct smcbpf_excl *e, struct smcbpf_excl_rule *ret, size_t *ret_n);
/* hits per rule (n <= SMCBPF_MAX_EXCL) and the number of handshakes looked at. */
int smcbpf_excl_hits(struct smcbpf_excl *e, uint64_t *ret, size_t n, uint64_t *ret_checked);

/*
 * dir (an existing pin directory) opened without following a link: 0 when it is a
 * directory owned by this process's uid and not writable by group or others, else -errno
 * (-ELOOP: a link, -EPERM: another owner or mode) with the reason and what to do in why.
 */
int smcbpf_pin_dir_check(const char *dir, char *why, size_t len);

/*
 * The agent holds an exclusive flock(2) on the pin root for as long as it runs, so that a
 * flush can tell (whatever bus it is on) and never pulls the pins from under it: fd, or
 * -ENOENT (nothing pinned yet), -EWOULDBLOCK (held, and not wait), -errno.
 */
int smcbpf_pin_lock(const char *pin_root, bool wait);

/*
 * Remove everything pinned under pin_root (smcctl policy flush, package removal), unless a
 * running agent holds the lock (-EBUSY, why says so): clears
 * net.smc.hs_ctrl wherever it names SMCBPF_EXCL_NAME, unregisters it, unpins every layout
 * (detaching the programs; enrollments end).  *ret_n: layouts removed.
 */
int smcbpf_flush(const char *pin_root, unsigned *ret_n, char *why, size_t len);

/* ---- helpers for resolving policy targets ---------------------------------------------- */

/* The cgroup2 mount point (e.g. /sys/fs/cgroup), from /proc/self/mountinfo. */
int smcbpf_cgroup2_root(char *buf, size_t len);
/* The cookie of the network namespace at path (/run/netns/NAME, /proc/PID/ns/net). */
int smcbpf_netns_cookie(const char *path, uint64_t *ret);
/* Set net.smc.hs_ctrl in the netns at path (NULL: the caller's); name "" clears it. */
int smcbpf_hs_ctrl_get(const char *netns_path, char *buf, size_t len);
int smcbpf_hs_ctrl_set(const char *netns_path, const char *name);
/*
 * fn for every network namespace with a process or a name in /run/netns (path
 * /proc/PID/ns/net or /run/netns/NAME), once each; stops at fn's first error.
 */
int smcbpf_netns_each(int (*fn)(const char *path, void *arg), void *arg);

/* ---- fallback attribution (smc_fallback.bpf.c, tp_btf/smc_switch_to_fallback) ----------- */

struct smcbpf_fallback;
typedef void (*smcbpf_fallback_fn)(const struct smcbpf_fallback_event *ev, void *arg);

/*
 * Does this kernel have the smc:smc_switch_to_fallback tracepoint in a BTF (vmlinux's, or
 * the smc module's when SMC is a module and loaded)?  0 or -errno with why.
 */
int smcbpf_probe_fallback(char *why, size_t len);
/*
 * Load and attach the program; fn is called for each record from
 * smcbpf_fallback_consume().  Never pinned: attribution lives as long as its holder (the
 * kernel's counters count fallbacks regardless).
 */
int smcbpf_fallback_open(smcbpf_fallback_fn fn, void *arg, struct smcbpf_fallback **ret, char *why,
			 size_t len);
/* An fd that is readable (epoll) when records wait. */
int smcbpf_fallback_fd(const struct smcbpf_fallback *f);
/* Hand every waiting record to fn: how many, or -errno. */
int smcbpf_fallback_consume(struct smcbpf_fallback *f);
/* Switches seen by the program, and records lost to a full ring buffer. */
void smcbpf_fallback_counts(const struct smcbpf_fallback *f, uint64_t *ret_seen,
			    uint64_t *ret_dropped);
struct smcbpf_fallback *smcbpf_fallback_free(struct smcbpf_fallback *f);

/* ---- assessment (smc_assess.bpf.c: smcctl assess, read-only) ------------------------------ */

struct smcbpf_assess;
typedef void (*smcbpf_assess_fn)(const struct smcbpf_assess_rec *rec, void *arg);

/*
 * Can this kernel run the assessment programs (BTF with inet_sock_set_state, trampolines
 * for tcp_sendmsg)?  0 or -errno with why.
 */
int smcbpf_probe_assess(char *why, size_t len);
/*
 * Load and attach (SMC's send and receive too where they can be traced, see
 * smcbpf_assess_sees_smc()); fn gets each closed connection from smcbpf_assess_consume().
 * Never pinned: everything ends with smcbpf_assess_free() or the holder's exit.
 */
int smcbpf_assess_open(smcbpf_assess_fn fn, void *arg, struct smcbpf_assess **ret, char *why,
		       size_t len);
/* The ring buffer's epoll fd (readable when closed connections wait). */
int smcbpf_assess_fd(const struct smcbpf_assess *a);
int smcbpf_assess_consume(struct smcbpf_assess *a);
/*
 * Stop observing (the programs are detached) and call fn for each connection still open;
 * consume once more afterwards for those that closed meanwhile.  Count or -errno.
 */
int smcbpf_assess_open_conns(struct smcbpf_assess *a, smcbpf_assess_fn fn, void *arg);
/*
 * The connections open now, without stopping (the agent's continuous assessment): fn for
 * each.  Count or -errno.
 */
int smcbpf_assess_snapshot(struct smcbpf_assess *a, smcbpf_assess_fn fn, void *arg);
/*
 * Are SMC's own send and receive traced (fexit on smc_sendmsg/smc_recvmsg: the records'
 * smc_bytes_*, smc, and SMC's sends)?  Optional: without SMC's functions in a BTF (the smc
 * module not loaded, or without BTF) or when the kernel refuses them, the rest runs and
 * smcbpf_assess_smc_why() says why not (NULL when they are traced).
 */
bool smcbpf_assess_sees_smc(const struct smcbpf_assess *a);
const char *smcbpf_assess_smc_why(const struct smcbpf_assess *a);
uint64_t smcbpf_assess_dropped(const struct smcbpf_assess *a);
struct smcbpf_assess *smcbpf_assess_free(struct smcbpf_assess *a);
