// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Our smc_lo module's device (kmod/, smc-lo(4)) in smcctl's device views: its JSON (one
 * emit per field, SMCLO_COUNTERS for the counters), the amendment of the SMC-D device list
 * with its state and link groups, and its text in "device list" and "device show".  The
 * verb "device loopback-ism" is loopback-verb.c, above this file and cli/device.c.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "cli/agent.h"
#include "cli/bus.h"
#include "cli/loopback.h"
#include "cli/verbs.h"
#include "common/clock.h"
#include "common/bus-api.h"
#include "common/output.h"
#include "config/units.h"

/* ---------------------------------------------------------------------------------- */
/* JSON                                                                                */

static void settings_emit(struct out_sink *o, const char *key, const struct smclo_settings *s)
{
	out_object_begin(o, key);
	out_str(o, "dmb_type", OUT_NO_COL, smclo_dmb_type_name(s->dmb_type));
	out_bool(o, "nocopy", OUT_NO_COL, s->nocopy);
	out_u64(o, "max_dmbs", OUT_NO_COL, s->max_dmbs);
	out_object_end(o);
}

void smclo_device_emit(struct out_sink *o, const char *key, const struct smclo_device *d)
{
	bool draining = d->state == SMCLO_STATE_DRAINING;

	if (out_is_text(o))
		return;
	out_object_begin(o, key);
	out_str(o, "state", OUT_NO_COL, smclo_state_name(d->state));
	out_bool(o, "removing", OUT_NO_COL, d->removing);
	if (d->registered)
		out_u64(o, "generation", OUT_NO_COL, d->generation);
	else
		out_null(o, "generation", OUT_NO_COL);
	out_str(o, "gid", OUT_NO_COL, d->registered ? d->gid_uuid : NULL);
	out_bool(o, "pending", OUT_NO_COL, d->pending);
	/* JSON times are microseconds, *_usec (smcctl(8) JSON OUTPUT); the module counts ms. */
	if (draining)
		out_u64(o, "drain_timeout_usec", OUT_NO_COL, d->drain_timeout_ms * USEC_PER_MSEC);
	else
		out_null(o, "drain_timeout_usec", OUT_NO_COL);
	if (draining && d->has_drain_remaining)
		out_u64(o, "drain_remaining_usec", OUT_NO_COL, d->drain_remaining_ms * USEC_PER_MSEC);
	else
		out_null(o, "drain_remaining_usec", OUT_NO_COL);
	settings_emit(o, "settings", &d->settings);
	if (d->registered)
		settings_emit(o, "active_settings", &d->active);
	else
		out_null(o, "active_settings", OUT_NO_COL);
	out_object_begin(o, "counters");
#define COUNTER_EMIT(f, bits, attr, bus, kind, line, label) \
	out_u64(o, #f, OUT_NO_COL, d->counters.f);
	SMCLO_COUNTERS(COUNTER_EMIT)
#undef COUNTER_EMIT
	out_object_end(o);
	out_object_end(o);
}

json_object *smclo_device_json(const struct smclo_device *d)
{
	struct out_sink o;

	out_sink_doc(&o);
	smclo_device_emit(&o, NULL, d);
	out_sink_done(&o);
	return out_sink_take_doc(&o);
}

/* ---------------------------------------------------------------------------------- */
/* The device views                                                                    */

int loopback_amend(struct smcctl *c, struct smcd_device **smcd, size_t *n, const char *name,
		   struct smclo_device *ret_lo, size_t *ret_idx)
{
	struct smcd_device *e = NULL;
	struct smcnl *nl;
	char why[512];
	int r;

	if (smcctl_nl(c, &nl) != SMCCTL_EXIT_OK)
		return 0;
	r = smclo_get(nl, ret_lo);
	/* Another network namespace: the host-wide family is not visible there. */
	if (r == -EPROTONOSUPPORT)
		return 0;
	if (r < 0) {
		smcctl_note(
			c, "cannot read the smc_lo device: %s",
			smc_strerror(SMC_OP_LOOPBACK_QUERY, r, smcnl_extack(nl), why, sizeof(why)));
		return 0;
	}
	for (size_t i = 0; i < *n; i++)
		if (streq((*smcd)[i].name, ret_lo->name)) {
			e = &(*smcd)[i];
			*ret_idx = i;
		}
	if (!e) {
		/* Inactive: no DIBS device, no sysfs; an entry of its own. */
		struct smcd_device *a;

		if (name && !streq(name, ret_lo->name))
			return 0;
		a = reallocarray(*smcd, *n + 1, sizeof(**smcd));
		if (!a)
			return -ENOMEM;
		*smcd = a;
		e = &a[*n];
		*e = (struct smcd_device){ .loopback = true };
		snprintf(e->name, sizeof(e->name), "%s", ret_lo->name);
		*ret_idx = (*n)++;
	}
	/*
	 * SMC holds one device reference per link group: the module's count is exact, the
	 * link group dump of 7.3 may hide a later device's link groups (smc-lo(4) BUGS).
	 */
	if (ret_lo->counters.link_groups > e->linkgroups)
		e->linkgroups = (uint32_t)ret_lo->counters.link_groups;
	return 1;
}

/* The state in words, from smc_lo's device or from its "smc_lo" object. */
static const char *state_words(const char *state, bool removing, bool has_remaining,
			       uint64_t remaining, uint64_t timeout, bool has_generation,
			       uint64_t generation, char *buf, size_t len)
{
	if (removing)
		snprintf(buf, len, "%s, being removed", state);
	else if (has_remaining)
		snprintf(buf, len, "%s, %" PRIu64 " of %" PRIu64 " ms of the drain left", state,
			 remaining, timeout);
	else if (has_generation)
		snprintf(buf, len, "%s, generation %" PRIu64, state, generation);
	else
		snprintf(buf, len, "%s", state);
	return buf;
}

static const char *state_words_json(json_object *lo, char *buf, size_t len)
{
	return state_words(out_get_str(lo, "state", "-"), out_get_bool(lo, "removing", false),
			   out_get(lo, "drain_remaining_usec"),
			   out_get_u64(lo, "drain_remaining_usec", 0) / USEC_PER_MSEC,
			   out_get_u64(lo, "drain_timeout_usec", 0) / USEC_PER_MSEC,
			   out_get(lo, "generation"), out_get_u64(lo, "generation", 0), buf, len);
}

void loopback_list_emit(struct out_sink *o, const struct smcd_device *smcd, size_t n,
			const struct smclo_device *lo)
{
	const char *state = smclo_state_name(lo->state);
	char line[512], words[96];
	size_t k = 0, n_busy = 0;

	if (!out_is_text(o))
		return;
	/* Which loopback device carries SMC-D traffic: the ones with link groups. */
	line[0] = '\0';
	for (size_t pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct smcd_device *e = &smcd[i];

			if (!e->loopback || (pass == 0) != (e->linkgroups > 0))
				continue;
			n_busy += pass == 0;
			if (pass == 0)
				k += (size_t)snprintf(
					line + k, k < sizeof(line) ? sizeof(line) - k : 0,
					"%s%s (%" PRIu32 " link group%s)", k ? ", " : "", e->name,
					e->linkgroups, e->linkgroups == 1 ? "" : "s");
			else
				k += (size_t)snprintf(line + k,
						      k < sizeof(line) ? sizeof(line) - k : 0,
						      "%s%s: none", k ? "; " : "", e->name);
		}
	out_text(o, "\nSMC-D loopback traffic: %s\n", n_busy ? line : "none");
	out_text(o, "%s is smc_lo's device: %s (smcctl device show %s)\n", lo->name,
		 state_words(state ? state : "-", lo->removing,
			     lo->state == SMCLO_STATE_DRAINING && lo->has_drain_remaining,
			     lo->drain_remaining_ms, lo->drain_timeout_ms, lo->registered,
			     lo->generation, words, sizeof(words)),
		 lo->name);
}

static const char *fmt_settings(json_object *s, char *buf, size_t len)
{
	if (!s)
		return NULL;
	snprintf(buf, len, "%s DMBs, nocopy %s, max DMBs %" PRIu64, out_get_str(s, "dmb_type", "-"),
		 out_get_bool(s, "nocopy", false) ? "on" : "off", out_get_u64(s, "max_dmbs", 0));
	return buf;
}

static const char *fmt_state(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	return state_words_json(row, buf, len);
}

static const char *fmt_running(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	return fmt_settings(out_get(row, "active_settings"), buf, len);
}

static const char *fmt_next(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	char s[128];

	if (out_get(row, "active_settings") && !out_get_bool(row, "pending", false))
		return "the same";
	snprintf(buf, len, "%s", fmt_settings(out_get(row, "settings"), s, sizeof(s)) ?: "-");
	return buf;
}

static const char *fmt_dmbs(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 " (%" PRIu64 " bytes)", out_get_u64(row, "counters.dmbs", 0),
		 out_get_u64(row, "counters.dmb_bytes", 0));
	return buf;
}

static const struct out_column smclo_fields[] = {
	OUT_COL(NULL, "State", OUT_CUSTOM, .format = fmt_state),
	OUT_COL(NULL, "Running with", OUT_CUSTOM, .format = fmt_running),
	OUT_COL(NULL, "Next activation", OUT_CUSTOM, .format = fmt_next),
};

/* Every line 1..SMCLO_N_COUNTER_LINES taken by one counter (line 0 is "DMBs"). */
static_assert((0 SMCLO_COUNTERS(SMCLO_COUNTER_LINE_BIT)) == (2ull << SMCLO_N_COUNTER_LINES) - 1,
	      "SMCLO_COUNTERS: the text lines are not 1, 2, ... once each");

/*
 * A total's format: a size in bytes in IEC units ("1728 (1.7 KiB)"), any other count with
 * its decimal abbreviation from a million on (smcctl(8) JSON OUTPUT: one unit per kind).
 */
static enum out_fmt total_fmt(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && streq(name + n - 6, "_bytes") ? OUT_BYTES : OUT_COUNT;
}

/* The text of the counters: "DMBs" first, then each counter's line of SMCLO_COUNTERS. */
static void counter_fields(struct out_column cols[static 1 + SMCLO_N_COUNTER_LINES])
{
	cols[0] = (struct out_column)OUT_COL(NULL, "DMBs", OUT_CUSTOM, .format = fmt_dmbs);
#define COUNTER_FIELD(f, bits, attr, bus, kind, line, label) \
	if ((line) > 0)                                      \
		cols[line] = (struct out_column)OUT_COL(     \
			"counters." #f, label,               \
			SMCLO_COUNTER_##kind == SMCLO_COUNTER_GAUGE ? OUT_U64 : total_fmt(#f));
	SMCLO_COUNTERS(COUNTER_FIELD)
#undef COUNTER_FIELD
}

void loopback_show_text(struct smcctl *c, json_object *dev)
{
	json_object *lo = out_get(dev, "smc_lo");
	struct out_column counters[1 + SMCLO_N_COUNTER_LINES];

	if (!lo)
		return;
	counter_fields(counters);
	fputs("  smc_lo device\n", c->out);
	out_kv(c->out, smclo_fields, ELEMENTSOF(smclo_fields), lo, c->detail, 4);
	fputs("  Counters (gauges, and totals since smc_lo was loaded)\n", c->out);
	out_kv(c->out, counters, ELEMENTSOF(counters), lo, c->detail, 4);
}

/* ---------------------------------------------------------------------------------- */
/* Through the agent                                                                   */
