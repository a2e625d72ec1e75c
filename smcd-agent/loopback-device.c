// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc_lo's device in the agent (loopback-internal.h): read with the other objects
 * (monitor.interval, Refresh(), Reconcile()) and at once on every notification of the
 * module's "state" group, whenever smc_lo is loaded, active or not; its D-Bus object is
 * bus-loopback.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "smcd-agent/bus-snapshot.h"
#include "smcd-agent/log.h"
#include "smcd-agent/loopback-internal.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/manager.h"

struct loopback *loopback_of(struct manager *m)
{
	if (!m->loopback)
		m->loopback = calloc(1, sizeof(*m->loopback));
	return m->loopback;
}

static void snapshot(const struct smclo_device *d, struct loopback_object *s)
{
	_cleanup_(freep) char *p = NULL;

	memset(s, 0, sizeof(*s));
	if (sd_bus_path_encode(SMCD_BUS_PATH_SMCD_DEVICE, d->name, &p) >= 0 &&
	    strlen(p) < sizeof(s->path))
		snprintf(s->path, sizeof(s->path), "%s", p);
	else
		snprintf(s->path, sizeof(s->path), "%s/_", SMCD_BUS_PATH_SMCD_DEVICE);
	snprintf(s->name, sizeof(s->name), "%s", d->name);
	snprintf(s->state, sizeof(s->state), "%s", smclo_state_name(d->state) ?: "");
	s->removing = d->removing;
	s->generation = d->registered ? d->generation : 0;
	snprintf(s->gid, sizeof(s->gid), "%s", d->registered ? d->gid_uuid : "");
	s->pending = d->pending;
	snprintf(s->dmb_type, sizeof(s->dmb_type), "%s",
		 smclo_dmb_type_name(d->settings.dmb_type) ?: "");
	s->nocopy = d->settings.nocopy;
	s->max_dmbs = d->settings.max_dmbs;
	if (d->registered) {
		snprintf(s->active_dmb_type, sizeof(s->active_dmb_type), "%s",
			 smclo_dmb_type_name(d->active.dmb_type) ?: "");
		s->active_nocopy = d->active.nocopy;
		s->active_max_dmbs = d->active.max_dmbs;
	}
	s->drain_timeout_ms = d->state == SMCLO_STATE_DRAINING ? d->drain_timeout_ms : 0;
	s->drain_remaining_ms = d->has_drain_remaining ? d->drain_remaining_ms : 0;
	s->counters = d->counters;
}

static void monitor_close(struct loopback *lb)
{
	lb->mon_src = sd_event_source_disable_unref(lb->mon_src);
	smclo_monitor_close(lb->mon);
	lb->mon = NULL;
}

static int on_notification(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	struct loopback *lb = m->loopback;
	struct smclo_device d;
	int r;

	/* Take every waiting message; the state itself is read again with a GET. */
	while ((r = smclo_monitor_read(lb->mon, &d)) > 0)
		log_debug("smc_lo: %s, %s", smclo_event_name(d.event) ?: "?",
			  smclo_state_name(d.state) ?: "?");
	if (r == -ESTALE)
		/* Unloaded or loaded again: the refresh below opens a monitor for the new
		 * family once it is there; until then this one hears nlctrl for it. */
		log_info("smc_lo's netlink family was unregistered or registered again");
	else if (r < 0 && r != -ENOBUFS) {
		log_warning_errno(r, "Reading smc_lo's notifications failed, polling only: %m");
		monitor_close(lb);
	}
	(void)loopback_refresh(m);
	return 0;
}

static void monitor_open(struct manager *m, struct loopback *lb)
{
	struct kernel *k = m->kernel;
	int r;

	if (lb->mon || lb->no_monitor || !m->event)
		return;
	r = k->ops->smclo_monitor(k, &lb->mon);
	if (r == -EOPNOTSUPP) {
		lb->no_monitor = true;
		return;
	}
	if (r < 0) {
		lb->mon = NULL;
		return;
	}
	if (smclo_monitor_fd(lb->mon) < 0 ||
	    sd_event_add_io(m->event, &lb->mon_src, smclo_monitor_fd(lb->mon), EPOLLIN,
			    on_notification, m) < 0)
		monitor_close(lb);
}

bool loopback_state(struct manager *m, const char **ret_name, const char **ret_state)
{
	const struct loopback *lb = m->loopback;

	if (!lb || !lb->present)
		return false;
	*ret_name = lb->snap.name;
	*ret_state = lb->snap.state;
	return true;
}

int loopback_refresh(struct manager *m)
{
	struct loopback *lb = loopback_of(m);
	struct kernel *k = m->kernel;
	struct loopback_object old;
	struct smclo_device d;
	bool was = lb ? lb->present : false;
	int r;

	if (!lb)
		return -ENOMEM;
	old = lb->snap;
	/* An error that says nothing about the device (not "no module", not "no family")
	 * keeps the object as it was: reading it as "gone" removed it from D-Bus and added it
	 * back at the next refresh. */
	r = k->ops->module_loaded(k, LOOPBACK_MODULE);
	if (r < 0)
		return r;
	if (r > 0) {
		r = k->ops->smclo_get(k, &d);
		if (r < 0 && r != -ENOENT && r != -EPROTONOSUPPORT && r != -EOPNOTSUPP && r != -ENODEV)
			return r;
	} else
		r = -ENOENT;
	if (r == 0) {
		snapshot(&d, &lb->snap);
		lb->present = true;
		/* The GET found the family under a new id (module reloaded): listen anew. */
		if (smclo_monitor_stale(lb->mon))
			monitor_close(lb);
		monitor_open(m, lb);
	} else {
		/*
		 * The monitor stays, stale or not: its nlctrl subscription hears the family go
		 * (when this refresh came before that news, the module's own last notification)
		 * and come back.  Closing a monitor that had not yet heard nlctrl left the agent
		 * deaf to the module's return (kmod-agent, 1 run in 5).
		 */
		lb->present = false;
	}
	if (lb->bus_type)
		(void)bus_snapshot_emit(m->bus, lb->bus_type, was ? &old : NULL,
					lb->present ? &lb->snap : NULL);
	return 0;
}

void loopback_free(struct manager *m)
{
	if (!m->loopback)
		return;
	monitor_close(m->loopback);
	free(m->loopback);
	m->loopback = NULL;
}
