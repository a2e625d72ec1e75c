// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl oci-hook createRuntime|poststop: the OCI hook that switches an annotated
 * container's sockets to SMC (org.smcd.smc=true), run by the container runtime from
 * etc/containers/oci/hooks.d/ (podman, CRI-O: oci-hooks(5)) with the container's state
 * on stdin, as the OCI runtime specification says.
 *
 * createRuntime runs after the runtime created the container's cgroup and namespaces and
 * before the container's program runs: the hook asks smcd-agent to enroll the container's
 * scope (EnableUnit: a drop-in of smc.yaml named after the scope, pinned and applied as a
 * reload applies smc.yaml, so the enrollment survives agent restarts); poststop removes it
 * (DisableUnit).  So the bound of smc.yaml's policies (64 entries) bounds the enrolled
 * containers, and the agent's rights checks and polkit decide as for smcctl enable.
 *
 * A hook must not keep a container from starting: every outcome but a wrong command line
 * exits 0, and what was not done is logged with its reason (stderr, which the runtime
 * shows or logs, and syslog, so the journal under systemd).  The agent is asked with a
 * timeout (--timeout, 2 seconds by default) and a hard stop after twice that (alarm), after
 * which the container starts on TCP.  Refused, with the reason: a container whose network
 * namespace is the host's (the runtime's own: --network host), since switching it would
 * switch what the host's own services talk to; a cgroupsPath not in systemd's form or not
 * the container's own scope; a process not in that scope.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "cli/bus.h"
#include "cli/oci-hook.h"
#include "cli/verbs.h"
#include "common/bus-api.h"
#include "common/macro.h"
#include "common/output.h"
#include "common/util.h"

#define OCI_STATE_MAX (64 * 1024)
#define OCI_CONFIG_MAX (8 * 1024 * 1024)
#define USEC_PER_SEC 1000000ULL

/* ---- parsing: the state and config.json (pure) ------------------------------------------ */

static const char *get_str(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static json_object *get_obj(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* Letters, digits, '-', '_' and '.': what runtimes use for ids (podman's and docker's are 64
 * hex digits); anything else could not be part of a unit name as it is. */
static bool id_valid(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > OCI_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.",
			    id[i]))
			return false;
	return true;
}

static void opted_in_from(json_object *annotations, struct oci_container *c)
{
	const char *v = get_str(annotations, OCI_HOOK_ANNOTATION);

	c->opted_in = v && streq(v, OCI_HOOK_ANNOTATION_ON);
}

int oci_state_parse(const char *text, struct oci_container *ret, const char **ret_why)
{
	json_object *root = json_tokener_parse(text), *pid;
	const char *id, *bundle;
	int r = -EINVAL;

	*ret = (struct oci_container){};
	*ret_why = "it is not a JSON object";
	if (!root || !json_object_is_type(root, json_type_object))
		goto out;
	id = get_str(root, "id");
	bundle = get_str(root, "bundle");
	*ret_why = "it has no \"id\" of letters, digits, '-', '_' and '.'";
	if (!id || !id_valid(id))
		goto out;
	*ret_why = "it has no absolute \"bundle\" path";
	if (!bundle || bundle[0] != '/' || strlen(bundle) >= sizeof(ret->bundle))
		goto out;
	snprintf(ret->id, sizeof(ret->id), "%s", id);
	snprintf(ret->bundle, sizeof(ret->bundle), "%s", bundle);
	pid = get_obj(root, "pid", json_type_int);
	if (pid && json_object_get_int64(pid) > 0 && json_object_get_int64(pid) <= INT32_MAX)
		ret->pid = (pid_t)json_object_get_int64(pid);
	opted_in_from(get_obj(root, "annotations", json_type_object), ret);
	*ret_why = NULL;
	r = 0;
out:
	json_object_put(root);
	return r;
}

/* SLICE:PREFIX:NAME (runc's and crun's systemd form) into the scope and its cgroup path. */
static int systemd_cgroups_path(const char *spec, struct oci_container *c, char *why, size_t len)
{
	char slice[OCI_PATH_MAX], parent[OCI_PATH_MAX];
	const char *a = strchr(spec, ':'), *b = a ? strchr(a + 1, ':') : NULL;
	int k;

	if (spec[0] == '/' || !a || !b || strchr(b + 1, ':'))
		return snprintf(why, len,
				"its cgroupsPath \"%s\" is not in systemd's form SLICE:PREFIX:NAME: run the runtime with the systemd cgroup manager",
				spec),
		       -EINVAL;
	if ((size_t)(a - spec) >= sizeof(slice))
		return snprintf(why, len, "its cgroupsPath's slice is too long"), -EINVAL;
	snprintf(slice, sizeof(slice), "%.*s", (int)(a - spec), spec);
	if (!slice[0])
		snprintf(slice, sizeof(slice), "system.slice"); /* the runtimes' default */
	if (unit_slice_path(slice, parent, sizeof(parent)) < 0)
		return snprintf(why, len, "its cgroupsPath's slice \"%s\" is not a slice name",
				slice),
		       -EINVAL;
	/* The scope must be the container's own: NAME is its id (podman, docker, CRI-O). */
	if (!streq(b + 1, c->id))
		return snprintf(why, len,
				"its cgroupsPath \"%s\" does not name the container's own scope (NAME is not its id %s)",
				spec, c->id),
		       -EINVAL;
	k = snprintf(c->unit, sizeof(c->unit), "%.*s%s%s.scope", (int)(b - a - 1), a + 1,
		     b > a + 1 ? "-" : "", c->id);
	if (k < 0 || (size_t)k >= sizeof(c->unit))
		return snprintf(why, len, "its scope's name is too long"), -EINVAL;
	k = snprintf(c->cgroup, sizeof(c->cgroup), "%s/%s", parent, c->unit);
	if (k < 0 || (size_t)k >= sizeof(c->cgroup))
		return snprintf(why, len, "its cgroup's path is longer than %d characters",
				OCI_PATH_MAX - 1),
		       -EINVAL;
	return 0;
}

static int netns_from(json_object *linux_, struct oci_container *c, char *why, size_t len)
{
	json_object *ns = get_obj(linux_, "namespaces", json_type_array);
	size_t n = ns ? json_object_array_length(ns) : 0;

	c->netns = OCI_NETNS_HOST; /* no network namespace listed: the runtime's own */
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(ns, i);
		const char *type = get_str(e, "type"), *path = get_str(e, "path");

		if (!type || !streq(type, "network"))
			continue;
		if (!path || !path[0]) {
			c->netns = OCI_NETNS_OWN;
			return 0;
		}
		if (strlen(path) >= sizeof(c->netns_path))
			return snprintf(why, len, "its network namespace's path is too long"),
			       -EINVAL;
		snprintf(c->netns_path, sizeof(c->netns_path), "%s", path);
		c->netns = OCI_NETNS_PATH;
		return 0;
	}
	return 0;
}

int oci_config_parse(const char *text, struct oci_container *c, char *why, size_t len)
{
	json_object *root = json_tokener_parse(text), *linux_;
	const char *spec;
	int r = -EINVAL;

	if (!root || !json_object_is_type(root, json_type_object)) {
		snprintf(why, len, "its config.json is not a JSON object");
		goto out;
	}
	if (!c->opted_in)
		opted_in_from(get_obj(root, "annotations", json_type_object), c);
	linux_ = get_obj(root, "linux", json_type_object);
	spec = get_str(linux_, "cgroupsPath");
	if (!spec || !spec[0]) {
		snprintf(why, len, "its config.json has no linux.cgroupsPath");
		goto out;
	}
	r = systemd_cgroups_path(spec, c, why, len);
	if (r >= 0)
		r = netns_from(linux_, c, why, len);
out:
	json_object_put(root);
	return r;
}

/* ---- checks against the running system -------------------------------------------------- */

/* 1 when path is the network namespace the hook runs in (the runtime's), 0 not, -errno. */
static int netns_is_runtimes(const char *path)
{
	struct stat a, b;

	if (stat("/proc/self/ns/net", &a) < 0 || stat(path, &b) < 0)
		return negative_errno();
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The process's cgroup2 path ("0::PATH" of /proc/PID/cgroup) into buf. */
static int pid_cgroup(pid_t pid, char *buf, size_t len)
{
	char path[64], line[OCI_PATH_MAX + 8];
	_cleanup_(fclosep) FILE *f = NULL;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return negative_errno();
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line + 3);
		return 0;
	}
	return -ENOENT;
}

static int check_netns(const struct oci_container *c, char *why, size_t len)
{
	char own[64];
	int r = 0;

	if (c->netns == OCI_NETNS_HOST)
		return snprintf(why, len,
				"it has no network namespace of its own (host network): it would switch what the host's own services talk to; list its cgroup in smc.yaml's policies.cgroups to switch it anyway"),
		       -EPERM;
	if (c->netns == OCI_NETNS_PATH)
		r = netns_is_runtimes(c->netns_path);
	if (r == 0 && c->pid > 0) {
		snprintf(own, sizeof(own), "/proc/%d/ns/net", (int)c->pid);
		r = netns_is_runtimes(own);
	}
	if (r < 0)
		return snprintf(why, len, "cannot tell its network namespace: %s", strerror(-r)), r;
	if (r > 0)
		return snprintf(why, len,
				"its network namespace is the host's (host network): it would switch what the host's own services talk to; list its cgroup in smc.yaml's policies.cgroups to switch it anyway"),
		       -EPERM;
	return 0;
}

int oci_container_check(const struct oci_container *c, char *why, size_t len)
{
	char cg[OCI_PATH_MAX + 8];
	size_t n = strlen(c->cgroup);
	int r;

	r = check_netns(c, why, len);
	if (r < 0 || c->pid <= 0)
		return r;
	r = pid_cgroup(c->pid, cg, sizeof(cg));
	if (r < 0)
		return snprintf(why, len, "cannot read the cgroup of its process %d: %s",
				(int)c->pid, strerror(-r)),
		       r;
	if (strncmp(cg, c->cgroup, n) != 0 || (cg[n] != '\0' && cg[n] != '/'))
		return snprintf(why, len,
				"its process %d is in cgroup %s, not in %s that its config.json names",
				(int)c->pid, cg, c->cgroup),
		       -EPERM;
	return 0;
}

/* ---- the hook --------------------------------------------------------------------------- */

/*
 * What the hook did, for -j (every -j run answers with one document, smcctl(8) JSON
 * OUTPUT): the container, whether the agent made the change the stage asks for, and the
 * line the hook logged.  A runtime ignores it; a person trying the hook by hand reads it.
 */
static struct {
	char id[OCI_ID_MAX + 1];
	bool changed;
	char message[2048];
} hook_result;

static void hook_say(struct smcctl *c, int level, const char *fmt, ...) _printf_(3, 4);
static void hook_say(struct smcctl *c, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hook_result.message, sizeof(hook_result.message), fmt, ap);
	va_end(ap);
	fprintf(c->err, "smcctl oci-hook: %s\n", hook_result.message);
	syslog(level, "%s", hook_result.message);
}

/* The hard stop: whatever hangs (the bus's connect, say), the container starts. */
static void on_alarm(int sig)
{
	static const char msg[] =
		"smcctl oci-hook: no answer in time: the container goes on with TCP sockets\n";

	(void)sig;
	(void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
	_exit(0);
}

static int read_stdin(char **ret)
{
	return fd_read_small(STDIN_FILENO, OCI_STATE_MAX, ret, NULL);
}

/* The container as the hook sees it; 1 to go on, 0 to do nothing (said when it matters). */
static int container_load(struct smcctl *c, const char *stage, struct oci_container *oc)
{
	_cleanup_(freep) char *state = NULL, *config = NULL, *path = NULL;
	const char *bad;
	char why[512];
	int r;

	r = read_stdin(&state);
	if (r < 0) {
		hook_say(c, LOG_WARNING, "%s: cannot read the container's state on stdin: %s",
			 stage, strerror(-r));
		return 0;
	}
	if (oci_state_parse(state, oc, &bad) < 0) {
		hook_say(c, LOG_WARNING, "%s: the state on stdin is not an OCI state: %s", stage,
			 bad);
		return 0;
	}
	if (asprintf(&path, "%s/config.json", oc->bundle) < 0)
		return -ENOMEM;
	r = textfile_read_small(path, OCI_CONFIG_MAX, &config);
	if (r < 0 || !config) {
		/* Annotated or not, the state said; the rest needs the file. */
		if (oc->opted_in)
			hook_say(c, LOG_WARNING, "%s: container %.12s: cannot read %s: %s", stage,
				 oc->id, path, strerror(r < 0 ? -r : ENOENT));
		return 0;
	}
	r = oci_config_parse(config, oc, why, sizeof(why));
	if (!oc->opted_in)
		return 0; /* not annotated: not ours, nothing to say */
	if (r < 0) {
		hook_say(c, LOG_WARNING, "%s: container %.12s stays on TCP: %s", stage, oc->id, why);
		return 0;
	}
	return 1;
}

/* EnableUnit or DisableUnit of the container's scope; 0, or -errno with why. */
static int ask_agent(const struct oci_container *oc, bool enable, uint64_t timeout_usec, char *why,
		     size_t len)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r;

	r = bus_open_quiet(&bus);
	if (r < 0)
		return snprintf(why, len, "no system bus to reach smcd-agent on: %s", strerror(-r)),
		       r;
	r = sd_bus_message_new_method_call(
		bus, &m, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER,
		enable ? SMCD_BUS_MANAGER_ENABLE_UNIT : SMCD_BUS_MANAGER_DISABLE_UNIT);
	if (r >= 0)
		r = enable ? sd_bus_message_append(m, "ss", oc->unit, oc->cgroup)
			   : sd_bus_message_append(m, "s", oc->unit);
	if (r >= 0)
		r = sd_bus_call(bus, m, timeout_usec, &e, &reply);
	if (r >= 0)
		return 0;
	if (sd_bus_error_has_names(&e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
		return snprintf(why, len, "smcd-agent is not running"), r;
	if (r == -ETIMEDOUT)
		return snprintf(why, len,
				"smcd-agent did not answer within %llu ms (it may still apply it: smcctl policy shows)",
				(unsigned long long)(timeout_usec / 1000)),
		       r;
	return snprintf(why, len, "smcd-agent answered: %s", e.message ? e.message : strerror(-r)), r;
}

static int hook_run(struct smcctl *c, const char *stage, bool enable, uint64_t timeout)
{
	struct oci_container oc;
	char why[1024];
	int r;

	r = container_load(c, stage, &oc);
	if (r <= 0)
		return r < 0 ? smcctl_oom(c) : SMCCTL_EXIT_OK;
	if (enable && oci_container_check(&oc, why, sizeof(why)) < 0) {
		hook_say(c, LOG_WARNING,
			 "%s: container %.12s is annotated %s=%s but stays on TCP: %s", stage,
			 oc.id, OCI_HOOK_ANNOTATION, OCI_HOOK_ANNOTATION_ON, why);
		return SMCCTL_EXIT_OK;
	}
	r = ask_agent(&oc, enable, timeout, why, sizeof(why));
	snprintf(hook_result.id, sizeof(hook_result.id), "%s", oc.id);
	hook_result.changed = r >= 0;
	if (r < 0)
		hook_say(c, LOG_WARNING, "%s: container %.12s: %s %s: %s%s", stage, oc.id,
			 enable ? "cannot switch its scope" : "cannot remove the drop-in of",
			 oc.unit, why,
			 enable ? "; it starts with TCP sockets" : "; smcctl disable removes it");
	else
		hook_say(c, LOG_INFO, "%s: container %.12s: %s %s (cgroup %s)", stage, oc.id,
			 enable ? "new sockets use SMC in" : "TCP again in", oc.unit, oc.cgroup);
	return SMCCTL_EXIT_OK;
}

static int hook(struct smcctl *c, const struct verb_args *a, bool enable)
{
	const char *stage = enable ? "createRuntime" : "poststop";
	int64_t seconds = a->num[OCI_HOOK_OPT_TIMEOUT];
	void (*old)(int);
	int s;

	if (isatty(STDIN_FILENO))
		return smcctl_usage(
			c,
			"oci-hook %s reads the container's OCI state on stdin: the container runtime runs it (hooks.d), not a terminal",
			stage);
	openlog("smcctl", LOG_PID, LOG_DAEMON);
	old = signal(SIGALRM, on_alarm);
	alarm((unsigned)(2 * seconds));
	s = hook_run(c, stage, enable, (uint64_t)seconds * USEC_PER_SEC);
	alarm(0);
	signal(SIGALRM, old);
	closelog();
	if (s == SMCCTL_EXIT_OK && c->json) {
		json_object *doc = json_object_new_object();

		if (!doc || json_add_str(doc, "stage", stage) < 0 ||
		    (hook_result.id[0] && json_add_str(doc, "container", hook_result.id) < 0) ||
		    json_add_bool(doc, "changed", hook_result.changed) < 0 ||
		    json_add_str(doc, "message",
				 hook_result.message[0] ? hook_result.message : NULL) < 0) {
			json_object_put(doc);
			return smcctl_oom(c);
		}
		s = smcctl_emit(c, doc, NULL);
		json_object_put(doc);
	}
	return s;
}

int oci_hook_create_runtime(struct smcctl *c, const struct verb_args *a)
{
	return hook(c, a, true);
}

int oci_hook_poststop(struct smcctl *c, const struct verb_args *a)
{
	return hook(c, a, false);
}
