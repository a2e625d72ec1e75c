// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl's side of the D-Bus contract (common/bus-api.h): opening the system bus, calling
 * the agent or forwarding a change to it, reading its answers as JSON, and saying in one
 * line why a call failed.  Every verb that talks to smcd-agent goes through here, so "the
 * agent is not running", "access denied" and "the agent is older than smcctl" read the
 * same whichever verb met them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "cli/bus.h"
#include "common/bus-api.h"
#include "common/clock.h"
#include "common/output.h"

bool bus_agent_absent(const sd_bus_error *e)
{
	return sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN,
				      SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

/*
 * Without DBUS_SYSTEM_BUS_ADDRESS, sd_bus_open_system() connects to this socket (sd-bus's
 * default, where dbus-daemon and dbus-broker listen).  When it does not exist the open fails
 * with -ENOENT anyway, but only after cli/dl.c loaded libsystemd and six libraries of its
 * own, which costs a read verb (stats, linkgroup) more than its own work.  The variable is
 * read as sd-bus reads it (secure_getenv).
 */
#define SYSTEM_BUS_SOCKET "/run/dbus/system_bus_socket"

int bus_open_quiet(sd_bus **ret)
{
	int r;

	if (!secure_getenv("DBUS_SYSTEM_BUS_ADDRESS") && access(SYSTEM_BUS_SOCKET, F_OK) < 0 &&
	    errno == ENOENT)
		return -ENOENT;
	r = sd_bus_open_system(ret);
	/* At a terminal, polkit may ask for a password (through the session's authentication
	 * agent) before the agent makes a change; in a script it may not, as with busctl's
	 * --allow-interactive-authorization=no. */
	if (r >= 0 && isatty(STDIN_FILENO)) {
		(void)sd_bus_set_allow_interactive_authorization(*ret, true);
		/* The agent waits up to 5 minutes for a password typed there: a call that gave
		 * up after sd-bus' 25 s would say "failed" of a change made after all. */
		(void)sd_bus_set_method_call_timeout(*ret, 6 * 60 * USEC_PER_SEC);
	}
	return r;
}

int bus_open(struct smcctl *c, sd_bus **ret)
{
	int r = bus_open_quiet(ret);

	if (r < 0)
		return bus_open_failed(c, r);
	return SMCCTL_EXIT_OK;
}

int bus_open_failed(struct smcctl *c, int r)
{
	const char *addr = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");

	return smcctl_error(c, SMCCTL_EXIT_NO_BUS,
			    "cannot connect to the system bus (%s): %s: is dbus running? "
			    "(systemctl start dbus)",
			    addr ? addr : SYSTEM_BUS_SOCKET, strerror(-r));
}

int bus_failed(struct smcctl *c, const char *what, const sd_bus_error *e, int r)
{
	if (bus_agent_absent(e))
		return smcctl_error(c, SMCCTL_EXIT_NO_AGENT,
				    "%s: smcd-agent is not running (no %s on the system bus): "
				    "start it with 'systemctl start smcd-agent'",
				    what, SMCD_BUS_NAME);
	if (sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED))
		return smcctl_error(c, SMCCTL_EXIT_PERMISSION, "%s: %s", what,
				    e->message ? e->message : "access denied");
	if (sd_bus_error_has_names(e, SD_BUS_ERROR_UNKNOWN_INTERFACE, SD_BUS_ERROR_UNKNOWN_PROPERTY,
				   SD_BUS_ERROR_UNKNOWN_METHOD))
		return smcctl_error(c, SMCCTL_EXIT_NO_AGENT,
				    "%s: the running smcd-agent is older than this smcctl (%s)",
				    what, e->message ? e->message : e->name);
	/* The agent's feature is off in smc.yaml: the agent is where to turn it on. */
	if (sd_bus_error_has_name(e, SMCD_BUS_ERROR_UNAVAILABLE))
		return smcctl_error(c, SMCCTL_EXIT_NO_AGENT, "%s: %s", what, e->message);
	if (sd_bus_error_has_name(e, SMCD_BUS_ERROR_CONFIG_INVALID))
		return smcctl_error(c, SMCCTL_EXIT_INVALID_CONFIG, "%s: %s", what, e->message);
	return smcctl_error(c, SMCCTL_EXIT_FAILURE, "%s: %s", what,
			    e && e->message ? e->message : strerror(-r));
}

static json_object *variant_json(sd_bus_message *m);

/* The value at the read position (basic or container) as JSON; NULL on a parse error. */
json_object *bus_value_json(sd_bus_message *m)
{
	const char *contents = NULL;
	char type;
	union {
		uint8_t y;
		int b;
		int16_t n;
		uint16_t q;
		int32_t i;
		uint32_t u;
		int64_t x;
		uint64_t t;
		double d;
		const char *s;
	} v;

	if (sd_bus_message_peek_type(m, &type, &contents) <= 0)
		return NULL;
	switch (type) {
	case 'a':
	case 'r': {
		bool dict = type == 'a' && contents[0] == '{';
		json_object *o = dict ? json_object_new_object() : json_object_new_array();

		if (!o || sd_bus_message_enter_container(m, type, contents) < 0)
			goto fail_container;
		for (;;) {
			json_object *e;

			if (dict) {
				const char *key;
				char etype;
				const char *econt;

				if (sd_bus_message_peek_type(m, &etype, &econt) <= 0)
					break;
				if (sd_bus_message_enter_container(m, 'e', econt) <= 0 ||
				    sd_bus_message_read_basic(m, econt[0] == 'o' ? 'o' : 's', &key) <
					    0)
					goto fail_container;
				e = bus_value_json(m);
				if (!e || json_add(o, key, e) < 0 ||
				    sd_bus_message_exit_container(m) < 0)
					goto fail_container;
				continue;
			}
			if (sd_bus_message_at_end(m, false) > 0)
				break;
			e = bus_value_json(m);
			if (!e || json_append(o, e) < 0)
				goto fail_container;
		}
		if (sd_bus_message_exit_container(m) < 0)
			goto fail_container;
		return o;
	fail_container:
		json_object_put(o);
		return NULL;
	}
	case 'v':
		return variant_json(m);
	case 's':
	case 'o':
	case 'g':
		return sd_bus_message_read_basic(m, type, &v.s) < 0 ? NULL
								    : json_object_new_string(v.s);
	case 'b':
		return sd_bus_message_read_basic(m, 'b', &v.b) < 0 ? NULL
								   : json_object_new_boolean(v.b);
	case 'y':
		return sd_bus_message_read_basic(m, 'y', &v.y) < 0 ? NULL : json_object_new_int(v.y);
	case 'q':
		return sd_bus_message_read_basic(m, 'q', &v.q) < 0 ? NULL : json_object_new_int(v.q);
	case 'u':
		return sd_bus_message_read_basic(m, 'u', &v.u) < 0 ? NULL
								   : json_object_new_int64(v.u);
	case 't':
		return sd_bus_message_read_basic(m, 't', &v.t) < 0 ? NULL
								   : json_object_new_uint64(v.t);
	case 'x':
		return sd_bus_message_read_basic(m, 'x', &v.x) < 0 ? NULL
								   : json_object_new_int64(v.x);
	case 'i':
		return sd_bus_message_read_basic(m, 'i', &v.i) < 0 ? NULL : json_object_new_int(v.i);
	case 'd':
		return sd_bus_message_read_basic(m, 'd', &v.d) < 0 ? NULL
								   : json_object_new_double(v.d);
	default:
		return NULL; /* not used by the agent */
	}
}

static json_object *variant_json(sd_bus_message *m)
{
	const char *contents;
	json_object *o;

	if (sd_bus_message_peek_type(m, NULL, &contents) <= 0 ||
	    sd_bus_message_enter_container(m, 'v', contents) < 0)
		return NULL;
	o = bus_value_json(m);
	if (o && sd_bus_message_exit_container(m) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

json_object *bus_message_json(sd_bus_message *m)
{
	_cleanup_(json_object_putp) json_object *arr = json_object_new_array();

	while (arr && sd_bus_message_at_end(m, false) == 0) {
		json_object *v = bus_value_json(m);

		if (!v || json_append(arr, v) < 0)
			return NULL;
	}
	return TAKE_PTR(arr);
}

int bus_get_all(struct smcctl *c, sd_bus *bus, const char *path, const char *iface, json_object **ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	json_object *props;
	int r;

	r = sd_bus_call_method(bus, SMCD_BUS_NAME, path, DBUS_IFACE_PROPERTIES, DBUS_GET_ALL, &e,
			       &reply, "s", iface);
	if (r < 0)
		return bus_failed(c, "cannot ask smcd-agent", &e, r);
	props = bus_value_json(reply);
	if (!props)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "smcd-agent's answer did not parse");
	*ret = props;
	return SMCCTL_EXIT_OK;
}

/*
 * When smcd-agent runs, smcctl's changes go through it: it is the one writer to the kernel
 * (style rule 10), it checks them against smc.yaml (a change to something the file owns is
 * refused with the file line to edit) and it logs them.  Without an agent, or with --netns
 * (the agent manages the host's namespace only), smcctl changes the kernel directly as
 * before; so do the tests that replay recorded kernel answers.  Returns -ESRCH for "no
 * agent: go direct", else an exit status.
 */
int bus_forwardv(struct smcctl *c, const char *what, const char *iface, const char *method,
		 uint64_t timeout_usec, sd_bus_message **ret_reply, const char *types, va_list ap)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r;

	if (c->netns || c->nl_opts.replay_dir || bus_open_quiet(&bus) < 0)
		return -ESRCH;
	r = sd_bus_message_new_method_call(bus, &m, SMCD_BUS_NAME, SMCD_BUS_PATH, iface, method);
	if (r >= 0 && types)
		r = sd_bus_message_appendv(m, types, ap);
	if (r < 0)
		return smcctl_oom(c);
	r = sd_bus_call(bus, m, timeout_usec, &e, &reply);
	if (r >= 0) {
		if (ret_reply)
			*ret_reply = TAKE_PTR(reply);
		return SMCCTL_EXIT_OK;
	}
	if (bus_agent_absent(&e) || !sd_bus_error_is_set(&e))
		return -ESRCH;
	/* An agent from before this interface or method: do it directly. */
	if (sd_bus_error_has_names(&e, SD_BUS_ERROR_UNKNOWN_INTERFACE, SD_BUS_ERROR_UNKNOWN_METHOD))
		return -ESRCH;
	if (sd_bus_error_has_name(&e, SD_BUS_ERROR_INVALID_ARGS))
		return smcctl_usage(c, "%s: %s", what, e.message);
	if (sd_bus_error_has_name(&e, SD_BUS_ERROR_ACCESS_DENIED))
		return smcctl_error(c, SMCCTL_EXIT_PERMISSION, "%s: %s", what, e.message);
	if (sd_bus_error_has_name(&e, SMCD_BUS_ERROR_NO_MODULE))
		return smcctl_error(c, SMCCTL_EXIT_UNAVAILABLE, "%s: %s", what, e.message);
	return smcctl_error(c, SMCCTL_EXIT_FAILURE, "%s: %s", what, e.message);
}

int bus_forward(struct smcctl *c, const char *what, const char *iface, uint64_t timeout_usec,
		sd_bus_message **ret_reply, const char *method, const char *types, ...)
{
	va_list ap;
	int r;

	va_start(ap, types);
	r = bus_forwardv(c, what, iface, method, timeout_usec, ret_reply, types, ap);
	va_end(ap);
	return r;
}

/* 1 when smcd-agent owns its name on the system bus, 0 when not or no bus, -errno. */
int bus_agent_running(void)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int has = 0, r;

	r = bus_open_quiet(&bus);
	if (r == -ENOENT || r == -ECONNREFUSED)
		return 0; /* no bus, so no agent on it (the pin lock still tells) */
	if (r < 0)
		return r;
	r = sd_bus_call_method(bus, DBUS_SERVICE, DBUS_PATH, DBUS_IFACE, DBUS_NAME_HAS_OWNER, &e,
			       &reply, "s", SMCD_BUS_NAME);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "b", &has);
	return r < 0 ? r : has;
}
