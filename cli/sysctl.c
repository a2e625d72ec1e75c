// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl sysctl: net.smc.* of this network namespace, with units and kernel defaults from
 * the library's table.  Sysctls this version does not know are shown too (a newer kernel),
 * flagged as unknown; known ones this kernel lacks are listed with the release that added
 * them.  "set" validates known sysctls against the kernel's own range before writing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/verbs.h"
#include "common/output.h"
#include "config/units.h"

static const char *const unit_names[] = {
	[SMC_UNIT_BYTES] = "bytes", [SMC_UNIT_SECONDS] = "seconds", [SMC_UNIT_BOOL] = "bool",
	[SMC_UNIT_ENUM] = "enum",   [SMC_UNIT_COUNT] = "count",	    [SMC_UNIT_STRING] = "string",
};

static const char *unit_name(enum smc_sysctl_unit u)
{
	return (size_t)u < ELEMENTSOF(unit_names) ? unit_names[u] : NULL;
}

static const char *enum_name(const struct smc_sysctl_desc *d, int64_t v)
{
	for (int64_t i = 0; d->enum_names && d->enum_names[i]; i++)
		if (i == v)
			return d->enum_names[i];
	return NULL;
}

json_object *sysctl_entry_json(const char *name, const struct smc_sysctl_desc *d, const char *value)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	bool numeric = d && d->unit != SMC_UNIT_STRING;
	int64_t v = 0;
	bool parsed = numeric && parse_int64(value, &v) >= 0;
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_str(o, "name", name);
	/* A known numeric sysctl is a JSON number; anything else stays the kernel's text. */
	r |= parsed ? json_add_i64(o, "value", v) : json_add_str(o, "value", value);
	r |= json_add_str(o, "unit", d ? unit_name(d->unit) : NULL);
	r |= json_add_str(o, "value_name",
			  parsed && d->unit == SMC_UNIT_ENUM ? enum_name(d, v) : NULL);
	if (!d)
		r |= json_add_null(o, "default");
	else if (d->unit == SMC_UNIT_STRING)
		r |= json_add_str(o, "default", "");
	else
		r |= json_add_i64(o, "default", d->def);
	r |= numeric ? json_add_i64(o, "min", d->min) : json_add_null(o, "min");
	r |= numeric ? json_add_i64(o, "max", d->max) : json_add_null(o, "max");
	r |= json_add_str(o, "since", d ? d->since : NULL);
	r |= json_add_bool(o, "known", d != NULL);
	r |= json_add_str(o, "description", d ? d->help : NULL);
	return r < 0 ? NULL : TAKE_PTR(o);
}

/* ---------------------------------------------------------------------------------- */
/* Text                                                                                */

static const char *fmt_value(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	json_object *v = out_get(row, "value");
	const char *name = out_get_str(row, "value_name", NULL);
	char tmp[64];
	const char *s = out_format(v, OUT_U64, tmp, sizeof(tmp));

	if (name)
		snprintf(buf, len, "%s (%s)", s, name);
	else
		snprintf(buf, len, "%s", s);
	return buf;
}

static const char *fmt_range(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	json_object *min = out_get(row, "min"), *max = out_get(row, "max");

	if (!min || !max)
		return NULL;
	snprintf(buf, len, "%" PRId64 "..%" PRId64, json_object_get_int64(min),
		 json_object_get_int64(max));
	return buf;
}

static const char *fmt_note(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	if (!out_get_bool(row, "known", false))
		return "unknown to smcctl (a newer kernel?)";
	return out_get_str(row, "description", NULL);
}

static const struct out_column cols[] = {
	OUT_COL("name", "Name", OUT_STR),
	OUT_COL(NULL, "Value", OUT_CUSTOM, .flags = OUT_RIGHT, .format = fmt_value),
	OUT_COL("unit", "Unit", OUT_STR),
	OUT_COL("default", "Default", OUT_U64),
	OUT_COL(NULL, "Range", OUT_CUSTOM, .detail = 1, .format = fmt_range),
	OUT_COL("since", "Since", OUT_STR, .detail = 1),
	OUT_COL(NULL, "Note", OUT_CUSTOM, .format = fmt_note),
	OUT_COL("description", "Description", OUT_STR, .detail = 1),
};

void sysctl_show_text(struct smcctl *c, json_object *doc)
{
	json_object *arr = out_get(doc, "sysctls"), *absent = out_get(doc, "absent");
	size_t n = absent ? json_object_array_length(absent) : 0;

	if (!arr || json_object_array_length(arr) == 0)
		fputs("No net.smc sysctls in this network namespace (is smc loaded?)\n", c->out);
	else
		out_table(c->out, cols, ELEMENTSOF(cols), arr, c->detail, 0);
	if (n)
		fputs("\nNot in this kernel:", c->out);
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(absent, i);

		fprintf(c->out, "%s %s (%s+)", i ? "," : "", out_get_str(a, "name", "?"),
			out_get_str(a, "since", "?"));
	}
	if (n)
		fputc('\n', c->out);
}

/* ---------------------------------------------------------------------------------- */
/* Handlers                                                                            */

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static int build(struct smcctl *c, struct smcnl *nl, const char *only, json_object *doc)
{
	json_object *arr = json_object_new_array(), *absent = json_object_new_array();
	char **names = NULL;
	size_t n = 0, n_known = 0;
	const struct smc_sysctl_desc *table = smc_sysctl_table(&n_known);
	int r, status = SMCCTL_EXIT_OK;

	if (json_add(doc, "sysctls", arr) < 0 || json_add(doc, "absent", absent) < 0)
		return smcctl_oom(c);
	r = smc_sysctl_list_present(nl, &names, &n);
	if (r == -ENOENT) {
		/*
		 * net.smc exists only while smc.ko is loaded, and reading /proc does not load
		 * it; a netlink query does (module alias of the genl family).  So ask the
		 * kernel once, which also tells "not loaded" from "not available", and retry.
		 */
		struct smc_sysinfo si;

		r = smc_sysinfo_get(nl, &si);
		if (r >= 0)
			r = smc_sysctl_list_present(nl, &names, &n);
	}
	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot list the net.smc sysctls");
	for (size_t i = 0; i < n && !status; i++) {
		char value[256];

		if (only && !streq(names[i], only))
			continue;
		r = smc_sysctl_get(nl, names[i], value, sizeof(value));
		if (r < 0)
			status = smcctl_fail(c, SMC_OP_QUERY, r, "cannot read net.smc.%s", names[i]);
		else if (json_append(arr, sysctl_entry_json(names[i], smc_sysctl_find(names[i]),
							    value)) < 0)
			status = smcctl_oom(c);
	}
	for (size_t k = 0; k < n_known && !status; k++) {
		bool present = false;
		json_object *o;

		for (size_t i = 0; i < n; i++)
			present |= streq(names[i], table[k].name);
		if (present || (only && !streq(only, table[k].name)))
			continue;
		o = json_object_new_object();
		if (json_append(absent, o) < 0 || json_add_str(o, "name", table[k].name) < 0 ||
		    json_add_str(o, "since", table[k].since) < 0)
			status = smcctl_oom(c);
	}
	strv_free(names, n);
	return status;
}

/* ": did you mean 'wmem'?" for a mistyped sysctl name, from the table of known ones. */
static const char *sysctl_hint(const char *name, char *buf, size_t len)
{
	size_t n;
	const struct smc_sysctl_desc *t = smc_sysctl_table(&n);
	const char *names[64];

	buf[0] = '\0';
	if (n > ELEMENTSOF(names))
		return buf;
	for (size_t i = 0; i < n; i++)
		names[i] = t[i].name;
	return word_nearest(name, names, n, "", buf, len);
}

verb_fn sysctl_show;
int sysctl_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	const char *only = a->n_pos ? a->pos[0] : NULL;
	struct smcnl *nl;
	int s;

	if (!doc)
		return smcctl_oom(c);
	if (only && strncmp(only, "net.smc.", 8) == 0)
		only += 8;
	if ((s = smcctl_nl(c, &nl)) || (s = build(c, nl, only, doc)))
		return s;
	if (only && json_object_array_length(out_get(doc, "sysctls")) == 0) {
		const struct smc_sysctl_desc *d = smc_sysctl_find(only);
		char hint[96];

		if (d)
			return smcctl_error(c, SMCCTL_EXIT_FAILURE,
					    "this kernel has no net.smc.%s (added in Linux %s)",
					    only, d->since);
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "no sysctl net.smc.%s%s (see 'smcctl sysctl show')", only,
				    sysctl_hint(only, hint, sizeof(hint)));
	}
	return smcctl_emit(c, doc, sysctl_show_text);
}

/* The value as the kernel should get it, validated for the sysctls we know. */
static int normalise(struct smcctl *c, const struct smc_sysctl_desc *d, const char *name,
		     const char *in, char *out, size_t len)
{
	char expected[160];
	int64_t v;
	int r;

	if (!d) {
		snprintf(out, len, "%s", in);
		return SMCCTL_EXIT_OK;
	}
	if (d->unit == SMC_UNIT_STRING) {
		if (strlen(in) > 15)
			return smcctl_usage(c, "invalid value for net.smc.%s: at most 15 characters",
					    name);
		snprintf(out, len, "%s", in);
		return SMCCTL_EXIT_OK;
	}
	/* The agent's parser (config/units.c): what smc.yaml and the agent accept, so is
	 * accepted here ("1MiB", "30s", "on"). */
	r = sysctl_parse_value(d, in, &v, expected, sizeof(expected));
	if (r == -ERANGE)
		return smcctl_usage(
			c, "invalid value '%s' for net.smc.%s: out of range (the kernel accepts %s)",
			in, name, expected);
	if (r < 0) {
		char hint[64] = "";

		if (d->unit == SMC_UNIT_BYTES)
			size_hint(in, hint, sizeof(hint));
		return smcctl_usage(c, "invalid value '%s' for net.smc.%s: %s is expected%s", in,
				    name, expected, hint);
	}
	snprintf(out, len, "%" PRId64, v);
	return SMCCTL_EXIT_OK;
}

int sysctl_set(struct smcctl *c, const struct verb_args *a)
{
	const char *name = a->pos[0];
	const struct smc_sysctl_desc *d;
	char value[256], previous[256];
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	int r, s;

	if (strncmp(name, "net.smc.", 8) == 0)
		name += 8;
	if (!*name || strchr(name, '/') || strchr(name, '.'))
		return smcctl_usage(c, "invalid sysctl name '%s'", a->pos[0]);
	d = smc_sysctl_find(name);
	if ((s = normalise(c, d, name, a->pos[1], value, sizeof(value))) || (s = smcctl_nl(c, &nl)))
		return s;
	r = smc_sysctl_get(nl, name, previous, sizeof(previous));
	if (r == -ENOENT && d)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "this kernel has no net.smc.%s (added in Linux %s)", name,
				    d->since);
	if (r == -ENOENT) {
		char hint[96];

		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "no sysctl net.smc.%s%s (see 'smcctl sysctl show')", name,
				    sysctl_hint(name, hint, sizeof(hint)));
	}
	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot read net.smc.%s", name);
	r = smc_sysctl_set(nl, name, value);
	if (r < 0)
		return smcctl_fail(c, SMC_OP_SYSCTL_SET, r, "cannot set net.smc.%s to %s", name,
				   value);
	doc = action_json("set", "name", name, !streq(previous, value));
	if (!doc || json_add_str(doc, "value", value) < 0 ||
	    json_add_str(doc, "previous", previous) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}
