// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc_lo on D-Bus (loopback-internal.h).
 *
 * org.smcd.Agent1.Loopback on /org/smcd/Agent1: Activate() -> b changed,
 * Deactivate(u seconds) -> (b changed, t waited_usec), Set(s setting, s value):
 * smcctl's "device loopback-ism" when the agent runs.  What
 * the file owns (loopback.active, a setting key) is refused with the line to edit, like
 * every other runtime change (bus-manager.c).
 *
 * org.smcd.Agent1.LoopbackDevice on /org/smcd/Agent1/device/smcd/<name> (the path of the
 * Device object the DIBS device has while registered): state, settings and the module's
 * counters of the device loopback-device.c reads; PropertiesChanged names what changed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "common/clock.h"
#include "common/bus-api.h"
#include "common/macro.h"
#include "config/units.h"
#include "smcd-agent/bus-access.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/bus-snapshot.h"
#include "smcd-agent/log.h"
#include "smcd-agent/loopback-internal.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/manager.h"

/* Deactivate() over D-Bus waits in the event loop too: the same bound as the file's. */
#define BUS_WAIT_MAX_S SMCLO_WAIT_MAX_S

/* ------------------------------------------------------------------------------------- */
/* org.smcd.Agent1.LoopbackDevice                                                          */

#define LB(f) offsetof(struct loopback_object, f)

#define RO SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
/* The D-Bus type of a counter of SMCLO_COUNTERS by its width. */
#define SIG_32 "u"
#define SIG_64 "t"

static const sd_bus_vtable device_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_NAME, "s", bus_snapshot_prop_string, LB(name),
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_STATE, "s", bus_snapshot_prop_string, LB(state), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_REMOVING, "b", bus_snapshot_prop_bool,
			LB(removing), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_GENERATION, "u", NULL, LB(generation), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_GID, "s", bus_snapshot_prop_string, LB(gid), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_PENDING, "b", bus_snapshot_prop_bool, LB(pending),
			RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_DMB_TYPE, "s", bus_snapshot_prop_string,
			LB(dmb_type), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_NOCOPY, "b", bus_snapshot_prop_bool, LB(nocopy), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_MAX_DMBS, "u", NULL, LB(max_dmbs), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_DMB_TYPE, "s", bus_snapshot_prop_string,
			LB(active_dmb_type), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_NOCOPY, "b", bus_snapshot_prop_bool,
			LB(active_nocopy), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_MAX_DMBS, "u", NULL, LB(active_max_dmbs), RO),
	/* USec as every time of the agent's (ConfigLoadedUSec, FirstSeenUSec): one unit */
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_DRAIN_TIMEOUT_USEC, "t", NULL,
			LB(drain_timeout_usec), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_DRAIN_REMAINING_USEC, "t", NULL,
			LB(drain_remaining_usec), RO),
#define COUNTER_PROPERTY(f, bits, attr, bus, kind, line, label)                                  \
	SD_BUS_PROPERTY(SMCD_BUS_LOOPBACK_DEVICE_COUNTER(bus), SIG_##bits, NULL, LB(counters.f), \
			RO),
	SMCLO_COUNTERS(COUNTER_PROPERTY)
#undef COUNTER_PROPERTY
		SD_BUS_VTABLE_END,
};

static const struct bus_snapshot_type device_type = {
	.iface = SMCD_BUS_IFACE_LOOPBACK_DEVICE,
	.vtable = device_vtable,
	.size = sizeof(struct loopback_object),
	.path_offset = LB(path),
	/* The path is the Device object's too while the DIBS device is registered. */
	.whole_object = false,
};

static int bus_loopback_find_device(sd_bus *bus, const char *path, const char *iface,
				    void *userdata, void **ret, sd_bus_error *error)
{
	struct manager *m = userdata;

	if (!m->loopback || !m->loopback->present || !streq(path, m->loopback->snap.path))
		return 0;
	*ret = &m->loopback->snap;
	return 1;
}

static int bus_loopback_enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret,
				  sd_bus_error *error)
{
	struct manager *m = userdata;
	char **v = calloc(2, sizeof(char *));

	if (!v)
		return -ENOMEM;
	if (m->loopback && m->loopback->present && !(v[0] = strdup(m->loopback->snap.path))) {
		free(v);
		return -ENOMEM;
	}
	*ret = v;
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* org.smcd.Agent1.Loopback                                                                */

static int owned(struct manager *m, sd_bus_error *error, struct config_mark mark, const char *what)
{
	return sd_bus_error_setf(error, SMCD_BUS_ERROR_OWNED,
				 "%s is managed by %s:%u:%u; change it there and reload", what,
				 m->config->path, mark.line, mark.column);
}

/* May this caller activate or deactivate: authorized, and the state not smc.yaml's. */
static int state_authorize(sd_bus_message *msg, struct manager *m, sd_bus_error *error)
{
	int r = bus_authorize(msg, m, error);

	if (r != 0)
		return r;
	if (m->config->loopback.has_active)
		return owned(m, error, m->config->loopback.active_mark,
			     "The loopback device's state");
	return 0;
}

static int bus_loopback_kernel_error(struct manager *m, sd_bus_error *error, enum smc_op op, int r)
{
	char buf[512];

	return sd_bus_error_set(
		error, r == -EPROTONOSUPPORT ? SMCD_BUS_ERROR_NO_MODULE : SMCD_BUS_ERROR_KERNEL,
		smc_strerror(op, r, m->kernel->ops->extack(m->kernel), buf, sizeof(buf)));
}

/* The module, loaded with libkmod if needed (the agent may; smcctl relies on autoload). */
static int need_module(struct manager *m, sd_bus_error *error)
{
	struct kernel *k = m->kernel;
	struct smc_caps caps;
	char msg[200] = "";
	int r;

	if (k->ops->module_loaded(k, LOOPBACK_MODULE) > 0)
		return 0;
	r = k->ops->module_load(k, LOOPBACK_MODULE, msg, sizeof(msg));
	if (r == -ENOENT && k->ops->caps(k, &caps) == 0 && caps.smc_genl && !caps.dibs)
		return sd_bus_error_setf(
			error, SMCD_BUS_ERROR_NO_MODULE,
			"smc_lo needs Linux 6.18 or later with DIBS; %s",
			caps.loopback ? "the SMC-D loopback device of this kernel is loopback-ism, "
					"built into smc.ko (Linux 6.10-6.17): active while smc is "
					"loaded, without controls (smcctl device loopback-ism)"
				      : "this kernel has no SMC-D loopback device");
	if (r == -ENOENT)
		return sd_bus_error_set(
			error, SMCD_BUS_ERROR_NO_MODULE,
			"the smc_lo module is not loaded: install smc-lo-dkms or modprobe smc_lo");
	if (r < 0)
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_KERNEL, "cannot load smc_lo: %s",
					 msg[0] ? msg : strerror(-r));
	log_info("Loaded %s for a D-Bus request", LOOPBACK_MODULE);
	return 0;
}

static void log_change(sd_bus_message *msg, const char *what)
{
	log_fields(LOG_NOTICE, 0, (const char *const[]){ "SMC_ITEM=loopback", NULL },
		   "Runtime change requested by %s: loopback device: %s",
		   sd_bus_message_get_sender(msg) ?: "?", what);
}

static int method_activate(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct smclo_device d;
	bool changed = false;
	int r;

	r = state_authorize(msg, m, error);
	if (r != 0)
		return r;
	r = need_module(m, error);
	if (r < 0)
		return r;
	log_change(msg, "activate");
	r = m->kernel->ops->smclo_activate(m->kernel, &d, &changed);
	(void)loopback_refresh(m);
	if (r < 0)
		return bus_loopback_kernel_error(m, error, SMC_OP_LOOPBACK_ACTIVATE, r);
	return sd_bus_reply_method_return(msg, "b", (int)changed);
}

static int method_deactivate(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct smclo_shutdown_result res;
	struct kernel *k = m->kernel;
	uint32_t secs;
	int r;

	r = sd_bus_message_read(msg, "u", &secs);
	if (r < 0)
		return r;
	if (secs < 1 || secs > BUS_WAIT_MAX_S)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "the drain bound is 1 to %d seconds through smcd-agent "
					 "(it waits in its event loop), got %" PRIu32,
					 BUS_WAIT_MAX_S, secs);
	r = state_authorize(msg, m, error);
	if (r != 0)
		return r;
	/* Nothing registered: inactive already (smcctl says "not loaded"). */
	if (k->ops->module_loaded(k, LOOPBACK_MODULE) <= 0) {
		(void)loopback_refresh(m);
		return sd_bus_reply_method_return(msg, "bt", 0, (uint64_t)0);
	}
	log_change(msg, "deactivate");
	r = k->ops->smclo_shutdown(k, secs * 1000, LOOPBACK_REMOVAL_MS, &res);
	(void)loopback_refresh(m);
	if (r == -ETIMEDOUT)
		return sd_bus_error_setf(
			error, SMCD_BUS_ERROR_KERNEL,
			"%s is still being removed %u s after the drain began: %u DMBs, %u link "
			"groups and %u nocopy attachments hold it (applications keep aborted "
			"connections open); PNET ID %s keeps it out of new connections until it is "
			"gone: run this again after they closed them",
			res.last.name, res.waited_ms / 1000, res.last.counters.dmbs,
			res.last.counters.link_groups, res.last.counters.attached,
			SMCLO_DRAIN_PNETID);
	if (r < 0)
		return bus_loopback_kernel_error(m, error, SMC_OP_LOOPBACK_DEACTIVATE, r);
	return sd_bus_reply_method_return(msg, "bt", (int)res.was_active,
					  (uint64_t)res.waited_ms * USEC_PER_MSEC);
}

static int method_set(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct config_loopback *c = &m->config->loopback;
	struct smclo_set_request q = {};
	const char *key, *value;
	struct smclo_device d;
	char what[96];
	int r;

	r = sd_bus_message_read(msg, "ss", &key, &value);
	if (r < 0)
		return r;
	/* The values smcctl and smc.yaml take, read by the same parsers (smclo.h, units.h). */
	if (streq(key, "dmb-type") && (r = smclo_dmb_type_from_name(value)) >= 0) {
		q.set_dmb_type = true;
		q.dmb_type = (uint8_t)r;
	} else if (streq(key, "nocopy") && parse_bool(value, &q.nocopy) == 0) {
		q.set_nocopy = true;
	} else if (streq(key, "max-dmbs")) {
		int64_t v;

		if (parse_count(value, &v) < 0 || v < SMCLO_MAX_DMBS_MIN || v > SMCLO_MAX_DMBS_MAX)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "invalid max-dmbs '%s': %d to %d", value,
						 SMCLO_MAX_DMBS_MIN, SMCLO_MAX_DMBS_MAX);
		q.set_max_dmbs = true;
		q.max_dmbs = (uint32_t)v;
	} else {
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "invalid setting '%s %s' (dmb-type physical|virtual, "
					 "nocopy on|off (or true, false, yes, no, 1, 0), max-dmbs N)",
					 key, value);
	}
	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	if (q.set_dmb_type && c->has_dmb_type)
		return owned(m, error, c->dmb_type_mark, "loopback.dmb-type");
	if (q.set_nocopy && c->has_nocopy)
		return owned(m, error, c->nocopy_mark, "loopback.nocopy");
	if (q.set_max_dmbs && c->has_max_dmbs)
		return owned(m, error, c->max_dmbs_mark, "loopback.max-dmbs");
	r = need_module(m, error);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "set %s %s", key, value);
	log_change(msg, what);
	r = m->kernel->ops->smclo_set(m->kernel, &q, &d);
	(void)loopback_refresh(m);
	if (r < 0)
		return bus_loopback_kernel_error(m, error, SMC_OP_LOOPBACK_SET, r);
	return sd_bus_reply_method_return(msg, NULL);
}

static const sd_bus_vtable loopback_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_LOOPBACK_ACTIVATE, SD_BUS_NO_ARGS,
				SD_BUS_RESULT("b", changed), method_activate, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_LOOPBACK_DEACTIVATE, SD_BUS_ARGS("u", seconds),
				SD_BUS_RESULT("b", changed, "t", waited_usec), method_deactivate,
				POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_LOOPBACK_SET, SD_BUS_ARGS("s", setting, "s", value),
				SD_BUS_NO_RESULT, method_set, POLKIT),
	SD_BUS_VTABLE_END,
};

int bus_loopback_register(struct manager *m)
{
	int r;

	struct loopback *lb = loopback_of(m);

	if (!lb)
		return -ENOMEM;
	/* loopback-device.c announces the device's changes with it (bus-snapshot.c). */
	lb->bus_type = &device_type;
	r = sd_bus_add_object_vtable(m->bus, NULL, SMCD_BUS_PATH, SMCD_BUS_IFACE_LOOPBACK,
				     loopback_vtable, m);
	if (r >= 0)
		r = sd_bus_add_fallback_vtable(m->bus, NULL, SMCD_BUS_PATH_SMCD_DEVICE,
					       SMCD_BUS_IFACE_LOOPBACK_DEVICE, device_vtable,
					       bus_loopback_find_device, m);
	if (r >= 0)
		r = sd_bus_add_node_enumerator(m->bus, NULL, SMCD_BUS_PATH, bus_loopback_enumerate,
					       m);
	return r;
}
