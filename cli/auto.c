// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl auto [list|explain|freeze|thaw|forget]: the autopilot of smcd-agent
 * (org.smcd.Agent1.Autopilot, smcd-agent(8) AUTOPILOT): which workloads it follows, what it
 * decided for each and on what evidence, and the operator's say over it.  The decisions
 * are the agent's (common/auto-rules.h): smcctl only shows them and passes the operator's
 * word on.
 *
 * What the agent answers, GetWorkloads() and Explain() (auto_workload_json()), is printed
 * with -j as it came; the text is rendered from that document alone.  freeze, thaw and
 * forget answer with action_json() under -j and with one line saying what happened.
 *
 * A workload is named as "smcctl auto" lists it or by its cgroup path ("/system.slice/
 * redis.service"): a path is looked up in GetWorkloads() first, so the agent is always
 * asked by name, and a name nobody follows is refused before anything is asked to change.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "cli/agent.h"
#include "cli/auto.h"
#include "cli/bus.h"
#include "cli/verbs.h"
#include "common/auto-rules.h"
#include "common/bus-api.h"
#include "common/clock.h"
#include "common/output.h"
#include "config/units.h"

/* ---- text ---------------------------------------------------------------------------- */

uint64_t auto_now_usec;

static uint64_t auto_text_now(void)
{
	return auto_now_usec ? auto_now_usec : now_usec(CLOCK_REALTIME);
}

/* "42s ago", "5min ago", "2h 5min ago", "3d 4h ago", as systemctl status says "since". */
const char *auto_fmt_ago(uint64_t then_usec, uint64_t now_usec, char *buf, size_t len)
{
	uint64_t s;

	if (!then_usec)
		return "-";
	if (then_usec > now_usec) /* another clock's stamp: not in the past */
		return "now";
	s = (now_usec - then_usec) / USEC_PER_SEC;
	if (s < 60)
		snprintf(buf, len, "%" PRIu64 "s ago", s);
	else if (s < 3600)
		snprintf(buf, len, "%" PRIu64 "min ago", s / 60);
	else if (s < 86400)
		snprintf(buf, len, "%" PRIu64 "h %" PRIu64 "min ago", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, len, "%" PRIu64 "d %" PRIu64 "h ago", s / 86400, s % 86400 / 3600);
	return buf;
}

/* "256K/256K" (send/receive), "-" when the host's sizes apply (0). */
static const char *auto_fmt_buffers(json_object *w, char *buf, size_t len)
{
	char snd[32], rcv[32];
	uint64_t s = out_get_u64(w, "sndbuf", 0), r = out_get_u64(w, "rcvbuf", 0);

	if (!s && !r)
		return "-";
	snprintf(buf, len, "%s/%s", s ? out_fmt_size(s, snd, sizeof(snd)) : "-",
		 r ? out_fmt_size(r, rcv, sizeof(rcv)) : "-");
	return buf;
}

static const char *auto_fmt_port(json_object *w, char *buf, size_t len)
{
	uint64_t port = out_get_u64(w, "port", 0);

	return port ? out_fmt_dec(port, buf, len) : "-";
}

static bool auto_doc_observing(json_object *doc)
{
	return streq(out_get_str(doc, "mode", ""), "observe");
}

/* "Autopilot: observe (window 30s), buffers 1 MiB of 256 MiB budget" */
static void auto_header_line(struct smcctl *c, json_object *doc)
{
	char win[32], used[32], budget[32];
	uint64_t b = out_get_u64(doc, "budget_bytes", 0);
	const char *error = out_get_str(doc, "error", "");

	fprintf(c->out, "Autopilot: %s (window %s), buffers %s", out_get_str(doc, "mode", "?"),
		format_duration(out_get_u64(doc, "window_usec", 0), win, sizeof(win)),
		out_fmt_iec(out_get_u64(doc, "buffer_bytes", 0), used, sizeof(used)));
	if (b)
		fprintf(c->out, " of %s budget\n", out_fmt_iec(b, budget, sizeof(budget)));
	else
		fputs(", no budget\n", c->out);
	if (error[0])
		fprintf(c->out, "It cannot act: %s\n", error);
}

enum {
	COL_NAME,
	COL_STATE,
	COL_PORT,
	COL_BUFFERS,
	COL_SINCE,
	COL_WOULD,
	COL_WHY,
	_COL_MAX,
};

static const struct out_column list_cols[_COL_MAX] = {
	[COL_NAME] = OUT_COL("name", "WORKLOAD", OUT_STR),
	[COL_STATE] = OUT_COL("state", "STATE", OUT_STR),
	[COL_PORT] = OUT_COL("port", "PORT", OUT_U64),
	[COL_BUFFERS] = OUT_COL("sndbuf", "BUFFERS", OUT_SIZE),
	[COL_SINCE] = OUT_COL("since_usec", "SINCE", OUT_STR),
	[COL_WOULD] = OUT_COL("would", "WOULD", OUT_STR),
	[COL_WHY] = OUT_COL("why", "WHY", OUT_STR),
};

static int auto_list_row(struct out_cells *t, json_object *w, bool would, uint64_t now_usec)
{
	char port[16], bufs[64], since[64];
	int r = 0;

	r |= out_cells_add(t, out_fmt_str(out_get_str(w, "name", NULL)));
	r |= out_cells_add(t, out_fmt_str(out_get_str(w, "state", NULL)));
	r |= out_cells_add(t, auto_fmt_port(w, port, sizeof(port)));
	r |= out_cells_add(t, auto_fmt_buffers(w, bufs, sizeof(bufs)));
	r |= out_cells_add(
		t, auto_fmt_ago(out_get_u64(w, "since_usec", 0), now_usec, since, sizeof(since)));
	if (would)
		r |= out_cells_add(t, out_fmt_str(out_get_str(w, "would", NULL)));
	r |= out_cells_add(t, out_fmt_str(out_get_str(w, "why", NULL)));
	return r;
}

static void auto_list_text(struct smcctl *c, json_object *doc)
{
	uint64_t now = auto_text_now();
	json_object *rows = out_get(doc, "workloads");
	struct out_column cols[_COL_MAX];
	struct out_cells t = {};
	bool would = auto_doc_observing(doc);
	size_t n = json_object_is_type(rows, json_type_array) ? json_object_array_length(rows) : 0;
	size_t n_cols = 0;

	/* --no-legend: the rows alone, for a script (as systemctl's). */
	if (!c->no_legend)
		auto_header_line(c, doc);
	if (n == 0) {
		if (!c->no_legend)
			fputs("No workloads yet: none had enough connections in enough windows "
			      "(smcctl assess --agent shows what the assessment saw).\n",
			      c->out);
		return;
	}
	for (size_t i = 0; i < _COL_MAX; i++)
		if (i != COL_WOULD || would)
			cols[n_cols++] = list_cols[i];
	if (!c->no_legend)
		fputc('\n', c->out);
	for (size_t i = 0; i < n; i++)
		if (auto_list_row(&t, json_object_array_get_idx(rows, i), would, now) < 0)
			goto out;
	(void)out_table_cells(c->out, cols, n_cols, &t, c->detail, 0);
out:
	out_cells_done(&t);
}

/* A figure per second: "3950.0" as it is up to 10000, then "21.0K", "120.0M" (decimal). */
static const char *auto_fmt_rate(double v, char *buf, size_t len)
{
	static const char suffix[] = " KMGT";
	int i = 0;

	if (v < 10000.0) {
		snprintf(buf, len, "%.1f", v);
		return buf;
	}
	while (v >= 1000.0 && i < (int)sizeof(suffix) - 2) {
		v /= 1000.0;
		i++;
	}
	snprintf(buf, len, "%.1f%c", v, suffix[i]);
	return buf;
}

static double auto_doc_double(json_object *o, const char *key)
{
	json_object *v = out_get(o, key);

	return v ? json_object_get_double(v) : 0.0;
}

/* The figures a trial is judged by (struct auto_figures), with their baseline. */
static const struct {
	const char *key, *spread_key, *label;
} figures[] = {
	{ "bytes_per_second", "bytes_per_second", "bytes/s" },
	{ "sends_per_second", "sends_per_second", "sends/s" },
	{ "conns_per_second", "conns_per_second", "connections/s" },
	/* the spread is relative: its connect figure is no time */
	{ "connect_usec", "connect_time", "lifetime us" },
};

static void auto_baseline_text(struct smcctl *c, json_object *doc)
{
	json_object *base = out_get(doc, "baseline"), *spread = out_get(doc, "baseline_spread");
	char v[32];

	if (!base)
		return;
	fputs("\nBaseline (mean of the TCP windows before the trial, and their spread):\n", c->out);
	for (size_t i = 0; i < ELEMENTSOF(figures); i++)
		fprintf(c->out, "  %-14s %8s  spread %.1f%%\n", figures[i].label,
			auto_fmt_rate(auto_doc_double(base, figures[i].key), v, sizeof(v)),
			100.0 * auto_doc_double(spread, figures[i].spread_key));
}

enum {
	WCOL_NUMBER,
	WCOL_CARRIER,
	WCOL_SECONDS,
	WCOL_CONNS,
	WCOL_BYTES,
	WCOL_SENDS,
	WCOL_CONNS_S,
	WCOL_CONNECT,
	WCOL_FALLBACKS,
	WCOL_HS_ERRORS,
	WCOL_SHORT,
	WCOL_TINY,
	WCOL_UNREACH,
	WCOL_OPEN,
	_WCOL_MAX,
};

static const struct out_column window_cols[_WCOL_MAX] = {
	[WCOL_NUMBER] = OUT_COL("number", "WINDOW", OUT_U64),
	[WCOL_CARRIER] = OUT_COL("carrier", "CARRIER", OUT_STR),
	[WCOL_SECONDS] = OUT_COL("seconds", "SECONDS", OUT_U64),
	[WCOL_CONNS] = OUT_COL("conns", "CONNS", OUT_U64),
	[WCOL_BYTES] = OUT_COL("bytes_per_second", "BYTES/S", OUT_U64),
	[WCOL_SENDS] = OUT_COL("sends_per_second", "SENDS/S", OUT_U64),
	[WCOL_CONNS_S] = OUT_COL("conns_per_second", "CONNS/S", OUT_U64),
	[WCOL_CONNECT] = OUT_COL("connect_usec", "LIFETIME-US", OUT_U64),
	[WCOL_FALLBACKS] = OUT_COL("fallbacks", "FALLBACKS", OUT_U64),
	[WCOL_HS_ERRORS] = OUT_COL("handshake_errors", "HS-ERRORS", OUT_U64, .detail = 1),
	[WCOL_SHORT] = OUT_COL("conns_short", "SHORT", OUT_U64, .detail = 1),
	[WCOL_TINY] = OUT_COL("conns_tiny", "TINY", OUT_U64, .detail = 1),
	[WCOL_UNREACH] = OUT_COL("conns_unreach", "UNREACH", OUT_U64, .detail = 1),
	[WCOL_OPEN] = OUT_COL("conns_open", "OPEN", OUT_U64, .detail = 1),
};

static int auto_window_row(struct out_cells *t, json_object *w, unsigned detail)
{
	char buf[32];
	int r = 0;

	for (size_t i = 0; i < _WCOL_MAX; i++) {
		const struct out_column *col = &window_cols[i];
		json_object *v = out_get(w, col->key);

		if (col->detail > detail)
			continue;
		if (i == WCOL_CARRIER)
			r |= out_cells_add(t, out_fmt_str(json_object_get_string(v)));
		else if (!v)
			r |= out_cells_add(t, "-");
		else if (json_object_is_type(v, json_type_double))
			r |= out_cells_add(
				t, auto_fmt_rate(json_object_get_double(v), buf, sizeof(buf)));
		else
			r |= out_cells_add(t, out_format(v, OUT_U64, buf, sizeof(buf)));
	}
	return r;
}

static void auto_windows_text(struct smcctl *c, json_object *doc)
{
	json_object *rows = out_get(doc, "windows");
	size_t n = json_object_is_type(rows, json_type_array) ? json_object_array_length(rows) : 0;
	struct out_cells t = {};

	if (n == 0) {
		fputs("\nNo windows recorded yet.\n", c->out);
		return;
	}
	fputs("\nWindows (oldest first):\n", c->out);
	for (size_t i = 0; i < n; i++)
		if (auto_window_row(&t, json_object_array_get_idx(rows, i), c->detail) < 0)
			goto out;
	(void)out_table_cells(c->out, window_cols, _WCOL_MAX, &t, c->detail, 2);
out:
	out_cells_done(&t);
}

static void auto_explain_text(struct smcctl *c, json_object *doc)
{
	uint64_t now = auto_text_now();
	char a[64], b[64], port[16], bufs[64];
	const char *would = out_get_str(doc, "would", NULL);
	uint64_t since = out_get_u64(doc, "since_usec", 0), hold = out_get_u64(doc, "hold_until", 0);

	fprintf(c->out, "%-11s %s\n", "Workload:", out_fmt_str(out_get_str(doc, "name", NULL)));
	fprintf(c->out, "%-11s %s\n", "Cgroup:", out_fmt_str(out_get_str(doc, "cgroup", NULL)));
	fprintf(c->out, "%-11s %s\n", "Port:", auto_fmt_port(doc, port, sizeof(port)));
	fprintf(c->out, "%-11s %s", "State:", out_fmt_str(out_get_str(doc, "state", NULL)));
	if (since)
		fprintf(c->out, " since %s; %s", agent_fmt_time(since, a, sizeof(a)),
			auto_fmt_ago(since, now, b, sizeof(b)));
	fputc('\n', c->out);
	if (would)
		fprintf(c->out, "%-11s %s (observe mode: nothing was changed)\n", "Would:", would);
	fprintf(c->out, "%-11s %s\n", "Why:", out_fmt_str(out_get_str(doc, "why", NULL)));
	if (out_get_u64(doc, "sndbuf", 0) || out_get_u64(doc, "rcvbuf", 0))
		fprintf(c->out, "%-11s %s (send/receive)\n",
			"Buffers:", auto_fmt_buffers(doc, bufs, sizeof(bufs)));
	else
		fprintf(c->out, "%-11s the host's (net.smc.wmem, net.smc.rmem)\n", "Buffers:");
	fprintf(c->out, "%-11s %" PRIu64 "\n", "Rollbacks:", out_get_u64(doc, "rollbacks", 0));
	if (out_get_u64(doc, "trial_seen", 0))
		fprintf(c->out, "%-11s %" PRIu64 " windows on SMC\n",
			"Trial:", out_get_u64(doc, "trial_seen", 0));
	if (hold)
		fprintf(c->out, "%-11s window %" PRIu64 " (no new trial before it)\n",
			"Held until:", hold);
	auto_baseline_text(c, doc);
	auto_windows_text(c, doc);
}

/* ---- the agent ----------------------------------------------------------------------- */

static int auto_bus_failed(struct smcctl *c, const char *what, const char *workload,
			   const sd_bus_error *e, int r)
{
	if (sd_bus_error_has_name(e, SMCD_BUS_ERROR_NO_SUCH_WORKLOAD))
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "%s: the autopilot follows no workload %s ('smcctl auto' lists "
				    "those it follows, by name and cgroup)",
				    what, workload ? workload : "");
	if (sd_bus_error_has_name(e, SMCD_BUS_ERROR_UNAVAILABLE))
		return smcctl_error(c, SMCCTL_EXIT_NO_AGENT,
				    "%s: the autopilot is off: set auto.mode: observe in "
				    "/etc/smc/smc.yaml and reload ('smcctl config reload')",
				    what);
	return bus_failed(c, what, e, r);
}

/* The JSON string METHOD of the Autopilot interface answers (one argument s, or none). */
static int auto_bus_call_json(struct smcctl *c, sd_bus *bus, const char *what, const char *method,
			      const char *workload, json_object **ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *json;
	int r;

	if (workload)
		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_AUTOPILOT,
				       method, &e, &reply, "s", workload);
	else
		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_AUTOPILOT,
				       method, &e, &reply, NULL);
	if (r < 0)
		return auto_bus_failed(c, what, workload, &e, r);
	r = sd_bus_message_read(reply, "s", &json);
	if (r < 0 || !(*ret = json_tokener_parse(json)))
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "%s: smcd-agent's answer did not parse",
				    what);
	return SMCCTL_EXIT_OK;
}

static json_object *auto_doc_find(json_object *doc, const char *arg)
{
	json_object *rows = out_get(doc, "workloads");
	const char *key = arg[0] == '/' ? "cgroup" : "name";
	size_t n = json_object_is_type(rows, json_type_array) ? json_object_array_length(rows) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *w = json_object_array_get_idx(rows, i);

		if (streq(out_get_str(w, key, ""), arg))
			return w;
	}
	return NULL;
}

static int auto_bus_open(struct smcctl *c, const char *what, sd_bus **ret)
{
	if (c->netns)
		return smcctl_usage(c,
				    "%s: the autopilot is smcd-agent's, in its network "
				    "namespace only; leave out --netns",
				    what);
	return bus_open(c, ret);
}

verb_fn auto_verb_list;
int auto_verb_list(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	int s;

	(void)a;
	if ((s = auto_bus_open(c, "auto", &bus)) ||
	    (s = auto_bus_call_json(c, bus, "auto", SMCD_BUS_AUTO_GET_WORKLOADS, NULL, &doc)))
		return s;
	return smcctl_emit(c, doc, auto_list_text);
}

/*
 * The workload's name from ARG (a name or a cgroup path) into name and its state now into
 * state, or an exit status having said why not.
 */
static int auto_arg_resolve(struct smcctl *c, sd_bus *bus, const char *what, const char *arg,
			    char *name, size_t name_len, char *state, size_t state_len)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	json_object *w;
	int s;

	if (!arg[0])
		return smcctl_usage(c,
				    "%s: the workload is empty: name it as 'smcctl auto' "
				    "lists it, or by its cgroup path",
				    what);
	if ((s = auto_bus_call_json(c, bus, what, SMCD_BUS_AUTO_GET_WORKLOADS, NULL, &doc)))
		return s;
	w = auto_doc_find(doc, arg);
	if (!w) {
		sd_bus_error e = SD_BUS_ERROR_MAKE_CONST(SMCD_BUS_ERROR_NO_SUCH_WORKLOAD, NULL);

		return auto_bus_failed(c, what, arg, &e, -ENOENT);
	}
	if (!out_get_str(w, "name", NULL))
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "%s: smcd-agent listed a workload without a name", what);
	snprintf(name, name_len, "%s", out_get_str(w, "name", ""));
	snprintf(state, state_len, "%s", out_get_str(w, "state", "?"));
	return SMCCTL_EXIT_OK;
}

verb_fn auto_verb_explain;
int auto_verb_explain(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	char name[AUTO_NAME_LEN], state[32];
	int s;

	if ((s = auto_bus_open(c, "auto explain", &bus)) ||
	    (s = auto_arg_resolve(c, bus, "auto explain", a->pos[0], name, sizeof(name), state,
				  sizeof(state))) ||
	    (s = auto_bus_call_json(c, bus, "auto explain", SMCD_BUS_AUTO_EXPLAIN, name, &doc)))
		return s;
	return smcctl_emit(c, doc, auto_explain_text);
}

static void auto_done_text(struct smcctl *c, json_object *doc)
{
	const char *action = out_get_str(doc, "action", ""), *name = out_get_str(doc, "workload", "");
	bool changed = out_get_bool(doc, "changed", true);

	if (streq(action, "freeze") && changed)
		fprintf(c->out, "Froze %s: the autopilot leaves it %s until 'smcctl auto thaw %s'.\n",
			name, out_get_str(doc, "state", "as it is"), name);
	else if (streq(action, "freeze"))
		fprintf(c->out,
			"%s was frozen already: the autopilot leaves it as it is until "
			"'smcctl auto thaw %s'.\n",
			name, name);
	else if (streq(action, "thaw") && changed)
		fprintf(c->out,
			"Thawed %s: the autopilot decides for it again from its next window.\n",
			name);
	else if (streq(action, "thaw"))
		fprintf(c->out, "%s was not frozen: the autopilot decides for it as before.\n", name);
	else
		fprintf(c->out,
			"Forgot %s: its evidence and decisions are gone; the autopilot starts over "
			"with it when it sees its connections again.\n",
			name);
}

/* freeze, thaw, forget: the state before it is what freeze keeps, and what text says. */
static int auto_change_workload(struct smcctl *c, const struct verb_args *a, const char *action)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	char what[32], name[AUTO_NAME_LEN], state[32];
	bool forget = streq(action, "forget"), freeze = streq(action, "freeze");
	bool frozen;
	int s, r;

	snprintf(what, sizeof(what), "auto %s", action);
	if ((s = auto_bus_open(c, what, &bus)) ||
	    (s = auto_arg_resolve(c, bus, what, a->pos[0], name, sizeof(name), state, sizeof(state))))
		return s;
	frozen = streq(state, "frozen");
	if (forget)
		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_AUTOPILOT,
				       SMCD_BUS_AUTO_FORGET, &e, NULL, "s", name);
	else
		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_AUTOPILOT,
				       SMCD_BUS_AUTO_FREEZE, &e, NULL, "sb", name, freeze);
	if (r < 0)
		return auto_bus_failed(c, what, name, &e, r);
	doc = action_json(action, "workload", name, forget ? true : freeze ? !frozen : frozen);
	if (!doc || (freeze && !frozen && json_add_str(doc, "state", state) < 0))
		return smcctl_oom(c);
	return smcctl_emit(c, doc, auto_done_text);
}

verb_fn auto_verb_freeze;
int auto_verb_freeze(struct smcctl *c, const struct verb_args *a)
{
	return auto_change_workload(c, a, "freeze");
}

verb_fn auto_verb_thaw;
int auto_verb_thaw(struct smcctl *c, const struct verb_args *a)
{
	return auto_change_workload(c, a, "thaw");
}

verb_fn auto_verb_forget;
int auto_verb_forget(struct smcctl *c, const struct verb_args *a)
{
	return auto_change_workload(c, a, "forget");
}
