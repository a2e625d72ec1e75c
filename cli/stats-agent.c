// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl stats, stats reset and linkgroup through smcd-agent
 * (org.smcd.Agent1.Statistics, see smcd-agent(8)).
 *
 * "stats" asks the agent when it runs: the same document as the direct one, with the
 * since-reset values at the top ("--absolute": the totals), plus "total", "rate" and what
 * is open now.  Without an agent (or with --kernel, or --netns: the agent samples its own
 * network namespace only) the kernel is read directly, as before.
 *
 * "stats reset" needs the agent: the kernel cannot reset its counters and smcctl keeps no
 * files (smc-tools' per-user /tmp cache is what we do not repeat).  The answer is the
 * statistics up to the reset.
 *
 * "linkgroup" reads the kernel directly (link groups are global and the dump is cheap) and
 * merges the agent's per-group statistics: peak connections, first seen, own Prometheus
 * series.
 */
#include <errno.h>
#include <string.h>

#include "cli/agent.h"
#include "cli/bus.h"
#include "cli/verbs.h"
#include "common/advice.h"
#include "common/bus-api.h"
#include "common/output.h"

/*
 * Replace the top-level counters (since reset) with the totals.  fallback.attribution
 * (since the agent started, in no view) stays: the totals' fallback object is copied with
 * it, so that total.fallback does not get it too.
 */
static int use_totals(json_object *doc)
{
	json_object *total = out_get(doc, "total"), *attr = out_get(doc, "fallback.attribution");
	json_object *f, *copy;

	if (!total)
		return 0;
	attr = json_object_get(attr);
	json_object_object_foreach(total, key, val)
		if (json_add(doc, key, json_object_get(val)) < 0) {
			json_object_put(attr);
			return -ENOMEM;
		}
	if (!attr)
		return 0;
	f = out_get(doc, "fallback");
	if (!json_object_is_type(f, json_type_object) || !(copy = json_object_new_object())) {
		json_object_put(attr);
		return f ? -ENOMEM : 0;
	}
	json_object_object_foreach(f, k, v)
		if (json_add(copy, k, json_object_get(v)) < 0)
			goto oom;
	if (json_add(copy, "attribution", attr) < 0) {
		attr = NULL;
		goto oom;
	}
	return json_add(doc, "fallback", copy);
oom:
	json_object_put(attr);
	json_object_put(copy);
	return -ENOMEM;
}

static void drop_technology(json_object *doc, const char *tech)
{
	static const char *const trees[] = { "total", "rate" };

	json_object_object_del(doc, tech);
	for (size_t i = 0; i < ELEMENTSOF(trees); i++) {
		json_object *t = out_get(doc, trees[i]);

		if (t && json_object_is_type(t, json_type_object))
			json_object_object_del(t, tech);
	}
}

json_object *agent_stats_doc(const char *json, bool absolute, bool only_smcd, bool only_smcr)
{
	_cleanup_(json_object_putp) json_object *doc = json_tokener_parse(json);

	if (!doc || !json_object_is_type(doc, json_type_object))
		return NULL;
	if (absolute && use_totals(doc) < 0)
		return NULL;
	/* A filter removes the other technology from the document, as in direct mode. */
	if (only_smcd)
		drop_technology(doc, "smcr");
	if (only_smcr)
		drop_technology(doc, "smcd");
	return TAKE_PTR(doc);
}

/*
 * GetStatistics(refresh) or ResetStatistics(): the JSON text in *ret_json (valid with
 * *ret_reply).  -ESRCH: no agent (go direct); else an exit status.
 */
static int agent_call(struct smcctl *c, sd_bus *bus, const char *method, bool refresh,
		      sd_bus_message **ret_reply, const char **ret_json)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	if (streq(method, SMCD_BUS_STATS_GET_STATISTICS))
		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_STATS,
				       method, &e, ret_reply, "b", (int)refresh);
	else
		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_STATS,
				       method, &e, ret_reply, NULL);
	if (r < 0 &&
	    (bus_agent_absent(&e) || sd_bus_error_has_name(&e, SD_BUS_ERROR_UNKNOWN_INTERFACE)))
		return -ESRCH; /* no agent, or one without statistics */
	if (r < 0)
		return bus_failed(c,
				  streq(method, SMCD_BUS_STATS_RESET_STATISTICS)
					  ? "cannot reset the statistics"
					  : "cannot ask smcd-agent for the statistics",
				  &e, r);
	r = sd_bus_message_read(*ret_reply, "s", ret_json);
	if (r < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "smcd-agent's answer did not parse: %s",
				    strerror(-r));
	return SMCCTL_EXIT_OK;
}

static bool direct_only(struct smcctl *c)
{
	return c->netns || c->nl_opts.replay_dir;
}

static unsigned view_flags(const struct verb_args *a)
{
	return (a->opt[STATS_OPT_ALL] ? STATS_VIEW_ALL : 0) |
	       (a->opt[STATS_OPT_SMCD] ? STATS_VIEW_SMCD : 0) |
	       (a->opt[STATS_OPT_SMCR] ? STATS_VIEW_SMCR : 0) |
	       (a->opt[STATS_OPT_ABSOLUTE] ? STATS_VIEW_ABSOLUTE : 0);
}

int agent_stats_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	bool only_d = a->opt[STATS_OPT_SMCD], only_r = a->opt[STATS_OPT_SMCR];
	const char *json;
	int s;

	if (only_d && only_r)
		return smcctl_usage(c, "--smcd and --smcr exclude each other");
	if (a->opt[STATS_OPT_KERNEL] || direct_only(c) || bus_open_quiet(&bus) < 0)
		return stats_show(c, a);
	s = agent_call(c, bus, SMCD_BUS_STATS_GET_STATISTICS, true, &reply, &json);
	if (s == -ESRCH)
		return stats_show(c, a);
	if (s)
		return s;
	doc = agent_stats_doc(json, a->opt[STATS_OPT_ABSOLUTE], only_d, only_r);
	if (!doc)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "smcd-agent's statistics did not parse");
	/*
	 * The advice of the counters at the top: since the reset (or the totals with
	 * --absolute), which is what an operator wants after changing a sysctl.  Computed here
	 * by the same common/advice.c as without the agent, against smcctl's sysctls (the
	 * agent's netns is smcctl's: --netns never asks the agent).
	 */
	{
		struct advice advice[ADVICE_MAX];
		size_t n = stats_tree_advice(c, doc, advice);

		if (json_add(doc, "advice", advice_json(advice, n)) < 0)
			return smcctl_oom(c);
	}
	c->view = view_flags(a);
	/*
	 * -j: the agent's tree as json-c prints it, kept a document on purpose.  Its "rate"
	 * numbers are doubles that smcd-agent/stats-json.c formatted with json-c, and -j
	 * must be byte for byte that answer: a streaming sink would have to repeat json-c's
	 * own double formatting exactly (and follow it from version to version), while the
	 * document prints it by the same code.
	 */
	if (!c->json && stats_tree_text(c, doc) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, NULL);
}

int agent_stats_reset(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	const char *json;
	int s;

	if (c->netns)
		return smcctl_usage(c, "stats reset works on smcd-agent's network namespace only "
				       "(it keeps the baseline there); leave out --netns");
	/* Replayed kernel answers (tests) have no agent behind them. */
	if (c->nl_opts.replay_dir)
		s = -ESRCH;
	else if ((s = bus_open(c, &bus)))
		return s;
	else
		s = agent_call(c, bus, SMCD_BUS_STATS_RESET_STATISTICS, false, &reply, &json);
	if (s == -ESRCH)
		return smcctl_error(c, SMCCTL_EXIT_NO_AGENT,
				    "stats reset needs smcd-agent, which keeps the baseline (the kernel "
				    "cannot reset its counters): start it with 'systemctl start "
				    "smcd-agent'");
	if (s)
		return s;
	doc = agent_stats_doc(json, false, false, false);
	if (!doc)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "smcd-agent's statistics did not parse");
	c->view = STATS_VIEW_RESET;
	if (!c->json && stats_tree_text(c, doc) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, NULL);
}

/* ---------------------------------------------------------------------------------- */
/* linkgroup                                                                           */

/* The agent's document, or NULL when there is none (the verbs then work as before). */
static json_object *agent_doc_or_null(struct smcctl *c)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	const char *json;

	if (direct_only(c) || bus_open_quiet(&bus) < 0)
		return NULL;
	/*
	 * refresh=true: a group that just appeared is in the agent's list too.  Any failure
	 * only means no agent columns: the kernel's answer is what was asked for.
	 */
	if (sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_STATS,
			       SMCD_BUS_STATS_GET_STATISTICS, NULL, &reply, "b", 1) < 0 ||
	    sd_bus_message_read(reply, "s", &json) < 0)
		return NULL;
	return json_tokener_parse(json);
}

int agent_linkgroup_list(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *agent = agent_doc_or_null(c);

	return linkgroup_list_with(c, a, agent);
}

int agent_linkgroup_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *agent = agent_doc_or_null(c);

	return linkgroup_show_with(c, a, agent);
}
