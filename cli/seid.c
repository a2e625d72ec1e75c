// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl seid: the System EID.  Only s390 kernels have one (derived from the machine); on
 * every other architecture the kernel reports an empty SEID once an SMC-Dv2 device exists
 * and refuses enable/disable with EOPNOTSUPP, which smc_strerror() explains in one line.
 */
#include "cli/verbs.h"
#include "common/output.h"

json_object *seid_json(const struct smc_seid *s, bool supported)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	bool has = s->present && s->seid[0];

	if (!o || json_add_bool(o, "supported", supported) < 0 ||
	    json_add_str(o, "seid", has ? s->seid : NULL) < 0 ||
	    /* no SEID, none offered: false, as smcctl info says (a boolean is never null) */
	    json_add_bool(o, "enabled", has && s->enabled) < 0)
		return NULL;
	return TAKE_PTR(o);
}

void seid_text(struct smcctl *c, json_object *doc)
{
	const char *seid = out_get_str(doc, "seid", NULL);

	if (seid)
		fprintf(c->out, "%s [%s]\n", seid,
			out_get_bool(doc, "enabled", false) ? "enabled" : "disabled");
	else if (out_get_bool(doc, "supported", false))
		fputs("n/a (no SMC-Dv2 capable device registered yet)\n", c->out);
	else
		fputs("n/a (the kernel has a System EID only on s390; elsewhere use a UEID: "
		      "smcctl ueid derive --apply)\n",
		      c->out);
}

verb_fn seid_show;
int seid_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smc_caps caps = {};
	struct smc_seid seid = {};
	struct smcnl *nl;
	int r, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	r = smc_seid_get(nl, &seid);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot read the SEID");
	r = smc_caps_probe(nl, &caps);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot probe the kernel");
	doc = seid_json(&seid, caps.seid_supported);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, seid_text);
}

static int seid_set_enabled(struct smcctl *c, bool enable)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	int r, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	r = smc_seid_set(nl, enable);
	if (r < 0)
		return smcctl_fail(c, enable ? SMC_OP_SEID_ENABLE : SMC_OP_SEID_DISABLE, r,
				   "cannot %s the SEID", enable ? "enable" : "disable");
	doc = action_json(enable ? "enable" : "disable", NULL, NULL, CHANGED_UNKNOWN);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}

int seid_enable(struct smcctl *c, const struct verb_args *a)
{
	return seid_set_enabled(c, true);
}

int seid_disable(struct smcctl *c, const struct verb_args *a)
{
	return seid_set_enabled(c, false);
}
