// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fake-systemd UNIT=CGROUP:SLICE...: a stand-in for systemd's manager on a private system
 * bus, for what "smcctl enable" asks (cli/unit.c): Manager.LoadUnit(s) and, on the unit's
 * object, LoadState (Unit) and ControlGroup and Slice (the unit type's interface).  A unit
 * given on the command line is "loaded" with that ControlGroup (empty: not running) and
 * Slice; any other is "not-found", as systemd answers for a name it has no file of.  Owns
 * org.freedesktop.systemd1, prints "ready" on stdout once it does, runs until killed.
 *
 * With FAKE_SYSTEMD_NAME set it owns that name instead: an owner of another service's name
 * that answers none of its calls (agent-restart.test: an agent that has its name but not
 * yet its objects, as smcctl monitor may meet one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "common/bus-api.h"
#include "common/macro.h"

#define UNIT_PREFIX SYSTEMD_PATH "/unit"

static char **units; /* argv: UNIT=CGROUP:SLICE */
static int n_units;

/* The unit named by the object path, its CGROUP:SLICE part, or NULL. */
static const char *unit_entry(const char *path, char **ret_name)
{
	char *name = NULL;

	if (sd_bus_path_decode(path, UNIT_PREFIX, &name) <= 0)
		return NULL;
	*ret_name = name;
	for (int i = 0; i < n_units; i++) {
		size_t n = strlen(name);

		if (strncmp(units[i], name, n) == 0 && units[i][n] == '=')
			return units[i] + n + 1;
	}
	return NULL;
}

static int prop(sd_bus *bus, const char *path, const char *iface, const char *property,
		sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	_cleanup_(freep) char *name = NULL;
	const char *e = unit_entry(path, &name), *colon;
	char buf[4096];

	if (streq(property, SYSTEMD_UNIT_LOAD_STATE))
		return sd_bus_message_append(reply, "s", e ? "loaded" : "not-found");
	colon = e ? strchr(e, ':') : NULL;
	if (!colon)
		return sd_bus_message_append(reply, "s", "");
	if (streq(property, SYSTEMD_UNIT_CONTROL_GROUP))
		snprintf(buf, sizeof(buf), "%.*s", (int)(colon - e), e);
	else
		snprintf(buf, sizeof(buf), "%s", colon + 1);
	return sd_bus_message_append(reply, "s", buf);
}

static int find_unit(sd_bus *bus, const char *path, const char *iface, void *userdata,
		     void **ret_found, sd_bus_error *error)
{
	*ret_found = NULL;
	return strncmp(path, UNIT_PREFIX "/", strlen(UNIT_PREFIX) + 1) == 0;
}

static int load_unit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(freep) char *path = NULL;
	const char *name;
	int r;

	r = sd_bus_message_read(m, "s", &name);
	if (r < 0)
		return r;
	r = sd_bus_path_encode(UNIT_PREFIX, name, &path);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(m, "o", path);
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD(SYSTEMD_LOAD_UNIT, "s", "o", load_unit, 0),
	SD_BUS_VTABLE_END,
};

static const sd_bus_vtable unit_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SYSTEMD_UNIT_LOAD_STATE, "s", prop, 0, 0),
	SD_BUS_VTABLE_END,
};

static const sd_bus_vtable type_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SYSTEMD_UNIT_CONTROL_GROUP, "s", prop, 0, 0),
	SD_BUS_PROPERTY(SYSTEMD_UNIT_SLICE, "s", prop, 0, 0),
	SD_BUS_VTABLE_END,
};

int main(int argc, char **argv)
{
	static const char *const types[] = { "Service", "Scope", "Slice", "Socket", "Mount", "Swap" };
	sd_bus *bus = NULL;
	int r;

	units = argv + 1;
	n_units = argc - 1;
	r = sd_bus_open_system(&bus);
	if (r >= 0)
		r = sd_bus_add_object_vtable(bus, NULL, SYSTEMD_PATH, SYSTEMD_IFACE_MANAGER,
					     manager_vtable, NULL);
	if (r >= 0)
		r = sd_bus_add_fallback_vtable(bus, NULL, UNIT_PREFIX, SYSTEMD_IFACE_UNIT,
					       unit_vtable, find_unit, NULL);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(types); i++) {
		char iface[64];

		snprintf(iface, sizeof(iface), SYSTEMD_IFACE_PREFIX "%s", types[i]);
		r = sd_bus_add_fallback_vtable(bus, NULL, UNIT_PREFIX, strdup(iface), type_vtable,
					       find_unit, NULL);
	}
	if (r >= 0)
		r = sd_bus_request_name(bus,
					getenv("FAKE_SYSTEMD_NAME") ? getenv("FAKE_SYSTEMD_NAME")
								    : SYSTEMD_SERVICE,
					0);
	if (r < 0) {
		fprintf(stderr, "fake-systemd: %s\n", strerror(-r));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		r = sd_bus_process(bus, NULL);
		if (r < 0)
			return 1;
		if (r == 0 && sd_bus_wait(bus, UINT64_MAX) < 0)
			return 1;
	}
}
