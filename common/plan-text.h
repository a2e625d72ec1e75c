/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of a dry run's document (smcd-agent/plan.h builds it; smcctl config diff and
 * smcd-agent --plan print it): one place, so both say the same thing.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>

/* Exit statuses of a dry run: nothing would change, something would, the file is invalid. */
enum {
	PLAN_EXIT_NONE = 0,
	PLAN_EXIT_CHANGES = 1,
	PLAN_EXIT_INVALID = 2,
	PLAN_EXIT_UNPLANNED = 3, /* the plan could not be made (no kernel interface, memory) */
};

/* The document of a file that is not valid: these errors, nothing planned (smcctl makes
 * it itself, having loaded the file with the same config library; the agent too). */
json_object *plan_invalid_json(const char *path, const char *const *errors, size_t n,
			       bool truncated, const char *planner);
/* The items that would change (all: every item), then what is not planned. */
void plan_text(FILE *f, json_object *doc, bool all);
/* The exit status the document stands for. */
int plan_exit_status(json_object *doc);
