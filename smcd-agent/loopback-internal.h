/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the three files of smcd-agent's loopback handling share:
 *   loopback.c          smc.yaml's loopback: section reconciled: the activation and
 *                       deactivation protocol (loopback.h)
 *   loopback-device.c   smc_lo's device read and kept up to date (polls and notifications)
 *   bus-loopback.c      its org.smcd.Agent1.LoopbackDevice object and the
 *                       org.smcd.Agent1.Loopback methods
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "netlink/smclo.h"

struct manager;

#define LOOPBACK_MODULE "smc_lo"
/* After the drain: how long the removal may take before it is reported as stuck. */
#define LOOPBACK_REMOVAL_MS SMCLO_REMOVAL_MS

/* The LoopbackDevice object: a flat copy of the module's device, compared field by field
 * (bus-snapshot.h). */
struct loopback_object {
	char path[256];
	char name[SMC_DIBS_NAME_LEN];
	char state[16];
	bool removing;
	uint32_t generation;
	char gid[SMC_UUID_TEXT_LEN + 1];
	bool pending;
	char dmb_type[16];
	bool nocopy;
	uint32_t max_dmbs;
	char active_dmb_type[16];
	bool active_nocopy;
	uint32_t active_max_dmbs;
	/* microseconds, as every time on the bus (USec); the module counts ms */
	uint64_t drain_timeout_usec;
	uint64_t drain_remaining_usec;
	struct smclo_counters counters; /* as the module sent them (SMCLO_COUNTERS) */
};

struct bus_snapshot_type;

struct loopback {
	bool present; /* the object exists (smc_lo loaded and readable) */
	struct loopback_object snap;
	struct smclo_monitor *mon;
	sd_event_source *mon_src;
	bool no_monitor; /* the kernel has none (fake): do not ask again */
	/* bus-loopback.c's object type, set when it registers the object: the device's
	 * changes are announced with it through bus-snapshot.c (NULL: no bus, no signal). */
	const struct bus_snapshot_type *bus_type;
};

/* m->loopback, allocated at its first use; NULL only without memory. */
struct loopback *loopback_of(struct manager *m);
