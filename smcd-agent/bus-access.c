// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who may do what on the agent's bus: the caller's credentials as the bus vouches for
 * them, root and admin-group, the per-uid rate limit of the methods anyone may call, and
 * polkit for every change.  Below the bus objects (bus-*.c): they call it, it calls none
 * of them.
 *
 * Who may change things: polkit decides, as for systemd's own daemons.
 *
 * Every method that changes something names one polkit action (bus_actions[] below; the
 * actions are defined in etc/polkit-1/org.smcd.agent1.policy, and
 * tests/integration/agent-polkit-actions.test holds the vtables, this table and that file
 * to each other).  Root (or CAP_NET_ADMIN) is not asked about; anyone else is the subject
 * of an asynchronous CheckAuthorization, with the caller's unique bus name as subject.
 *
 * The event loop never waits for polkit (which may be asking the user for a password): the
 * method call is kept (a reference), the handler returns without a reply, and when polkit
 * answers the call is put back on the bus's read queue, so that the same handler runs
 * again from the start and finds the answer waiting for it (the pattern of systemd's
 * bus-polkit.c).  A handler therefore reads and checks its arguments before it asks: they
 * are read twice, and nothing is done before the answer.
 *
 * The second run may end before it takes the answer (EnrollProcess whose target exited
 * while polkit thought fails at the pidfd): the question is dropped all the same when that
 * run is over, so that it holds neither the call (and its file descriptors) nor a place in
 * its user's share.  sd-bus dispatches one message at a time, so the next message the bus
 * filter sees, or the event loop's next idle moment, comes after that run.
 *
 * Without polkit (nobody owns org.freedesktop.PolicyKit1 and the bus cannot start it) the
 * agent's own check decides, as before polkit: root or smc.yaml's admin-group.  Any other
 * failure of polkit is a refusal that says so.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <time.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/bus-api.h"
#include "common/clock.h"
#include "common/macro.h"
#include "common/util.h"
#include "smcd-agent/bus-access.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"

/* ------------------------------------------------------------------------------------- */
/* Credentials, admins, rate limit                                                      */

/*
 * The caller's uid and groups as the bus vouches for them: dbus-daemon's
 * GetConnectionCredentials "UnixUserID" and "UnixGroupIDs", which it took from the kernel
 * (SO_PEERCRED, SO_PEERGROUPS) when the caller connected.  Never sd-bus's augmented
 * credentials: those read /proc/PID/status of the pid the bus recorded, which by now may be
 * another process (pid reuse) or the same one with other groups.  -ENODATA for what the
 * bus does not say (*ret_gids stays NULL when it gives no groups).
 */
int bus_sender_credentials(sd_bus_message *msg, uid_t *ret_uid, uint32_t **ret_gids,
			   size_t *ret_n_gids)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(freep) uint32_t *gids = NULL;
	const char *sender = sd_bus_message_get_sender(msg), *key;
	bool have_uid = false;
	size_t n_gids = 0;
	uint32_t uid = 0;
	int r;

	if (!sender)
		return -ENODATA;
	r = sd_bus_call_method(sd_bus_message_get_bus(msg), DBUS_SERVICE, DBUS_PATH, DBUS_IFACE,
			       DBUS_GET_CONNECTION_CREDENTIALS, &error, &reply, "s", sender);
	if (r < 0) {
		/* Debug only: a caller that hung up before the answer makes one of these. */
		log_debug("Cannot get the bus's credentials of %s: %s", sender,
			  error.message ? error.message : strerror(-r));
		return r;
	}
	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		r = sd_bus_message_read(reply, "s", &key);
		if (r < 0)
			return r;
		if (streq(key, "UnixUserID")) {
			r = sd_bus_message_read(reply, "v", "u", &uid);
			if (r < 0)
				return r;
			have_uid = true;
		} else if (streq(key, "UnixGroupIDs")) {
			const uint32_t *v;
			size_t size;

			r = sd_bus_message_enter_container(reply, 'v', "au");
			if (r < 0)
				return r;
			r = sd_bus_message_read_array(reply, 'u', (const void **)&v, &size);
			if (r < 0)
				return r;
			free(gids);
			n_gids = size / sizeof(*v);
			gids = malloc((n_gids ? n_gids : 1) * sizeof(*gids));
			if (!gids)
				return -ENOMEM;
			memcpy(gids, v, n_gids * sizeof(*v));
			r = sd_bus_message_exit_container(reply);
			if (r < 0)
				return r;
		} else {
			r = sd_bus_message_skip(reply, "v");
			if (r < 0)
				return r;
		}
		r = sd_bus_message_exit_container(reply);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	if (!have_uid)
		return -ENODATA;
	/* A bus that gives no groups: the user database's for that uid (never /proc). */
	if (ret_gids && !gids) {
		struct passwd *pw = getpwuid((uid_t)uid);
		int n = 64;

		if (pw) {
			gids = malloc(n * sizeof(*gids));
			if (!gids)
				return -ENOMEM;
			if (getgrouplist(pw->pw_name, pw->pw_gid, (gid_t *)gids, &n) < 0)
				n = 0;
			n_gids = (size_t)n;
		}
	}
	if (ret_uid)
		*ret_uid = (uid_t)uid;
	if (ret_gids) {
		*ret_gids = TAKE_PTR(gids);
		*ret_n_gids = n_gids;
	}
	return 0;
}

bool bus_sender_in_group(sd_bus_message *msg, const char *group)
{
	_cleanup_(freep) uint32_t *gids = NULL;
	size_t n = 0;
	struct group *g;

	if (!group)
		return false;
	g = getgrnam(group);
	if (!g)
		return false;
	if (bus_sender_credentials(msg, NULL, &gids, &n) < 0 || !gids)
		return false;
	for (size_t i = 0; i < n; i++)
		if (gids[i] == g->gr_gid)
			return true;
	return false;
}

int bus_rate_limit(sd_bus_message *msg, struct manager *m, uid_t *ret_uid, sd_bus_error *error)
{
	uid_t uid;

	if (bus_sender_credentials(msg, &uid, NULL, NULL) < 0)
		uid = (uid_t)-1;
	if (ret_uid)
		*ret_uid = uid;
	return bus_rate_limit_uid(msg, m, uid, error);
}

int bus_rate_limit_uid(sd_bus_message *msg, struct manager *m, uid_t uid, sd_bus_error *error)
{
	unsigned long long window_s = BUS_RATE_WINDOW_USEC / 1000000ULL;
	uint64_t now;

	/* A caller the bus gives no uid for is counted as uid (uid_t)-1: the system bus always
	 * gives one, so no real caller shares that entry. */
	if (uid == 0)
		return 0;
	now = now_usec(CLOCK_MONOTONIC) + 1;
	switch (rate_table_charge(&m->rate, (uint32_t)uid, now, BUS_RATE_WINDOW_USEC,
				  m->config->rate_limit)) {
	case RATE_OK:
		return 0;
	case RATE_NOMEM:
		return sd_bus_error_set_errno(error, -ENOMEM);
	case RATE_FULL:
		log_notice("Rate-limiting %s() from uid %u: %u other users called within %llu s, as many as the agent keeps track of",
			   sd_bus_message_get_member(msg), (unsigned)uid, RATE_TABLE_MAX, window_s);
		return sd_bus_error_setf(
			error, SMCD_BUS_ERROR_RATE_LIMITED,
			"Too many users called the agent (%u within %llu s); try again in a few seconds",
			RATE_TABLE_MAX, window_s);
	case RATE_REFUSED_LOG:
		log_notice("Rate-limiting %s() and the like from uid %u: more than %u calls in %llu s",
			   sd_bus_message_get_member(msg), (unsigned)uid, m->config->rate_limit,
			   window_s);
		break;
	case RATE_REFUSED:
		break;
	}
	return sd_bus_error_setf(
		error, SMCD_BUS_ERROR_RATE_LIMITED,
		"Too many calls from uid %u (more than %u in %llu s); try again in a few seconds",
		(unsigned)uid, m->config->rate_limit, window_s);
}

bool bus_sender_is_admin(sd_bus_message *msg, struct manager *m)
{
	return sd_bus_query_sender_privilege(msg, CAP_NET_ADMIN) > 0 ||
	       bus_sender_in_group(msg, m->config->admin_group);
}

/* what: the refused action, for the caller ("Changing SMC settings"). */
int bus_check_admin(sd_bus_message *msg, struct manager *m, const char *what, sd_bus_error *error)
{
	if (bus_sender_is_admin(msg, m))
		return 0;
	log_notice("Refused %s() from %s: not root%s%s", sd_bus_message_get_member(msg),
		   sd_bus_message_get_sender(msg) ? sd_bus_message_get_sender(msg) : "?",
		   m->config->admin_group ? " and not in group " : "",
		   m->config->admin_group ? m->config->admin_group : "");
	return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "%s needs root%s%s%s", what,
				 m->config->admin_group ? " or membership in group '" : "",
				 m->config->admin_group ? m->config->admin_group : "",
				 m->config->admin_group ? "'" : "");
}

/*
 * Whether a property getter may show smc.yaml's own text (ConfigError): only in the method
 * return of the call being answered (Get, GetAll, GetManagedObjects) to an admin; a signal
 * goes to every listener, and a getter run while answering someone else is not theirs.
 */
bool bus_reader_is_admin(sd_bus *bus, sd_bus_message *reply, struct manager *m)
{
	sd_bus_message *call = sd_bus_get_current_message(bus);
	uint8_t type;

	if (!call || !sd_bus_message_is_method_call(call, NULL, NULL) ||
	    sd_bus_message_get_type(reply, &type) < 0 || type != SD_BUS_MESSAGE_METHOD_RETURN ||
	    !sd_bus_message_get_sender(call) ||
	    !streq_ptr(sd_bus_message_get_destination(reply), sd_bus_message_get_sender(call)))
		return false;
	return bus_sender_is_admin(call, m);
}

bool bus_sender_is_root(sd_bus_message *msg)
{
	/* Only root: sd-bus knows no capabilities of a dbus-daemon peer (its creds would be
	 * read from /proc, racily, so it does not), so CAP_NET_ADMIN is uid 0 here. */
	return sd_bus_query_sender_privilege(msg, CAP_NET_ADMIN) > 0;
}

/* ------------------------------------------------------------------------------------- */
/* polkit                                                                                 */

/* polkit's CheckAuthorization flags: may ask the user (an authentication agent). */
#define POLKIT_ALLOW_USER_INTERACTION 1u
/* At most this many calls wait for polkit at once; more are refused (try again). */
#define BUS_AUTH_MAX_PENDING 256
/* One user's share: a user in an active session cannot fill the queue with password
 * dialogs and lock every other caller out. */
#define BUS_AUTH_MAX_PER_UID 8

#define ACTION(i, mb, a)                                        \
	{                                                       \
		.interface = (i), .member = (mb), .action = (a) \
	}
#define ROOT_ACTION(i, mb, a, w)                                                                \
	{                                                                                       \
		.interface = (i), .member = (mb), .action = (a), .root_only = true, .what = (w) \
	}

static const struct bus_action {
	const char *interface, *member, *action;
	/* Who decides without polkit: admin-group, or only root where only root could
	 * before polkit (then what the refusal calls it). */
	bool root_only;
	const char *what;
} bus_actions[] = {
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_RELOAD, SMCD_POLKIT_RELOAD),
	/* Reconcile applies the running file, as Reload does: the same kind of change. */
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_RECONCILE, SMCD_POLKIT_RELOAD),
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_ADD_UEID, SMCD_POLKIT_MANAGE_UEID),
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_REMOVE_UEID, SMCD_POLKIT_MANAGE_UEID),
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_FLUSH_UEID, SMCD_POLKIT_MANAGE_UEID),
	/* The SEID is the other EID of SMC-Dv2's negotiation, beside the UEID table. */
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_SET_SEID, SMCD_POLKIT_MANAGE_UEID),
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_SET_SYSCTL, SMCD_POLKIT_SET_SYSCTL),
	/* net.smc.limit_smc_hs, set through its own method. */
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_SET_HANDSHAKE_LIMITATION,
	       SMCD_POLKIT_SET_SYSCTL),
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_ADD_PNET, SMCD_POLKIT_MANAGE_PNET),
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_REMOVE_PNET, SMCD_POLKIT_MANAGE_PNET),
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_FLUSH_PNET, SMCD_POLKIT_MANAGE_PNET),
	ACTION(SMCD_BUS_IFACE_LOOPBACK, SMCD_BUS_LOOPBACK_ACTIVATE, SMCD_POLKIT_MANAGE_LOOPBACK),
	ACTION(SMCD_BUS_IFACE_LOOPBACK, SMCD_BUS_LOOPBACK_DEACTIVATE, SMCD_POLKIT_MANAGE_LOOPBACK),
	ACTION(SMCD_BUS_IFACE_LOOPBACK, SMCD_BUS_LOOPBACK_SET, SMCD_POLKIT_MANAGE_LOOPBACK),
	/* Only for a process that is not the caller's own: its own needs no one's leave. */
	ROOT_ACTION(SMCD_BUS_IFACE_POLICY, SMCD_BUS_POLICY_ENROLL_PROCESS,
		    SMCD_POLKIT_ENROLL_PROCESS, "Enrolling another user's process"),
	ACTION(SMCD_BUS_IFACE_STATS, SMCD_BUS_STATS_RESET_STATISTICS, SMCD_POLKIT_RESET_STATISTICS),
	/* smcctl enable/disable: a policies: drop-in written or removed, then a reload. */
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_ENABLE_UNIT, SMCD_POLKIT_MANAGE_POLICY),
	ACTION(SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_DISABLE_UNIT, SMCD_POLKIT_MANAGE_POLICY),
	/* smcctl auto freeze/thaw/forget: what the autopilot may do to one workload. */
	ACTION(SMCD_BUS_IFACE_AUTOPILOT, SMCD_BUS_AUTO_FREEZE, SMCD_POLKIT_MANAGE_AUTOPILOT),
	ACTION(SMCD_BUS_IFACE_AUTOPILOT, SMCD_BUS_AUTO_FORGET, SMCD_POLKIT_MANAGE_AUTOPILOT),
};

/* One method call's question to polkit, from the ask to the handler's second run. */
struct bus_auth {
	struct bus_auth *next;
	struct manager *m;
	sd_bus_message *call;  /* referenced until the answer is taken */
	sd_bus_slot *slot;     /* the CheckAuthorization in flight; NULL once answered */
	sd_event_source *idle; /* answered: drops the question once the loop is idle */
	const struct bus_action *action;
	uid_t uid; /* the caller's, as the bus recorded it */
	bool answered;
	bool rerun; /* the call's second run began (the bus filter saw it again) */
	bool allowed;
	char *why; /* refused: what to tell the caller */
};

static const struct bus_action *action_find(const char *interface, const char *member)
{
	for (size_t i = 0; i < ELEMENTSOF(bus_actions); i++)
		if (streq_ptr(bus_actions[i].interface, interface) &&
		    streq_ptr(bus_actions[i].member, member))
			return &bus_actions[i];
	return NULL;
}

void bus_actions_print(FILE *f)
{
	for (size_t i = 0; i < ELEMENTSOF(bus_actions); i++)
		fprintf(f, "%s %s %s\n", bus_actions[i].interface, bus_actions[i].member,
			bus_actions[i].action);
}

static struct bus_auth *bus_auth_free(struct bus_auth *a)
{
	struct bus_auth *next = a->next;

	sd_bus_slot_unref(a->slot);
	sd_event_source_disable_unref(a->idle);
	sd_bus_message_unref(a->call);
	free(a->why);
	free(a);
	return next;
}

void bus_auth_free_all(struct manager *m)
{
	while (m->auths)
		m->auths = bus_auth_free(m->auths);
	m->n_auths = 0;
}

/* The question about this call, unlinked (the caller owns it), or NULL. */
static struct bus_auth *bus_auth_take(struct manager *m, sd_bus_message *call)
{
	for (struct bus_auth **p = &m->auths; *p; p = &(*p)->next) {
		struct bus_auth *a = *p;

		if (a->call == call) {
			*p = a->next;
			a->next = NULL;
			m->n_auths--;
			return a;
		}
	}
	return NULL;
}

/* An answered question whose call ran again without taking it: its run is over. */
static void bus_auth_drop(struct manager *m, struct bus_auth *a)
{
	log_debug("%s() ended without taking polkit's answer: dropped",
		  sd_bus_message_get_member(a->call));
	a = bus_auth_take(m, a->call);
	if (a)
		bus_auth_free(a);
}

static int bus_auth_idle(sd_event_source *s, void *userdata)
{
	struct bus_auth *a = userdata;

	bus_auth_drop(a->m, a);
	return 0;
}

/*
 * Every message the bus dispatches passes here first.  An answered call seen again is its
 * second run beginning; any other message comes after the end of every second run that
 * began before it (one message at a time), so a question still here then was not taken.
 */
static int bus_auth_filter(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct bus_auth *next;

	for (struct bus_auth *a = m->auths; a; a = next) {
		next = a->next;
		if (a->answered && a->call == msg)
			a->rerun = true;
		else if (a->rerun)
			bus_auth_drop(m, a);
	}
	return 0;
}

int bus_polkit_register(struct manager *m)
{
	return sd_bus_add_filter(m->bus, NULL, bus_auth_filter, m);
}

/* What a refusal tells the caller (allocation failures leave the generic text). */
#define set_why(a, ...)                                   \
	do {                                              \
		free((a)->why);                           \
		if (asprintf(&(a)->why, __VA_ARGS__) < 0) \
			(a)->why = NULL;                  \
	} while (0)

/* polkit's answer (or the bus's error) to a->action: what the handler will find. */
static void bus_auth_decide(struct bus_auth *a, sd_bus_message *reply)
{
	const sd_bus_error *e = sd_bus_message_get_error(reply);
	int authorized = 0, challenge = 0, r;

	/*
	 * No polkit on this system: nobody owns the name and nothing can start it, which both
	 * dbus-daemon and dbus-broker answer with ServiceUnknown ("not activatable").  Not
	 * NameHasNoOwner: dbus-broker answers that when an installed polkitd failed to start,
	 * and a broken polkit must refuse, not open the group check.
	 */
	if (e && sd_bus_error_has_name(e, SD_BUS_ERROR_SERVICE_UNKNOWN)) {
		const char *group = a->m->config->admin_group;

		log_debug("polkit is not on the bus (%s): the agent's own check decides %s",
			  e->name, a->action->action);
		/* Synchronous, as before polkit: GetConnectionCredentials of the bus itself. */
		a->allowed = !a->action->root_only && group && bus_sender_in_group(a->call, group);
		if (a->allowed)
			return;
		if (a->action->root_only || !group)
			set_why(a, "needs root (polkit is not installed)");
		else
			set_why(a, "needs root or membership in group '%s' (polkit is not installed)",
				group);
		return;
	}
	if (e) {
		log_warning("polkit failed to decide %s for %s: %s", a->action->action,
			    sd_bus_message_get_sender(a->call) ?: "?", e->message ?: e->name);
		set_why(a, "is refused: polkit could not decide (%s)", e->message ?: e->name);
		return;
	}
	r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
	if (r >= 0)
		r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
	if (r < 0) {
		set_why(a, "is refused: polkit's answer could not be read (%s)", strerror(-r));
		return;
	}
	a->allowed = authorized;
	if (!authorized)
		set_why(a,
			challenge ? "needs authentication as an administrator for polkit action %s "
				    "(run it where an authentication agent can ask, e.g. pkttyagent)"
				  : "is not authorized by polkit (action %s)",
			a->action->action);
}

static int bus_auth_answered(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
	struct bus_auth *a = userdata;
	sd_bus *bus = sd_bus_message_get_bus(a->call);
	int r;

	a->slot = sd_bus_slot_unref(a->slot);
	bus_auth_decide(a, reply);
	a->answered = true;
	/* Dropped when the loop is next idle, which is after the second run (the bus's
	 * sources have a higher priority, and the bus is ready while the call is queued),
	 * unless that run takes it or the filter drops it first. */
	r = sd_event_add_defer(a->m->event, &a->idle, bus_auth_idle, a);
	if (r >= 0)
		r = sd_event_source_set_priority(a->idle, SD_EVENT_PRIORITY_IDLE);
	if (r >= 0)
		r = sd_event_source_set_enabled(a->idle, SD_EVENT_ONESHOT);
	/* The same call again, read from its start: its handler takes the answer. */
	if (r >= 0)
		r = sd_bus_message_rewind(a->call, true);
	if (r >= 0)
		r = sd_bus_enqueue_for_read(bus, a->call);
	if (r < 0) {
		struct manager *m = a->m;

		log_warning_errno(r, "Cannot resume %s() after polkit answered: %m",
				  sd_bus_message_get_member(a->call));
		(void)sd_bus_reply_method_errorf(a->call, SD_BUS_ERROR_FAILED,
						 "Cannot resume the call after polkit answered: %s",
						 strerror(-r));
		a = bus_auth_take(m, a->call);
		if (a)
			bus_auth_free(a);
	}
	return 1;
}

static int bus_auth_ask(struct manager *m, sd_bus_message *call, const struct bus_action *action,
			sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *q = NULL;
	sd_bus *bus = sd_bus_message_get_bus(call);
	uint32_t flags = 0;
	struct bus_auth *a;
	int r;

	uid_t uid = (uid_t)-1;
	unsigned mine = 0;

	if (m->n_auths >= BUS_AUTH_MAX_PENDING)
		return sd_bus_error_setf(
			error, SMCD_BUS_ERROR_RATE_LIMITED,
			"Too many calls wait for polkit (%d); try again in a few seconds",
			BUS_AUTH_MAX_PENDING);
	r = bus_sender_credentials(call, &uid, NULL, NULL);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Cannot tell who is calling (%s): refused", strerror(-r));
	for (struct bus_auth *p = m->auths; p; p = p->next)
		mine += p->uid == uid;
	if (mine >= BUS_AUTH_MAX_PER_UID)
		return sd_bus_error_setf(
			error, SMCD_BUS_ERROR_RATE_LIMITED,
			"%u of your calls already wait for polkit (at most %d per user); answer or "
			"cancel them first",
			mine, BUS_AUTH_MAX_PER_UID);
	if (sd_bus_message_get_allow_interactive_authorization(call) > 0)
		flags |= POLKIT_ALLOW_USER_INTERACTION;
	r = sd_bus_message_new_method_call(bus, &q, POLKIT_SERVICE, POLKIT_PATH,
					   POLKIT_IFACE_AUTHORITY, POLKIT_CHECK_AUTHORIZATION);
	if (r >= 0)
		r = sd_bus_message_append(q, "(sa{sv})s", "system-bus-name", 1, "name", "s",
					  sd_bus_message_get_sender(call), action->action);
	/* smc.yaml's admin-group, for the shipped rule (etc/polkit-1/org.smcd.agent1.rules). */
	if (r >= 0 && m->config->admin_group)
		r = sd_bus_message_append(q, "a{ss}", 1, SMCD_POLKIT_DETAIL_ADMIN_GROUP,
					  m->config->admin_group);
	else if (r >= 0)
		r = sd_bus_message_append(q, "a{ss}", 0);
	if (r >= 0)
		r = sd_bus_message_append(q, "us", flags, "");
	if (r < 0)
		return r;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	*a = (struct bus_auth){ .m = m, .call = sd_bus_message_ref(call), .action = action, .uid = uid };
	/* polkit may wait for a password when it may ask: 5 minutes then, else sd-bus's
	 * default (25 s).  A caller that gives up sooner just has no answer to read. */
	r = sd_bus_call_async(bus, &a->slot, q, bus_auth_answered, a,
			      flags ? 5 * 60 * 1000000ULL : 0);
	if (r < 0) {
		bus_auth_free(a);
		return r;
	}
	a->next = m->auths;
	m->auths = a;
	m->n_auths++;
	return 1;
}

static int refused(sd_bus_message *msg, const struct bus_action *action, const char *why,
		   sd_bus_error *error)
{
	log_notice("Refused %s() from %s: %s", sd_bus_message_get_member(msg),
		   sd_bus_message_get_sender(msg) ?: "?", why ? why : "not authorized");
	return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "%s %s",
				 action->what ?: "Changing SMC settings",
				 why ? why : "is not authorized");
}

bool bus_authorize_answered(struct manager *m, sd_bus_message *msg)
{
	for (struct bus_auth *a = m->auths; a; a = a->next)
		if (a->call == msg)
			return a->answered;
	return false;
}

int bus_authorize(sd_bus_message *msg, struct manager *m, sd_bus_error *error)
{
	const struct bus_action *action =
		action_find(sd_bus_message_get_interface(msg), sd_bus_message_get_member(msg));
	struct bus_auth *a;
	int r;

	if (!action) {
		/* A method that checks but has no row above: a bug, refused rather than open. */
		log_error("%s.%s() has no polkit action: refused",
			  sd_bus_message_get_interface(msg), sd_bus_message_get_member(msg));
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "%s() has no polkit action in this build (a bug): refused",
					 sd_bus_message_get_member(msg));
	}
	a = bus_auth_take(m, msg);
	if (a && !a->answered) { /* only an answer re-runs a handler: not reached */
		a->next = m->auths;
		m->auths = a;
		m->n_auths++;
		return 1;
	}
	if (a) {
		r = a->allowed ? 0 : refused(msg, action, a->why, error);
		bus_auth_free(a);
		return r;
	}
	/*
	 * Root skips polkit, and so does CAP_NET_ADMIN, which could make these changes through
	 * netlink itself; not for a root-only action (another user's process: enrolling it
	 * lets the agent, as root, take that user's sockets, which CAP_NET_ADMIN does not
	 * give): -1 is "the bus owner's uid", root on the system bus.
	 */
	if (sd_bus_query_sender_privilege(msg, action->root_only ? -1 : CAP_NET_ADMIN) > 0)
		return 0;
	if (!sd_bus_message_get_sender(msg))
		return refused(msg, action, "needs a caller the bus names", error);
	return bus_auth_ask(m, msg, action, error);
}
