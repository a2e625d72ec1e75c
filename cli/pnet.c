// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl pnet: the software PNET table of this network namespace.  A PNET ID groups the
 * interfaces and devices that reach the same physical network; SMC-Dv1/SMC-Rv1 need one.
 * Ethernet entries are per netns; RDMA/SMC-D device entries only exist in the initial one.
 *
 * Unlike smc_pnet, arguments are checked before anything is sent (the same rules the
 * kernel applies), and flushing an empty table is not an error.
 */
#include <net/if.h>
#include <string.h>

#include "cli/verbs.h"
#include "common/output.h"
#include "config/units.h"

json_object *pnet_entry_json(const struct smc_pnet_entry *e)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	bool eth = e->eth_name[0];
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_str(o, "pnetid", e->pnetid);
	r |= json_add_str(o, "type", eth ? "eth" : "ib");
	r |= json_add_str(o, "eth", eth ? e->eth_name : NULL);
	r |= json_add_str(o, "ib_dev", eth ? NULL : e->ib_name);
	r |= eth ? json_add_null(o, "ib_port") : json_add_u64(o, "ib_port", e->ib_port);
	return r < 0 ? NULL : TAKE_PTR(o);
}

static const char *fmt_device(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	const char *d = out_get_str(row, "eth", NULL);

	return d ? d : out_get_str(row, "ib_dev", NULL);
}

static const struct out_column cols[] = {
	OUT_COL("pnetid", "PNET-ID", OUT_STR),
	OUT_COL("type", "Type", OUT_STR),
	OUT_COL(NULL, "Device", OUT_CUSTOM, .format = fmt_device),
	OUT_COL("ib_port", "Port", OUT_U64),
};

void pnet_list_text(struct smcctl *c, json_object *doc)
{
	json_object *arr = out_get(doc, "pnet");

	if (!arr || json_object_array_length(arr) == 0) {
		fputs("PNET table: empty\n", c->out);
		return;
	}
	out_table(c->out, cols, ELEMENTSOF(cols), arr, c->detail, 0);
}

static int validate_pnetid(struct smcctl *c, const char *s, char norm[SMC_PNETID_LEN + 1])
{
	const char *reason = NULL;

	if (smc_pnetid_validate(s, norm, &reason) < 0)
		return smcctl_usage(c, "invalid PNET ID '%s': %s", s,
				    reason ? reason : "1 to 16 letters and digits expected");
	return SMCCTL_EXIT_OK;
}

int pnet_list(struct smcctl *c, const struct verb_args *a)
{
	char norm[SMC_PNETID_LEN + 1];
	_cleanup_(freep) struct smc_pnet_entry *v = NULL;
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	json_object *arr = json_object_new_array();
	struct smcnl *nl;
	size_t n = 0;
	int r, s;

	if (!doc || json_add(doc, "pnet", arr) < 0)
		return smcctl_oom(c);
	if (a->n_pos && (s = validate_pnetid(c, a->pos[0], norm)))
		return s;
	if ((s = smcctl_nl(c, &nl)))
		return s;
	r = smc_pnet_list(nl, a->n_pos ? norm : NULL, &v, &n);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot read the PNET table");
	for (size_t i = 0; i < n; i++)
		if (json_append(arr, pnet_entry_json(&v[i])) < 0)
			return smcctl_oom(c);
	return smcctl_emit(c, doc, pnet_list_text);
}

static int parse_add(struct smcctl *c, const struct verb_args *a, struct smc_pnet_entry *e)
{
	const char *eth = a->opt[PNET_ADD_OPT_ETH], *ib = a->opt[PNET_ADD_OPT_IB];
	const char *port = a->opt[PNET_ADD_OPT_PORT];
	int s;

	if ((s = validate_pnetid(c, a->pos[0], e->pnetid)))
		return s;
	if (!eth == !ib)
		return smcctl_usage(c, "give exactly one of --eth IFACE and --ib DEV");
	if (eth) {
		if (port)
			return smcctl_usage(c, "--port belongs to --ib, not to --eth");
		if (!*eth || strlen(eth) >= sizeof(e->eth_name) || strchr(eth, '/'))
			return smcctl_usage(c, "invalid interface name '%s'", eth);
		snprintf(e->eth_name, sizeof(e->eth_name), "%s", eth);
		return SMCCTL_EXIT_OK;
	}
	if (!*ib || strlen(ib) >= sizeof(e->ib_name))
		return smcctl_usage(c, "invalid device name '%s': 1 to %zu characters", ib,
				    sizeof(e->ib_name) - 1);
	snprintf(e->ib_name, sizeof(e->ib_name), "%s", ib);
	/* 1 or 2, default 1: the table's range, checked by the parser. */
	e->ib_port = (uint8_t)a->num[PNET_ADD_OPT_PORT];
	return SMCCTL_EXIT_OK;
}

int pnet_add(struct smcctl *c, const struct verb_args *a)
{
	struct smc_pnet_entry e = {};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	int r, s;

	if ((s = parse_add(c, a, &e)) || (s = smcctl_nl(c, &nl)))
		return s;
	r = smc_pnet_add(nl, &e);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_PNET_ADD, r, "cannot add %s to PNET ID %s",
				   e.eth_name[0] ? e.eth_name : e.ib_name, e.pnetid);
	doc = action_json("add", "pnetid", e.pnetid, true);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}

int pnet_del(struct smcctl *c, const struct verb_args *a)
{
	char norm[SMC_PNETID_LEN + 1];
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	int r, s;

	/* The kernel does not upper-case on delete: send the normalised form. */
	if ((s = validate_pnetid(c, a->pos[0], norm)) || (s = smcctl_nl(c, &nl)))
		return s;
	r = smc_pnet_del(nl, norm);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_PNET_DEL, r, "cannot remove PNET ID %s", norm);
	doc = action_json("del", "pnetid", norm, true);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}

int pnet_flush(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	int r, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	r = smc_pnet_flush(nl);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_PNET_FLUSH, r, "cannot flush the PNET table");
	doc = action_json("flush", NULL, NULL, CHANGED_UNKNOWN);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}
