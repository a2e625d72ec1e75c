// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * org.smcd.Agent1.Assessment on /org/smcd/Agent1: the continuous assessment (assess.c).
 * IntervalUSec 0 means off.  Reading is for everyone, as GetStatistics is: the document names applications and
 * their traffic shape (what `ss` and smcctl socket show anyone), no payload.
 * Windows and WindowEndUSec change at the end of every window: a client waits for that
 * signal, not for a time.
 */
#include <errno.h>

#include <systemd/sd-bus.h>

#include "common/bus-api.h"
#include "smcd-agent/assess-continuous.h"
#include "smcd-agent/bus-access.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/manager.h"

static int bus_assess_prop_available(sd_bus *bus, const char *path, const char *interface,
				     const char *property, sd_bus_message *reply, void *userdata,
				     sd_bus_error *error)
{
	struct manager *m = userdata;

	(void)bus, (void)path, (void)interface, (void)property, (void)error;
	return sd_bus_message_append(reply, "b", (int)(assess_enabled(m) && !assess_error(m)));
}

static int prop_error(sd_bus *bus, const char *path, const char *interface, const char *property,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	(void)bus, (void)path, (void)interface, (void)property, (void)error;
	return sd_bus_message_append(reply, "s", assess_error(m) ?: "");
}

static int bus_assess_prop_interval(sd_bus *bus, const char *path, const char *interface,
				    const char *property, sd_bus_message *reply, void *userdata,
				    sd_bus_error *error)
{
	struct manager *m = userdata;

	(void)bus, (void)path, (void)interface, (void)property, (void)error;
	return sd_bus_message_append(reply, "t", config_assess_window_usec(m->config));
}

static int prop_windows(sd_bus *bus, const char *path, const char *interface, const char *property,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	(void)bus, (void)path, (void)interface, (void)property, (void)error;
	return sd_bus_message_append(reply, "t", assess_windows(m));
}

static int prop_window_end(sd_bus *bus, const char *path, const char *interface, const char *property,
			   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	(void)bus, (void)path, (void)interface, (void)property, (void)error;
	return sd_bus_message_append(reply, "t", assess_window_end_usec(m));
}

static int bus_assess_method_get(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *doc = assess_document(m);

	if (!assess_enabled(m))
		return sd_bus_error_set(error, SMCD_BUS_ERROR_UNAVAILABLE,
					"The continuous assessment is off: set assess.interval in "
					"smc.yaml (see smc.yaml(5)), or run smcctl assess");
	if (assess_error(m))
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_UNAVAILABLE,
					 "The assessment cannot run: %s", assess_error(m));
	if (!doc)
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_UNAVAILABLE,
					 "The first assessment window (%" PRIu64
					 " s) has not ended yet",
					 config_assess_window_usec(m->config) / 1000000);
	return sd_bus_reply_method_return(msg, "s", doc);
}

#define RO SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable assess_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SMCD_BUS_ASSESS_AVAILABLE, "b", bus_assess_prop_available, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_ASSESS_ERROR, "s", prop_error, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_ASSESS_INTERVAL_USEC, "t", bus_assess_prop_interval, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_ASSESS_WINDOWS, "t", prop_windows, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_ASSESS_WINDOW_END_USEC, "t", prop_window_end, 0, RO),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_ASSESS_GET_ASSESSMENT, SD_BUS_NO_ARGS,
				SD_BUS_RESULT("s", json), bus_assess_method_get, ANYONE),
	SD_BUS_VTABLE_END,
};

int bus_assess_register(struct manager *m)
{
	return sd_bus_add_object_vtable(m->bus, NULL, SMCD_BUS_PATH, SMCD_BUS_IFACE_ASSESSMENT,
					assess_vtable, m);
}
