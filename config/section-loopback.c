// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml's loopback: section (loopback.h, smc.yaml(5)):
 *
 *   loopback:
 *     active: true            # smclo registered (true) or not (false)
 *     dmb-type: physical      # virtual is refused here: it corrupts memory with SMC-D
 *     nocopy: true
 *     max-dmbs: 5000          # 1 to 32768
 *     take-over-lo: true      # while active: PNET ID SMCDVIASMCLO on "lo" (needs active)
 *     drain-timeout: 10s      # bound of the drain when deactivating (1s to 30s)
 *
 * Decisions:
 *  - The shipped file has no loopback: section (only a commented example), so the
 *    defaults keep working on hosts without the module: the agent then never loads or
 *    touches smc_lo.  With the section, "active: true" on a host without the module is an
 *    unsupported item (reported once, not a fault), like a sysctl the kernel lacks.
 *  - dmb-type virtual is an error of the file, not of the reconcile: the module refuses
 *    it (smc-lo(4)), and a file that asks for it can never converge.
 *  - take-over-lo and drain-timeout describe how "active" is kept: without active they
 *    would do nothing, so they are refused then (a key that silently does nothing is the
 *    kind of error this loader exists to catch).
 *  - The PNET IDs SMCDVIASMCLO and SMCLODRAIN belong to the agent's loopback handling
 *    (netlink/smclo.h): pnet.entries may not use them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "netlink/smclo.h"
#include "config/sections.h"

static struct config_loopback *lb(struct ctx *ctx)
{
	return &ctx->config->loopback;
}

int loopback_dmb_type(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const char *s = get_scalar(ctx, v, "loopback.dmb-type", "physical");

	if (!s)
		return -EINVAL;
	if (smclo_dmb_type_from_name(s) == SMCLO_DMB_VIRTUAL) {
		error_at(ctx, v->mark,
			 "loopback.dmb-type: virtual is refused: virtually contiguous DMBs corrupt "
			 "memory with SMC-D, and smc_lo does not accept them (expected physical; "
			 "see smc-lo(4))");
		return -EINVAL;
	}
	if (smclo_dmb_type_from_name(s) != SMCLO_DMB_PHYSICAL) {
		error_at(ctx, v->mark,
			 "loopback.dmb-type: '%s' is not a valid value (expected physical)", s);
		return -EINVAL;
	}
	lb(ctx)->has_dmb_type = true;
	lb(ctx)->dmb_type = SMCLO_DMB_PHYSICAL;
	lb(ctx)->dmb_type_mark = v->mark;
	return 0;
}

void loopback_dmb_type_dump(FILE *f, const struct config *c)
{
	fprintf(f, "  dmb-type: physical\n");
}

int section_loopback(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	struct config_loopback *l = lb(ctx);
	int r;

	memset(l, 0, sizeof(*l));
	l->present = true;
	l->mark = k->mark;
	r = config_keys_defaults(ctx->keys, ctx->config, "loopback");
	if (r == 0)
		r = config_keys_parse(ctx, v, "loopback");
	if (r == 0 && !l->has_active && l->has_take_over_lo) {
		error_at(ctx, l->take_over_lo_mark,
			 "loopback.take-over-lo: only valid with loopback.active (expected active: "
			 "true or false in this section)");
		r = -EINVAL;
	}
	if (r == 0 && !l->has_active && l->has_drain_timeout) {
		error_at(ctx, l->drain_timeout_mark,
			 "loopback.drain-timeout: only valid with loopback.active (expected "
			 "active: true or false in this section)");
		r = -EINVAL;
	}
	return r;
}

int config_loopback_check(struct ctx *ctx)
{
	const struct config *c = ctx->config;
	int r = 0;

	if (!c->loopback.present)
		return 0;
	for (size_t i = 0; i < c->pnet.n_entries; i++) {
		const char *id = c->pnet.entries[i].pnetid;

		if (streq(id, SMCLO_LO_PNETID) || streq(id, SMCLO_DRAIN_PNETID)) {
			error_at(ctx, c->pnet.entries[i].mark,
				 "pnet.entries: PNET ID %s is used by the loopback: section "
				 "(expected another name)",
				 id);
			r = -EINVAL;
		}
	}
	return r;
}
