// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * org.smcd.Agent1.Policy on /org/smcd/Agent1: smc.yaml's policies as the agent applied them,
 * what the kernel can do for them, and EnrollProcess for "smcctl run".
 *
 *   Policies       a(ssssst) item, kind (cgroup|netns|exclude), target, state
 *                            (active|waiting|unsupported|failed), message, sockets (switched
 *                            to SMC for cgroup/netns; kept TCP for exclude, since the rules
 *                            were last set)
 *   Hooks          a{sv}     select, select-reason, buffers, buffers-reason, exclude,
 *                            exclude-reason, select-loaded, exclude-loaded, enrolled,
 *                            run-sockets, inherit-failures
 *   EnrollProcess(h pidfd, u sndbuf, u rcvbuf) -> (s note)
 *
 * EnrollProcess: who may enroll whom.  Switching a process's sockets to SMC gives it nothing
 * it could not have with LD_PRELOAD, so any user may enroll their own process; enrolling
 * another user's process (which could break its connections to servers that mishandle SMC)
 * needs root.  "Own" is decided by credentials, never by a pid: the caller's uid and groups
 * as the bus vouches for them (from the kernel at connect time), against the pidfd's
 * process read from /proc and confirmed by the pidfd still being alive afterwards (so the
 * pid was not reused in between): its uids the caller's, its gids among the caller's
 * groups, no capabilities, a process and not a thread (not_callers_own()).  The pid dbus-daemon
 * recorded at connect time is not used: a caller that forked and let the connecting process exit
 * could otherwise enroll whatever process later got that pid, root's included. The enrollment
 * follows exec, set-user-ID programs included (unlike LD_PRELOAD, which the dynamic loader ignores
 * for them): it only changes which protocol the process's own TCP sockets use, and a process could
 * always have asked for IPPROTO_SMC itself. The counters are read live, so the properties send no
 * change signals.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "smcd-agent/bus-access.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/policy-engine.h"

static const char *state_name(const struct policy_item *it)
{
	switch (it->state) {
	case PI_OK:
	case PI_CHANGE:
		return it->waiting ? "waiting" : "active";
	case PI_WAITING:
		return "waiting";
	case PI_UNSUPPORTED:
		return "unsupported";
	default:
		return "failed";
	}
}

static int prop_policies(sd_bus *bus, const char *path, const char *iface, const char *prop,
			 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_(freep) struct policy_status *v = NULL;
	size_t n = 0;
	int r;

	r = policy_status(m->policy, &v, &n);
	if (r < 0)
		return r;
	r = sd_bus_message_open_container(reply, 'a', "(ssssst)");
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct policy_item *it = v[i].item;

		r = sd_bus_message_append(reply, "(ssssst)", it->name, it->kind, it->target,
					  state_name(it), it->message, v[i].sockets);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

/*
 * Where each policy entry was written, item name -> "FILE:LINE": smc.yaml or one of its
 * drop-ins (smcctl enable), from the running configuration, for smcctl policy.
 */
static int append_source(sd_bus_message *reply, const char *kind, const char *target,
			 const char *file, unsigned line)
{
	char name[512], where[4200];

	snprintf(name, sizeof(name), "policy:%s:%s", kind, target);
	snprintf(where, sizeof(where), "%s:%u", file, line);
	return sd_bus_message_append(reply, "{ss}", name, where);
}

static int prop_sources(sd_bus *bus, const char *path, const char *iface, const char *prop,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct config_policies *p = &m->config->policies;
	const char *main_path = m->config->path;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "{ss}");
	for (size_t i = 0; r >= 0 && i < p->n_cgroups; i++)
		r = append_source(reply, "cgroup", p->cgroups[i].path,
				  p->cgroups[i].file ? p->cgroups[i].file : main_path,
				  p->cgroups[i].line);
	for (size_t i = 0; r >= 0 && i < p->n_netns; i++)
		r = append_source(reply, "netns", p->netns[i].path,
				  p->netns[i].file ? p->netns[i].file : main_path, p->netns[i].line);
	for (size_t i = 0; r >= 0 && i < p->n_exclude; i++)
		r = append_source(reply, "exclude", p->exclude[i].text,
				  p->exclude[i].file ? p->exclude[i].file : main_path,
				  p->exclude[i].line);
	/* The autopilot's (autopilot.c), without a line: smc.yaml's entry of the same target,
	 * if any, is the one in effect and named above. */
	if (m->policy) {
		const struct policy_auto *a = policy_engine_auto(m->policy);
		char name[512];

		for (size_t i = 0; r >= 0 && i < a->n_cgroups; i++) {
			snprintf(name, sizeof(name), "policy:cgroup:%s", a->cgroups[i].path);
			r = sd_bus_message_append(reply, "{ss}", name, POLICY_AUTO_SOURCE);
		}
		for (size_t i = 0; r >= 0 && i < a->n_ports; i++) {
			snprintf(name, sizeof(name), "policy:exclude:*:%u", a->ports[i]);
			r = sd_bus_message_append(reply, "{ss}", name, POLICY_AUTO_SOURCE);
		}
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

static int append_b(sd_bus_message *reply, const char *key, bool v)
{
	return sd_bus_message_append(reply, "{sv}", key, "b", (int)v);
}

static int append_s(sd_bus_message *reply, const char *key, const char *v)
{
	return sd_bus_message_append(reply, "{sv}", key, "s", v ? v : "");
}

static int append_t(sd_bus_message *reply, const char *key, uint64_t v)
{
	return sd_bus_message_append(reply, "{sv}", key, "t", v);
}

static int prop_hooks(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct policy_hooks h;
	int r;

	policy_hooks(m->policy, &h);
	r = sd_bus_message_open_container(reply, 'a', "{sv}");
	if (r >= 0)
		r = append_b(reply, "select", h.select);
	if (r >= 0)
		r = append_s(reply, "select-reason", h.select ? "" : h.select_why);
	if (r >= 0)
		r = append_b(reply, "buffers", h.buffers);
	if (r >= 0)
		r = append_s(reply, "buffers-reason", h.buffers ? "" : h.buffers_why);
	if (r >= 0)
		r = append_b(reply, "exclude", h.exclude);
	if (r >= 0)
		r = append_s(reply, "exclude-reason", h.exclude ? "" : h.exclude_why);
	if (r >= 0)
		r = append_b(reply, "select-loaded", h.select_loaded);
	if (r >= 0)
		r = append_b(reply, "exclude-loaded", h.exclude_loaded);
	if (r >= 0)
		r = append_t(reply, "enrolled", h.enrolled);
	if (r >= 0)
		r = append_b(reply, "pinned", h.pinned);
	if (r >= 0)
		r = append_s(reply, "pin-reason", h.pinned ? "" : h.pin_why);
	if (r >= 0)
		r = append_b(reply, "adopted", h.adopted);
	if (r >= 0)
		r = append_t(reply, "run-sockets", h.run_sockets);
	if (r >= 0)
		r = append_t(reply, "inherit-failures", h.inherit_failures);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

/* The pid (in our pid namespace) of the process a pidfd refers to; -ESRCH when it is gone. */
static int pidfd_pid(int fd, pid_t *ret)
{
	char path[64], line[128];
	_cleanup_(fclosep) FILE *f = NULL;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return negative_errno();
	while (fgets(line, sizeof(line), f)) {
		long pid;

		if (sscanf(line, "Pid: %ld", &pid) != 1)
			continue;
		if (pid <= 0)
			return -ESRCH;
		*ret = (pid_t)pid;
		return 0;
	}
	return -EBADF; /* not a pidfd */
}

/* What EnrollProcess needs to know of the process a pidfd names. */
struct target_creds {
	uid_t uid[3]; /* real, effective, saved */
	gid_t gid[3];
	bool caps;   /* any permitted or effective capability */
	bool thread; /* the pidfd names a thread that is not its process's leader */
};

/*
 * Read from /proc/PID/status, then the pidfd is polled: still running means the pid still
 * belongs to that process, so what was read is its own.  -ESRCH when it has exited.
 */
static int pidfd_creds(int fd, pid_t pid, struct target_creds *t)
{
	char path[64], line[256];
	_cleanup_(fclosep) FILE *f = NULL;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned found = 0;
	long tgid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : negative_errno();
	*t = (struct target_creds){};
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, b, c;
		unsigned long long caps;

		if (sscanf(line, "Uid: %lu %lu %lu", &a, &b, &c) == 3) {
			t->uid[0] = (uid_t)a, t->uid[1] = (uid_t)b, t->uid[2] = (uid_t)c;
			found |= 1;
		} else if (sscanf(line, "Gid: %lu %lu %lu", &a, &b, &c) == 3) {
			t->gid[0] = (gid_t)a, t->gid[1] = (gid_t)b, t->gid[2] = (gid_t)c;
			found |= 2;
		} else if (sscanf(line, "CapPrm: %llx", &caps) == 1 ||
			   sscanf(line, "CapEff: %llx", &caps) == 1) {
			t->caps |= caps != 0;
			found |= 4;
		} else if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			found |= 8;
	}
	if (found != 15)
		return -EIO;
	t->thread = tgid != (long)pid;
	if (poll(&p, 1, 0) < 0)
		return negative_errno();
	return p.revents & POLLIN ? -ESRCH : 0; /* a pidfd polls readable once it exited */
}

static bool gid_in(gid_t g, const uint32_t *gids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (gids[i] == g)
			return true;
	return false;
}

/*
 * Whether a caller that is not root may enroll the target: it must be the caller's own in
 * every respect a debugger would care about (ptrace's rules, roughly): all its uids the
 * caller's, all its gids among the caller's groups, no capabilities (a setgid program, one
 * with file capabilities or a service that kept some under the same uid is not the
 * caller's to change), and a whole process, not a thread that changed its own uids.  NULL
 * when it may, else what is wrong (naming no ids: the answer must not tell a caller who
 * runs a pid it may not see).
 */
static const char *not_callers_own(const struct target_creds *t, uid_t caller, const uint32_t *gids,
				   size_t n_gids)
{
	for (size_t i = 0; i < 3; i++)
		if (t->uid[i] != caller)
			return "it runs as another user";
	for (size_t i = 0; i < 3; i++)
		if (!gid_in(t->gid[i], gids, n_gids))
			return "it runs with a group the caller is not in";
	if (t->caps)
		return "it has capabilities";
	if (t->thread)
		return "the pidfd names a thread, not a process";
	return NULL;
}

static int method_enroll(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_(freep) uint32_t *gids = NULL;
	struct manager *m = userdata;
	struct target_creds t;
	uint32_t sndbuf, rcvbuf;
	pid_t pid = 0;
	uid_t caller;
	char why[POLICY_WHY_LEN];
	const char *wrong;
	size_t n_gids = 0;
	int fd, r;

	/* The caller's uid and groups in one GetConnectionCredentials, for the rate limit and
	 * for not_callers_own(): the call is synchronous, and anyone may make this one. */
	if (bus_sender_credentials(msg, &caller, &gids, &n_gids) < 0)
		caller = (uid_t)-1;
	/* Not counted twice: the second run after polkit's answer is the same call. */
	r = bus_authorize_answered(m, msg) ? 0 : bus_rate_limit_uid(msg, m, caller, error);
	if (r < 0)
		return r;
	r = sd_bus_message_read(msg, "huu", &fd, &sndbuf, &rcvbuf);
	if (r < 0)
		return r;
	r = pidfd_pid(fd, &pid);
	if (r >= 0)
		r = pidfd_creds(fd, pid, &t);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 r == -ESRCH   ? "The process has exited"
					 : r == -EBADF ? "The file descriptor is not a pidfd"
						       : "Cannot read the process's credentials");
	if (caller == (uid_t)-1)
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "The bus does not say who is calling; EnrollProcess refused");
	/* Another's process: polkit's enroll-process (root only without polkit). */
	if (caller != 0 && (wrong = not_callers_own(&t, caller, gids, n_gids))) {
		_cleanup_(sd_bus_error_free) sd_bus_error denied = SD_BUS_ERROR_NULL;

		r = bus_authorize(msg, m, &denied);
		if (r > 0)
			return r;
		if (r < 0 && !sd_bus_error_is_set(&denied))
			return r;
		if (r < 0)
			return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
						 "Pid %d is not the caller's own (%s): %s",
						 (int)pid, wrong, denied.message);
	}
	r = policy_enroll(m->policy, fd, sndbuf, rcvbuf, why, sizeof(why));
	if (r < 0) {
		log_notice("EnrollProcess for pid %d refused: %s", (int)pid, why);
		return sd_bus_error_set(
			error, r == -ENOTSUP ? SMCD_BUS_ERROR_NOT_SUPPORTED : SD_BUS_ERROR_FAILED,
			why);
	}
	log_info("Enrolled pid %d for SMC (smcctl run; sndbuf %" PRIu32 ", rcvbuf %" PRIu32 ")%s%s",
		 (int)pid, sndbuf, rcvbuf, why[0] ? ": " : "", why);
	return sd_bus_reply_method_return(msg, "s", why);
}

static const sd_bus_vtable policy_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SMCD_BUS_POLICY_POLICIES, "a(ssssst)", prop_policies, 0, 0),
	SD_BUS_PROPERTY(SMCD_BUS_POLICY_HOOKS, "a{sv}", prop_hooks, 0, 0),
	SD_BUS_PROPERTY(SMCD_BUS_POLICY_SOURCES, "a{ss}", prop_sources, 0, 0),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_POLICY_ENROLL_PROCESS,
				SD_BUS_ARGS("h", pidfd, "u", sndbuf, "u", rcvbuf),
				SD_BUS_RESULT("s", note), method_enroll, POLKIT),
	SD_BUS_VTABLE_END,
};

int bus_policy_register(struct manager *m)
{
	return sd_bus_add_object_vtable(m->bus, NULL, SMCD_BUS_PATH, SMCD_BUS_IFACE_POLICY,
					policy_vtable, m);
}
