// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * org.smcd.Agent1.Statistics on /org/smcd/Agent1: the statistics of collector.c.
 *
 * Properties carry the numbers D-Bus clients want typed (keys as in the JSON document:
 * "smcd.rx.bytes", "fallback.client", "linkgroups.smcd.seen"); GetStatistics() returns
 * everything in one call as the JSON document smcctl prints with -j.  JSON rather than a
 * nested a{sv}: one schema for D-Bus, smcctl and the man page, and the counter tree is
 * deep (histograms per direction per technology) where a{sv} of a{sv} helps nobody.
 *
 * Signal volume: one PropertiesChanged per sample at most, naming only what changed;
 * TimestampUSec and CollectionUSec change at every sample and are not signalled (read them).
 * On an idle host nothing changes and nothing is sent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "common/output.h"
#include "smcd-agent/bus-access.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/collector.h"
#include "smcd-agent/fallback.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"

static struct stats_engine *engine(void *userdata)
{
	struct manager *m = userdata;

	return m->collector ? m->collector->engine : NULL;
}

static int bus_stats_prop_available(sd_bus *bus, const char *path, const char *iface,
				    const char *prop, sd_bus_message *reply, void *userdata,
				    sd_bus_error *error)
{
	struct stats_engine *e = engine(userdata);

	return sd_bus_message_append(reply, "b", e && e->available);
}

static int prop_timestamp(sd_bus *bus, const char *path, const char *iface, const char *prop,
			  sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct stats_engine *e = engine(userdata);

	return sd_bus_message_append(reply, "t", e ? e->sample_real_usec : 0);
}

static int prop_collection(sd_bus *bus, const char *path, const char *iface, const char *prop,
			   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct stats_engine *e = engine(userdata);

	return sd_bus_message_append(reply, "t", e ? e->last.duration_usec : 0);
}

static int bus_stats_prop_interval(sd_bus *bus, const char *path, const char *iface, const char *prop,
				   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "t", m->config->stats.interval_usec);
}

static int prop_reset(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct stats_engine *e = engine(userdata);

	return sd_bus_message_append(reply, "t", e ? e->reset_real_usec : 0);
}

static int prop_epochs(sd_bus *bus, const char *path, const char *iface, const char *prop,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct stats_engine *e = engine(userdata);

	return sd_bus_message_append(reply, "t", e ? e->agent[STATS_KERNEL_EPOCHS].total : 0);
}

static int prop_prom_path(sd_bus *bus, const char *path, const char *iface, const char *prop,
			  sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *p = m->collector && m->collector->prom_path ? m->collector->prom_path : "";

	return sd_bus_message_append(reply, "s", p);
}

static int prop_prom_error(sd_bus *bus, const char *path, const char *iface, const char *prop,
			   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *p =
		m->collector && m->collector->prom_error_text ? m->collector->prom_error_text : "";

	return sd_bus_message_append(reply, "s", p);
}

/* Counters, CountersSinceReset, Rates: one key per counter, the same keys for all three. */
static int append_counter(sd_bus_message *reply, const struct stats_engine *e, const char *key,
			  const struct stats_counter *c, enum stats_view v)
{
	double d;

	if (v != STATS_VIEW_RATE)
		return sd_bus_message_append(reply, "{st}", key, stats_counter_value(c, v));
	if (!stats_engine_rate(e, c, &d))
		return 0;
	return sd_bus_message_append(reply, "{sd}", key, d);
}

static int append_counters(sd_bus_message *reply, const struct stats_engine *e, enum stats_view v)
{
	size_t n;
	const struct stats_desc *t = stats_table(&n);
	int r;

	r = sd_bus_message_open_container(reply, 'a', v == STATS_VIEW_RATE ? "{sd}" : "{st}");
	for (size_t i = 0; r >= 0 && e && i < n; i++)
		if (t[i].kind == STATS_COUNTER)
			r = append_counter(reply, e, t[i].key, &e->counters[i], v);
	for (size_t i = 0; r >= 0 && e && i < _STATS_AGENT_MAX; i++)
		r = append_counter(reply, e, stats_agent_key(i), &e->agent[i], v);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

static int prop_counters(sd_bus *bus, const char *path, const char *iface, const char *prop,
			 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	enum stats_view v = streq(prop, SMCD_BUS_STATS_COUNTERS) ? STATS_VIEW_TOTAL
			    : streq(prop, SMCD_BUS_STATS_RATES)	 ? STATS_VIEW_RATE
								 : STATS_VIEW_SINCE_RESET;

	return append_counters(reply, engine(userdata), v);
}

static int prop_reasons(sd_bus *bus, const char *path, const char *iface, const char *prop,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct stats_engine *e = engine(userdata);
	int r = sd_bus_message_open_container(reply, 'a', "(ssutt)");

	for (size_t i = 0; r >= 0 && e && i < e->n_reasons; i++) {
		const struct stats_reason *x = &e->reasons[i];
		const char *name = smc_decline_name(x->code);

		r = sd_bus_message_append(reply, "(ssutt)", x->server ? "server" : "client",
					  name ? name : "", x->code, x->c.total,
					  stats_counter_value(&x->c, STATS_VIEW_SINCE_RESET));
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

/* Current values: sockets by mode, buffer usage, link groups now. */
static int prop_gauges(sd_bus *bus, const char *path, const char *iface, const char *prop,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct stats_engine *e = engine(userdata);
	size_t n;
	const struct stats_desc *t = stats_table(&n);
	uint64_t lgrs[2] = {};
	int r = sd_bus_message_open_container(reply, 'a', "{st}");

	for (size_t i = 0;
	     r >= 0 && e && e->available && e->last.has_sockets && i < _STATS_SOCK_MAX; i++) {
		char key[32];

		snprintf(key, sizeof(key), "sockets.%s", stats_sock_name(i));
		r = sd_bus_message_append(reply, "{st}", key, (uint64_t)e->last.sockets[i]);
	}
	for (size_t i = 0; r >= 0 && e && e->available && i < n; i++) {
		bool valid;
		uint64_t v;

		if (t[i].kind != STATS_GAUGE)
			continue;
		v = stats_desc_value(&t[i], &e->last.stats, &e->last.fback, &valid);
		if (valid)
			r = sd_bus_message_append(reply, "{st}", t[i].key, v);
	}
	for (size_t i = 0; i < m->objects.n_linkgroups; i++)
		lgrs[streq(m->objects.linkgroups[i].technology, "smcr")]++;
	if (r >= 0)
		r = sd_bus_message_append(reply, "{st}", "linkgroups.smcd.current", lgrs[0]);
	if (r >= 0)
		r = sd_bus_message_append(reply, "{st}", "linkgroups.smcr.current", lgrs[1]);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

/*
 * FallbackAttribution a(ussst): (reason code, reason name, side-independent unit, count)
 * per reason, its units largest first, then unit "other" when some were summed; a last
 * row (0xffffffff, "other", "other", n) for records beyond FBATTR_MAX_REASONS reasons.
 * Not signalled (it changes with every fallback): read it, or follow FallbackAttributed.
 */
static int prop_attribution(sd_bus *bus, const char *path, const char *iface, const char *prop,
			    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct fbattr *a = fallback_table(userdata);
	int r = sd_bus_message_open_container(reply, 'a', "(usst)");

	for (size_t i = 0; r >= 0 && i < a->n_reasons; i++) {
		const struct fbattr_reason *rs = &a->reasons[i];
		const char *name = smc_decline_name(rs->code);
		struct fbattr_unit u[FBATTR_TOP_UNITS];
		size_t n = fbattr_units_sorted(rs, u);

		for (size_t k = 0; r >= 0 && k < n; k++)
			r = sd_bus_message_append(reply, "(usst)", rs->code, name ? name : "",
						  u[k].unit, u[k].count);
		if (r >= 0 && rs->other)
			r = sd_bus_message_append(reply, "(usst)", rs->code, name ? name : "",
						  FBATTR_OTHER, rs->other);
	}
	if (r >= 0 && a->other_reasons)
		r = sd_bus_message_append(reply, "(usst)", UINT32_MAX, FBATTR_OTHER, FBATTR_OTHER,
					  a->other_reasons);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

static int prop_attribution_error(sd_bus *bus, const char *path, const char *iface, const char *prop,
				  sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const char *why = fallback_error(userdata);

	return sd_bus_message_append(reply, "s", why ? why : "");
}

/* ------------------------------------------------------------------------------------- */
/* Methods                                                                                */

/*
 * The engine's document plus what only the agent knows: where the fallbacks came from
 * (fallback.attribution, fallback.h).
 */
static json_object *document(struct manager *m)
{
	json_object *doc, *f;

	doc = stats_engine_json(m->collector->engine, m->objects.devices, m->objects.n_devices,
				m->objects.linkgroups, m->objects.n_linkgroups,
				m->config->stats.interval_usec);
	if (!doc)
		return NULL;
	if (!json_object_object_get_ex(doc, "fallback", &f) ||
	    !json_object_is_type(f, json_type_object) ||
	    json_add(f, "attribution", fallback_json(m)) < 0) {
		json_object_put(doc);
		return NULL;
	}
	return doc;
}

static int reply_document(sd_bus_message *msg, struct manager *m)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	const char *text;

	doc = document(m);
	if (!doc)
		return -ENOMEM;
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return -ENOMEM;
	return sd_bus_reply_method_return(msg, "s", text);
}

/*
 * GetStatistics(true) answers with a sample taken after the call arrived: what a caller
 * that just ran a workload asks for.  Anyone may call it, so samples on demand are at most
 * one per 250 ms (collector.c): a call within that time of the last sample waits for the
 * next one, which answers every call waiting for it.  Answering with the last sample
 * instead gave a caller numbers from before its own traffic.
 */
#define STATS_WAITING_MAX 256
#define STATS_WAIT_ACCURACY_USEC 1000

static int on_stats_wait(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;
	sd_bus_message **waiting = TAKE_PTR(m->stats_waiting);
	size_t n = m->n_stats_waiting;

	m->n_stats_waiting = 0;
	m->stats_wait_timer = sd_event_source_disable_unref(m->stats_wait_timer);
	manager_sample_now(m);
	for (size_t i = 0; i < n; i++) {
		int r = m->collector
				? reply_document(waiting[i], m)
				: sd_bus_reply_method_errorf(waiting[i], SMCD_BUS_ERROR_UNAVAILABLE,
							     "Statistics are not set up");

		if (r < 0)
			log_fields(LOG_DEBUG, r, NULL, "Cannot answer GetStatistics(): %m");
		sd_bus_message_unref(waiting[i]);
	}
	free(waiting);
	return 0;
}

int bus_stats_wait_for_sample(sd_bus_message *msg, struct manager *m, uint64_t due_usec,
			      sd_bus_error *error)
{
	sd_bus_message **v;
	int r;

	if (m->n_stats_waiting >= STATS_WAITING_MAX)
		return sd_bus_error_set(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
					"Too many GetStatistics(true) calls waiting; try again");
	v = reallocarray(m->stats_waiting, m->n_stats_waiting + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	m->stats_waiting = v;
	/* Accuracy 1 ms: sd-event's default (0) is 250 ms, which made a caller wait up to
	 * 500 ms (bench/README.md, "Scale"). */
	if (!m->stats_wait_timer) {
		r = sd_event_add_time(m->event, &m->stats_wait_timer, CLOCK_MONOTONIC, due_usec,
				      STATS_WAIT_ACCURACY_USEC, on_stats_wait, m);
		if (r < 0)
			return r;
	}
	v[m->n_stats_waiting++] = sd_bus_message_ref(msg);
	return 1;
}

/* Anyone may read; refresh=true: a sample taken after the call (see above). */
static int bus_stats_method_get(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	uint64_t due;
	int refresh, r;

	r = sd_bus_message_read(msg, "b", &refresh);
	if (r < 0)
		return r;
	if (!m->collector)
		return sd_bus_error_set(error, SMCD_BUS_ERROR_UNAVAILABLE,
					"Statistics are not set up");
	if (refresh) {
		due = collector_sample_due_usec(m->collector);
		if (due)
			return bus_stats_wait_for_sample(msg, m, due, error);
		manager_sample_now(m);
	}
	return reply_document(msg, m);
}

/*
 * The answer is the document just before the reset (a fresh sample): what the period that
 * the reset closes counted, as "smcd stats reset" of smc-tools prints it.
 */
static int method_reset(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct manager *m = userdata;
	const char *text;
	int r;

	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	if (!m->collector)
		return sd_bus_error_set(error, SMCD_BUS_ERROR_UNAVAILABLE,
					"Statistics are not set up");
	/* Admin only, so not rate-limited: the period closes with what counted until now. */
	manager_sample_now(m);
	doc = document(m);
	if (!doc)
		return -ENOMEM;
	manager_announce_stats(m, collector_reset(m->collector));
	log_fields(LOG_NOTICE, 0, NULL, "Statistics reset by %s",
		   sd_bus_message_get_sender(msg) ? sd_bus_message_get_sender(msg) : "?");
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		return -ENOMEM;
	return sd_bus_reply_method_return(msg, "s", text);
}

#define RO SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable stats_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_AVAILABLE, "b", bus_stats_prop_available, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_TIMESTAMP_USEC, "t", prop_timestamp, 0, 0),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_COLLECTION_USEC, "t", prop_collection, 0, 0),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_INTERVAL_USEC, "t", bus_stats_prop_interval, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_RESET_USEC, "t", prop_reset, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_KERNEL_EPOCHS, "t", prop_epochs, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_COUNTERS, "a{st}", prop_counters, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_COUNTERS_SINCE_RESET, "a{st}", prop_counters, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_RATES, "a{sd}", prop_counters, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_FALLBACK_REASONS, "a(ssutt)", prop_reasons, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_GAUGES, "a{st}", prop_gauges, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_PROMETHEUS_PATH, "s", prop_prom_path, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_PROMETHEUS_ERROR, "s", prop_prom_error, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_FALLBACK_ATTRIBUTION, "a(usst)", prop_attribution, 0, 0),
	SD_BUS_PROPERTY(SMCD_BUS_STATS_FALLBACK_ATTRIBUTION_ERROR, "s", prop_attribution_error, 0, RO),
	/* One switch to TCP (fallback.c): time, reason code and name, server side, pid (0:
	 * unknown), pid found as the socket's holder, command, unit, cgroup, netns cookie,
	 * cgroup id, local and peer port, peer address. */
	SD_BUS_SIGNAL_WITH_ARGS(SMCD_BUS_STATS_FALLBACK_ATTRIBUTED,
				SD_BUS_ARGS("t", time_usec, "u", reason, "s", reason_name, "b",
					    server, "u", pid, "b", pid_from_socket, "s", comm, "s",
					    unit, "s", cgroup, "t", netns_cookie, "t", cgroup_id,
					    "q", local_port, "q", peer_port, "s", peer_address),
				0),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_STATS_GET_STATISTICS, SD_BUS_ARGS("b", refresh),
				SD_BUS_RESULT("s", json), bus_stats_method_get, ANYONE),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_STATS_RESET_STATISTICS, SD_BUS_NO_ARGS,
				SD_BUS_RESULT("s", json), method_reset, POLKIT),
	SD_BUS_VTABLE_END,
};

int bus_stats_register(struct manager *m)
{
	return sd_bus_add_object_vtable(m->bus, NULL, SMCD_BUS_PATH, SMCD_BUS_IFACE_STATS,
					stats_vtable, m);
}
