/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl's side of the D-Bus contract (cli/bus.c; the names are in common/bus-api.h).
 * Functions returning an exit status print their one line of failure themselves.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "cli/smcctl.h"

/* The error says nobody owns the agent's name (it is not running). */
bool bus_agent_absent(const sd_bus_error *e);
/* The system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured), -errno without a word: for the
 * verbs that work without the agent. */
int bus_open_quiet(sd_bus **ret);
/* The system bus; on failure prints one line and returns an exit status. */
int bus_open(struct smcctl *c, sd_bus **ret);
/* bus_open_quiet()'s failure R as one line saying what to do; SMCCTL_EXIT_NO_BUS. */
int bus_open_failed(struct smcctl *c, int r);
/* One line for a failed call ("smcd-agent is not running" when it is absent, "older than
 * this smcctl" for an unknown member), as an exit status. */
int bus_failed(struct smcctl *c, const char *what, const sd_bus_error *e, int r);
/* The value at the read position (basic or container) as JSON (structs as arrays, a{sv}
 * as objects); NULL on a parse error. */
json_object *bus_value_json(sd_bus_message *m);
/* The message's remaining values as a JSON array. */
json_object *bus_message_json(sd_bus_message *m);
/* Every property of IFACE on the agent's object PATH, as a JSON object by name. */
int bus_get_all(struct smcctl *c, sd_bus *bus, const char *path, const char *iface,
		json_object **ret);
/*
 * A change through the agent: METHOD of IFACE on the agent's object with the arguments of
 * TYPES (sd_bus_message_appendv()), a TIMEOUT_USEC of 0 being sd-bus's default.  Returns
 * -ESRCH for "no agent: go direct" (no agent on the bus, --netns, which the agent does not
 * manage, a replay, or an agent without that interface or method), else an exit status,
 * with a failure explained in one line that starts with WHAT.  *ret_reply (may be NULL)
 * gets the reply on success.
 */
int bus_forwardv(struct smcctl *c, const char *what, const char *iface, const char *method,
		 uint64_t timeout_usec, sd_bus_message **ret_reply, const char *types, va_list ap);
/* The same with the arguments after TYPES. */
int bus_forward(struct smcctl *c, const char *what, const char *iface, uint64_t timeout_usec,
		sd_bus_message **ret_reply, const char *method, const char *types, ...);

/* 1 when smcd-agent owns its name on the system bus, 0 when not or no bus, -errno. */
int bus_agent_running(void);
