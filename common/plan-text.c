// SPDX-License-Identifier: GPL-2.0-or-later
#include <inttypes.h>
#include <string.h>

#include "common/macro.h"
#include "common/output.h"
#include "common/plan-text.h"

/* Items whose kernel state could not be read: what they would do is unknown. */
static size_t failed_items(json_object *doc)
{
	json_object *items = out_get(doc, "items");
	size_t n = items ? json_object_array_length(items) : 0, failed = 0;

	for (size_t i = 0; i < n; i++)
		failed += streq(out_get_str(json_object_array_get_idx(items, i), "state", ""),
				"failed");
	return failed;
}

/*
 * A read that failed is no "nothing would change": the plan is incomplete (exit 3), and
 * the headline says how many items it could not plan, whatever else would change.
 */
int plan_exit_status(json_object *doc)
{
	if (!out_get_bool(doc, "valid", false))
		return PLAN_EXIT_INVALID;
	if (failed_items(doc))
		return PLAN_EXIT_UNPLANNED;
	return out_get_u64(doc, "changes", 0) > 0 ? PLAN_EXIT_CHANGES : PLAN_EXIT_NONE;
}

/* "+" something appears, "-" something goes, "~" something is set; a word otherwise. */
static const char *marker(const char *state, const char *action)
{
	if (!streq(state, "change"))
		return " ";
	if (streq(action, "add") || streq(action, "load"))
		return "+";
	if (streq(action, "remove") || strncmp(action, "remove", 6) == 0 ||
	    strncmp(action, "unload", 6) == 0 || strncmp(action, "unregister", 10) == 0)
		return "-";
	return "~";
}

static void item_text(FILE *f, json_object *it)
{
	const char *state = out_get_str(it, "state", ""), *action = out_get_str(it, "action", "");
	const char *cur = out_get_str(it, "current", ""), *want = out_get_str(it, "desired", "");
	const char *msg = out_get_str(it, "message", "");

	fprintf(f, "%s %-34s ", marker(state, action), out_get_str(it, "item", "?"));
	if (streq(state, "change")) {
		fprintf(f, "%s", action);
		if (cur[0] && want[0])
			fprintf(f, ": %s -> %s", cur, want);
		else if (want[0])
			fprintf(f, ": %s", want);
		if (msg[0])
			fprintf(f, "%s%s", cur[0] || want[0] ? " (" : ": ", msg);
		if (msg[0] && (cur[0] || want[0]))
			fputc(')', f);
	} else if (streq(state, "unchanged")) {
		fprintf(f, "unchanged%s%s", cur[0] ? ": " : "", cur);
	} else {
		fprintf(f, "%s%s%s", state, msg[0] ? ": " : "", msg);
	}
	fputc('\n', f);
}

void plan_text(FILE *f, json_object *doc, bool all)
{
	json_object *items = out_get(doc, "items"), *errors = out_get(doc, "errors");
	json_object *unplanned = out_get(doc, "unplanned");
	size_t n = items ? json_object_array_length(items) : 0, hidden = 0;
	uint64_t changes = out_get_u64(doc, "changes", 0);

	if (!out_get_bool(doc, "valid", false)) {
		for (size_t i = 0; errors && i < json_object_array_length(errors); i++)
			fprintf(f, "%s\n",
				json_object_get_string(json_object_array_get_idx(errors, i)));
		fprintf(f, "%s: not valid, nothing planned\n", out_get_str(doc, "file", "-"));
		return;
	}
	fprintf(f, "%s (revision %s), planned by %s: ", out_get_str(doc, "file", "-"),
		out_get_str(doc, "revision", "-"), out_get_str(doc, "planner", "-"));
	size_t failed = failed_items(doc);

	if (failed)
		fprintf(f, "%" PRIu64 " change%s, %zu item%s could not be planned (see below)\n",
			changes, changes == 1 ? "" : "s", failed, failed == 1 ? "" : "s");
	else if (changes)
		fprintf(f, "%" PRIu64 " change%s\n", changes, changes == 1 ? "" : "s");
	else
		fprintf(f, "nothing would change\n");
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(items, i);

		if (!all && streq(out_get_str(it, "state", ""), "unchanged")) {
			hidden++;
			continue;
		}
		item_text(f, it);
	}
	if (hidden)
		fprintf(f, "  (%zu unchanged item%s; -d lists them)\n", hidden,
			hidden == 1 ? "" : "s");
	for (size_t i = 0; unplanned && i < json_object_array_length(unplanned); i++)
		fprintf(f, "Not planned: %s\n",
			json_object_get_string(json_object_array_get_idx(unplanned, i)));
}

json_object *plan_invalid_json(const char *path, const char *const *errors, size_t n,
			       bool truncated, const char *planner)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();
	int r = 0;

	if (!o || json_add(o, "file", json_object_new_string(path)) < 0) {
		json_object_put(arr);
		return NULL;
	}
	r |= json_add_bool(o, "valid", false);
	r |= json_add_null(o, "revision");
	r |= json_add_str(o, "planner", planner);
	r |= json_add(o, "errors", arr);
	for (size_t i = 0; arr && i < n; i++)
		r |= json_append_str(arr, errors[i]);
	if (truncated && arr)
		r |= json_append_str(arr, "(more errors not shown)");
	r |= json_add_u64(o, "changes", 0);
	r |= json_add(o, "items", json_object_new_array());
	r |= json_add(o, "unplanned", json_object_new_array());
	return r < 0 ? NULL : TAKE_PTR(o);
}
