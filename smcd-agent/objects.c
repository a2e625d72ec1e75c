// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The model of the kernel's devices and link groups (objects.h): flat copies of the
 * kernel's structs, read with errors kept as errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "smcd-agent/kernel.h"
#include "smcd-agent/objects.h"

/* ------------------------------------------------------------------------------------- */
/* Snapshots from the kernel's structs                                                    */

static void set_path(char *dst, size_t len, const char *prefix, const char *id)
{
	_cleanup_(freep) char *p = NULL;

	if (sd_bus_path_encode(prefix, id, &p) >= 0 && strlen(p) < len)
		snprintf(dst, len, "%s", p);
	else
		snprintf(dst, len, "%s/_", prefix);
}

void obj_device_from_smcd(const struct smcd_device *d, struct obj_device *ret)
{
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->technology, sizeof(ret->technology), "smcd");
	snprintf(ret->name, sizeof(ret->name), "%s", d->name[0] ? d->name : d->pci_id);
	ret->loopback = d->loopback;
	ret->fabric_id = d->has_fabric_id ? d->fabric_id : d->pci_chid;
	snprintf(ret->gid, sizeof(ret->gid), "%s", d->gid);
	snprintf(ret->pci_id, sizeof(ret->pci_id), "%s", d->pci_id);
	snprintf(ret->pnetid, sizeof(ret->pnetid), "%s", d->port.pnetid);
	ret->pnet_user_defined = d->port.user_defined;
	ret->linkgroups = d->linkgroups;
	ret->conns = d->conns;
	set_path(ret->path, sizeof(ret->path), SMCD_BUS_PATH_DEVICE "/smcd", ret->name);
}

void obj_device_from_smcr(const struct smcr_device *d, struct obj_device *ret)
{
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->technology, sizeof(ret->technology), "smcr");
	snprintf(ret->name, sizeof(ret->name), "%s", d->ib_name);
	snprintf(ret->pci_id, sizeof(ret->pci_id), "%s", d->pci_id);
	for (size_t i = 0; i < 2; i++) {
		const struct smcr_port *p = &d->ports[i];

		if (!p->valid)
			continue;
		ret->ports[ret->n_ports].port = (uint8_t)(i + 1);
		ret->ports[ret->n_ports].active = p->active;
		snprintf(ret->ports[ret->n_ports].pnetid, SMC_PNETID_LEN + 1, "%s", p->pnet.pnetid);
		snprintf(ret->ports[ret->n_ports].netdev, IF_NAMESIZE, "%s", p->netdev);
		ret->ports[ret->n_ports].links = p->link_cnt;
		if (!ret->pnetid[0]) {
			snprintf(ret->pnetid, sizeof(ret->pnetid), "%s", p->pnet.pnetid);
			ret->pnet_user_defined = p->pnet.user_defined;
		}
		ret->n_ports++;
	}
	set_path(ret->path, sizeof(ret->path), SMCD_BUS_PATH_DEVICE "/smcr", ret->name);
}

static void linkgroup_path(struct obj_linkgroup *l)
{
	snprintf(l->id_hex, sizeof(l->id_hex), "%08x", l->id);
	snprintf(l->path, sizeof(l->path), SMCD_BUS_PATH_LINKGROUP "/%s/%08x", l->technology, l->id);
}

static void linkgroup_v2(struct obj_linkgroup *l, const struct smc_lgr_v2 *v2)
{
	const char *os = v2->present ? smc_os_name(v2->os) : NULL;

	l->version = v2->present ? v2->ver : 1;
	snprintf(l->peer_host, sizeof(l->peer_host), "%s", v2->present ? v2->peer_host : "");
	snprintf(l->neg_eid, sizeof(l->neg_eid), "%s", v2->present ? v2->neg_eid : "");
	snprintf(l->peer_os, sizeof(l->peer_os), "%s", os ? os : "");
}

void obj_linkgroup_from_smcd(const struct smcd_linkgroup *d, struct obj_linkgroup *ret)
{
	char gid[33];

	memset(ret, 0, sizeof(*ret));
	snprintf(ret->technology, sizeof(ret->technology), "smcd");
	ret->id = d->id;
	ret->conns = d->conns;
	snprintf(ret->pnetid, sizeof(ret->pnetid), "%s", d->pnetid);
	ret->vlan_id = d->vlan_id;
	snprintf(ret->device, sizeof(ret->device), "%s", d->device);
	smcd_gid_format(d->gid, d->ext_gid, gid);
	snprintf(ret->gid, sizeof(ret->gid), "%s", gid);
	smcd_gid_format(d->peer_gid, d->peer_ext_gid, gid);
	snprintf(ret->peer_gid, sizeof(ret->peer_gid), "%s", gid);
	ret->sndbuf_alloc = d->sndbuf_alloc;
	ret->buf_alloc = d->dmb_alloc;
	linkgroup_v2(ret, &d->v2);
	linkgroup_path(ret);
}

void obj_linkgroup_from_smcr(const struct smcr_linkgroup *r, struct obj_linkgroup *ret)
{
	const char *s;

	memset(ret, 0, sizeof(*ret));
	snprintf(ret->technology, sizeof(ret->technology), "smcr");
	ret->id = r->id;
	ret->conns = r->conns;
	snprintf(ret->pnetid, sizeof(ret->pnetid), "%s", r->pnetid);
	ret->vlan_id = r->vlan_id;
	s = smc_lgr_role_name(r->role);
	snprintf(ret->role, sizeof(ret->role), "%s", s ? s : "");
	s = smc_lgr_type_name(r->type);
	snprintf(ret->type, sizeof(ret->type), "%s", s ? s : "");
	ret->sndbuf_alloc = r->sndbuf_alloc;
	ret->buf_alloc = r->rmb_alloc;
	linkgroup_v2(ret, &r->v2);
	for (size_t i = 0; i < r->n_links && ret->n_links < SMC_LINKS_PER_LGR; i++) {
		const struct smcr_link *k = &r->links[i];
		typeof(ret->links[0]) *l = &ret->links[ret->n_links++];
		static const char *const states[] = { "UNUSED", "INACTIVE", "ACTIVATING", "ACTIVE" };

		l->id = k->id;
		snprintf(l->state, sizeof(l->state), "%s",
			 k->state < ELEMENTSOF(states) ? states[k->state] : "UNKNOWN");
		snprintf(l->ib_dev, sizeof(l->ib_dev), "%s", k->ib_dev);
		snprintf(l->netdev, sizeof(l->netdev), "%s", k->netdev);
		l->conns = k->conn_cnt;
		if (!ret->device[0]) {
			snprintf(ret->device, sizeof(ret->device), "%s", k->ib_dev);
			snprintf(ret->gid, sizeof(ret->gid), "%s", k->gid);
			snprintf(ret->peer_gid, sizeof(ret->peer_gid), "%s", k->peer_gid);
		}
	}
	linkgroup_path(ret);
}

/* ------------------------------------------------------------------------------------- */
/* Reading                                                                                */

/*
 * A dump that fails because the kernel has no SMC (or no such command) means "none"; any
 * other error (ENOBUFS, EINTR, EBUSY, EPERM, an interrupted dump) says nothing about what
 * exists: the poll is dropped and the objects, statistics and events stay as they were,
 * marked stale (manager_poll()).  Reading it as "no objects" removed every link group
 * from D-Bus and Prometheus, counted them as removed and added them again at the next poll.
 */
static int dump_or_none(int r, size_t *n)
{
	if (r == -EPROTONOSUPPORT || r == -EOPNOTSUPP) {
		*n = 0;
		return 0;
	}
	return r < 0 ? r : 0;
}

static int read_devices(struct kernel *k, struct obj_device **ret, size_t *ret_n)
{
	_cleanup_(freep) struct smcd_device *d = NULL;
	_cleanup_(freep) struct smcr_device *rd = NULL;
	size_t nd = 0, nr = 0;
	struct obj_device *v;
	int r;

	r = dump_or_none(k->ops->smcd_devices(k, &d, &nd), &nd);
	r = r ?: dump_or_none(k->ops->smcr_devices(k, &rd, &nr), &nr);
	if (r < 0)
		return r;
	v = calloc(nd + nr + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nd; i++)
		obj_device_from_smcd(&d[i], &v[i]);
	for (size_t i = 0; i < nr; i++)
		obj_device_from_smcr(&rd[i], &v[nd + i]);
	*ret = v;
	*ret_n = nd + nr;
	return 0;
}

static int read_linkgroups(struct kernel *k, struct obj_linkgroup **ret, size_t *ret_n)
{
	_cleanup_(freep) struct smcd_linkgroup *d = NULL;
	struct smcr_linkgroup *rl = NULL;
	size_t nd = 0, nr = 0;
	struct obj_linkgroup *v = NULL;
	int r;

	r = dump_or_none(k->ops->smcd_linkgroups(k, &d, &nd), &nd);
	r = r ?: dump_or_none(k->ops->smcr_linkgroups(k, &rl, &nr), &nr);
	if (r == 0 && !(v = calloc(nd + nr + 1, sizeof(*v))))
		r = -ENOMEM;
	if (r == 0) {
		for (size_t i = 0; i < nd; i++)
			obj_linkgroup_from_smcd(&d[i], &v[i]);
		for (size_t i = 0; i < nr; i++)
			obj_linkgroup_from_smcr(&rl[i], &v[nd + i]);
		*ret = v;
		*ret_n = nd + nr;
	}
	smcr_linkgroup_list_free(rl, nr);
	return r;
}

int objects_read(struct kernel *k, struct objects *ret)
{
	struct obj_device *devs = NULL;
	struct obj_linkgroup *lgrs = NULL;
	size_t nd = 0, nl = 0;
	int r;

	r = read_devices(k, &devs, &nd);
	if (r < 0)
		return r;
	r = read_linkgroups(k, &lgrs, &nl);
	if (r < 0) {
		free(devs);
		return r;
	}
	ret->devices = devs;
	ret->n_devices = nd;
	ret->linkgroups = lgrs;
	ret->n_linkgroups = nl;
	return 0;
}

void objects_clear_arrays(struct objects *o)
{
	free(o->devices);
	free(o->linkgroups);
	o->devices = NULL;
	o->linkgroups = NULL;
	o->n_devices = o->n_linkgroups = 0;
}
