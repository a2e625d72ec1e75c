// SPDX-License-Identifier: GPL-2.0-or-later
/* The agent's change signals: snapshot-backed objects, named properties, signals (bus-snapshot.h). */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "common/macro.h"
#include "smcd-agent/bus-snapshot.h"

int bus_snapshot_prop_string(sd_bus *bus, const char *path, const char *iface, const char *prop,
			     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append_basic(reply, 's', userdata);
}

int bus_snapshot_prop_bool(sd_bus *bus, const char *path, const char *iface, const char *prop,
			   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, "b", (int)*(const bool *)userdata);
}

/* The bytes a property takes at its offset; 0 for a string (compared as one). */
static size_t field_size(const char *sig, size_t struct_size, size_t off)
{
	switch (sig[0]) {
	case 'y':
		return 1;
	case 'q':
		return 2;
	case 'u':
		return 4;
	case 't':
		return 8;
	case 'b':
		return sizeof(bool);
	case 's':
		return 0;
	default:
		return struct_size - off;
	}
}

size_t bus_snapshot_changed(const struct bus_snapshot_type *t, const void *a, const void *b,
			    const char **names, size_t max)
{
	size_t n = 0;

	for (const sd_bus_vtable *v = t->vtable + 1; v->type != _SD_BUS_VTABLE_END && n + 1 < max;
	     v++) {
		size_t off = v->x.property.offset;
		const char *sig = v->x.property.signature;
		const char *pa = (const char *)a + off, *pb = (const char *)b + off;
		bool differs;

		if (v->type != _SD_BUS_VTABLE_PROPERTY)
			continue;
		if (sig[0] == 's')
			differs = !streq(pa, pb);
		else
			differs = memcmp(pa, pb, field_size(sig, t->size, off)) != 0;
		if (differs)
			names[n++] = v->x.property.member;
	}
	names[n] = NULL;
	return n;
}

static const char *bus_snapshot_path_of(const struct bus_snapshot_type *t, const void *s)
{
	return (const char *)s + t->path_offset;
}

int bus_snapshot_emit(sd_bus *bus, const struct bus_snapshot_type *t, const void *old, const void *new)
{
	const char *names[64];

	if (!bus || (!old && !new))
		return 0;
	/* A new path (another device name) is a removal and an addition. */
	if (old && new && !streq(bus_snapshot_path_of(t, old), bus_snapshot_path_of(t, new))) {
		int r = bus_snapshot_emit(bus, t, old, NULL),
		    k = bus_snapshot_emit(bus, t, NULL, new);

		return r < 0 ? r : k;
	}
	if (!new)
		return t->whole_object
			       ? sd_bus_emit_object_removed(bus, bus_snapshot_path_of(t, old))
			       : sd_bus_emit_interfaces_removed(bus, bus_snapshot_path_of(t, old),
								t->iface, NULL);
	if (!old)
		return t->whole_object ? sd_bus_emit_object_added(bus, bus_snapshot_path_of(t, new))
				       : sd_bus_emit_interfaces_added(
						 bus, bus_snapshot_path_of(t, new), t->iface, NULL);
	if (!bus_snapshot_changed(t, old, new, names, ELEMENTSOF(names)))
		return 0;
	return sd_bus_emit_properties_changed_strv(bus, bus_snapshot_path_of(t, new), t->iface,
						   (char **)names);
}

int bus_snapshot_emit_changed(sd_bus *bus, const char *path, const char *iface,
			      const char *const *names)
{
	if (!bus || !names || !names[0])
		return 0;
	return sd_bus_emit_properties_changed_strv(bus, path, iface, (char **)names);
}

int bus_snapshot_emit_flags(sd_bus *bus, const char *path, const char *iface,
			    const struct bus_snapshot_flag *table, size_t n, unsigned flags)
{
	const char *names[32];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(table[i].flag & flags))
			continue;
		for (size_t j = 0; j < ELEMENTSOF(table[i].names) && table[i].names[j]; j++)
			if (k < ELEMENTSOF(names) - 1)
				names[k++] = table[i].names[j];
	}
	names[k] = NULL;
	return bus_snapshot_emit_changed(bus, path, iface, names);
}

int bus_snapshot_emit_signal(sd_bus *bus, const char *path, const char *iface, const char *member,
			     const char *types, ...)
{
	va_list ap;
	int r;

	if (!bus)
		return 0;
	va_start(ap, types);
	r = sd_bus_emit_signalv(bus, path, iface, member, types, ap);
	va_end(ap);
	return r;
}
