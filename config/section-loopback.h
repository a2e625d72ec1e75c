/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smc.yaml's loopback: section: our loopback DIBS device (kmod/, smc-lo(4)).  Parsed by
 * config/section-loopback.c, kept by smcd-agent/loopback-reconcile.c.  See smc.yaml(5).
 *
 * Every key owns what it names, as elsewhere in smc.yaml: a key left out is neither read
 * nor written by the agent, and a section left out (the shipped default) means the agent
 * never touches smc_lo, not even to load it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/clock.h"
#include "config/ytree.h"
#include "netlink/smclo.h"

struct config_loopback {
	bool present;		 /* the file has a loopback: section */
	struct config_mark mark; /* of the section key */
	bool has_active;
	bool active; /* registered (true) or not (false) */
	struct config_mark active_mark;
	bool has_dmb_type;
	uint8_t dmb_type; /* enum smclo_dmb_type: physical only (virtual is refused) */
	struct config_mark dmb_type_mark;
	bool has_nocopy;
	bool nocopy;
	struct config_mark nocopy_mark;
	bool has_max_dmbs;
	uint32_t max_dmbs;
	struct config_mark max_dmbs_mark;
	/* With active: give "lo" the PNET ID SMCLO_LO_PNETID while smclo is active, so that
	 * smclo carries SMC-D loopback (default true). */
	bool has_take_over_lo;
	bool take_over_lo;
	struct config_mark take_over_lo_mark;
	bool has_drain_timeout;
	uint64_t drain_timeout_usec; /* the drain bound of deactivations (default 10 s) */
	struct config_mark drain_timeout_mark;
};

/* Limits of loopback.drain-timeout: the agent waits that long (plus the removal) in its
 * event loop, which must stay well below WatchdogSec=1min. */
#define LOOPBACK_DRAIN_MIN_USEC USEC_PER_SEC
#define LOOPBACK_DRAIN_MAX_USEC (SMCLO_WAIT_MAX_S * USEC_PER_SEC)
