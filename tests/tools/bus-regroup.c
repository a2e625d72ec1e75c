// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-regroup GID NAME VALUE: calls org.smcd.Agent1.Manager.SetSysctl(NAME, VALUE) on the
 * system bus as uid/gid 65534 from a connection made with no groups at all, after the
 * process has joined group GID.  So the bus recorded "no groups" at connect time while
 * /proc/self/status shows GID: an agent that reads groups from /proc (sd-bus's augmented
 * credentials) lets the call through, one that asks the bus refuses it.  The same gap as a
 * recorded pid reused by another process.  Run as root (the saved uid 0 lets it join GID
 * after connecting).  Prints "ok" or the D-Bus error, exits 0 or 1 (2: set-up failed).
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "common/bus-api.h"

static int die(const char *what, int err)
{
	fprintf(stderr, "bus-regroup: %s: %s\n", what, strerror(err));
	return 2;
}

int main(int argc, char **argv)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	const char *unique;
	gid_t gid;
	int r;

	if (argc != 4) {
		fprintf(stderr, "usage: bus-regroup GID NAME VALUE\n");
		return 2;
	}
	gid = (gid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) < 0)
		return die("setgroups", errno);
	if (setresgid(65534, 65534, 65534) < 0)
		return die("setresgid", errno);
	if (setresuid(65534, 65534, 0) < 0)
		return die("setresuid", errno);
	r = sd_bus_open_system(&bus);
	if (r < 0)
		return die("sd_bus_open_system", -r);
	r = sd_bus_get_unique_name(bus, &unique); /* connected and Hello done */
	if (r < 0)
		return die("sd_bus_get_unique_name", -r);
	if (seteuid(0) < 0)
		return die("seteuid(0)", errno);
	if (setgroups(1, &gid) < 0)
		return die("setgroups(GID)", errno);
	if (seteuid(65534) < 0)
		return die("seteuid(65534)", errno);
	r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER,
			       SMCD_BUS_MANAGER_SET_SYSCTL, &error, &reply, "ss", argv[2], argv[3]);
	if (r < 0) {
		printf("%s: %s\n", error.name ? error.name : "?",
		       error.message ? error.message : strerror(-r));
		sd_bus_error_free(&error);
		sd_bus_unref(bus);
		return 1;
	}
	printf("ok\n");
	sd_bus_message_unref(reply);
	sd_bus_unref(bus);
	return 0;
}
