// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl ueid: the kernel's global table of User Defined EIDs.  Off s390 there is no SEID,
 * so SMC-Dv2 (and with it every loopback connection) and SMC-Rv2 need at least one UEID
 * that both peers share; "derive" produces the host's own one from machine-id, as the agent's
 * ueid.auto does (common/ueid-derive.h: app-specific by default, or the seed's "MID-").
 */
#include <inttypes.h>
#include <string.h>

#include "cli/verbs.h"
#include "common/output.h"
#include "common/ueid-derive.h"

json_object *ueid_list_json(char ueids[][SMC_EID_LEN + 1], size_t n)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();

	if (!o || json_add(o, "ueids", arr) < 0 || json_add_u64(o, "max", SMC_UEID_MAX) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (json_append_str(arr, ueids[i]) < 0)
			return NULL;
	return TAKE_PTR(o);
}

/* One UEID per line, nothing else: "for u in $(smcctl ueid)" works, as with smc-tools. */
void ueid_list_text(struct smcctl *c, json_object *doc)
{
	json_object *arr = out_get(doc, "ueids");
	size_t n = arr ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++)
		fprintf(c->out, "%s\n", json_object_get_string(json_object_array_get_idx(arr, i)));
	if (c->detail)
		fprintf(c->out, "%zu of %" PRIu64 " UEIDs configured\n", n,
			out_get_u64(doc, "max", SMC_UEID_MAX));
}

static int fetch_list(struct smcctl *c, struct smcnl *nl, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1],
		      size_t *ret_n)
{
	int r = smc_ueid_list(nl, ret, ret_n);

	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot list the UEIDs");
	return SMCCTL_EXIT_OK;
}

verb_fn ueid_list;
int ueid_list(struct smcctl *c, const struct verb_args *a)
{
	char ueids[SMC_UEID_MAX][SMC_EID_LEN + 1];
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	size_t n = 0;
	int s;

	if ((s = smcctl_nl(c, &nl)) || (s = fetch_list(c, nl, ueids, &n)))
		return s;
	doc = ueid_list_json(ueids, n);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, ueid_list_text);
}

/*
 * Validate as the kernel does before anything is sent: a refused UEID is a usage error
 * (exit 2).  Lowercase is refused, not silently upper-cased (the kernel stores what it is
 * given and EID matching is byte-exact), but we say what would have worked.
 */
static int validate(struct smcctl *c, const char *ueid, char padded[SMC_EID_LEN + 1])
{
	const char *reason = NULL;
	char upper[SMC_EID_LEN * 2 + 1], tmp[SMC_EID_LEN + 1];
	size_t i;

	if (smc_ueid_validate(ueid, padded, &reason) >= 0)
		return SMCCTL_EXIT_OK;
	for (i = 0; ueid[i] && i < sizeof(upper) - 1; i++)
		upper[i] = (ueid[i] >= 'a' && ueid[i] <= 'z') ? (char)(ueid[i] - 'a' + 'A') : ueid[i];
	upper[i] = '\0';
	if (!streq(upper, ueid) && smc_ueid_validate(upper, tmp, &(const char *){ NULL }) >= 0)
		return smcctl_usage(c, "invalid UEID '%s': %s; did you mean '%s'?", ueid,
				    reason ? reason : "rejected", upper);
	return smcctl_usage(c, "invalid UEID '%s': %s", ueid, reason ? reason : "rejected");
}

static int change(struct smcctl *c, const char *action, const char *ueid)
{
	char padded[SMC_EID_LEN + 1];
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	bool add = streq(action, "add");
	int r, s;

	if ((s = validate(c, ueid, padded)) || (s = smcctl_nl(c, &nl)))
		return s;
	r = add ? smc_ueid_add(nl, ueid) : smc_ueid_del(nl, ueid);
	if (r < 0)
		return smcctl_fail(c, add ? SMC_OP_UEID_ADD : SMC_OP_UEID_DEL, r,
				   "cannot %s UEID %s", add ? "add" : "remove", ueid);
	doc = action_json(action, "ueid", ueid, true);
	if (!doc)
		return smcctl_oom(c);
	if (r == 1) {
		/* s390: removing the last UEID turned the SEID back on.  Success, not exit 1. */
		json_add_bool(doc, "seid_reactivated", true);
		smcctl_note(c, "that was the last UEID: the kernel offers its System EID (SEID) "
			       "again");
	}
	return smcctl_emit(c, doc, action_text);
}

int ueid_add(struct smcctl *c, const struct verb_args *a)
{
	return change(c, "add", a->pos[0]);
}

int ueid_del(struct smcctl *c, const struct verb_args *a)
{
	return change(c, "del", a->pos[0]);
}

int ueid_flush(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	int r, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	r = smc_ueid_flush(nl);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_UEID_FLUSH, r, "cannot flush the UEIDs");
	doc = action_json("flush", NULL, NULL, CHANGED_UNKNOWN);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}

/* The UEID alone (for $(...)), or with --apply what happened to it. */
void ueid_derive_text(struct smcctl *c, json_object *doc)
{
	const char *ueid = out_get_str(doc, "ueid", "");

	if (!out_get_bool(doc, "apply", false))
		fprintf(c->out, "%s\n", ueid);
	else if (out_get_bool(doc, "changed", false))
		fprintf(c->out, "%s: added to the kernel's UEID table\n", ueid);
	else
		fprintf(c->out, "%s: already configured\n", ueid);
}

static int derive(struct smcctl *c, const char *file, enum ueid_derivation how,
		  char ueid[UEID_DERIVED_MAX + 1])
{
	const char *reason = NULL;
	int r = ueid_derive_from_file(file, how, ueid, &reason);

	if (r >= 0)
		return SMCCTL_EXIT_OK;
	if (reason)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot derive a UEID: %s %s", file,
				    reason);
	return smcctl_error(c, r == -EACCES ? SMCCTL_EXIT_PERMISSION : SMCCTL_EXIT_FAILURE,
			    "cannot derive a UEID: cannot read %s: %s%s", file, strerror(-r),
			    r == -ENOENT && streq(file, MACHINE_ID_FILE)
				    ? " (systemd-machine-id-setup creates it)"
				    : "");
}

/* Idempotent: present already -> "already configured", exit 0. */
static int ueid_apply_one(struct smcctl *c, const char *ueid, bool *ret_changed)
{
	char list[SMC_UEID_MAX][SMC_EID_LEN + 1], padded[SMC_EID_LEN + 1];
	struct smcnl *nl;
	size_t n = 0;
	int r, s;

	*ret_changed = false;
	if ((s = validate(c, ueid, padded)) || (s = smcctl_nl(c, &nl)) ||
	    (s = fetch_list(c, nl, list, &n)))
		return s;
	for (size_t i = 0; i < n; i++)
		if (streq(list[i], ueid))
			return SMCCTL_EXIT_OK;
	r = smc_ueid_add(nl, ueid);
	if (r == -EEXIST) /* added by someone else since the dump: still what was asked */
		return SMCCTL_EXIT_OK;
	if (r < 0)
		return smcctl_fail(c, SMC_OP_UEID_ADD, r, "cannot add UEID %s", ueid);
	*ret_changed = true;
	return SMCCTL_EXIT_OK;
}

verb_fn ueid_derive_verb;
int ueid_derive_verb(struct smcctl *c, const struct verb_args *a)
{
	const char *file =
		a->opt[UEID_DERIVE_OPT_FILE] ? a->opt[UEID_DERIVE_OPT_FILE] : MACHINE_ID_FILE;
	const char *how = a->opt[UEID_DERIVE_OPT_DERIVE]
				  ? a->opt[UEID_DERIVE_OPT_DERIVE]
				  : ueid_derivation_names[UEID_DERIVE_APP_SPECIFIC];
	bool do_apply = a->opt[UEID_DERIVE_OPT_APPLY], changed = false;
	char ueid[UEID_DERIVED_MAX + 1];
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	int d, s;

	if (!doc)
		return smcctl_oom(c);
	if (!*file)
		return smcctl_usage(c, "--machine-id-file needs a file name");
	d = ueid_derivation_from_string(how);
	if (d < 0)
		return smcctl_usage(c, "invalid --derive '%s' (app-specific or machine-id)", how);
	if ((s = derive(c, file, d, ueid)))
		return s;
	if (do_apply && (s = ueid_apply_one(c, ueid, &changed)))
		return s;
	if (json_add_str(doc, "ueid", ueid) < 0 || json_add_str(doc, "machine_id_file", file) < 0 ||
	    json_add_str(doc, "derive", how) < 0 || json_add_bool(doc, "apply", do_apply) < 0 ||
	    /* without --apply nothing was asked of the kernel: no "changed" (never null) */
	    (do_apply && json_add_bool(doc, "changed", changed) < 0))
		return smcctl_oom(c);
	return smcctl_emit(c, doc, ueid_derive_text);
}
