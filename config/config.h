/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /etc/smc/smc.yaml: the agent's desired state.  See smc.yaml(5) for every key.
 *
 * config_load() parses with libyaml's event API (which keeps line/column marks, ytree.c),
 * validates against the key table (keys.c) and either returns a complete struct config or
 * a list of errors, each "FILE:LINE:COL: what is wrong (what was expected)".  A file with
 * any error produces no config at all: nothing of it is ever applied in part.
 *
 * A key is a row of keys.c: a scalar names its field here, a list or section its parser
 * (config.c, policy.c, loopback.c).  Unknown keys are errors, so nobody can write a key
 * that silently does nothing.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/clock.h"
#include "config/dropin.h"
#include "config/section-loopback.h"
#include "config/section-policies.h"
#include "config/units.h"
#include "common/ueid-derive.h"
#include "config/ytree.h"
#include "netlink/smcnl.h"

#define CONFIG_DEFAULT_PATH SYSCONFDIR "/smc/smc.yaml"

/* `leave` means: the agent neither reads nor writes this setting. */
enum config_switch {
	CONFIG_LEAVE,
	CONFIG_ENABLE,
	CONFIG_DISABLE,
};

enum drift_action {
	DRIFT_REPAIR,
	DRIFT_REPORT,
};

/* stats.netns: which named network namespaces are sampled besides the agent's own. */
enum config_netns {
	CONFIG_NETNS_ALL,
	CONFIG_NETNS_NONE,
	CONFIG_NETNS_LIST,
};

struct config_ueid {
	char ueid[SMC_EID_LEN + 1]; /* trailing blanks removed */
	struct config_mark mark;
};

struct config_sysctl {
	const struct smc_sysctl_desc *desc;
	int64_t value; /* all units but SMC_UNIT_STRING */
	char *string;  /* SMC_UNIT_STRING */
	struct config_mark mark;
};

/* auto.mode: what the autopilot does (smc.yaml(5), auto). */
enum auto_mode {
	AUTO_MODE_OFF,	   /* nothing is loaded */
	AUTO_MODE_OBSERVE, /* decides and shows (smcctl auto), changes nothing */
	AUTO_MODE_ON,	   /* acts */
};

struct config_pnet {
	char pnetid[SMC_PNETID_LEN + 1]; /* normalised: upper case */
	char eth[IF_NAMESIZE];		 /* either eth ... */
	char ib[SMC_IB_NAME_LEN];	 /* ... or ib (an RDMA or a DIBS device, e.g. "lo") */
	uint8_t port;			 /* ib only: 1 or 2 */
	struct config_mark mark;
};

struct config {
	char *path;
	char *text;    /* the file as read (for ConfigRevision and `config show`) */
	uint64_t hash; /* FNV-1a 64 of text: ConfigRevision */

	struct {
		bool auto_derive;
		enum ueid_derivation derivation; /* ueid.derive */
		char *machine_id_file;
		struct config_ueid entries[SMC_UEID_MAX];
		size_t n_entries;
		bool exclusive;
		struct config_mark mark;
	} ueid;

	enum config_switch seid;
	struct config_mark seid_mark;
	enum config_switch hs_limitation;
	struct config_mark hs_limitation_mark;

	struct config_sysctl *sysctls;
	size_t n_sysctls;

	struct {
		bool exclusive;
		struct config_pnet *entries;
		size_t n_entries;
		struct config_mark mark;
	} pnet;

	char **modules;
	size_t n_modules;

	struct {
		enum drift_action action;
		uint64_t interval_usec; /* 0: no periodic drift check */
	} drift;

	struct {
		uint64_t interval_usec; /* 0: devices and link groups only on demand */
	} monitor;

	char *admin_group;   /* may call mutating D-Bus methods besides CAP_NET_ADMIN; NULL: none */
	uint32_t rate_limit; /* Refresh, EnrollProcess: calls per uid in BUS_RATE_WINDOW_USEC */

	struct {
		uint64_t interval_usec;	   /* 0: statistics only on request */
		uint32_t linkgroup_series; /* link groups with their own Prometheus series */
		/* The named network namespaces sampled besides the agent's own: all, none, or
		 * those of netns_names (stats.netns); at most netns_max of them. */
		enum config_netns netns;
		char **netns_names;
		size_t n_netns_names;
		uint32_t netns_max;
		bool prometheus;       /* write the textfile at every sample */
		char *prometheus_path; /* absolute, ends in .prom */
	} stats;
	struct {
		uint64_t interval_usec; /* a window of the continuous assessment; 0: off */
		uint32_t applications;	/* applications with Prometheus series of their own */
	} assess;
	/* auto: the autopilot (smc.yaml(5); parsed by section-auto.c).  Its own changes are
	 * not smc.yaml's kernel state: the plan never lists them (smcd-agent/plan.c). */
	struct {
		enum auto_mode mode;
		uint64_t window_usec;  /* the window it judges by, AUTO_WINDOW_MIN..MAX_USEC */
		uint64_t budget_bytes; /* its SMC buffers at once at most; 0: no budget */
		/* Where it may act: in or below one of cgroups, in one of units (as systemd
		 * names them: "nginx" is kept as "nginx.service"), or a server in one of the
		 * network namespaces netns (their paths: "blue" is kept as /run/netns/blue);
		 * all three empty: everywhere. */
		struct {
			char **cgroups;
			size_t n_cgroups;
			char **units;
			size_t n_units;
			char **netns;
			size_t n_netns;
		} scope;
		uint16_t *exclude_ports; /* TCP ports it never switches */
		size_t n_exclude_ports;
	} autopilot;
	struct config_policies policies; /* policy.h */
	/* The drop-ins read after the file, in their order (policies: entries point here). */
	char **dropins;
	char **dropin_texts; /* the text of each as read (NULL: it could not be read) */
	size_t n_dropins;
	struct config_loopback loopback; /* loopback.h */
};

/* node_exporter's textfile directory on Debian (prometheus-node-exporter's default). */
#define STATS_PROMETHEUS_DEFAULT_PATH "/var/lib/prometheus/node-exporter/smc.prom"
#define STATS_LINKGROUP_SERIES_MAX 10000
#define STATS_NETNS_MAX 256 /* 3 fds each: well within the unit's 1024 */
#define ASSESS_APPLICATIONS_MAX 1000
#define AUTO_WINDOW_MIN_USEC (10 * USEC_PER_SEC)
#define AUTO_WINDOW_MAX_USEC (3600 * USEC_PER_SEC)
#define AUTO_BUDGET_MAX (1024ULL << 30) /* 1024GiB */
#define AUTO_SCOPE_MAX 64		/* entries of auto.scope.cgroups, of .units, of .netns */
#define AUTO_EXCLUDE_PORTS_MAX 64

/*
 * Load and validate path, and after it the drop-ins of path.d/ (config_dropin_dir(); see
 * dropin.h).  Returns 0 and a config, or -EINVAL with the errors in *errors, or another
 * negative errno when the file cannot be read (also described in *errors; -ENOENT: path
 * does not exist).
 */
int config_load(const char *path, struct config **ret, struct config_errors *errors);
/*
 * config_load(), or where path does not exist, the built-in defaults with the drop-ins of
 * path.d/, as smcd-agent starts then (smcd-agent/manager.c manager_config_read();
 * *ret_defaults says which).  For the default path only: a FILE someone named that does not
 * exist is an error, so that a typo never reads as "valid".
 */
int config_load_or_defaults(const char *path, struct config **ret, bool *ret_defaults,
			    struct config_errors *errors);
/*
 * The same for a file's text read by someone else (PlanConfig: smcctl reads the file with
 * its caller's rights and sends the text), or "" where no file exists (the built-in
 * defaults with the drop-ins); path only names it in the errors.  The drop-ins of
 * dropin_dir (NULL: none) are read from disk.
 */
int config_load_text(const char *path, const char *text, size_t len, const char *dropin_dir,
		     struct config **ret, struct config_errors *errors);
/* A drop-in's text read by someone else (PlanConfigWithDropIns' a(ss)): its file name in
 * PATH.d (NAME.yaml) and its text. */
struct config_dropin_text {
	const char *name;
	const char *text;
};
/* At most this many given drop-in texts: the caller's table is bounded. */
#define CONFIG_DROPIN_TEXTS_MAX 256
/* Where the drop-ins of config_load_from() come from. */
struct config_dropins {
	const char *dir; /* read from disk (NULL: not) */
	/*
	 * dir and each file in it must be the reader's own (owned by its uid, not writable by
	 * group or others): the agent's own drop-ins, which it reads as root.
	 */
	bool owned;
	const struct config_dropin_text *texts; /* instead of dir: given, in any order */
	size_t n_texts;
};
/*
 * config_load_text() with the drop-ins from d (NULL: none); text NULL: path read from disk
 * as config_load() reads it.  The drop-ins are opened relative to the directory, neither
 * following a symbolic link (dropin.h).
 */
int config_load_from(const char *path, const char *text, size_t len, const struct config_dropins *d,
		     struct config **ret, struct config_errors *errors);
/* The built-in defaults, as used when no file exists. */
int config_new_default(const char *path, struct config **ret);
struct config *config_free(struct config *c);
/* config_errors_clear(), config_errors_join(): ytree.h. */

/* The effective configuration, defaults included, as YAML (caller frees). */
char *config_dump(const struct config *c);

/* Does the config own this item (then runtime changes over D-Bus are refused)? */
const struct config_sysctl *config_find_sysctl(const struct config *c, const char *name);

const char *config_switch_to_string(enum config_switch s);
const char *drift_action_to_string(enum drift_action a);
const char *auto_mode_to_string(enum auto_mode m); /* "off", "observe", "on" */

/*
 * May the autopilot act on a workload in cgroup (as /proc/PID/cgroup shows it, NULL:
 * unknown) run by unit (a systemd unit name, "nginx" read as "nginx.service"; NULL: none)
 * whose server is in the network namespace of cookie netns (0: unknown)?  True when
 * auto.scope names no cgroups, units or netns, or cgroup is one of auto.scope.cgroups or
 * below one, or unit is one of auto.scope.units, or netns is one of scope_netns: the
 * cookies of auto.scope.netns as the caller found them (its n_netns entries in the same
 * order, 0 for one that names no namespace now; NULL: none found).  auto.exclude-ports and
 * auto.mode are the caller's to check.
 */
bool config_auto_in_scope(const struct config *c, const char *cgroup, const char *unit,
			  uint64_t netns, const uint64_t *scope_netns);
/*
 * The window of the continuous assessment: assess.interval when set; else, while auto.mode
 * is not off, auto.window (the autopilot judges by the assessment's windows); else 0, off.
 */
uint64_t config_assess_window_usec(const struct config *c);

static inline void config_freep(struct config **c)
{
	if (*c)
		config_free(*c);
}
