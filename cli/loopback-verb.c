// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl device loopback-ism: our loopback DIBS device (kmod/, smc-lo(4)), through its
 * SMC_LO family (netlink/smclo.h).  How the device looks in "device list" and "device
 * show" is loopback.c's.
 *
 * What "loopback-ism" names.  The word is SMC's own name for its loopback device (smc.ko's
 * "loopback-ism" of 6.10-6.17, and the knobs the 004 seed wanted for it).  Since 6.18 that
 * device is DIBS's built-in "lo", which has no controls at all: nothing can activate,
 * drain or configure it.  So "device loopback-ism" addresses the one loopback device that
 * has controls, the smc_lo module's ("smclo" unless its devname parameter says otherwise),
 * and says so when the module is not there.  "device show NAME" shows any device, "lo"
 * included.
 *
 * Module not loaded.  Every action resolves the SMC_LO family, and the kernel loads a
 * family's module on that lookup (MODULE_ALIAS_GENL_FAMILY, like smc.ko for
 * SMC_GEN_NETLINK): an installed smc_lo (smc-lo-dkms, or make -C kmod install) needs no
 * modprobe and smcctl needs no libkmod.  If the family still does not exist, the answer is
 * "the smc_lo module is not loaded: install smc-lo-dkms or modprobe smc_lo", exit 3.  The
 * device views (device list/show) ask the family only when /sys/module/smc_lo exists:
 * listing devices must not load a module.  (The agent loads it with libkmod, from smc.yaml.)
 *
 * Deactivation follows the protocol of kmod/README.md (smclo_shutdown(): PNET ID on the
 * device, drain with a bound of seconds, wait for "deactivated", delete the PNET ID); hence
 * --wait is 1..SMCLO_WAIT_MAX_S seconds (cli/table.c), with or without the agent (which waits in
 * its event loop), and never 0 (a forced removal can hang in SMC 7.3: smc-lo(4)).  Deactivating
 * while smc_lo is not loaded is success (nothing is registered), also through the agent; it never
 * loads it.
 *
 * When smcd-agent runs, the changing actions go through it (org.smcd.Agent1.Loopback), like
 * every other changing verb (cli/agent.c): it is the one writer and refuses what smc.yaml's
 * loopback: section owns.  A deactivation through the agent waits as long as --wait says,
 * and the agent may be inside a drain of its own first: every call's timeout covers that
 * (LOOPBACK_BUS_BUSY_USEC), a deactivation's the --wait and the removal on top.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "cli/agent.h"
#include "cli/bus.h"
#include "cli/loopback.h"
#include "cli/verbs.h"
#include "common/clock.h"
#include "common/bus-api.h"
#include "common/output.h"
#include "config/units.h"

/* ---------------------------------------------------------------------------------- */
/* The verb                                                                            */

enum action { ACT_SHOW, ACT_ACTIVATE, ACT_DEACTIVATE, ACT_SET, _ACT_MAX };

static const char *const action_names[_ACT_MAX] = { "show", "activate", "deactivate", "set" };
static const char *const setting_names[] = { "dmb-type", "nocopy", "max-dmbs" };

static int emit_device(struct smcctl *c, json_object *doc, const struct smclo_device *d)
{
	if (json_add_str(doc, "device", d->name) < 0 ||
	    json_add(doc, "smc_lo", smclo_device_json(d)) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}

static void show_text(struct smcctl *c, json_object *doc)
{
	fprintf(c->out, "%s\n", out_get_str(doc, "device", "-"));
	loopback_show_text(c, doc);
}

/* ---------------------------------------------------------------------------------- */
/* 6.10-6.17: smc.ko's own loopback-ism                                                 */

#define BUILTIN_WHAT "built into smc.ko (Linux 6.10-6.17, CONFIG_SMC_LO)"
#define BUILTIN_NO_SWITCH                                                                     \
	"it is there while smc is loaded and goes only with it; this kernel has no DIBS and " \
	"no SMC_LO family (smc_lo, smc-lo-dkms, needs Linux 6.18 or later)"
#define BUILTIN_FIXED                                                                    \
	"its settings are fixed in smc.ko: DMBs of physically contiguous pages, nocopy " \
	"always, at most 5000 DMBs"

static void builtin_text(struct smcctl *c, json_object *doc)
{
	json_object *d = out_get(doc, "loopback_ism");
	const char *gid = out_get_str(d, "gid", NULL);

	fprintf(c->out, "%s: SMC-D loopback device %s\n", out_get_str(doc, "device", "-"),
		BUILTIN_WHAT);
	fprintf(c->out, "  State:        active (while smc is loaded)\n");
	fprintf(c->out, "  GID:          %s\n", gid ? gid : "- (known once it has a link group)");
	fprintf(c->out, "  PNET ID:      %s\n", out_get_str(d, "pnetid", "-"));
	fprintf(c->out, "  Link groups:  %" PRIu64 " (%" PRIu64 " connections)\n",
		out_get_u64(d, "linkgroups", 0), out_get_u64(d, "connections", 0));
	fputs("  Controls on this kernel:\n"
	      "    activate, deactivate        no: " BUILTIN_NO_SWITCH "\n"
	      "    dmb-type, nocopy, max-dmbs  no: " BUILTIN_FIXED "\n"
	      "    PNET ID                     yes: smcctl pnet add PNETID ib loopback-ism\n",
	      c->out);
}

static json_object *builtin_controls_json(void)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_bool(o, "activate", false);
	r |= json_add_bool(o, "deactivate", false);
	r |= json_add_bool(o, "settings", false);
	r |= json_add_bool(o, "pnetid", true);
	r |= json_add_str(o, "reason", BUILTIN_NO_SWITCH "; " BUILTIN_FIXED);
	return r < 0 ? NULL : TAKE_PTR(o);
}

/*
 * Called when smc_lo's family is missing (or, to deactivate, smc_lo is not loaded): on a
 * kernel whose loopback device is smc.ko's loopback-ism (6.10-6.17, no DIBS), show it with
 * what can and cannot be controlled, refuse what cannot.  -ENOENT: not such a kernel (or
 * no SMC at all); the smc_lo answer stands then (smc_lo missing), as it did before this
 * kernel was known.  A failed device dump is a failure, never "not such a kernel".
 */
static int builtin_loopback(struct smcctl *c, struct smcnl *nl, int act)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	_cleanup_(freep) struct smcd_device *v = NULL;
	const struct smcd_device *d = NULL;
	size_t n = 0;
	int r;

	/* SMC itself missing: the smc_lo answer stands; any other error is said as such. */
	r = smcd_device_list(nl, &v, &n);
	if (r == -ENOENT || r == -EPROTONOSUPPORT || r == -EAFNOSUPPORT)
		return -ENOENT;
	if (r < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot list the SMC-D devices");
	for (size_t i = 0; i < n && !d; i++)
		if (v[i].seen & SMCD_SEEN_BUILTIN)
			d = &v[i];
	if (!d)
		return -ENOENT;
	switch (act) {
	case ACT_DEACTIVATE:
		return smcctl_error(c, SMCCTL_EXIT_UNAVAILABLE,
				    "%s cannot be deactivated: it is " BUILTIN_WHAT
				    ", and " BUILTIN_NO_SWITCH
				    " (a PNET ID on it keeps it to peers with "
				    "the same PNET ID: smcctl pnet add PNETID ib %s)",
				    d->name, d->name);
	case ACT_SET:
		return smcctl_error(c, SMCCTL_EXIT_UNAVAILABLE,
				    "%s cannot be configured: it is " BUILTIN_WHAT
				    ", and " BUILTIN_FIXED,
				    d->name);
	default:
		break;
	}
	doc = json_object_new_object();
	if (!doc || json_add_str(doc, "device", d->name) < 0 ||
	    json_add_bool(doc, "builtin", true) < 0 ||
	    json_add(doc, "loopback_ism", smcd_device_json(d)) < 0 ||
	    json_add(doc, "controls", builtin_controls_json()) < 0 ||
	    json_add_null(doc, "smc_lo") < 0)
		return smcctl_oom(c);
	if (act == ACT_ACTIVATE) {
		if (json_add_str(doc, "action", "activate") < 0 ||
		    json_add_bool(doc, "changed", false) < 0)
			return smcctl_oom(c);
		if (!c->json)
			smcctl_note(c, "%s is always active while smc is loaded: nothing to activate",
				    d->name);
	}
	return smcctl_emit(c, doc, builtin_text);
}

static int do_show(struct smcctl *c, struct smcnl *nl)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	struct smclo_device d;
	int r, s;

	if (!doc)
		return smcctl_oom(c);
	r = smclo_get(nl, &d);
	/* No SMC_LO family: on 6.10-6.17 the loopback device may be smc.ko's own. */
	if (r == -EPROTONOSUPPORT && (s = builtin_loopback(c, nl, ACT_SHOW)) != -ENOENT)
		return s;
	if (r < 0)
		return smcctl_fail(c, SMC_OP_LOOPBACK_QUERY, r, "cannot read the smc_lo device");
	if (json_add_str(doc, "device", d.name) < 0 ||
	    json_add(doc, "smc_lo", smclo_device_json(&d)) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, show_text);
}

/* One property of org.smcd.Agent1.LoopbackDevice into d (unknown ones are skipped). */
static int device_property(sd_bus_message *m, const char *name, struct smclo_device *d)
{
	static const struct {
		const char *name;
		const char *type;
		size_t off;
	} map[] = { { SMCD_BUS_LOOPBACK_DEVICE_GENERATION, "u",
		      offsetof(struct smclo_device, generation) },
		    { SMCD_BUS_LOOPBACK_DEVICE_MAX_DMBS, "u",
		      offsetof(struct smclo_device, settings.max_dmbs) },
		    { SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_MAX_DMBS, "u",
		      offsetof(struct smclo_device, active.max_dmbs) },
#define SIG_32 "u" /* the D-Bus type of a counter by its width */
#define SIG_64 "t"
#define COUNTER_MAP(f, bits, attr, bus, kind, line, label)   \
	{ SMCD_BUS_LOOPBACK_DEVICE_COUNTER(bus), SIG_##bits, \
	  offsetof(struct smclo_device, counters.f) },
		    SMCLO_COUNTERS(COUNTER_MAP)
#undef COUNTER_MAP
	};
	const char *str;
	int b, r;

	uint64_t usec;

	for (size_t i = 0; i < ELEMENTSOF(map); i++)
		if (streq(name, map[i].name))
			return sd_bus_message_read(m, "v", map[i].type, (char *)d + map[i].off);
	/* the bus says microseconds (USec), the module's struct milliseconds */
	if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_DRAIN_TIMEOUT_USEC) ||
	    streq(name, SMCD_BUS_LOOPBACK_DEVICE_DRAIN_REMAINING_USEC)) {
		r = sd_bus_message_read(m, "v", "t", &usec);
		if (r >= 0 && streq(name, SMCD_BUS_LOOPBACK_DEVICE_DRAIN_TIMEOUT_USEC))
			d->drain_timeout_ms = (uint32_t)(usec / USEC_PER_MSEC);
		else if (r >= 0)
			d->drain_remaining_ms = (uint32_t)(usec / USEC_PER_MSEC);
		return r;
	}
	if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_NAME) ||
	    streq(name, SMCD_BUS_LOOPBACK_DEVICE_STATE) || streq(name, SMCD_BUS_LOOPBACK_DEVICE_GID) ||
	    streq(name, SMCD_BUS_LOOPBACK_DEVICE_DMB_TYPE) ||
	    streq(name, SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_DMB_TYPE)) {
		r = sd_bus_message_read(m, "v", "s", &str);
		if (r < 0)
			return r;
		if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_NAME))
			snprintf(d->name, sizeof(d->name), "%s", str);
		else if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_GID))
			snprintf(d->gid_uuid, sizeof(d->gid_uuid), "%s", str);
		else if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_STATE)) {
			for (uint8_t k = 0; smclo_state_name(k); k++)
				if (streq(str, smclo_state_name(k)))
					d->state = k;
		} else {
			/* "" while the device is not registered (no active settings). */
			int t = smclo_dmb_type_from_name(str);
			uint8_t v = t < 0 ? SMCLO_DMB_PHYSICAL : (uint8_t)t;

			if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_DMB_TYPE))
				d->settings.dmb_type = v;
			else
				d->active.dmb_type = v;
		}
		return 0;
	}
	if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_REMOVING) ||
	    streq(name, SMCD_BUS_LOOPBACK_DEVICE_PENDING) ||
	    streq(name, SMCD_BUS_LOOPBACK_DEVICE_NOCOPY) ||
	    streq(name, SMCD_BUS_LOOPBACK_DEVICE_ACTIVE_NOCOPY)) {
		r = sd_bus_message_read(m, "v", "b", &b);
		if (r < 0)
			return r;
		if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_REMOVING))
			d->removing = b;
		else if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_PENDING))
			d->pending = b;
		else if (streq(name, SMCD_BUS_LOOPBACK_DEVICE_NOCOPY))
			d->settings.nocopy = b;
		else
			d->active.nocopy = b;
		return 0;
	}
	return sd_bus_message_skip(m, "v");
}

/* One interface of one object (entered "sa{sv}" entry): *found if it was the device. */
static int device_interface(sd_bus_message *m, struct smclo_device *d, bool *found)
{
	const char *iface, *prop;
	int r;

	r = sd_bus_message_read(m, "s", &iface);
	if (r < 0)
		return r;
	if (!streq(iface, SMCD_BUS_IFACE_LOOPBACK_DEVICE))
		return sd_bus_message_skip(m, "a{sv}");
	*found = true;
	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		r = sd_bus_message_read(m, "s", &prop);
		if (r >= 0)
			r = device_property(m, prop, d);
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	return r < 0 ? r : sd_bus_message_exit_container(m);
}

/*
 * After a change made by the agent: the device as the agent sees it now, from its
 * org.smcd.Agent1.LoopbackDevice object (GetManagedObjects of /org/smcd/Agent1).  smcctl
 * does not read the kernel here: the agent is the one that changed it (and in its host
 * tests, the one that knows the fake kernel).
 */
static int agent_device(struct smcctl *c, struct smclo_device *d, bool *ret_found)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	const char *path;
	bool found = false;
	int r;

	memset(d, 0, sizeof(*d));
	r = bus_open_quiet(&bus);
	if (r >= 0)
		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, DBUS_IFACE_OBJECT_MANAGER,
				       DBUS_GET_MANAGED_OBJECTS, &e, &m, NULL);
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "{oa{sa{sv}}}");
	while (r >= 0 && !found && (r = sd_bus_message_enter_container(m, 'e', "oa{sa{sv}}")) > 0) {
		r = sd_bus_message_read(m, "o", &path);
		if (r >= 0)
			r = sd_bus_message_enter_container(m, 'a', "{sa{sv}}");
		while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
			r = device_interface(m, d, &found);
			if (r >= 0)
				r = sd_bus_message_exit_container(m);
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	if (r < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "the change was made, but smcd-agent's answer did not parse: %s",
				    e.message ?: strerror(-r));
	if (ret_found)
		*ret_found = found;
	else if (!found)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "the change was made, but smcd-agent shows no smc_lo device");
	d->registered = d->state != SMCLO_STATE_INACTIVE;
	/* The module's contract: the remaining drain time is sent until the removal starts. */
	d->has_drain_remaining = d->state == SMCLO_STATE_DRAINING && !d->removing;
	if (d->registered) {
		size_t k = 0;

		for (const char *p = d->gid_uuid; *p && k < 32; p++)
			if (*p != '-')
				d->gid_hex[k++] = *p;
		d->gid_hex[k] = '\0';
	}
	return SMCCTL_EXIT_OK;
}

/* Deactivating while smc_lo is not loaded: nothing is registered, success (smcctl(8)). */
static int not_loaded(struct smcctl *c)
{
	_cleanup_(json_object_putp) json_object *doc = action_json("deactivate", NULL, NULL, false);

	if (!doc || json_add_u64(doc, "waited_usec", 0) < 0 || json_add_null(doc, "device") < 0 ||
	    json_add_null(doc, "smc_lo") < 0)
		return smcctl_oom(c);
	if (!c->json)
		smcctl_note(c, "smc_lo is not loaded: there is no loopback device to deactivate");
	return smcctl_emit(c, doc, action_text);
}

static int do_activate(struct smcctl *c, struct smcnl *nl)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smclo_device d;
	bool changed = false;
	int r, s, b;

	s = bus_forward(c, "cannot activate the loopback device", SMCD_BUS_IFACE_LOOPBACK,
			LOOPBACK_BUS_BUSY_USEC, &reply, SMCD_BUS_LOOPBACK_ACTIVATE, NULL);
	if (s == SMCCTL_EXIT_OK) {
		if (sd_bus_message_read(reply, "b", &b) < 0)
			return smcctl_error(c, SMCCTL_EXIT_FAILURE,
					    "smcd-agent's answer to Activate did not parse");
		changed = b;
		if ((s = agent_device(c, &d, NULL)))
			return s;
	} else if (s != -ESRCH) {
		return s;
	} else {
		r = smclo_activate_clean(nl, &d, &changed);
		if (r == -EPROTONOSUPPORT && (s = builtin_loopback(c, nl, ACT_ACTIVATE)) != -ENOENT)
			return s;
		if (r < 0)
			return smcctl_fail(c, SMC_OP_LOOPBACK_ACTIVATE, r,
					   "cannot activate the loopback device");
	}
	doc = action_json("activate", NULL, NULL, changed);
	if (!doc)
		return smcctl_oom(c);
	return emit_device(c, doc, &d);
}

static int do_deactivate(struct smcctl *c, struct smcnl *nl, unsigned wait_s)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	uint64_t timeout =
		LOOPBACK_BUS_BUSY_USEC + ((uint64_t)wait_s * 1000 + LOOPBACK_REMOVAL_MS) * 1000;
	struct smclo_shutdown_result res = {};
	bool found;
	int r, s, b;

	s = bus_forward(c, "cannot deactivate the loopback device", SMCD_BUS_IFACE_LOOPBACK,
			timeout, &reply, SMCD_BUS_LOOPBACK_DEACTIVATE, "u", (uint32_t)wait_s);
	if (s == SMCCTL_EXIT_OK) {
		uint64_t waited_usec;

		if (sd_bus_message_read(reply, "bt", &b, &waited_usec) < 0)
			return smcctl_error(c, SMCCTL_EXIT_FAILURE,
					    "smcd-agent's answer to Deactivate did not parse");
		res.waited_ms = (uint32_t)(waited_usec / USEC_PER_MSEC);
		res.was_active = b;
		if ((s = agent_device(c, &res.last, &found)))
			return s;
		if (!found) {
			s = builtin_loopback(c, nl, ACT_DEACTIVATE);
			return s != -ENOENT ? s : not_loaded(c);
		}
	} else if (s != -ESRCH) {
		return s;
	} else {
		/* Never load the module to deactivate it (the family lookup would). */
		if (!smclo_module_loaded(nl)) {
			s = builtin_loopback(c, nl, ACT_DEACTIVATE);
			return s != -ENOENT ? s : not_loaded(c);
		}
		r = smclo_shutdown(nl, wait_s * 1000, LOOPBACK_REMOVAL_MS, &res);
		if (r == -ETIMEDOUT) {
			const struct smclo_counters *k = &res.last.counters;

			return smcctl_error(
				c, SMCCTL_EXIT_FAILURE,
				"%s is still being removed %u s after the drain began: %u DMBs, %u "
				"link groups and %u nocopy attachments hold it (applications keep "
				"aborted connections open); PNET ID %s keeps it out of new "
				"connections until it is gone: run this again after they closed them",
				res.last.name, res.waited_ms / 1000, k->dmbs, k->link_groups,
				k->attached, SMCLO_DRAIN_PNETID);
		}
		if (r < 0)
			return smcctl_fail(c, SMC_OP_LOOPBACK_DEACTIVATE, r,
					   "cannot deactivate the loopback device");
	}
	doc = action_json("deactivate", NULL, NULL, res.was_active);
	if (!doc || json_add_u64(doc, "waited_usec", res.waited_ms * 1000ULL) < 0)
		return smcctl_oom(c);
	return emit_device(c, doc, &res.last);
}

static int parse_setting(struct smcctl *c, const char *key, const char *value,
			 struct smclo_set_request *q)
{
	char cand[128];
	int k = word_lookup(key, setting_names, NULL, ELEMENTSOF(setting_names), cand, sizeof(cand));
	int r;

	if (k == -ENOTUNIQ)
		return smcctl_usage(c, "ambiguous setting '%s': could be %s", key, cand);
	if (k < 0)
		return smcctl_usage(c, "unknown setting '%s' (dmb-type, nocopy or max-dmbs)", key);
	switch (k) {
	case 0:
		/* virtual too: the module refuses it and says why. */
		r = smclo_dmb_type_from_name(value);
		if (r < 0)
			return smcctl_usage(c, "invalid dmb-type '%s': physical or virtual", value);
		q->set_dmb_type = true;
		q->dmb_type = (uint8_t)r;
		break;
	case 1:
		q->set_nocopy = true;
		/* The boolean words of smc.yaml's loopback.nocopy (config/units.c), not a list
		 * of our own. */
		if (parse_bool(value, &q->nocopy) < 0)
			return smcctl_usage(
				c, "invalid nocopy '%s': on or off (or true, false, yes, no, 1, 0)",
				value);
		break;
	default: {
		int64_t v;

		if (parse_count(value, &v) < 0 || v < SMCLO_MAX_DMBS_MIN || v > SMCLO_MAX_DMBS_MAX)
			return smcctl_usage(c, "invalid max-dmbs '%s': %d to %d", value,
					    SMCLO_MAX_DMBS_MIN, SMCLO_MAX_DMBS_MAX);
		q->set_max_dmbs = true;
		q->max_dmbs = (uint32_t)v;
		break;
	}
	}
	return SMCCTL_EXIT_OK;
}

static int do_set(struct smcctl *c, struct smcnl *nl, const char *key, const char *value,
		  const struct smclo_set_request *q)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	const char *name = q->set_dmb_type ? "dmb-type" : q->set_nocopy ? "nocopy" : "max-dmbs";
	struct smclo_device d;
	int r, s;

	s = bus_forward(c, "cannot change the loopback device's setting", SMCD_BUS_IFACE_LOOPBACK,
			LOOPBACK_BUS_BUSY_USEC, NULL, SMCD_BUS_LOOPBACK_SET, "ss", name, value);
	if (s == SMCCTL_EXIT_OK) {
		if ((s = agent_device(c, &d, NULL)))
			return s;
		d.has_apply = true;
		d.apply_next_activation = d.pending;
	} else if (s != -ESRCH) {
		return s;
	} else {
		r = smclo_set(nl, q, &d);
		if (r == -EPROTONOSUPPORT && (s = builtin_loopback(c, nl, ACT_SET)) != -ENOENT)
			return s;
		if (r < 0)
			return smcctl_fail(c, SMC_OP_LOOPBACK_SET, r, "cannot set %s %s", name,
					   value);
	}
	if (d.apply_next_activation && !c->json)
		smcctl_note(c,
			    "%s keeps running with its current settings: the new %s applies when "
			    "it is activated again (smcctl device loopback-ism deactivate, then "
			    "activate)",
			    d.name, name);
	doc = action_json("set", "setting", name, CHANGED_UNKNOWN);
	if (!doc || json_add_str(doc, "value", value) < 0 ||
	    json_add_str(doc, "apply", d.apply_next_activation ? "next-activation" : "now") < 0)
		return smcctl_oom(c);
	return emit_device(c, doc, &d);
}

int loopback_ism(struct smcctl *c, const struct verb_args *a)
{
	struct smclo_set_request q = {};
	const char *wait = a->opt[LOOPBACK_OPT_WAIT];
	unsigned wait_s;
	struct smcnl *nl;
	char cand[128];
	int act = ACT_SHOW, s;

	if (a->n_pos) {
		act = word_lookup(a->pos[0], action_names, NULL, _ACT_MAX, cand, sizeof(cand));
		if (act == -ENOTUNIQ)
			return smcctl_usage(c, "ambiguous action '%s': could be %s", a->pos[0], cand);
		if (act < 0)
			return smcctl_usage(c,
					    "unknown action '%s' for 'device loopback-ism' (show, "
					    "activate, deactivate or set)",
					    a->pos[0]);
	}
	if (act == ACT_SET && a->n_pos != 3)
		return smcctl_usage(c, "'loopback-ism set' needs a setting and a value (dmb-type "
				       "physical|virtual, nocopy on|off, max-dmbs N)");
	if (act != ACT_SET && a->n_pos > 1)
		return smcctl_usage(c, "unexpected argument '%s' for 'loopback-ism %s'", a->pos[1],
				    action_names[act]);
	if (wait && act != ACT_DEACTIVATE)
		return smcctl_usage(c, "--wait belongs to 'loopback-ism deactivate'");
	/* The range (never 0: a removal without draining can hang in SMC 7.3, smc-lo(4) BUGS)
	 * and the default are the table's: the parser checked them. */
	wait_s = (unsigned)a->num[LOOPBACK_OPT_WAIT];
	if (act == ACT_SET && (s = parse_setting(c, a->pos[1], a->pos[2], &q)))
		return s;
	if ((s = smcctl_nl(c, &nl)))
		return s;
	switch (act) {
	case ACT_ACTIVATE:
		return do_activate(c, nl);
	case ACT_DEACTIVATE:
		return do_deactivate(c, nl, wait_s);
	case ACT_SET:
		return do_set(c, nl, a->pos[1], a->pos[2], &q);
	default:
		return do_show(c, nl);
	}
}
