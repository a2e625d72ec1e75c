// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * org.smcd.Agent1.Autopilot on /org/smcd/Agent1: the autopilot (autopilot.c).  Reading is
 * for everyone, as GetAssessment is: the documents name workloads (units, containers,
 * cgroups, ports) and their traffic figures, no payload.  Freeze and Forget change what it
 * may do and ask polkit (org.smcd.agent1.manage-autopilot).  Decision is sent at every change
 * of a workload's state; the counters' PropertiesChanged at every window's end.
 */
#include <errno.h>
#include <stdio.h>

#include <systemd/sd-bus.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "config/config.h"
#include "smcd-agent/assess-continuous.h"
#include "smcd-agent/autopilot.h"
#include "smcd-agent/bus-access.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/manager.h"

#define PROP(fn, sig, expr)                                                                       \
	static int fn(sd_bus *bus, const char *path, const char *interface, const char *property, \
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)                 \
	{                                                                                         \
		struct manager *m = userdata;                                                     \
		(void)bus, (void)path, (void)interface, (void)property, (void)error;              \
		return sd_bus_message_append(reply, sig, expr);                                   \
	}

PROP(auto_prop_mode, "s", autopilot_mode_name(m))
/*
 * Why it cannot act as its mode says: its own reason, or the assessment's, whose windows it
 * decides by (the two sit side by side below the bus objects, which tell them together).
 */
static const char *auto_error(const struct manager *m, char *buf, size_t len)
{
	if (autopilot_error(m))
		return autopilot_error(m);
	if (m->autopilot && assess_error(m)) {
		snprintf(buf, len, "it has no windows to decide by: the assessment cannot run: %s",
			 assess_error(m));
		return buf;
	}
	return NULL;
}

static int auto_prop_error(sd_bus *bus, const char *path, const char *interface, const char *property,
			   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	char buf[640];

	(void)bus, (void)path, (void)interface, (void)property, (void)error;
	return sd_bus_message_append(reply, "s", auto_error(m, buf, sizeof(buf)) ?: "");
}
PROP(auto_prop_workloads, "u", (uint32_t)autopilot_workloads(m))
PROP(auto_prop_buffer_bytes, "t", autopilot_buffer_bytes(m))
PROP(auto_prop_budget_bytes, "t", m->config->autopilot.budget_bytes)
PROP(auto_prop_decisions, "t", autopilot_decisions(m))
PROP(auto_prop_rollbacks, "t", autopilot_rollbacks(m))

static int off_error(sd_bus_error *error)
{
	return sd_bus_error_set(error, SMCD_BUS_ERROR_UNAVAILABLE,
				"The autopilot is off: set auto.mode: observe (or on) in "
				"/etc/smc/smc.yaml and reload (systemctl reload smcd-agent)");
}

static int reply_json(sd_bus_message *msg, json_object *doc, int err, const char *name,
		      sd_bus_error *error)
{
	int r;

	if (!doc && err == -ENOENT)
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_NO_SUCH_WORKLOAD,
					 "No workload %s: smcctl auto lists them", name);
	if (!doc)
		return -ENOMEM;
	r = sd_bus_reply_method_return(msg, "s",
				       json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	return r;
}

static int auto_method_get(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	json_object *doc;
	int err;

	if (!m->autopilot)
		return off_error(error);
	doc = autopilot_json(m, NULL, &err);
	if (doc) {
		char buf[640];
		const char *why = auto_error(m, buf, sizeof(buf));

		json_object_object_add(doc, "error", why ? json_object_new_string(why) : NULL);
	}
	return reply_json(msg, doc, err, NULL, error);
}

static int auto_method_explain(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *name;
	json_object *doc;
	int err, r;

	r = sd_bus_message_read(msg, "s", &name);
	if (r < 0)
		return r;
	if (!m->autopilot)
		return off_error(error);
	doc = autopilot_json(m, name, &err);
	return reply_json(msg, doc, err, name, error);
}

static int auto_method_freeze(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *name;
	int freeze, r;

	r = sd_bus_message_read(msg, "sb", &name, &freeze);
	if (r < 0)
		return r;
	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	if (!m->autopilot)
		return off_error(error);
	r = autopilot_freeze(m, name, freeze);
	if (r == -ENOENT)
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_NO_SUCH_WORKLOAD,
					 "No workload %s: smcctl auto lists them", name);
	if (r < 0 && r != -EALREADY)
		return r;
	return sd_bus_reply_method_return(msg, NULL);
}

static int auto_method_forget(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const char *name;
	int r;

	r = sd_bus_message_read(msg, "s", &name);
	if (r < 0)
		return r;
	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	if (!m->autopilot)
		return off_error(error);
	r = autopilot_forget(m, name);
	if (r == -ENOENT)
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_NO_SUCH_WORKLOAD,
					 "No workload %s: smcctl auto lists them", name);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(msg, NULL);
}

#define RO SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable autopilot_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SMCD_BUS_AUTO_MODE, "s", auto_prop_mode, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_AUTO_ERROR, "s", auto_prop_error, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_AUTO_WORKLOADS, "u", auto_prop_workloads, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_AUTO_BUFFER_BYTES, "t", auto_prop_buffer_bytes, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_AUTO_BUDGET_BYTES, "t", auto_prop_budget_bytes, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_AUTO_DECISIONS, "t", auto_prop_decisions, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_AUTO_ROLLBACKS, "t", auto_prop_rollbacks, 0, RO),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_AUTO_GET_WORKLOADS, SD_BUS_NO_ARGS,
				SD_BUS_RESULT("s", json), auto_method_get, ANYONE),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_AUTO_EXPLAIN, SD_BUS_ARGS("s", workload),
				SD_BUS_RESULT("s", json), auto_method_explain, ANYONE),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_AUTO_FREEZE, SD_BUS_ARGS("s", workload, "b", freeze),
				SD_BUS_NO_RESULT, auto_method_freeze, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_AUTO_FORGET, SD_BUS_ARGS("s", workload), SD_BUS_NO_RESULT,
				auto_method_forget, POLKIT),
	SD_BUS_SIGNAL_WITH_ARGS(
		SMCD_BUS_AUTO_DECISION,
		SD_BUS_ARGS("s", workload, "s", from, "s", to, "s", why, "b", rollback), 0),
	SD_BUS_VTABLE_END,
};

int bus_autopilot_register(struct manager *m)
{
	return sd_bus_add_object_vtable(m->bus, NULL, SMCD_BUS_PATH, SMCD_BUS_IFACE_AUTOPILOT,
					autopilot_vtable, m);
}
