/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Handlers of the table that other files call or that are not yet declared by verb_fn
 * (cli/smcctl.h) and, for the tests, their pure parts:
 * *_json() builds the document from model structs, *_text() renders a document as text.
 */
#pragma once

#include "cli/smcctl.h"
#include "common/advice.h"

/* Option indexes, shared by cli/table.c (the declarations) and the handlers. */
enum { UEID_DERIVE_OPT_FILE, UEID_DERIVE_OPT_APPLY, UEID_DERIVE_OPT_DERIVE };
enum { FILTER_OPT_SMCD, FILTER_OPT_SMCR };
enum {
	SOCKET_OPT_ALL,
	SOCKET_OPT_LISTENING,
	SOCKET_OPT_SMCD,
	SOCKET_OPT_SMCR,
	SOCKET_OPT_PROCESSES
};
enum { CHECK_OPT_LISTEN, CHECK_OPT_ADDRESS, CHECK_OPT_COUNT, CHECK_OPT_TIMEOUT };
enum {
	ASSESS_OPT_DURATION,
	ASSESS_OPT_ALL_NETNS,
	ASSESS_OPT_CGROUP,
	ASSESS_OPT_METHOD,
	ASSESS_OPT_AGENT
};
enum { PNET_ADD_OPT_ETH, PNET_ADD_OPT_IB, PNET_ADD_OPT_PORT };
enum { STATS_OPT_ALL, STATS_OPT_SMCD, STATS_OPT_SMCR, STATS_OPT_KERNEL, STATS_OPT_ABSOLUTE };
enum { UNIT_OPT_CGROUP, UNIT_OPT_CONFIG };
enum { DISABLE_OPT_CONFIG };

/* info: everything it shows, gathered best-effort (one failed probe is reported, not fatal) */
#define INFO_ERRORS_MAX 8
struct info_facts {
	struct smc_caps caps;
	bool has_sysinfo;
	struct smc_sysinfo sys;
	bool has_ueids;
	size_t n_ueids;
	bool has_seid;
	struct smc_seid seid;
	bool has_devices;
	size_t n_ism, n_loopback, n_smcr;
	size_t n_smcr_v2_only; /* RDMA devices known to have RoCE v2 GIDs only (soft-RoCE) */
	char loopback_names[128];
	size_t n_loopback_pnetid;		  /* loopback devices with a PNET ID */
	char loopback_pnetid[SMC_PNETID_LEN + 1]; /* of the first loopback with a PNET ID */
	char **sysctls;				  /* present in /proc/sys/net/smc */
	size_t n_sysctls;
	char *errors[INFO_ERRORS_MAX]; /* "what: why" of each probe that failed (owned) */
	size_t n_errors;
	struct advice advice[ADVICE_MAX]; /* from this netns' counters (common/advice.c) */
	size_t n_advice;
};

int info_show(struct smcctl *c, const struct verb_args *a);
/* What info_show() shows, probed through c's handle (best-effort; -errno only when fatal). */
int info_gather(struct smcctl *c, struct info_facts *i);
/* Frees what info_gather() allocated in i. */
void info_facts_done(struct info_facts *i);
/*
 * info's answer, each field once into the sink (common/output.h): the text, the streamed
 * -j or a document.  Finishes the sink: returns out_sink_done()'s error or 0.
 */
int info_emit(struct out_sink *o, const struct info_facts *i);
/* The one next step that gets SMC-D loopback working on this kernel (README.md's
 * Requirements table), or NULL when it works: smc is SMC's netlink family answering,
 * loopback a loopback device existing. */
const char *smcd_next_step(const char *kernel_release, bool smc, bool loopback);

/* ueid */
int ueid_add(struct smcctl *c, const struct verb_args *a);
int ueid_del(struct smcctl *c, const struct verb_args *a);
int ueid_flush(struct smcctl *c, const struct verb_args *a);
json_object *ueid_list_json(char ueids[][SMC_EID_LEN + 1], size_t n);
void ueid_list_text(struct smcctl *c, json_object *doc);
void ueid_derive_text(struct smcctl *c, json_object *doc);

/* seid */
int seid_enable(struct smcctl *c, const struct verb_args *a);
int seid_disable(struct smcctl *c, const struct verb_args *a);
json_object *seid_json(const struct smc_seid *s, bool supported);
void seid_text(struct smcctl *c, json_object *doc);

/* device */
int device_list(struct smcctl *c, const struct verb_args *a);
int device_show(struct smcctl *c, const struct verb_args *a);
/* One device as -j's rows have it (without the device views' "smc_lo"). */
json_object *smcd_device_json(const struct smcd_device *d);
json_object *smcr_device_json(const struct smcr_device *d);
struct out_sink;
struct smclo_device;
/*
 * The answer of "smcctl device" into o: the devices of the kinds wanted (with name, those
 * device show names), lo smc_lo's device when it is loaded (the SMC-D entry lo_idx; see
 * loopback_amend()).  The text sink gets the tables of device list; device show's blocks
 * are device_show_text() of the document sink's.  Finishes o, returns its status.
 */
int device_list_emit(struct out_sink *o, const struct smcd_device *smcd, size_t n_smcd,
		     const struct smcr_device *smcr, size_t n_smcr, bool want_smcd, bool want_smcr,
		     const char *name, const struct smclo_device *lo, size_t lo_idx);
void device_show_text(struct smcctl *c, json_object *doc);

/* linkgroup */
int linkgroup_list(struct smcctl *c, const struct verb_args *a);
int linkgroup_show(struct smcctl *c, const struct verb_args *a);
/* One group as -j's rows have it. */
json_object *smcd_linkgroup_json(const struct smcd_linkgroup *g);
json_object *smcr_linkgroup_json(const struct smcr_linkgroup *g);
struct out_sink;
/*
 * The answer of "smcctl linkgroup" into o: the groups of the kinds wanted (with id, only
 * that group, or the SMC-R group of that link), with the agent's statistics of each when
 * agent is GetStatistics()'s answer.  The text sink gets the tables; the blocks of -d and
 * show are linkgroup_blocks_text() of the document sink's.  Finishes o, returns its status.
 */
int linkgroup_list_emit(struct out_sink *o, const struct smcd_linkgroup *smcd, size_t n_smcd,
			const struct smcr_linkgroup *smcr, size_t n_smcr, bool want_smcd,
			bool want_smcr, const uint32_t *id, json_object *agent);
void linkgroup_blocks_text(struct smcctl *c, json_object *doc);
/*
 * The same verbs with the agent's per-group statistics merged in: agent is the document of
 * GetStatistics() (its "linkgroup_list"), or NULL.  Each group then gets an "agent" object.
 */
int linkgroup_list_with(struct smcctl *c, const struct verb_args *a, json_object *agent);
int linkgroup_show_with(struct smcctl *c, const struct verb_args *a, json_object *agent);
/* Parse a link group id: hex, optional 0x, at most 8 digits. */
int linkgroup_parse_id(const char *s, uint32_t *ret);

/* socket */
int socket_list(struct smcctl *c, const struct verb_args *a);
/* One socket as -j's rows have it (smcctl check). */
json_object *socket_json(const struct smc_socket *s);
struct out_sink;
struct sock_owners;
/* The answer of "smcctl socket" for these sockets into o, with their holders when owners
 * is not NULL (-p); finishes o (out_sink_done()) and returns its status. */
int socket_list_emit(struct out_sink *o, const struct smc_socket *const *rows, size_t n,
		     const struct sock_owners *owners);

/* pnet */
int pnet_list(struct smcctl *c, const struct verb_args *a);
int pnet_add(struct smcctl *c, const struct verb_args *a);
/* --port of pnet add: the IB device's port, 1 or 2 (1 when s is NULL); 0 or -EINVAL. */
int pnet_del(struct smcctl *c, const struct verb_args *a);
int pnet_flush(struct smcctl *c, const struct verb_args *a);
json_object *pnet_entry_json(const struct smc_pnet_entry *e);
void pnet_list_text(struct smcctl *c, json_object *doc);

/* sysctl */
int sysctl_set(struct smcctl *c, const struct verb_args *a);
json_object *sysctl_entry_json(const char *name, const struct smc_sysctl_desc *d, const char *value);
void sysctl_show_text(struct smcctl *c, json_object *doc);

/* hs-limit */
int hslimit_enable(struct smcctl *c, const struct verb_args *a);
int hslimit_disable(struct smcctl *c, const struct verb_args *a);
void hslimit_text(struct smcctl *c, json_object *doc);

/* stats; STATS_VIEW_* go in smcctl.view for the text renderer */
enum {
	STATS_VIEW_ALL = 1 << 0,
	STATS_VIEW_SMCD = 1 << 1,
	STATS_VIEW_SMCR = 1 << 2,
	STATS_VIEW_ABSOLUTE = 1 << 3, /* agent: totals at the top, not since-reset values */
	STATS_VIEW_RESET = 1 << 4,    /* the answer of "stats reset" */
};
int stats_show(struct smcctl *c, const struct verb_args *a);
/* The text of a counter tree (the agent's answer, or stats_tree_from_kernel()): the tree is
 * read back into the counters' rows and drawn as stats_rows_text() draws the kernel's
 * numbers, one renderer.  -ENOMEM, or 0. */
int stats_tree_text(struct smcctl *c, json_object *doc);
/* The text of the kernel's numbers, no tree (less the other technology with --smcd, --smcr). */
struct advice;
struct advice_env;
int stats_rows_text(struct smcctl *c, const struct smc_stats *s, const struct smc_fback_stats *f,
		    bool only_smcd, bool only_smcr, const struct advice *advice, size_t n_advice);
/* The advice's settings (net.smc.wmem/rmem, handshake limitation) in smcctl's netns,
 * read only when a rule needs them (advice_env.load). */
void stats_advice_env(struct smcctl *c, struct advice_env *env);
/* The advice of a counter tree (the agent's since-reset view) into out[ADVICE_MAX]. */
size_t stats_tree_advice(struct smcctl *c, json_object *tree, struct advice *out);

/*
 * Write verbs print nothing in text mode and this document with -j.  changed: 1 the kernel
 * state changed, 0 it already was so, -1 unknown (the kernel does not say; no "changed" key).
 */
enum { CHANGED_UNKNOWN = -1 };
/* enable, disable (unit.c) */
/* a-b.slice as systemd nests it, /a.slice/a-b.slice ("-.slice": ""); -EINVAL for a name
 * systemd refuses. */
int unit_slice_path(const char *slice, char *buf, size_t len);
/* oci-hook createRuntime|poststop (oci-hook.c) */
int oci_hook_create_runtime(struct smcctl *c, const struct verb_args *a);
int oci_hook_poststop(struct smcctl *c, const struct verb_args *a);

json_object *action_json(const char *action, const char *key, const char *value, int changed);
void action_text(struct smcctl *c, json_object *doc);
