// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The autopilot's decisions (see auto-rules.h), pure: a workload's windows in, a state, an
 * action and its reason out.
 *
 * Why these rules, from what we measured on the 7x kernel (issue 38, bench/):
 * - A short connection pays for SMC every time: 1,000 connections that each carried one
 *   100-byte request and its answer took 131 us each over TCP loopback, 334 us over SMC-D with
 *   64 KiB buffers (2.5x), 727 us with 256 KiB (5.6x) and 2,300 us with 1 MiB (17.6x), all on
 *   SMC-D, no fallback.  So short-lived churn and tiny exchanges stay on TCP, and on a kernel
 *   with smc_hs_ctrl their server port is excluded so no client pays for the handshake.
 * - Long-lived local connections gained +35 % to +86 % on SMC-D (the seeds: redis, nginx
 *   kept alive, sockperf, an IPC benchmark): those are tried on SMC.
 * - Buffers are a trade: 1 MiB bought +9.5 % bulk throughput over 64 KiB but cost redis GET
 *   19-21 % (every new connection zeroes its whole buffers): each workload gets the size its
 *   own sends call for (assess_buffer_size()), halved when the budget is short.
 * - A workload can still lose on SMC (-56 % nginx in a 48-vCPU VM): every switch is a trial
 *   judged against the workload's own TCP windows, beyond their measured noise, and rolled
 *   back when worse; a kept decision needs hysteresis_windows windows in a row against it
 *   before it is undone, and each rollback doubles the hold before the next trial.
 *
 * The evidence of a window is counted soundly: a connection may be both short and tiny, so
 * max(short, tiny) is the least share that is "short or tiny", and conns - short - tiny -
 * unreach - failed the least that is "long-lived, not tiny and reachable".  A window where
 * neither reaches the majority is mixed: nothing changes on it.
 *
 * One action per window, so two moves take two windows: a kept workload whose bulk turned to
 * churn gets AUTO_ACT_SMC_OFF (state tcp), and its port AUTO_ACT_EXCLUDE on the next churn
 * window; an excluded workload whose connections turned long-lived gets AUTO_ACT_INCLUDE
 * after hysteresis_windows windows in a row, and AUTO_ACT_SMC_ON (the trial) on the next
 * long-lived one.
 *
 * In state tcp, excluded says whether the agent was told to exclude the port
 * (AUTO_ACT_EXCLUDE) and not to include it again.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/auto-rules.h"
#include "common/macro.h"
#include "common/output.h"

#define KIB UINT64_C(1024)
#define MS_NS UINT64_C(1000000)
/* No buffer is halved below this: SMC's own smallest buffer size. */
#define AUTO_BUF_FLOOR (16 * KIB)
#define AUTO_BUF_NO_SENDS (64 * KIB)
/* The largest size the autopilot asks for: the assessment's (assess_buffer_size()). */
#define AUTO_BUF_MAX (1024 * KIB)
/* A stream's buffer holds what one of its connections moves in this long. */
#define AUTO_BUF_DRAIN_MS 10

static const char *const state_names[_AUTO_STATE_MAX] = {
	[AUTO_UNDECIDED] = "undecided",
	[AUTO_TCP] = "tcp",
	[AUTO_TRIAL] = "trial",
	[AUTO_SMC] = "smc",
	[AUTO_ROLLED_BACK] = "rolled-back",
	[AUTO_FROZEN] = "frozen",
	[AUTO_ADMIN] = "admin",
};

static const char *const action_names[] = {
	[AUTO_ACT_NONE] = "none",	[AUTO_ACT_SMC_ON] = "smc-on",
	[AUTO_ACT_SMC_OFF] = "smc-off", [AUTO_ACT_EXCLUDE] = "exclude",
	[AUTO_ACT_INCLUDE] = "include",
};

const char *auto_state_name(enum auto_state s)
{
	if ((unsigned)s >= _AUTO_STATE_MAX)
		return NULL;
	return state_names[s];
}

int auto_state_from_name(const char *name, enum auto_state *ret)
{
	for (unsigned i = 0; name && i < _AUTO_STATE_MAX; i++)
		if (streq(name, state_names[i])) {
			*ret = (enum auto_state)i;
			return 0;
		}
	return -EINVAL;
}

const char *auto_action_name(enum auto_action a)
{
	if ((unsigned)a >= ELEMENTSOF(action_names))
		return NULL;
	return action_names[a];
}

static const char *carrier_name(enum auto_carrier c)
{
	return c == AUTO_CARRIER_SMC ? "smc" : "tcp";
}

void auto_params_default(struct auto_params *p)
{
	*p = (struct auto_params){
		.min_windows = 2,
		.min_conns = 4,
		.trial_windows = 2,
		.hysteresis_windows = 3,
		.noise_floor = 0.10,
		.noise_k = 3,
		.noise_cap = 0.5,
		.hold_windows = 4,
		.max_hold_windows = 64,
		.hs_ctrl = false,
		.can_switch = false,
	};
	assess_thresholds_default(&p->th);
}

void auto_figures_of(const struct auto_window *w, struct auto_figures *ret)
{
	*ret = (struct auto_figures){ 0 };
	if (w->seconds > 0) {
		ret->bytes_per_s = (double)w->bytes / w->seconds;
		ret->sends_per_s = (double)w->sends / w->seconds;
		ret->conns_per_s = (double)w->conns / w->seconds;
	}
	if (w->closed)
		ret->connect_ms = (double)w->lifetime_ns / (double)w->closed / (double)MS_NS;
}

/* snprintf() where cutting a long reason short is fine (vsnprintf: no truncation warning). */
static void auto_why_printf(char *buf, size_t len, const char *fmt, ...) _printf_(3, 4);
static void auto_why_printf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* ---- the evidence of windows ------------------------------------------------------------ */

enum shape {
	SHAPE_NONE,    /* fewer than min_conns connections: not evidence */
	SHAPE_MIXED,   /* neither reaches the majority */
	SHAPE_CHURN,   /* the majority short-lived or tiny */
	SHAPE_UNREACH, /* the majority beyond SMC's reach (or never established) */
	SHAPE_LONG,    /* the majority long-lived, not tiny, reachable */
};

/* Counts summed over some windows. */
struct counts {
	uint64_t conns, conns_short, conns_tiny, conns_unreach, conns_failed;
	unsigned windows;
};

static uint64_t sub_sat(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void counts_add(struct counts *c, const struct auto_window *w)
{
	c->conns = u64_add_sat(c->conns, w->conns);
	c->conns_short = u64_add_sat(c->conns_short, w->conns_short);
	c->conns_tiny = u64_add_sat(c->conns_tiny, w->conns_tiny);
	c->conns_unreach = u64_add_sat(c->conns_unreach, w->conns_unreach);
	c->conns_failed = u64_add_sat(c->conns_failed, w->conns_failed);
	c->windows++;
}

/* n of conns is at least pct % (no overflow: long double). */
static bool majority(uint64_t n, uint64_t conns, unsigned pct)
{
	return conns && (long double)n * 100 > (long double)conns * pct;
}

static unsigned pct_of(uint64_t n, uint64_t conns)
{
	if (!conns)
		return 0;
	if (n > conns)
		n = conns;
	return (unsigned)((long double)n * 100 / conns + 0.5L);
}

static uint64_t counts_long(const struct counts *c)
{
	return sub_sat(sub_sat(sub_sat(sub_sat(c->conns, c->conns_short), c->conns_tiny),
			       c->conns_unreach),
		       c->conns_failed);
}

static enum shape counts_shape(const struct counts *c, const struct auto_params *p)
{
	uint64_t short_or_tiny = c->conns_short > c->conns_tiny ? c->conns_short : c->conns_tiny;

	if (!c->conns)
		return SHAPE_NONE;
	if (majority(short_or_tiny, c->conns, p->th.major_pct))
		return SHAPE_CHURN;
	if (majority(u64_add_sat(c->conns_unreach, c->conns_failed), c->conns, p->th.major_pct))
		return SHAPE_UNREACH;
	if (majority(counts_long(c), c->conns, p->th.major_pct))
		return SHAPE_LONG;
	return SHAPE_MIXED;
}

/*
 * A window is evidence with min_conns connections, or with fewer when every one of them was
 * long-lived and moved data: a bulk stream on one connection, or a few pooled ones, is what
 * SMC pays most for, and its bytes are a figure whatever the number of connections.  A few
 * short or tiny ones are not evidence: churn needs numbers to be called churn.
 */
static bool window_counts(const struct auto_window *w, const struct auto_params *p)
{
	struct counts c = { 0 };

	if (!w->conns)
		return false;
	if (w->conns >= p->min_conns)
		return true;
	counts_add(&c, w);
	return w->bytes > 0 && counts_long(&c) == c.conns;
}

static enum shape window_shape(const struct auto_window *w, const struct auto_params *p)
{
	struct counts c = { 0 };

	if (!window_counts(w, p))
		return SHAPE_NONE;
	counts_add(&c, w);
	return counts_shape(&c, p);
}

/* The evidence in words, for a why: what the counts say, with the figures. */
static void shape_why(char *buf, size_t len, enum shape s, const struct counts *c,
		      const struct auto_params *p)
{
	uint64_t reach = sub_sat(sub_sat(c->conns, c->conns_unreach), c->conns_failed);

	switch (s) {
	case SHAPE_CHURN:
		if (c->conns_short >= c->conns_tiny)
			auto_why_printf(
				buf, len,
				"%u%% of %" PRIu64 " connections lived < %" PRIu64
				" ms (short-lived churn): SMC's handshake and buffer setup cost "
				"more than it saves (one request: 131 us on TCP, 334-2,300 us on "
				"SMC-D)",
				pct_of(c->conns_short, c->conns), c->conns, p->th.short_ns / MS_NS);
		else
			auto_why_printf(
				buf, len,
				"%u%% of %" PRIu64 " connections moved < %" PRIu64 " KiB in < %" PRIu64
				" sends (tiny exchanges): SMC's handshake and buffer setup cost "
				"more than it saves (one request: 131 us on TCP, 334-2,300 us on "
				"SMC-D)",
				pct_of(c->conns_tiny, c->conns), c->conns, p->th.tiny_bytes / KIB,
				p->th.tiny_sends);
		break;
	case SHAPE_UNREACH:
		auto_why_printf(
			buf, len,
			"only %u%% of %" PRIu64 " connections reached a peer SMC can reach (%" PRIu64
			" beyond its reach, %" PRIu64 " never established): SMC would fall back",
			pct_of(reach, c->conns), c->conns, c->conns_unreach, c->conns_failed);
		break;
	case SHAPE_LONG:
		auto_why_printf(buf, len,
				"%u%% of %" PRIu64
				" connections were long-lived, not tiny and within SMC's reach: such "
				"connections gained 35-86%% on SMC-D",
				pct_of(counts_long(c), c->conns), c->conns);
		break;
	case SHAPE_MIXED:
		auto_why_printf(buf, len,
				"mixed: of %" PRIu64 " connections %u%% short-lived, %u%% tiny, %u%% "
				"beyond SMC's reach; neither side has the %u%% majority",
				c->conns, pct_of(c->conns_short, c->conns),
				pct_of(c->conns_tiny, c->conns),
				pct_of(u64_add_sat(c->conns_unreach, c->conns_failed), c->conns),
				p->th.major_pct);
		break;
	case SHAPE_NONE:
		auto_why_printf(buf, len,
				"no window with %" PRIu64 " connections or more, or with only "
				"long-lived ones that moved data, yet",
				p->min_conns);
		break;
	}
}

/* The TCP evidence windows numbered from on, newest first, at most max of them. */
static size_t tcp_evidence(const struct auto_workload *w, uint64_t from, size_t max,
			   const struct auto_params *p, const struct auto_window **ret)
{
	size_t n = 0;

	for (size_t i = w->n_hist; i > 0 && n < max; i--) {
		const struct auto_window *h = &w->hist[i - 1];

		if (h->number < from)
			break;
		if (h->carrier == AUTO_CARRIER_TCP && window_counts(h, p))
			ret[n++] = h;
	}
	return n;
}

/* ---- figures against a baseline --------------------------------------------------------- */

#define FIGURES 4
static double *fig(struct auto_figures *f, unsigned i)
{
	double *v[FIGURES] = { &f->bytes_per_s, &f->sends_per_s, &f->conns_per_s, &f->connect_ms };

	return v[i];
}

static void figures_mean(const struct auto_window *const *v, size_t n, struct auto_figures *ret)
{
	*ret = (struct auto_figures){ 0 };
	for (size_t k = 0; k < n; k++) {
		struct auto_figures f;

		auto_figures_of(v[k], &f);
		for (unsigned i = 0; i < FIGURES; i++)
			*fig(ret, i) += *fig(&f, i) / (double)n;
	}
}

/* Mean and relative mean absolute deviation of the windows' figures. */
static void baseline_of(const struct auto_window *const *v, size_t n, struct auto_figures *mean,
			struct auto_figures *spread)
{
	figures_mean(v, n, mean);
	*spread = (struct auto_figures){ 0 };
	for (size_t k = 0; k < n; k++) {
		struct auto_figures f;

		auto_figures_of(v[k], &f);
		for (unsigned i = 0; i < FIGURES; i++)
			*fig(spread, i) += fabs(*fig(&f, i) - *fig(mean, i)) / (double)n;
	}
	for (unsigned i = 0; i < FIGURES; i++)
		*fig(spread, i) = *fig(mean, i) > 0 ? *fig(spread, i) / *fig(mean, i) : 0;
}

static double margin(const struct auto_params *p, double spread)
{
	double m = p->noise_k * spread;

	/* A baseline that spread is no baseline: a fall beyond noise_cap is worse all the same. */
	if (p->noise_cap > 0 && m > p->noise_cap)
		m = p->noise_cap;

	return m > p->noise_floor ? m : p->noise_floor;
}

/*
 * Is f worse than the workload's baseline beyond the noise?  Throughput (bytes) and the
 * request rate (sends) must not fall, the connection time must not rise; the connection
 * rate is the load offered, not a result, and is not judged.  The first figure found worse
 * is said in why.
 */
static bool figures_worse(const struct auto_workload *w, const struct auto_figures *f,
			  const struct auto_params *p, char *why, size_t len)
{
	static const struct {
		unsigned i;
		const char *name;
		bool lower_better;
	} judged[] = {
		{ 0, "throughput", false },
		{ 1, "request rate", false },
		{ 3, "connection time", true },
	};
	struct auto_figures base = w->baseline, spread = w->baseline_spread, cur = *f;

	for (size_t k = 0; k < ELEMENTSOF(judged); k++) {
		double b = *fig(&base, judged[k].i), v = *fig(&cur, judged[k].i);
		double m = margin(p, *fig(&spread, judged[k].i));
		double change;

		if (b <= 0)
			continue;
		change = (v - b) / b;
		if (judged[k].lower_better ? change > m : -change > m) {
			auto_why_printf(
				why, len,
				"%s %s %.0f%% against the TCP baseline (%.6g against %.6g), beyond "
				"the noise of %.0f%%",
				judged[k].name, change > 0 ? "rose" : "fell", fabs(change) * 100, v,
				b, m * 100);
			return true;
		}
	}
	return false;
}

/* ---- state changes ---------------------------------------------------------------------- */

static void auto_state_set(struct auto_workload *w, enum auto_state to, enum auto_action a,
			   const struct auto_window *win, uint64_t now_usec, struct auto_change *ret)
{
	if (to != w->state) {
		w->state = to;
		w->since_usec = now_usec;
		w->since_window = win->number;
		w->against = 0;
	}
	ret->action = a;
	ret->to = to;
	snprintf(w->why, sizeof(w->why), "%s", ret->why);
}

static uint64_t hold_of(const struct auto_params *p, unsigned rollbacks)
{
	uint64_t hold = p->hold_windows;

	for (unsigned i = 1; i < rollbacks && hold < p->max_hold_windows; i++)
		hold *= 2;
	return hold < p->max_hold_windows ? hold : p->max_hold_windows;
}

static void rollback(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
		     const struct auto_params *p, const char *what, struct auto_change *ret)
{
	uint64_t hold;

	if (w->rollbacks < UINT_MAX)
		w->rollbacks++;
	hold = hold_of(p, w->rollbacks);
	w->hold_until = u64_add_sat(win->number, hold);
	ret->rollback = true;
	auto_why_printf(ret->why, sizeof(ret->why),
			"rolled back: on SMC %s; held on TCP for %" PRIu64 " windows (rollback %u)",
			what, hold, w->rollbacks);
	w->trial_seen = 0;
	auto_state_set(w, AUTO_ROLLED_BACK, AUTO_ACT_SMC_OFF, win, now_usec, ret);
}

static void start_trial(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
			const struct auto_params *p, uint64_t from, const char *evidence,
			struct auto_change *ret)
{
	const struct auto_window *v[AUTO_HISTORY];
	size_t n = tcp_evidence(w, from, AUTO_HISTORY, p, v);

	baseline_of(v, n, &w->baseline, &w->baseline_spread);
	w->trial_seen = 0;
	auto_why_printf(ret->why, sizeof(ret->why),
			"trial on SMC: %s; judged after %u windows against %zu TCP windows "
			"(%.6g bytes/s, spread %.0f%%)",
			evidence, p->trial_windows, n, w->baseline.bytes_per_s,
			w->baseline_spread.bytes_per_s * 100);
	auto_state_set(w, AUTO_TRIAL, AUTO_ACT_SMC_ON, win, now_usec, ret);
}

static void enter_tcp(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
		      const struct auto_params *p, enum shape s, struct auto_change *ret)
{
	bool exclude = s == SHAPE_CHURN && w->port && p->hs_ctrl;
	size_t l = strlen(ret->why);

	if (exclude)
		auto_why_printf(ret->why + l, sizeof(ret->why) - l,
				"; port %u excluded so its SMC clients skip the handshake", w->port);
	w->excluded = exclude;
	auto_state_set(w, AUTO_TCP, exclude ? AUTO_ACT_EXCLUDE : AUTO_ACT_NONE, win, now_usec, ret);
}

/*
 * undecided, and rolled-back after its hold: decide from the last min_windows TCP evidence
 * windows numbered from on.
 */
static void decide_fresh(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
			 const struct auto_params *p, uint64_t from, struct auto_change *ret)
{
	const struct auto_window *v[AUTO_HISTORY];
	size_t want = p->min_windows ? p->min_windows : 1, n;
	struct counts c = { 0 };
	enum shape s;
	char ev[AUTO_WHY_LEN];

	if (want > AUTO_HISTORY)
		want = AUTO_HISTORY;
	n = tcp_evidence(w, from, want, p, v);
	if (n < want) {
		auto_why_printf(ret->why, sizeof(ret->why),
				"%zu of %zu TCP windows with %" PRIu64
				" connections or more seen: too little evidence yet",
				n, want, p->min_conns);
		auto_state_set(w, w->state, AUTO_ACT_NONE, win, now_usec, ret);
		return;
	}
	for (size_t k = 0; k < n; k++)
		counts_add(&c, v[k]);
	s = counts_shape(&c, p);
	shape_why(ev, sizeof(ev), s, &c, p);
	switch (s) {
	case SHAPE_CHURN:
	case SHAPE_UNREACH:
		auto_why_printf(ret->why, sizeof(ret->why), "%s", ev);
		enter_tcp(w, win, now_usec, p, s, ret);
		return;
	case SHAPE_LONG:
		if (p->can_switch) {
			start_trial(w, win, now_usec, p, from, ev, ret);
			return;
		}
		auto_why_printf(ret->why, sizeof(ret->why),
				"this kernel cannot switch sockets to SMC (no update_socket_protocol "
				"hook), though %s",
				ev);
		enter_tcp(w, win, now_usec, p, s, ret);
		return;
	default:
		auto_why_printf(ret->why, sizeof(ret->why), "%s", ev);
		auto_state_set(w, w->state, AUTO_ACT_NONE, win, now_usec, ret);
		return;
	}
}

static void step_tcp(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
		     const struct auto_params *p, struct auto_change *ret)
{
	enum shape s = win->carrier == AUTO_CARRIER_TCP ? window_shape(win, p) : SHAPE_NONE;
	struct counts c = { 0 };
	char ev[AUTO_WHY_LEN];

	counts_add(&c, win);
	shape_why(ev, sizeof(ev), s, &c, p);
	if (s == SHAPE_LONG && p->can_switch) {
		w->against++;
		if (w->against < p->hysteresis_windows) {
			auto_why_printf(ret->why, sizeof(ret->why),
					"%s (%u of %u windows in a row before a trial); %s", w->why,
					w->against, p->hysteresis_windows, ev);
			ret->action = AUTO_ACT_NONE;
			return;
		}
		/* The port must take SMC again before the trial can tell anything. */
		if (w->excluded) {
			w->excluded = false;
			auto_why_printf(ret->why, sizeof(ret->why),
					"port %u included again before a trial: %u windows in a row "
					"said %s",
					w->port, w->against, ev);
			ret->action = AUTO_ACT_INCLUDE;
			snprintf(w->why, sizeof(w->why), "%s", ret->why);
			return;
		}
		/* The baseline: the windows of this run of long-lived evidence. */
		{
			const struct auto_window *v[AUTO_HISTORY];
			size_t n = tcp_evidence(
				w, 0, w->against < AUTO_HISTORY ? w->against : AUTO_HISTORY, p, v);

			start_trial(w, win, now_usec, p, n ? v[n - 1]->number : win->number, ev, ret);
		}
		return;
	}
	if (s != SHAPE_NONE)
		w->against = 0;
	if (s == SHAPE_CHURN && w->port && p->hs_ctrl && !w->excluded) {
		w->excluded = true;
		auto_why_printf(ret->why, sizeof(ret->why),
				"%s; port %u excluded so its SMC clients skip the handshake", ev,
				w->port);
		ret->action = AUTO_ACT_EXCLUDE;
		snprintf(w->why, sizeof(w->why), "%s", ret->why);
		return;
	}
	snprintf(ret->why, sizeof(ret->why), "%s", w->why);
	ret->action = AUTO_ACT_NONE;
}

/* The last n SMC windows with min_conns connections since the trial began, newest first. */
static size_t trial_evidence(const struct auto_workload *w, size_t max, const struct auto_params *p,
			     const struct auto_window **ret)
{
	size_t n = 0;

	for (size_t i = w->n_hist; i > 0 && n < max; i--) {
		const struct auto_window *h = &w->hist[i - 1];

		/* since_window is the TCP window the trial was decided on, or the thaw's */
		if (h->number <= w->since_window)
			break;
		if (h->carrier == AUTO_CARRIER_SMC && window_counts(h, p))
			ret[n++] = h;
	}
	return n;
}

static void step_trial(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
		       const struct auto_params *p, struct auto_change *ret)
{
	const struct auto_window *v[AUTO_HISTORY];
	unsigned want = p->trial_windows ? p->trial_windows : 1, fb = 0;
	struct auto_figures mean;
	char what[AUTO_WHY_LEN];
	size_t n;

	if (want > AUTO_HISTORY)
		want = AUTO_HISTORY;
	if (win->carrier == AUTO_CARRIER_SMC && window_counts(win, p)) {
		w->trial_seen++;
		w->against = 0;
		/* the waiting reason is over: say where the trial stands */
		auto_why_printf(w->why, sizeof(w->why),
				"on trial: %u of %u windows on SMC, to be judged against %.6g "
				"bytes/s and %.6g sends/s on TCP",
				w->trial_seen, want, w->baseline.bytes_per_s,
				w->baseline.sends_per_s);
	} else if (!w->trial_seen && !p->observing && window_counts(win, p)) {
		/*
		 * A workload that turned to churn while its trial waits is not tried: off SMC
		 * after the hysteresis's windows in a row, as a kept decision would be.
		 */
		if (window_shape(win, p) == SHAPE_CHURN) {
			struct counts c = { 0 };

			counts_add(&c, win);
			shape_why(what, sizeof(what), SHAPE_CHURN, &c, p);
			if (++w->against >= p->hysteresis_windows) {
				auto_why_printf(ret->why, sizeof(ret->why),
						"off SMC before its trial began, after %u windows in "
						"a row: %s",
						w->against, what);
				auto_state_set(w, AUTO_TCP, AUTO_ACT_SMC_OFF, win, now_usec, ret);
				return;
			}
		} else
			w->against = 0;
		/*
		 * Still on TCP: SMC is chosen when a socket is made, so the trial waits for new
		 * connections, and a server's listening socket made before the switch stays TCP
		 * (an SMC client's connection to it falls back) until the server listens anew.
		 */
		auto_why_printf(w->why, sizeof(w->why),
				win->fallbacks
					? "trial waiting: SMC was offered but %" PRIu64
					  " connections fell back to TCP; a listening socket "
					  "made before the switch stays TCP: restart %s so that "
					  "it listens anew"
					: "trial waiting: its %" PRIu64
					  " connections are still TCP; SMC applies to "
					  "connections made from now on (a restart of %s makes "
					  "them at once)",
				win->fallbacks ? win->fallbacks : win->conns, w->name);
	}
	if (w->trial_seen < want) {
		snprintf(ret->why, sizeof(ret->why), "%s", w->why);
		ret->action = AUTO_ACT_NONE;
		return;
	}
	n = trial_evidence(w, want, p, v);
	for (size_t k = 0; k < n; k++)
		fb += v[k]->fallbacks > 0;
	figures_mean(v, n, &mean);
	if (n && fb * 2 > n) {
		auto_why_printf(
			what, sizeof(what),
			"SMC fell back to TCP in %u of %zu windows: it cannot carry this workload",
			fb, n);
		rollback(w, win, now_usec, p, what, ret);
		return;
	}
	if (n && figures_worse(w, &mean, p, what, sizeof(what))) {
		rollback(w, win, now_usec, p, what, ret);
		return;
	}
	auto_why_printf(ret->why, sizeof(ret->why),
			"kept on SMC: over %zu trial windows %.6g bytes/s and %.6g sends/s against "
			"%.6g and %.6g on TCP, not worse beyond the noise",
			n, mean.bytes_per_s, mean.sends_per_s, w->baseline.bytes_per_s,
			w->baseline.sends_per_s);
	auto_state_set(w, AUTO_SMC, AUTO_ACT_NONE, win, now_usec, ret);
}

static void step_smc(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
		     const struct auto_params *p, struct auto_change *ret)
{
	enum shape s = window_shape(win, p);
	struct auto_figures f;
	struct counts c = { 0 };
	char what[AUTO_WHY_LEN] = "";
	bool worse = false;

	if (s == SHAPE_NONE) {
		snprintf(ret->why, sizeof(ret->why), "%s", w->why);
		ret->action = AUTO_ACT_NONE;
		return;
	}
	counts_add(&c, win);
	if (s == SHAPE_CHURN)
		shape_why(what, sizeof(what), s, &c, p);
	else if (win->carrier == AUTO_CARRIER_SMC) {
		auto_figures_of(win, &f);
		if (win->fallbacks > 0) {
			auto_why_printf(what, sizeof(what),
					"SMC fell back to TCP %" PRIu64 " times: it cannot carry this "
					"workload",
					win->fallbacks);
			worse = true;
		} else
			worse = figures_worse(w, &f, p, what, sizeof(what));
	}
	if (s != SHAPE_CHURN && !worse) {
		w->against = 0;
		snprintf(ret->why, sizeof(ret->why), "%s", w->why);
		ret->action = AUTO_ACT_NONE;
		return;
	}
	w->against++;
	if (w->against < p->hysteresis_windows) {
		auto_why_printf(ret->why, sizeof(ret->why),
				"kept on SMC, %u of %u windows against: %s", w->against,
				p->hysteresis_windows, what);
		ret->action = AUTO_ACT_NONE;
		return;
	}
	if (worse) {
		rollback(w, win, now_usec, p, what, ret);
		return;
	}
	/*
	 * Phase change: the bulk turned to churn.  Off SMC first (one action per window); the
	 * next churn window in state tcp excludes the port (step_tcp()).
	 */
	auto_why_printf(ret->why, sizeof(ret->why), "off SMC after %u windows in a row: %s",
			w->against, what);
	w->trial_seen = 0;
	auto_state_set(w, AUTO_TCP, AUTO_ACT_SMC_OFF, win, now_usec, ret);
}

static void hist_add(struct auto_workload *w, const struct auto_window *win)
{
	if (w->n_hist > AUTO_HISTORY)
		w->n_hist = AUTO_HISTORY;
	if (w->n_hist == AUTO_HISTORY) {
		memmove(&w->hist[0], &w->hist[1], sizeof(w->hist[0]) * (AUTO_HISTORY - 1));
		w->n_hist--;
	}
	w->hist[w->n_hist++] = *win;
}

void auto_step(struct auto_workload *w, const struct auto_window *win, uint64_t now_usec,
	       const struct auto_params *p, struct auto_change *ret)
{
	*ret = (struct auto_change){ .from = w->state, .to = w->state };
	hist_add(w, win);
	switch (w->state) {
	case AUTO_UNDECIDED:
		decide_fresh(w, win, now_usec, p, 0, ret);
		break;
	case AUTO_ROLLED_BACK:
		if (win->number < w->hold_until) {
			snprintf(ret->why, sizeof(ret->why), "%s", w->why);
			break;
		}
		/* Only windows after the rollback count: those before were on SMC. */
		decide_fresh(w, win, now_usec, p, u64_add_sat(w->since_window, 1), ret);
		break;
	case AUTO_TCP:
		step_tcp(w, win, now_usec, p, ret);
		break;
	case AUTO_TRIAL:
		step_trial(w, win, now_usec, p, ret);
		break;
	case AUTO_SMC:
		step_smc(w, win, now_usec, p, ret);
		break;
	default: /* frozen, admin: the window is recorded, nothing else */
		snprintf(ret->why, sizeof(ret->why), "%s", w->why);
		break;
	}
	ret->to = w->state;
}

int auto_freeze(struct auto_workload *w, bool freeze, uint64_t now_usec)
{
	/* An admin entry is never changed: it is as frozen as it gets. */
	if (w->state == AUTO_ADMIN || (w->state == AUTO_FROZEN) == freeze)
		return -EALREADY;
	if (freeze) {
		w->before_freeze = w->state;
		w->state = AUTO_FROZEN;
		auto_why_printf(w->why, sizeof(w->why),
				"frozen by the operator (smcctl auto freeze) while %s: nothing changes "
				"until thawed",
				auto_state_name(w->before_freeze));
	} else {
		w->state = w->before_freeze;
		/* A trial starts over on the windows after the thaw (trial_evidence()). */
		if (w->state == AUTO_TRIAL)
			w->trial_seen = 0;
		auto_why_printf(w->why, sizeof(w->why), "thawed by the operator: %s again",
				auto_state_name(w->state));
	}
	w->since_usec = now_usec;
	if (w->n_hist)
		w->since_window = w->hist[w->n_hist - 1].number;
	w->against = 0;
	return 0;
}

/* ---- buffers ---------------------------------------------------------------------------- */

static uint64_t held_of(uint64_t size, const struct auto_workload *w)
{
	uint64_t open = w->n_hist ? w->hist[w->n_hist - 1].conns_open : 0, r;

	if (open < 1)
		open = 1;
	if (__builtin_mul_overflow(2 * size, open, &r))
		return UINT64_MAX;
	return r;
}

static uint64_t held_total(const struct auto_workload *v, size_t n)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total = u64_add_sat(total, v[i].sndbuf ? held_of(v[i].sndbuf, &v[i]) : 0);
	return total;
}

/* The wish of one workload: both buffers sized for its sends over its recent windows. */
static uint32_t wish_of(const struct auto_workload *w)
{
	uint64_t hist[ASSESS_BUCKETS] = { 0 }, size;

	if (w->state != AUTO_TRIAL && w->state != AUTO_SMC)
		return 0;
	for (size_t k = 0; k < w->n_hist && k < AUTO_HISTORY; k++)
		for (unsigned b = 0; b < ASSESS_BUCKETS; b++)
			hist[b] = u64_add_sat(hist[b], w->hist[k].hist[b]);
	size = assess_buffer_size(hist);
	/* No sends seen yet: the smallest size the assessment gives. */
	if (!size)
		size = AUTO_BUF_NO_SENDS;
	/*
	 * Bytes in flight: what one connection moved in AUTO_BUF_DRAIN_MS (a reader away for
	 * a scheduler's period must find room), the most of any window.  A stream wants more
	 * than its sends say: on 7.3, 64 KiB RMBs held sockperf's stream to 91 MB/s against
	 * 150 on TCP and 216 with 256 KiB (bench/autopilot).
	 */
	for (size_t k = 0; k < w->n_hist && k < AUTO_HISTORY; k++) {
		const struct auto_window *h = &w->hist[k];
		uint64_t open = h->conns_open ? h->conns_open : 1, want;

		if (h->seconds <= 0)
			continue;
		want = (uint64_t)((double)h->bytes / h->seconds / (double)open * AUTO_BUF_DRAIN_MS /
				  1000.0);
		while (size < want && size < AUTO_BUF_MAX)
			size *= 2;
	}
	return (uint32_t)size; /* at most AUTO_BUF_MAX: assess_buffer_size()'s and the loop's */
}

uint64_t auto_size_buffers(struct auto_workload *v, size_t n, uint64_t budget, bool *ret_changed)
{
	_cleanup_(freep) uint32_t *old = ret_changed ? calloc(n ? n : 1, sizeof(*old) * 2) : NULL;
	uint64_t total;

	for (size_t i = 0; i < n; i++) {
		if (old) {
			old[2 * i] = v[i].sndbuf;
			old[2 * i + 1] = v[i].rcvbuf;
		}
		v[i].sndbuf = v[i].rcvbuf = wish_of(&v[i]);
	}
	total = held_total(v, n);
	/* Over budget: halve the largest holder that can still be halved, until it fits. */
	while (budget && total > budget) {
		size_t big = n;
		uint64_t big_held = 0;

		for (size_t i = 0; i < n; i++) {
			uint64_t h;

			if (v[i].sndbuf <= AUTO_BUF_FLOOR)
				continue;
			h = held_of(v[i].sndbuf, &v[i]);
			if (big == n || h > big_held) {
				big = i;
				big_held = h;
			}
		}
		if (big == n)
			break; /* all at the floor: the budget cannot be met */
		v[big].sndbuf = v[big].sndbuf / 2 > AUTO_BUF_FLOOR ? v[big].sndbuf / 2
								   : (uint32_t)AUTO_BUF_FLOOR;
		v[big].rcvbuf = v[big].sndbuf;
		total = held_total(v, n);
	}
	/* Without memory for the old sizes every one is said changed: the agent re-applies. */
	for (size_t i = 0; ret_changed && i < n; i++)
		ret_changed[i] = !old || old[2 * i] != v[i].sndbuf || old[2 * i + 1] != v[i].rcvbuf;
	return total;
}

/* ---- JSON ------------------------------------------------------------------------------- */

/* The JSON vocabulary (smcctl(8), JSON OUTPUT): rates per second, and a time as whole
 * microseconds (connect_ms is written as connect_usec). */
#define FIGURE_CONNECT 3
static const char *const figure_keys[FIGURES] = { "bytes_per_second", "sends_per_second",
						  "conns_per_second", "connect_usec" };

static json_object *figure_json(const struct auto_figures *f, unsigned i)
{
	struct auto_figures c = *f;

	if (i == FIGURE_CONNECT)
		return json_object_new_uint64((uint64_t)(c.connect_ms * 1000.0 + 0.5));
	return json_object_new_double(*fig(&c, i));
}

/* A spread is relative (0.05: 5 %) for every figure: its connect figure is no time. */
#define SPREAD_CONNECT_KEY "connect_time"

static json_object *figures_json(const struct auto_figures *f, bool spread)
{
	json_object *o = json_object_new_object();
	struct auto_figures c = *f;

	for (unsigned i = 0; o && i < FIGURES; i++)
		if (spread)
			json_object_object_add(
				o, i == FIGURE_CONNECT ? SPREAD_CONNECT_KEY : figure_keys[i],
				json_object_new_double(*fig(&c, i)));
		else
			json_object_object_add(o, figure_keys[i], figure_json(f, i));
	return o;
}

/* The counts of a window, by name (JSON both ways). */
static const struct {
	const char *key;
	size_t off;
} window_u64[] = {
	{ "number", offsetof(struct auto_window, number) },
	{ "conns", offsetof(struct auto_window, conns) },
	{ "conns_short", offsetof(struct auto_window, conns_short) },
	{ "conns_tiny", offsetof(struct auto_window, conns_tiny) },
	{ "conns_unreach", offsetof(struct auto_window, conns_unreach) },
	{ "conns_failed", offsetof(struct auto_window, conns_failed) },
	{ "conns_open", offsetof(struct auto_window, conns_open) },
	{ "closed", offsetof(struct auto_window, closed) },
	/* in ns; written as whole microseconds (the JSON vocabulary), read back times 1000 */
	{ "lifetime_usec", offsetof(struct auto_window, lifetime_ns) },
	{ "bytes", offsetof(struct auto_window, bytes) },
	{ "sends", offsetof(struct auto_window, sends) },
	{ "fallbacks", offsetof(struct auto_window, fallbacks) },
	{ "handshake_errors", offsetof(struct auto_window, handshake_errors) },
};

static json_object *window_json(const struct auto_window *w)
{
	json_object *o = json_object_new_object(), *h = json_object_new_array();
	struct auto_figures f;

	if (!o || !h) {
		json_object_put(o);
		json_object_put(h);
		return NULL;
	}
	for (size_t i = 0; i < ELEMENTSOF(window_u64); i++) {
		uint64_t v = *(const uint64_t *)((const char *)w + window_u64[i].off);

		if (window_u64[i].off == offsetof(struct auto_window, lifetime_ns))
			v /= 1000;
		json_object_object_add(o, window_u64[i].key, json_object_new_uint64(v));
	}
	json_object_object_add(o, "carrier", json_object_new_string(carrier_name(w->carrier)));
	json_object_object_add(o, "seconds", json_object_new_double(w->seconds));
	auto_figures_of(w, &f);
	for (unsigned i = 0; i < FIGURES; i++)
		json_object_object_add(o, figure_keys[i], figure_json(&f, i));
	for (unsigned b = 0; b < ASSESS_BUCKETS; b++)
		json_object_array_add(h, json_object_new_uint64(w->hist[b]));
	json_object_object_add(o, "hist", h);
	return o;
}

json_object *auto_workload_json(const struct auto_workload *w, bool evidence)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *a;

	if (!o)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(w->name));
	json_object_object_add(o, "cgroup", json_object_new_string(w->cgroup));
	json_object_object_add(o, "port", json_object_new_int(w->port));
	json_object_object_add(o, "state",
			       json_object_new_string(auto_state_name(w->state) ?: "undecided"));
	if (w->state == AUTO_FROZEN)
		json_object_object_add(
			o, "before_freeze",
			json_object_new_string(auto_state_name(w->before_freeze) ?: "undecided"));
	json_object_object_add(o, "since_usec", json_object_new_uint64(w->since_usec));
	json_object_object_add(o, "why", json_object_new_string(w->why));
	json_object_object_add(o, "sndbuf", json_object_new_uint64(w->sndbuf));
	json_object_object_add(o, "rcvbuf", json_object_new_uint64(w->rcvbuf));
	json_object_object_add(o, "rollbacks", json_object_new_uint64(w->rollbacks));
	if (!evidence)
		return TAKE_PTR(o);
	json_object_object_add(o, "netns_cookie", json_object_new_uint64(w->netns_cookie));
	json_object_object_add(o, "since_window", json_object_new_uint64(w->since_window));
	if (!(a = json_object_new_array()))
		return NULL;
	json_object_object_add(o, "windows", a);
	for (size_t i = 0; i < w->n_hist && i < AUTO_HISTORY; i++) {
		json_object *e = window_json(&w->hist[i]);

		if (!e || json_object_array_add(a, e) < 0) {
			json_object_put(e);
			return NULL;
		}
	}
	json_object_object_add(o, "baseline", figures_json(&w->baseline, false));
	json_object_object_add(o, "baseline_spread", figures_json(&w->baseline_spread, true));
	json_object_object_add(o, "trial_seen", json_object_new_uint64(w->trial_seen));
	json_object_object_add(o, "excluded", json_object_new_boolean(w->excluded));
	json_object_object_add(o, "against", json_object_new_uint64(w->against));
	json_object_object_add(o, "hold_until", json_object_new_uint64(w->hold_until));
	return TAKE_PTR(o);
}

/* ---- JSON read back: data, never trusted ------------------------------------------------ */

struct rd {
	char *why;
	size_t len;
	const char *where; /* "" or "windows[3]." */
};

static int rd_fail(struct rd *r, const char *key, const char *what)
{
	auto_why_printf(r->why, r->len, "%s%s: %s", r->where, key, what);
	return -EINVAL;
}

static int rd_get(struct rd *r, json_object *o, const char *key, json_type t, json_object **ret)
{
	if (!json_object_object_get_ex(o, key, ret))
		return rd_fail(r, key, "missing");
	if (t == json_type_double ? !json_object_is_type(*ret, json_type_double) &&
					    !json_object_is_type(*ret, json_type_int)
				  : !json_object_is_type(*ret, t))
		return rd_fail(r, key,
			       t == json_type_string   ? "not a string"
			       : t == json_type_int    ? "not an integer"
			       : t == json_type_double ? "not a number"
			       : t == json_type_array  ? "not an array"
						       : "not an object");
	return 0;
}

static int rd_u64(struct rd *r, json_object *o, const char *key, uint64_t max, uint64_t *ret)
{
	json_object *v;
	int k = rd_get(r, o, key, json_type_int, &v);

	if (k < 0)
		return k;
	if (json_object_get_int64(v) < 0)
		return rd_fail(r, key, "negative");
	*ret = json_object_get_uint64(v);
	if (*ret > max)
		return rd_fail(r, key, "out of range");
	return 0;
}

static int rd_double(struct rd *r, json_object *o, const char *key, double *ret)
{
	json_object *v;
	int k = rd_get(r, o, key, json_type_double, &v);

	if (k < 0)
		return k;
	*ret = json_object_get_double(v);
	if (!isfinite(*ret) || *ret < 0)
		return rd_fail(r, key, "not a finite number >= 0");
	return 0;
}

/* A figure read back: connect_usec into connect_ms. */
static int rd_figure(struct rd *r, json_object *o, unsigned i, double *ret)
{
	int k = rd_double(r, o, figure_keys[i], ret);

	if (k >= 0 && i == FIGURE_CONNECT)
		*ret /= 1000.0;
	return k;
}

static int rd_str(struct rd *r, json_object *o, const char *key, char *buf, size_t len)
{
	json_object *v;
	int k = rd_get(r, o, key, json_type_string, &v);

	if (k < 0)
		return k;
	if ((size_t)json_object_get_string_len(v) >= len)
		return rd_fail(r, key, "too long");
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return rd_fail(r, key, "contains a NUL byte");
	memcpy(buf, json_object_get_string(v), (size_t)json_object_get_string_len(v) + 1);
	return 0;
}

static int rd_state(struct rd *r, json_object *o, const char *key, enum auto_state *ret)
{
	char s[32];
	int k = rd_str(r, o, key, s, sizeof(s));

	if (k < 0)
		return rd_fail(r, key, "not a state name");
	if (auto_state_from_name(s, ret) < 0)
		return rd_fail(r, key,
			       "not a state (undecided, tcp, trial, smc, rolled-back, frozen, admin)");
	return 0;
}

static int rd_figures(struct rd *r, json_object *o, const char *key, bool spread,
		      struct auto_figures *ret)
{
	json_object *f;
	const char *where = r->where;
	char w[64];
	int k = rd_get(r, o, key, json_type_object, &f);

	if (k < 0)
		return k;
	snprintf(w, sizeof(w), "%s%s.", where, key);
	r->where = w;
	for (unsigned i = 0; i < FIGURES && k >= 0; i++)
		k = spread && i == FIGURE_CONNECT ? rd_double(r, f, SPREAD_CONNECT_KEY, fig(ret, i))
						  : rd_figure(r, f, i, fig(ret, i));
	r->where = where;
	return k;
}

/* An absolute path below the cgroup2 root, no "." or ".." component. */
static bool cgroup_valid(const char *p)
{
	if (p[0] != '/')
		return false;
	for (const char *c = p + 1; *c;) {
		size_t l = strcspn(c, "/");

		if ((l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += l;
		if (*c == '/')
			c++;
	}
	return true;
}

static int rd_window(struct rd *r, json_object *o, struct auto_window *ret)
{
	json_object *h;
	char carrier[8];
	double d;
	int k;

	if (!json_object_is_type(o, json_type_object)) {
		/* where is "windows[i].": said without its dot */
		auto_why_printf(r->why, r->len, "%.*s: not an object",
				(int)(strlen(r->where) ? strlen(r->where) - 1 : 0), r->where);
		return -EINVAL;
	}
	for (size_t i = 0; i < ELEMENTSOF(window_u64); i++) {
		uint64_t *v = (uint64_t *)((char *)ret + window_u64[i].off);
		bool usec = window_u64[i].off == offsetof(struct auto_window, lifetime_ns);

		if ((k = rd_u64(r, o, window_u64[i].key, usec ? UINT64_MAX / 1000 : UINT64_MAX, v)) <
		    0)
			return k;
		if (usec)
			*v *= 1000;
	}
	if ((k = rd_double(r, o, "seconds", &ret->seconds)) < 0)
		return k;
	if ((k = rd_str(r, o, "carrier", carrier, sizeof(carrier))) < 0)
		return rd_fail(r, "carrier", "not tcp or smc");
	if (streq(carrier, "tcp"))
		ret->carrier = AUTO_CARRIER_TCP;
	else if (streq(carrier, "smc"))
		ret->carrier = AUTO_CARRIER_SMC;
	else
		return rd_fail(r, "carrier", "not tcp or smc");
	/* The figures are derived: checked, not taken. */
	for (unsigned i = 0; i < FIGURES; i++)
		if (json_object_object_get_ex(o, figure_keys[i], NULL) &&
		    (k = rd_figure(r, o, i, &d)) < 0)
			return k;
	if ((k = rd_get(r, o, "hist", json_type_array, &h)) < 0)
		return k;
	if (json_object_array_length(h) != ASSESS_BUCKETS)
		return rd_fail(r, "hist", "not 9 buckets");
	for (unsigned b = 0; b < ASSESS_BUCKETS; b++) {
		json_object *v = json_object_array_get_idx(h, b);

		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return rd_fail(r, "hist", "not counts >= 0");
		ret->hist[b] = json_object_get_uint64(v);
	}
	return 0;
}

static int rd_windows(struct rd *r, json_object *o, struct auto_workload *ret)
{
	json_object *a;
	char where[32];
	int k = rd_get(r, o, "windows", json_type_array, &a);

	if (k < 0)
		return k;
	if (json_object_array_length(a) > AUTO_HISTORY)
		return rd_fail(r, "windows", "more windows than the history keeps");
	ret->n_hist = json_object_array_length(a);
	for (size_t i = 0; i < ret->n_hist; i++) {
		snprintf(where, sizeof(where), "windows[%zu].", i);
		r->where = where;
		k = rd_window(r, json_object_array_get_idx(a, i), &ret->hist[i]);
		if (k >= 0 && i > 0 && ret->hist[i].number <= ret->hist[i - 1].number)
			k = rd_fail(r, "number", "not after the window before it");
		r->where = "";
		if (k < 0)
			return k;
	}
	return 0;
}

int auto_workload_from_json(json_object *o, struct auto_workload *ret, char *why, size_t len)
{
	struct rd r = { .why = why, .len = len, .where = "" };
	struct auto_workload w = { 0 };
	uint64_t u;
	int k;

	if (!why || !len) {
		static char sink[AUTO_WHY_LEN];

		r.why = sink;
		r.len = sizeof(sink);
	}
	if (!o || !json_object_is_type(o, json_type_object))
		return rd_fail(&r, "workload", "not an object");
	if ((k = rd_str(&r, o, "name", w.name, sizeof(w.name))) < 0)
		return k;
	if (!w.name[0])
		return rd_fail(&r, "name", "empty");
	if ((k = rd_str(&r, o, "cgroup", w.cgroup, sizeof(w.cgroup))) < 0)
		return k;
	if (!cgroup_valid(w.cgroup))
		return rd_fail(&r, "cgroup", "not an absolute path without . or .. components");
	if ((k = rd_u64(&r, o, "port", UINT16_MAX, &u)) < 0)
		return k;
	w.port = (uint16_t)u;
	if (json_object_object_get_ex(o, "netns_cookie", NULL) &&
	    (k = rd_u64(&r, o, "netns_cookie", UINT64_MAX, &w.netns_cookie)) < 0)
		return k;
	if ((k = rd_state(&r, o, "state", &w.state)) < 0)
		return k;
	if (w.state == AUTO_FROZEN) {
		if ((k = rd_state(&r, o, "before_freeze", &w.before_freeze)) < 0)
			return k;
		if (w.before_freeze == AUTO_FROZEN || w.before_freeze == AUTO_ADMIN)
			return rd_fail(&r, "before_freeze", "not a state one can freeze");
	}
	if ((k = rd_u64(&r, o, "since_usec", UINT64_MAX, &w.since_usec)) < 0 ||
	    (k = rd_str(&r, o, "why", w.why, sizeof(w.why))) < 0)
		return k;
	if ((k = rd_u64(&r, o, "sndbuf", UINT32_MAX, &u)) < 0)
		return k;
	w.sndbuf = (uint32_t)u;
	if ((k = rd_u64(&r, o, "rcvbuf", UINT32_MAX, &u)) < 0)
		return k;
	w.rcvbuf = (uint32_t)u;
	if ((k = rd_u64(&r, o, "rollbacks", UINT_MAX, &u)) < 0)
		return k;
	w.rollbacks = (unsigned)u;
	if ((k = rd_u64(&r, o, "since_window", UINT64_MAX, &w.since_window)) < 0 ||
	    (k = rd_windows(&r, o, &w)) < 0 ||
	    (k = rd_figures(&r, o, "baseline", false, &w.baseline)) < 0 ||
	    (k = rd_figures(&r, o, "baseline_spread", true, &w.baseline_spread)) < 0)
		return k;
	if ((k = rd_u64(&r, o, "trial_seen", UINT_MAX, &u)) < 0)
		return k;
	w.trial_seen = (unsigned)u;
	{
		json_object *b;

		if (!json_object_object_get_ex(o, "excluded", &b) ||
		    !json_object_is_type(b, json_type_boolean))
			return rd_fail(&r, "excluded", "not true or false");
		w.excluded = json_object_get_boolean(b);
	}
	if ((k = rd_u64(&r, o, "against", UINT_MAX, &u)) < 0)
		return k;
	w.against = (unsigned)u;
	if ((k = rd_u64(&r, o, "hold_until", UINT64_MAX, &w.hold_until)) < 0)
		return k;
	*ret = w;
	return 0;
}
