/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's D-Bus objects (bus-*.c), one file per interface, above the manager: they
 * call the manager and the code below it, never the other way round.  The code below
 * announces its changes through bus-snapshot.h and asks who may do what through
 * bus-access.h; main.c sets the bus up (bus_setup()) and the tests register the objects on
 * a private bus (bus_register_all()).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "smcd-agent/manager.h"

/* bus-manager.c: org.smcd.Agent1.Manager, and the bus itself. */
int bus_setup(struct manager *m);
/* Every object and interface of the agent on m->bus (bus_setup(); tests on a private bus). */
int bus_register_all(struct manager *m);
int bus_append_report(sd_bus_message *reply, const struct report *r);
int bus_append_capabilities(sd_bus_message *reply, const struct smc_caps *c);
/* The D-Bus error of a manager_enable_unit()/manager_disable_unit() result: 0 for 0 and 1,
 * else < 0 and *error set (ConfigInvalid only for MANAGER_UNIT_REFUSED). */
int bus_unit_error(int r, const char *why, sd_bus_error *error);

/* bus-objects.c: devices and link groups. */
int bus_objects_register(struct manager *m);
/* Compare old and new snapshots and emit InterfacesAdded/Removed and PropertiesChanged;
 * the snapshots are swapped in any case, the first failed signal's error is returned. */
int bus_objects_update(struct manager *m, struct obj_device *devices, size_t n_devices,
		       struct obj_linkgroup *linkgroups, size_t n_linkgroups);

/* bus-policy.c: org.smcd.Agent1.Policy. */
int bus_policy_register(struct manager *m);

/* bus-stats.c: org.smcd.Agent1.Statistics on /org/smcd/Agent1 */
int bus_stats_register(struct manager *m);
/* GetStatistics(true) within the rate limit: msg waits for the sample due at due_usec
 * (CLOCK_MONOTONIC, timer accuracy 1 ms); 1, or -errno with error set. */
int bus_stats_wait_for_sample(sd_bus_message *msg, struct manager *m, uint64_t due_usec,
			      sd_bus_error *error);

/* bus-loopback.c: org.smcd.Agent1.Loopback and smc_lo's LoopbackDevice. */
int bus_loopback_register(struct manager *m);

/* bus-assess.c: org.smcd.Agent1.Assessment. */
int bus_assess_register(struct manager *m);
int bus_autopilot_register(struct manager *m);
