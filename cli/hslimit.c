// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl hs-limit: SMC handshake limitation of the caller's network namespace.  With it on,
 * a listener whose handshake work queue is congested lets new connections fall back to
 * TCP instead of queueing them.  The netlink commands and the sysctl
 * net.smc.limit_smc_hs (6.12+) set the same flag; netlink works on every kernel since 6.1.
 */
#include "cli/verbs.h"
#include "common/output.h"

void hslimit_text(struct smcctl *c, json_object *doc)
{
	fprintf(c->out, "Handshake limitation: %s\n",
		out_get_bool(doc, "enabled", false) ? "enabled" : "disabled");
	if (c->detail)
		fputs("  (when enabled, new connections to a listener fall back to TCP while "
		      "its SMC handshake queue is congested)\n",
		      c->out);
}

static int get(struct smcctl *c, struct smcnl *nl, bool *ret)
{
	int r = smc_hs_limitation_get(nl, ret);

	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot read the handshake limitation");
	return SMCCTL_EXIT_OK;
}

verb_fn hslimit_show;
int hslimit_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	struct smcnl *nl;
	bool on = false;
	int s;

	if (!doc)
		return smcctl_oom(c);
	if ((s = smcctl_nl(c, &nl)) || (s = get(c, nl, &on)))
		return s;
	if (json_add_bool(doc, "enabled", on) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, hslimit_text);
}

/*
 * One request, no read-before-write: the kernel does not say whether the flag changed, and
 * a verb whose permission error depended on the current state would confuse.
 */
static int hslimit_set_enabled(struct smcctl *c, bool enable)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	int r, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	r = smc_hs_limitation_set(nl, enable);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_HS_LIMITATION_SET, r,
				   "cannot %s the handshake limitation",
				   enable ? "enable" : "disable");
	doc = action_json(enable ? "enable" : "disable", NULL, NULL, CHANGED_UNKNOWN);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}

int hslimit_enable(struct smcctl *c, const struct verb_args *a)
{
	return hslimit_set_enabled(c, true);
}

int hslimit_disable(struct smcctl *c, const struct verb_args *a)
{
	return hslimit_set_enabled(c, false);
}
