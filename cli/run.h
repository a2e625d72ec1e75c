/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl run (cli/run.c) and smcctl policy (cli/policy.c): programs switched to SMC without
 * being changed.  Option indexes are shared with cli/table.c.
 */
#pragma once

#include "cli/smcctl.h"

enum { RUN_OPT_METHOD, RUN_OPT_SNDBUF, RUN_OPT_RCVBUF, RUN_OPT_QUIET };

int run_command(struct smcctl *c, const struct verb_args *a);

int policy_list(struct smcctl *c, const struct verb_args *a);
int policy_flush(struct smcctl *c, const struct verb_args *a);
/* Pure parts for the tests: the document from D-Bus values, and its text. */
void policy_list_text(struct smcctl *c, json_object *doc);
