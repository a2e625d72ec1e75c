// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fake kernel's smc_lo (kernel-fake.c): our loopback module's device in plain files,
 * so that the host integration tests can drive the agent's loopback: section, its D-Bus
 * objects and smcctl's forwarding without the module.  Under DIR:
 *
 *   modules/smc_lo        exists: the module is loaded (modules-available/smc_lo: loadable;
 *                         the generic module files of kernel-fake.c)
 *   smclo/state           "STATE GENERATION" (inactive|active|draining; absent: inactive 0)
 *   smclo/settings        "DMB NOCOPY MAX_DMBS" stored for the next activation
 *                         (physical|virtual 0|1 1..32768; absent: physical 1 5000)
 *   smclo/active          the same, of the registered device
 *   smclo/counters        "ACTIVATIONS DEACTIVATIONS" (other counters are 0)
 *   smclo/stuck           exists: a removal never finishes (an application keeps its
 *                         aborted sockets): shutdown leaves the device draining, -ETIMEDOUT
 *   smclo/set-fails       exists: SET fails with -EIO (nothing stored)
 *
 * The PNET table side of the deactivation protocol (netlink/smcnl-smclo.c) is not imitated: the
 * fake has no SMC-D device selection for it to protect.  Virtual DMBs are refused with
 * -EOPNOTSUPP like the real module.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "smcd-agent/loopback-reconcile.h"

struct fake_lo {
	char state[16];
	unsigned generation;
	struct smclo_settings next, active;
	unsigned long long activations, deactivations;
};

static void fake_smclo_path_of(const char *dir, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static bool exists(const char *dir, const char *name)
{
	char p[1024];

	fake_smclo_path_of(dir, name, p, sizeof(p));
	return access(p, F_OK) == 0;
}

static bool read_settings(const char *dir, const char *name, struct smclo_settings *s)
{
	char p[1024], dmb[16];
	unsigned nocopy, max;
	FILE *f;
	bool ok;

	fake_smclo_path_of(dir, name, p, sizeof(p));
	f = fopen(p, "re");
	if (!f)
		return false;
	ok = fscanf(f, "%15s %u %u", dmb, &nocopy, &max) == 3 && smclo_dmb_type_from_name(dmb) >= 0;
	fclose(f);
	if (ok) {
		s->dmb_type = (uint8_t)smclo_dmb_type_from_name(dmb);
		s->nocopy = nocopy;
		s->max_dmbs = max;
	}
	return ok;
}

static void fake_smclo_load(const char *dir, struct fake_lo *l)
{
	char p[1024];
	FILE *f;

	memset(l, 0, sizeof(*l));
	snprintf(l->state, sizeof(l->state), "inactive");
	l->next = (struct smclo_settings){ .dmb_type = SMCLO_DMB_PHYSICAL,
					   .nocopy = true,
					   .max_dmbs = 5000 };
	fake_smclo_path_of(dir, "smclo/state", p, sizeof(p));
	f = fopen(p, "re");
	if (f) {
		if (fscanf(f, "%15s %u", l->state, &l->generation) < 1)
			snprintf(l->state, sizeof(l->state), "inactive");
		fclose(f);
	}
	read_settings(dir, "smclo/settings", &l->next);
	l->active = l->next;
	read_settings(dir, "smclo/active", &l->active);
	fake_smclo_path_of(dir, "smclo/counters", p, sizeof(p));
	f = fopen(p, "re");
	if (f) {
		if (fscanf(f, "%llu %llu", &l->activations, &l->deactivations) != 2)
			l->activations = l->deactivations = 0;
		fclose(f);
	}
}

static int write_settings(const char *dir, const char *name, const struct smclo_settings *s)
{
	char p[1024];
	FILE *f;

	fake_smclo_path_of(dir, name, p, sizeof(p));
	f = fopen(p, "we");
	if (!f)
		return negative_errno();
	fprintf(f, "%s %u %u\n", smclo_dmb_type_name(s->dmb_type), s->nocopy, s->max_dmbs);
	return fclose(f) == 0 ? 0 : -EIO;
}

static int save(const char *dir, const struct fake_lo *l)
{
	char p[1024];
	FILE *f;
	int r;

	fake_smclo_path_of(dir, "smclo", p, sizeof(p));
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		return negative_errno();
	fake_smclo_path_of(dir, "smclo/state", p, sizeof(p));
	f = fopen(p, "we");
	if (!f)
		return negative_errno();
	fprintf(f, "%s %u\n", l->state, l->generation);
	fclose(f);
	fake_smclo_path_of(dir, "smclo/counters", p, sizeof(p));
	f = fopen(p, "we");
	if (!f)
		return negative_errno();
	fprintf(f, "%llu %llu\n", l->activations, l->deactivations);
	fclose(f);
	r = write_settings(dir, "smclo/settings", &l->next);
	return r < 0 ? r : write_settings(dir, "smclo/active", &l->active);
}

static void to_device(const struct fake_lo *l, struct smclo_device *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "smclo");
	d->state = streq(l->state, "active")	 ? SMCLO_STATE_ACTIVE
		   : streq(l->state, "draining") ? SMCLO_STATE_DRAINING
						 : SMCLO_STATE_INACTIVE;
	d->settings = l->next;
	d->counters.activations = l->activations;
	d->counters.deactivations = l->deactivations;
	d->registered = d->state != SMCLO_STATE_INACTIVE;
	if (d->registered) {
		d->active = l->active;
		d->generation = l->generation;
		d->fabric_id = 0xffff;
		d->gid[0] = 0x5a;
		d->gid[15] = (uint8_t)l->generation;
		snprintf(d->gid_hex, sizeof(d->gid_hex), "5a0000000000000000000000000000%02x",
			 l->generation & 0xff);
		snprintf(d->gid_uuid, sizeof(d->gid_uuid), "5a000000-0000-0000-0000-0000000000%02x",
			 l->generation & 0xff);
		d->pending = memcmp(&l->next, &l->active, sizeof(l->next)) != 0;
	}
	if (d->state == SMCLO_STATE_DRAINING) {
		d->removing = true;
		d->drain_timeout_ms = 1000;
		d->counters.dmbs = 2;
	}
}

int fake_smclo_get_dir(const char *dir, struct smclo_device *ret)
{
	struct fake_lo l;

	if (!exists(dir, "modules/smc_lo"))
		return -EPROTONOSUPPORT;
	fake_smclo_load(dir, &l);
	to_device(&l, ret);
	return 0;
}

int fake_smclo_activate_dir(const char *dir, struct smclo_device *ret, bool *ret_changed)
{
	struct fake_lo l;
	int r;

	if (!exists(dir, "modules/smc_lo"))
		return -EPROTONOSUPPORT;
	fake_smclo_load(dir, &l);
	if (streq(l.state, "draining"))
		return -EBUSY;
	if (ret_changed)
		*ret_changed = streq(l.state, "inactive");
	if (streq(l.state, "inactive")) {
		snprintf(l.state, sizeof(l.state), "active");
		l.generation++;
		l.activations++;
		l.active = l.next;
		r = save(dir, &l);
		if (r < 0)
			return r;
	}
	to_device(&l, ret);
	return 0;
}

int fake_smclo_shutdown_dir(const char *dir, uint32_t drain_ms, struct smclo_shutdown_result *res)
{
	struct fake_lo l;
	int r;

	memset(res, 0, sizeof(*res));
	if (drain_ms == 0 || drain_ms > SMCLO_DRAIN_TIMEOUT_MAX_MS)
		return -EINVAL;
	if (!exists(dir, "modules/smc_lo"))
		return -EPROTONOSUPPORT;
	fake_smclo_load(dir, &l);
	res->was_active = !streq(l.state, "inactive");
	if (res->was_active && exists(dir, "smclo/stuck")) {
		snprintf(l.state, sizeof(l.state), "draining");
		r = save(dir, &l);
		to_device(&l, &res->last);
		res->pnet_added = true;
		return r < 0 ? r : -ETIMEDOUT;
	}
	if (res->was_active) {
		snprintf(l.state, sizeof(l.state), "inactive");
		l.deactivations++;
		res->pnet_added = res->pnet_removed = true;
		r = save(dir, &l);
		if (r < 0)
			return r;
	}
	res->removed = true;
	to_device(&l, &res->last);
	return 0;
}

int fake_smclo_set_dir(const char *dir, const struct smclo_set_request *q, struct smclo_device *ret)
{
	struct fake_lo l;
	int r;

	if (!exists(dir, "modules/smc_lo"))
		return -EPROTONOSUPPORT;
	if (exists(dir, "smclo/set-fails"))
		return -EIO;
	if (q->set_dmb_type && q->dmb_type == SMCLO_DMB_VIRTUAL)
		return -EOPNOTSUPP;
	if ((q->set_max_dmbs &&
	     (q->max_dmbs < SMCLO_MAX_DMBS_MIN || q->max_dmbs > SMCLO_MAX_DMBS_MAX)) ||
	    (!q->set_dmb_type && !q->set_nocopy && !q->set_max_dmbs))
		return -EINVAL;
	fake_smclo_load(dir, &l);
	if (q->set_dmb_type)
		l.next.dmb_type = q->dmb_type;
	if (q->set_nocopy)
		l.next.nocopy = q->nocopy;
	if (q->set_max_dmbs)
		l.next.max_dmbs = q->max_dmbs;
	if (streq(l.state, "inactive"))
		l.active = l.next;
	r = save(dir, &l);
	if (r < 0)
		return r;
	to_device(&l, ret);
	ret->has_apply = true;
	ret->apply_next_activation = ret->pending;
	return 0;
}
