/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place the agent's objects announce changes on the bus (bus-snapshot.c).
 *
 * D-Bus objects served from flat snapshot structs: the devices and link groups
 * (bus-objects.c) and smc_lo's device (bus-loopback.c, announced by loopback-device.c).
 * The vtable is the property table: its offsets say where each property lives in the
 * snapshot, so comparing an old and a new snapshot names exactly the properties that
 * changed, and one function sends what a change of one object means on the bus.
 *
 * The objects on /org/smcd/Agent1 read their properties from the live state (Manager,
 * Statistics, Assessment): whoever changed that state names what changed
 * (bus_snapshot_emit_changed(), bus_snapshot_emit_flags()); and the one custom signal,
 * FallbackAttributed, goes out through bus_snapshot_emit_signal().  Every function here
 * needs nothing but the bus, so the code below the bus objects (manager.c, assess.c,
 * fallback.c, loopback-device.c) announces without calling up into them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

/* Getters for snapshot fields: an inline char[] ("s") and a bool ("b"); "y", "q", "u", "t"
 * need none (sd-bus reads them at the offset). */
int bus_snapshot_prop_string(sd_bus *bus, const char *path, const char *iface, const char *prop,
			     sd_bus_message *reply, void *userdata, sd_bus_error *error);
int bus_snapshot_prop_bool(sd_bus *bus, const char *path, const char *iface, const char *prop,
			   sd_bus_message *reply, void *userdata, sd_bus_error *error);

struct bus_snapshot_type {
	const char *iface;
	const sd_bus_vtable *vtable;
	size_t size;	    /* of one snapshot */
	size_t path_offset; /* of its char[] object path */
	/*
	 * The path holds this interface alone: InterfacesAdded/Removed name every interface
	 * of the object.  Otherwise only iface (a device's path also carries smc_lo's
	 * LoopbackDevice while the module is loaded, and the other way round).
	 */
	bool whole_object;
};

/*
 * The names of the properties of t that differ between a and b, NULL-terminated in names
 * (at most max - 1 of them); how many.  Array properties point at their count, the last
 * fields of the snapshot, and compare to its end.
 */
size_t bus_snapshot_changed(const struct bus_snapshot_type *t, const void *a, const void *b,
			    const char **names, size_t max);

/*
 * One object's change from old to new (NULL: not there): InterfacesRemoved (old only: call
 * it while the object can still be found), InterfacesAdded (new only), PropertiesChanged
 * naming what changed (both, same path), or, both on different paths, a removal and an
 * addition.  0, or the first signal's negative errno; no bus is 0.
 */
int bus_snapshot_emit(sd_bus *bus, const struct bus_snapshot_type *t, const void *old,
		      const void *new);

/* PropertiesChanged of iface on path naming names (NULL-terminated; none: no signal).
 * 0, or the signal's negative errno; no bus is 0. */
int bus_snapshot_emit_changed(sd_bus *bus, const char *path, const char *iface,
			      const char *const *names);

/* A change flag and the properties it names, in the order they are named. */
struct bus_snapshot_flag {
	unsigned flag;
	const char *names[3];
};
/* bus_snapshot_emit_changed() of the names of every row of table whose flag is in flags,
 * in the table's order. */
int bus_snapshot_emit_flags(sd_bus *bus, const char *path, const char *iface,
			    const struct bus_snapshot_flag *table, size_t n, unsigned flags);

/* The signal member of iface on path with the arguments of types (sd_bus_message_append()).
 * 0, or the negative errno; no bus is 0. */
int bus_snapshot_emit_signal(sd_bus *bus, const char *path, const char *iface, const char *member,
			     const char *types, ...);
