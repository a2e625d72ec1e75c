// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl monitor: smcd-agent's D-Bus signals as a stream of events, one line each (text),
 * or one JSON object per line (-j), flushed at once so a pipe sees them as they happen.
 *
 *   linkgroup-added, linkgroup-removed, linkgroup-changed (connections), device-added,
 *   device-removed, fallback, fallback-attributed (one switch to TCP with its process and
 *   unit, as it happens: the agent's FallbackAttributed signal), handshake-error, drift,
 * drift-resolved, reconcile (an item applied or failed), state, smc-available, smc-unavailable,
 * kernel-epoch, stats-reset, agent-gone, agent-back
 *
 * The agent polls the kernel (the SMC netlink family announces nothing), so events arrive
 * at its interval: monitor.interval for link groups, stats.interval for fallbacks.  A link
 * group that lives entirely between two polls is never seen.
 *
 * The agent leaving the bus (a restart, an upgrade) does not end it, as journalctl -f goes
 * on: it says so (standard error; with -j an agent-gone event too), waits for the name's
 * next owner (NameOwnerChanged: the subscriptions are by the well-known name, so they hold
 * across owners), reads that agent's state afresh, without events, and says it follows
 * again (agent-back).  It ends with status 0 on SIGINT or SIGTERM, and with 3 when the
 * system bus itself goes: a monitor that silently stopped reporting would look like a quiet
 * system.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-event.h>

#include "cli/agent.h"
#include "cli/bus.h"
#include "cli/verbs.h"
#include "common/bus-api.h"
#include "common/clock.h"
#include "common/output.h"

struct monitor {
	struct smcctl *c;
	sd_event *event;
	sd_bus *bus;	    /* not a reference: monitor_events() holds it */
	bool agent_here;    /* the bus name has an owner */
	bool retry_pending; /* reading the new agent's state failed: tried again in a second */
	int status;
	json_object *objects; /* path -> properties of the link groups and devices we know */
	json_object *reasons; /* "side code" -> total */
	uint64_t hs_err[2];   /* client, server */
	json_object *drift;   /* item -> message */
	char *state;
	bool available;
	uint64_t epochs, reset_usec, reconcile_usec;
};

/* json-c asserts on a wrong type: the agent's answers are checked instead. */
static json_object *idx(json_object *a, size_t i)
{
	return json_object_is_type(a, json_type_array) && i < json_object_array_length(a)
		       ? json_object_array_get_idx(a, i)
		       : NULL;
}

static size_t len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* ---------------------------------------------------------------------------------- */
/* Output                                                                              */

static const char *tech_name(const char *t)
{
	return streq_ptr(t, "smcr") ? "SMC-R" : "SMC-D";
}

static void lgr_text(FILE *f, json_object *ev, const char *what)
{
	fprintf(f, "linkgroup %s%s%s %s", what, *what ? " " : "",
		tech_name(out_get_str(ev, "technology", NULL)), out_get_str(ev, "id", "-"));
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

void monitor_event_text(FILE *f, json_object *ev)
{
	const char *e = out_get_str(ev, "event", "?");
	time_t t = (time_t)(out_get_u64(ev, "time_usec", 0) / 1000000);
	char ts[16] = "--:--:--";
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	fprintf(f, "%s ", ts);
	if (streq(e, "linkgroup-added")) {
		lgr_text(f, ev, "added:");
		fprintf(f, " on %s, %" PRIu64 " connection%s", out_get_str(ev, "device", "?"),
			out_get_u64(ev, "conns", 0), plural(out_get_u64(ev, "conns", 0)));
	} else if (streq(e, "linkgroup-removed")) {
		lgr_text(f, ev, "removed:");
		fprintf(f, " (on %s, at most %" PRIu64 " connection%s)",
			out_get_str(ev, "device", "?"), out_get_u64(ev, "peak_conns", 0),
			plural(out_get_u64(ev, "peak_conns", 0)));
	} else if (streq(e, "linkgroup-changed")) {
		lgr_text(f, ev, "");
		fprintf(f, ": %" PRIu64 " -> %" PRIu64 " connections",
			out_get_u64(ev, "previous_conns", 0), out_get_u64(ev, "conns", 0));
	} else if (streq(e, "device-added") || streq(e, "device-removed")) {
		fprintf(f, "device %s: %s %s", e + 7, tech_name(out_get_str(ev, "technology", NULL)),
			out_get_str(ev, "name", "?"));
	} else if (streq(e, "fallback")) {
		fprintf(f, "fallback: %" PRIu64 " more %s %s (%s)", out_get_u64(ev, "count", 0),
			out_get_str(ev, "side", "?"), out_get_str(ev, "name", "?"),
			out_get_str(ev, "text", "unknown reason"));
		if (out_get_str(ev, "advice", NULL))
			fprintf(f, " -> %s", out_get_str(ev, "advice", NULL));
	} else if (streq(e, "fallback-attributed")) {
		fprintf(f, "fallback to TCP: %s", out_get_str(ev, "unit", "?"));
		if (out_get_u64(ev, "pid", 0))
			fprintf(f, " pid %" PRIu64 " (%s)", out_get_u64(ev, "pid", 0),
				out_get_str(ev, "command", "?"));
		fprintf(f, " %s side %s (%s), netns %" PRIu64, out_get_str(ev, "side", "?"),
			out_get_str(ev, "reason", "?"), out_get_str(ev, "text", "unknown reason"),
			out_get_u64(ev, "netns_cookie", 0));
		if (out_get_str(ev, "peer_address", NULL) && *out_get_str(ev, "peer_address", ""))
			fprintf(f, ", peer %s port %" PRIu64, out_get_str(ev, "peer_address", ""),
				out_get_u64(ev, "peer_port", 0));
	} else if (streq(e, "handshake-error")) {
		fprintf(f, "handshake errors: %" PRIu64 " more (%s side)",
			out_get_u64(ev, "count", 0), out_get_str(ev, "side", "?"));
	} else if (streq(e, "drift") || streq(e, "reconcile")) {
		fprintf(f, "%s: %s %s",
			streq(e, "drift") ? "drift (not repaired)" : out_get_str(ev, "result", "?"),
			out_get_str(ev, "item", "?"), out_get_str(ev, "message", ""));
	} else if (streq(e, "drift-resolved")) {
		fprintf(f, "drift resolved: %s", out_get_str(ev, "item", "?"));
	} else if (streq(e, "state")) {
		fprintf(f, "agent state: %s -> %s", out_get_str(ev, "previous", "?"),
			out_get_str(ev, "state", "?"));
	} else if (streq(e, "smc-available") || streq(e, "smc-unavailable")) {
		fprintf(f, "SMC statistics %s",
			streq(e, "smc-available") ? "available" : "unavailable");
	} else if (streq(e, "kernel-epoch")) {
		fputs("the kernel's SMC counters restarted (smc reloaded); counted across", f);
	} else if (streq(e, "stats-reset")) {
		fputs("statistics reset (since-reset counts start at 0)", f);
	} else if (streq(e, "agent-gone")) {
		fputs("smcd-agent went away; waiting for it", f);
	} else if (streq(e, "agent-back")) {
		fprintf(f, "smcd-agent is back: following again (state %s)",
			out_get_str(ev, "state", "?"));
	} else {
		fputs(e, f);
	}
	fputc('\n', f);
}

/* Print and flush one event; takes the reference. */
static void monitor_emit(struct monitor *m, json_object *ev)
{
	if (!ev)
		return;
	m->c->answered = true; /* events are its answer: no error document after them */
	if (m->c->json)
		out_json(m->c->out, ev, false);
	else
		monitor_event_text(m->c->out, ev);
	fflush(m->c->out);
	json_object_put(ev);
}

static json_object *event_new(const char *name)
{
	json_object *ev = json_object_new_object();

	if (ev && (json_add_u64(ev, "time_usec", now_usec(CLOCK_REALTIME)) < 0 ||
		   json_add_str(ev, "event", name) < 0)) {
		json_object_put(ev);
		return NULL;
	}
	return ev;
}

/* ---------------------------------------------------------------------------------- */
/* Link groups and devices                                                             */

static bool is_lgr(const char *path)
{
	return strncmp(path, SMCD_BUS_PATH_LINKGROUP "/", strlen(SMCD_BUS_PATH_LINKGROUP "/")) == 0;
}

/* An event's fields from the object's D-Bus properties: a string, or a number (u64). */
struct event_field {
	const char *key, *property;
	bool u64;
};

/* A link group's: the Id property's 8 hex digits, as smcctl linkgroup shows it (smcctl(8)
 * JSON OUTPUT). */
static const struct event_field lgr_fields[] = {
	{ "technology", SMCD_BUS_LINKGROUP_TECHNOLOGY, false },
	{ "id", SMCD_BUS_LINKGROUP_ID, false },
	{ "device", SMCD_BUS_LINKGROUP_DEVICE, false },
	{ "pnetid", SMCD_BUS_LINKGROUP_PNET_ID, false },
	{ "conns", SMCD_BUS_LINKGROUP_CONNECTIONS, true },
	{ "peak_conns", SMCD_BUS_LINKGROUP_PEAK_CONNECTIONS, true },
};

static const struct event_field device_fields[] = {
	{ "technology", SMCD_BUS_DEVICE_TECHNOLOGY, false },
	{ "name", SMCD_BUS_DEVICE_NAME, false },
};

static json_object *event_of(const char *name, json_object *p, const struct event_field *f, size_t n)
{
	json_object *ev = event_new(name);

	for (size_t i = 0; ev && i < n; i++) {
		if (f[i].u64)
			json_add_u64(ev, f[i].key, out_get_u64(p, f[i].property, 0));
		else
			json_add_str(ev, f[i].key, out_get_str(p, f[i].property, NULL));
	}
	return ev;
}

static json_object *lgr_event(const char *name, json_object *p)
{
	return event_of(name, p, lgr_fields, ELEMENTSOF(lgr_fields));
}

static json_object *device_event(const char *name, json_object *p)
{
	return event_of(name, p, device_fields, ELEMENTSOF(device_fields));
}

/* ifaces: {interface: {property: value}} of one object; remember it, maybe announce it. */
static void object_added(struct monitor *m, const char *path, json_object *ifaces, bool announce)
{
	json_object *p;

	/* A dotted interface name is no path for out_get(): take the object by its key. */
	if (!json_object_object_get_ex(
		    ifaces, is_lgr(path) ? SMCD_BUS_IFACE_LINKGROUP : SMCD_BUS_IFACE_DEVICE, &p) ||
	    !json_object_is_type(p, json_type_object))
		return;
	json_add(m->objects, path, json_object_get(p));
	if (announce)
		monitor_emit(m, is_lgr(path) ? lgr_event("linkgroup-added", p)
					     : device_event("device-added", p));
}

static int on_added(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct monitor *m = userdata;
	_cleanup_(json_object_putp) json_object *body = bus_message_json(msg);
	const char *path = body ? json_object_get_string(idx(body, 0)) : NULL;

	if (path)
		object_added(m, path, idx(body, 1), true);
	return 0;
}

static int on_removed(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct monitor *m = userdata;
	_cleanup_(json_object_putp) json_object *body = bus_message_json(msg);
	const char *path = body ? json_object_get_string(idx(body, 0)) : NULL;
	json_object *p;

	if (!path || !json_object_object_get_ex(m->objects, path, &p))
		return 0;
	monitor_emit(m, is_lgr(path) ? lgr_event("linkgroup-removed", p)
				     : device_event("device-removed", p));
	json_object_object_del(m->objects, path);
	return 0;
}

static void lgr_changed(struct monitor *m, const char *path, json_object *changed)
{
	json_object *p, *v;
	uint64_t before;

	if (!json_object_object_get_ex(m->objects, path, &p))
		return;
	before = out_get_u64(p, SMCD_BUS_LINKGROUP_CONNECTIONS, 0);
	json_object_object_foreach(changed, key, val)
		json_add(p, key, json_object_get(val));
	if (!json_object_object_get_ex(changed, SMCD_BUS_LINKGROUP_CONNECTIONS, &v) ||
	    json_object_get_uint64(v) == before)
		return;
	v = lgr_event("linkgroup-changed", p);
	if (v)
		json_add_u64(v, "previous_conns", before);
	monitor_emit(m, v);
}

/* ---------------------------------------------------------------------------------- */
/* Statistics                                                                          */

/* FallbackReasons a(ssutt): (side, name, code, total, since reset). */
static void reasons_changed(struct monitor *m, json_object *arr, bool announce)
{
	size_t n = len(arr);

	for (size_t i = 0; i < n; i++) {
		json_object *r = idx(arr, i), *prev, *ev;
		const char *side = json_object_get_string(idx(r, 0));
		uint32_t code = (uint32_t)json_object_get_int64(idx(r, 2));
		uint64_t total = json_object_get_uint64(idx(r, 3)), before = 0;
		char key[48];

		snprintf(key, sizeof(key), "%s %08" PRIx32, side ? side : "?", code);
		if (json_object_object_get_ex(m->reasons, key, &prev))
			before = json_object_get_uint64(prev);
		json_add_u64(m->reasons, key, total);
		if (!announce || total <= before || !(ev = event_new("fallback")))
			continue;
		json_add_str(ev, "side", side);
		json_add_u64(ev, "code", code);
		json_add_str(ev, "name", smc_decline_name(code));
		json_add_u64(ev, "count", total - before);
		json_add_u64(ev, "total", total);
		json_add_str(ev, "text", smc_decline_text(code));
		json_add_str(ev, "advice", smc_decline_advice(code));
		monitor_emit(m, ev);
	}
}

static void counters_changed(struct monitor *m, json_object *counters, bool announce)
{
	static const char *const keys[2] = { "handshake_errors.client", "handshake_errors.server" };

	for (size_t s = 0; s < 2; s++) {
		json_object *v, *ev;
		uint64_t now;

		if (!json_object_object_get_ex(counters, keys[s], &v))
			continue;
		now = json_object_get_uint64(v);
		if (announce && now > m->hs_err[s] && (ev = event_new("handshake-error"))) {
			json_add_str(ev, "side", s ? "server" : "client");
			json_add_u64(ev, "count", now - m->hs_err[s]);
			json_add_u64(ev, "total", now);
			monitor_emit(m, ev);
		}
		m->hs_err[s] = now;
	}
}

static void stats_changed(struct monitor *m, json_object *changed, bool announce)
{
	json_object *v;

	if (json_object_object_get_ex(changed, SMCD_BUS_STATS_FALLBACK_REASONS, &v))
		reasons_changed(m, v, announce);
	if (json_object_object_get_ex(changed, SMCD_BUS_STATS_COUNTERS, &v))
		counters_changed(m, v, announce);
	if (json_object_object_get_ex(changed, SMCD_BUS_STATS_AVAILABLE, &v)) {
		bool now = json_object_get_boolean(v);

		if (announce && now != m->available)
			monitor_emit(m, event_new(now ? "smc-available" : "smc-unavailable"));
		m->available = now;
	}
	if (json_object_object_get_ex(changed, SMCD_BUS_STATS_KERNEL_EPOCHS, &v)) {
		uint64_t now = json_object_get_uint64(v);
		json_object *ev;

		if (announce && now > m->epochs && (ev = event_new("kernel-epoch"))) {
			json_add_u64(ev, "epochs", now);
			monitor_emit(m, ev);
		}
		m->epochs = now;
	}
	if (json_object_object_get_ex(changed, SMCD_BUS_STATS_RESET_USEC, &v)) {
		uint64_t now = json_object_get_uint64(v);
		json_object *ev;

		if (announce && now != m->reset_usec && (ev = event_new("stats-reset"))) {
			json_add_u64(ev, "reset_usec", now);
			monitor_emit(m, ev);
		}
		m->reset_usec = now;
	}
}

/* FallbackAttributed (tusbubsssttqqs): one switch to TCP, as it happened. */
static int on_attributed(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct monitor *m = userdata;
	const char *name, *comm, *unit, *cgroup, *peer;
	uint64_t t, netns, cgid;
	uint32_t code, pid;
	int server, from_socket;
	uint16_t lport, rport;
	json_object *ev;

	if (sd_bus_message_read(msg, "tusbubsssttqqs", &t, &code, &name, &server, &pid, &from_socket,
				&comm, &unit, &cgroup, &netns, &cgid, &lport, &rport, &peer) < 0 ||
	    !(ev = event_new("fallback-attributed")))
		return 0;
	json_add_u64(ev, "time_usec", t);
	json_add_str(ev, "side", server ? "server" : "client");
	json_add_u64(ev, "code", code);
	json_add_str(ev, "reason", name);
	json_add_str(ev, "text", smc_decline_text(code));
	/* the agent sanitised them; whoever else sent the signal may not have */
	json_add_name(ev, "unit", unit);
	json_add_name(ev, "cgroup", cgroup);
	if (pid) {
		json_add_u64(ev, "pid", pid);
		json_add_name(ev, "command", comm);
		/* The holder of the (listening) socket: the switch ran in a kworker. */
		json_add_bool(ev, "pid_from_socket", from_socket);
	}
	json_add_u64(ev, "netns_cookie", netns);
	json_add_u64(ev, "cgroup_id", cgid);
	json_add_u64(ev, "local_port", lport);
	json_add_u64(ev, "peer_port", rport);
	json_add_str(ev, "peer_address", peer);
	json_add_str(ev, "advice", smc_decline_advice(code));
	monitor_emit(m, ev);
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Manager                                                                             */

static json_object *item_event(const char *name, json_object *item)
{
	json_object *ev = event_new(name);

	if (!ev)
		return NULL;
	json_add_str(ev, "item", json_object_get_string(idx(item, 0)));
	json_add_str(ev, "result", json_object_get_string(idx(item, 1)));
	json_add_str(ev, "message", json_object_get_string(idx(item, 2)));
	return ev;
}

/* Drift a(sss): items drifted now; announce the new ones and the ones that went away. */
static void drift_changed(struct monitor *m, json_object *arr, bool announce)
{
	_cleanup_(json_object_putp) json_object *now = json_object_new_object();
	size_t n = len(arr);

	if (!now)
		return;
	for (size_t i = 0; i < n; i++) {
		json_object *item = idx(arr, i), *prev;
		const char *name = json_object_get_string(idx(item, 0));
		const char *msg = json_object_get_string(idx(item, 2));

		if (!name)
			continue;
		json_add_str(now, name, msg);
		if (announce && (!json_object_object_get_ex(m->drift, name, &prev) ||
				 !streq_ptr(json_object_get_string(prev), msg)))
			monitor_emit(m, item_event("drift", item));
	}
	json_object_object_foreach(m->drift, key, val) {
		json_object *ev;

		(void)val;
		if (announce && !json_object_object_get_ex(now, key, NULL) &&
		    (ev = event_new("drift-resolved"))) {
			json_add_str(ev, "item", key);
			monitor_emit(m, ev);
		}
	}
	json_object_put(m->drift);
	m->drift = TAKE_PTR(now);
}

/* LastReconcile (ta(sss)): a new one's applied and failed items. */
static void reconcile_changed(struct monitor *m, json_object *rec, bool announce)
{
	uint64_t t = json_object_get_uint64(idx(rec, 0));
	json_object *items = idx(rec, 1);
	size_t n = len(items);

	if (t == m->reconcile_usec)
		return;
	m->reconcile_usec = t;
	for (size_t i = 0; announce && i < n; i++) {
		json_object *item = idx(items, i);
		const char *result = json_object_get_string(idx(item, 1));

		if (streq_ptr(result, "applied") || streq_ptr(result, "failed"))
			monitor_emit(m, item_event("reconcile", item));
	}
}

static void manager_changed(struct monitor *m, json_object *changed, bool announce)
{
	json_object *v;

	if (json_object_object_get_ex(changed, SMCD_BUS_MANAGER_STATE, &v)) {
		const char *now = json_object_get_string(v);
		json_object *ev;

		if (announce && !streq_ptr(now, m->state) && (ev = event_new("state"))) {
			json_add_str(ev, "state", now);
			json_add_str(ev, "previous", m->state);
			monitor_emit(m, ev);
		}
		free(m->state);
		m->state = now ? strdup(now) : NULL;
	}
	if (json_object_object_get_ex(changed, SMCD_BUS_MANAGER_DRIFT, &v))
		drift_changed(m, v, announce);
	if (json_object_object_get_ex(changed, SMCD_BUS_MANAGER_LAST_RECONCILE, &v))
		reconcile_changed(m, v, announce);
}

static int on_properties(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct monitor *m = userdata;
	_cleanup_(json_object_putp) json_object *body = bus_message_json(msg);
	const char *iface = body ? json_object_get_string(idx(body, 0)) : NULL;
	json_object *changed = body ? idx(body, 1) : NULL;
	const char *path = sd_bus_message_get_path(msg);

	if (!iface || !json_object_is_type(changed, json_type_object) || !path)
		return 0;
	if (streq(iface, SMCD_BUS_IFACE_LINKGROUP))
		lgr_changed(m, path, changed);
	else if (streq(iface, SMCD_BUS_IFACE_STATS))
		stats_changed(m, changed, true);
	else if (streq(iface, SMCD_BUS_IFACE_MANAGER))
		manager_changed(m, changed, true);
	return 0;
}

static int monitor_load_state(struct monitor *m, sd_bus *bus);

/* What the last agent told: forgotten, so that the next one's state is no event. */
static int forget_state(struct monitor *m)
{
	json_object_put(m->objects);
	json_object_put(m->reasons);
	json_object_put(m->drift);
	m->objects = json_object_new_object();
	m->reasons = json_object_new_object();
	m->drift = json_object_new_object();
	m->hs_err[0] = m->hs_err[1] = 0;
	return m->objects && m->reasons && m->drift ? 0 : -ENOMEM;
}

static void agent_gone(struct monitor *m)
{
	m->agent_here = false;
	if (m->c->json)
		monitor_emit(m, event_new("agent-gone"));
	fprintf(m->c->err, "smcctl: smcd-agent went away; waiting for it\n");
	fflush(m->c->err);
}

static void agent_back(struct monitor *m);

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct monitor *m = userdata;

	m->retry_pending = false;
	if (m->agent_here)
		agent_back(m);
	return 0;
}

/* A new owner of the name: its state, then its events.  A failure to read it (an agent
 * that owns its name before it answers, or one that went again) is said and tried again
 * every second while the name has an owner: its events are not compared with nothing. */
static void agent_back(struct monitor *m)
{
	json_object *ev;

	m->agent_here = true;
	if (forget_state(m) < 0) {
		smcctl_oom(m->c);
		m->status = SMCCTL_EXIT_FAILURE;
		sd_event_exit(m->event, 0);
		return;
	}
	if (monitor_load_state(m, m->bus) != SMCCTL_EXIT_OK) {
		fprintf(m->c->err, "smcctl: still waiting for smcd-agent\n");
		fflush(m->c->err);
		if (!m->retry_pending && sd_event_add_time_relative(m->event, NULL, CLOCK_MONOTONIC,
								    1000000, 0, on_retry, m) >= 0)
			m->retry_pending = true;
		return;
	}
	if (m->c->json) {
		ev = event_new("agent-back");
		if (ev)
			json_add_str(ev, "state", m->state);
		monitor_emit(m, ev);
	}
	fprintf(m->c->err, "smcctl: smcd-agent is back: following again (state %s)\n",
		m->state ? m->state : "?");
	fflush(m->c->err);
}

static int on_owner(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct monitor *m = userdata;
	const char *name, *old_owner, *new_owner;

	if (sd_bus_message_read(msg, "sss", &name, &old_owner, &new_owner) < 0 ||
	    !streq(name, SMCD_BUS_NAME))
		return 0;
	/* A handover (old and new owner at once) is both. */
	if (old_owner[0])
		agent_gone(m);
	if (new_owner[0])
		agent_back(m);
	return 0;
}

static int monitor_on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct monitor *m = userdata;

	m->status = SMCCTL_EXIT_OK;
	return sd_event_exit(m->event, 0);
}

/* ---------------------------------------------------------------------------------- */
/* Setup                                                                               */

/* The current state, without events: what the first signals are compared with. */
static int monitor_load_state(struct monitor *m, sd_bus *bus)
{
	static const char *const ifaces[] = { SMCD_BUS_IFACE_MANAGER, SMCD_BUS_IFACE_STATS };
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(json_object_putp) json_object *objs = NULL;
	int r;

	r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, DBUS_IFACE_OBJECT_MANAGER,
			       DBUS_GET_MANAGED_OBJECTS, &e, &reply, NULL);
	if (r < 0)
		return bus_failed(m->c, "cannot follow smcd-agent", &e, r);
	objs = bus_message_json(reply);
	if (!objs || !json_object_is_type(idx(objs, 0), json_type_object))
		return smcctl_error(m->c, SMCCTL_EXIT_FAILURE, "smcd-agent's objects did not parse");
	json_object_object_foreach(idx(objs, 0), path, ifs)
		if (strncmp(path, SMCD_BUS_PATH "/", strlen(SMCD_BUS_PATH "/")) == 0)
			object_added(m, path, ifs, false);
	for (size_t i = 0; i < ELEMENTSOF(ifaces); i++) {
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *all = NULL;
		_cleanup_(json_object_putp) json_object *props = NULL;

		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, DBUS_IFACE_PROPERTIES,
				       DBUS_GET_ALL, &e, &all, "s", ifaces[i]);
		if (r < 0)
			return bus_failed(m->c, "cannot follow smcd-agent", &e, r);
		props = bus_message_json(all);
		if (!json_object_is_type(idx(props, 0), json_type_object))
			return smcctl_error(m->c, SMCCTL_EXIT_FAILURE,
					    "smcd-agent's answer did not parse");
		if (i == 0)
			manager_changed(m, idx(props, 0), false);
		else
			stats_changed(m, idx(props, 0), false);
	}
	return SMCCTL_EXIT_OK;
}

static int subscribe(struct monitor *m, sd_bus *bus)
{
	int r;

	r = sd_bus_match_signal(bus, NULL, SMCD_BUS_NAME, SMCD_BUS_PATH, DBUS_IFACE_OBJECT_MANAGER,
				DBUS_INTERFACES_ADDED, on_added, m);
	if (r >= 0)
		r = sd_bus_match_signal(bus, NULL, SMCD_BUS_NAME, SMCD_BUS_PATH,
					DBUS_IFACE_OBJECT_MANAGER, DBUS_INTERFACES_REMOVED,
					on_removed, m);
	if (r >= 0)
		r = sd_bus_add_match(bus, NULL,
				     "type='signal',sender='" SMCD_BUS_NAME "',"
				     "interface='" DBUS_IFACE_PROPERTIES "',"
				     "member='" DBUS_PROPERTIES_CHANGED
				     "',path_namespace='" SMCD_BUS_PATH "'",
				     on_properties, m);
	if (r >= 0)
		r = sd_bus_match_signal(bus, NULL, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_STATS,
					SMCD_BUS_STATS_FALLBACK_ATTRIBUTED, on_attributed, m);
	if (r >= 0)
		r = sd_bus_add_match(bus, NULL,
				     "type='signal',sender='" DBUS_SERVICE "',"
				     "interface='" DBUS_IFACE "',member='" DBUS_NAME_OWNER_CHANGED "',"
				     "arg0='" SMCD_BUS_NAME "'",
				     on_owner, m);
	return r;
}

static int setup_signals(struct monitor *m)
{
	sigset_t ss;
	int r;

	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
		return -errno;
	r = sd_event_add_signal(m->event, NULL, SIGINT, monitor_on_signal, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGTERM, monitor_on_signal, m);
	return r;
}

static void monitor_done(struct monitor *m)
{
	json_object_put(m->objects);
	json_object_put(m->reasons);
	json_object_put(m->drift);
	free(m->state);
	sd_event_unref(m->event);
}

int monitor_events(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(monitor_done) struct monitor m = {
		.c = c,
		.status = SMCCTL_EXIT_OK,
		.objects = json_object_new_object(),
		.reasons = json_object_new_object(),
		.drift = json_object_new_object(),
	};
	int r, s;

	if (c->netns)
		return smcctl_usage(c, "monitor follows smcd-agent, which watches its own network "
				       "namespace; leave out --netns");
	if (!m.objects || !m.reasons || !m.drift)
		return smcctl_oom(c);
	if ((s = bus_open(c, &bus)))
		return s;
	m.bus = bus;
	m.agent_here = true; /* else monitor_load_state() below says it is not running */
	r = sd_event_new(&m.event);
	if (r >= 0)
		r = setup_signals(&m);
	if (r >= 0)
		r = sd_bus_attach_event(bus, m.event, SD_EVENT_PRIORITY_NORMAL);
	/* The system bus going away ends the loop too (SMCCTL_EXIT_NO_BUS below). */
	if (r >= 0)
		r = sd_bus_set_exit_on_disconnect(bus, true);
	/* Subscribe before reading the state, so that nothing falls in between. */
	if (r >= 0)
		r = subscribe(&m, bus);
	if (r < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot follow smcd-agent: %s",
				    strerror(-r));
	if ((s = monitor_load_state(&m, bus)))
		return s;
	/* Also with -j (on stderr, not in the stream): from this line on nothing is missed,
	 * which is what a script starting a monitor in the background waits for. */
	fprintf(c->err, "smcctl: following smcd-agent (state %s); Ctrl-C to stop\n",
		m.state ? m.state : "?");
	fflush(c->err);
	r = sd_event_loop(m.event);
	if (m.status != SMCCTL_EXIT_OK)
		return m.status;
	if (r > 0 || r < 0) {
		/* sd-bus ends the loop with a non-zero code when the bus connection is lost. */
		fprintf(c->err, "smcctl: lost the system bus; monitor stops\n");
		return SMCCTL_EXIT_NO_BUS;
	}
	return m.status;
}
