// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The answer of a verb that changes kernel state.  Text mode prints nothing on success (the
 * iproute2 convention: silence is success); -j prints {"action": ..., KEY: VALUE,
 * "changed": bool} so that every -j invocation yields exactly one JSON document.
 */
#include "cli/verbs.h"
#include "common/output.h"

json_object *action_json(const char *action, const char *key, const char *value, int changed)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();

	if (!o || json_add_str(o, "action", action) < 0 || (key && json_add_str(o, key, value) < 0))
		return NULL;
	if ((changed < 0 ? json_add_null(o, "changed") : json_add_bool(o, "changed", changed)) < 0)
		return NULL;
	return TAKE_PTR(o);
}

void action_text(struct smcctl *c, json_object *doc)
{
}
