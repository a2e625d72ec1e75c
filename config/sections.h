/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sections of smc.yaml that live in their own file, for config.c's table: each is built
 * on the toolkit (ytree.h) and fills in struct config (config.h); none calls into config.c.
 */
#pragma once

#include "config/config.h"
#include "config/ytree.h"

/* policies: (policy.c) */
int section_policies(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
/* After all sections: what policies: needs from the others. */
int config_policies_check(struct ctx *ctx);
/* loopback: (loopback.c) */
int section_loopback(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
/* After all sections: what loopback: needs from the others (reserved PNET IDs). */
int config_loopback_check(struct ctx *ctx);
