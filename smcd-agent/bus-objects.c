// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One D-Bus object per SMC device and per link group, below /org/smcd/Agent1:
 *
 *   /org/smcd/Agent1/device/smcd/<name>       org.smcd.Agent1.Device   (name path-escaped)
 *   /org/smcd/Agent1/device/smcr/<ibname>
 *   /org/smcd/Agent1/linkgroup/smcd/<id>      org.smcd.Agent1.LinkGroup (id: 8 hex digits)
 *   /org/smcd/Agent1/linkgroup/smcr/<id>
 *
 * The SMC netlink family has no multicast group, so the agent polls (monitor.interval, and
 * on Refresh()/Reconcile()).  Each poll builds flat snapshots; comparing old and new gives
 * InterfacesAdded/InterfacesRemoved (ObjectManager on /org/smcd/Agent1) and a
 * PropertiesChanged naming exactly the properties that changed (bus-snapshot.c).  The
 * snapshots are the model of objects.h; a failed read publishes nothing (manager_poll()).
 *
 * The agent adds what the kernel does not keep (stats.c): LinkGroupsSeen on devices,
 * FirstSeenUSec and PeakConnections on link groups.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/bus-snapshot.h"
#include "smcd-agent/manager.h"

#define DEV(f) offsetof(struct obj_device, f)
#define LGR(f) offsetof(struct obj_linkgroup, f)

/* ------------------------------------------------------------------------------------- */
/* Vtables                                                                                */

static int prop_ports(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct obj_device *d = (const void *)((const char *)userdata - DEV(n_ports));
	int r = sd_bus_message_open_container(reply, 'a', "(ybssu)");

	for (size_t i = 0; r >= 0 && i < d->n_ports; i++)
		r = sd_bus_message_append(reply, "(ybssu)", d->ports[i].port, (int)d->ports[i].active,
					  d->ports[i].pnetid, d->ports[i].netdev, d->ports[i].links);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

static int prop_links(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct obj_linkgroup *l = (const void *)((const char *)userdata - LGR(n_links));
	int r = sd_bus_message_open_container(reply, 'a', "(ysssu)");

	for (size_t i = 0; r >= 0 && i < l->n_links; i++)
		r = sd_bus_message_append(reply, "(ysssu)", l->links[i].id, l->links[i].state,
					  l->links[i].ib_dev, l->links[i].netdev, l->links[i].conns);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

#define RO SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable device_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_NAME, "s", bus_snapshot_prop_string, DEV(name),
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_TECHNOLOGY, "s", bus_snapshot_prop_string, DEV(technology),
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_LOOPBACK, "b", bus_snapshot_prop_bool, DEV(loopback), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_FABRIC_ID, "q", NULL, DEV(fabric_id), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_GID, "s", bus_snapshot_prop_string, DEV(gid), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_PCI_ID, "s", bus_snapshot_prop_string, DEV(pci_id), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_PNET_ID, "s", bus_snapshot_prop_string, DEV(pnetid), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_PNET_ID_USER_DEFINED, "b", bus_snapshot_prop_bool,
			DEV(pnet_user_defined), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_LINK_GROUPS, "u", NULL, DEV(linkgroups), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_CONNECTIONS, "u", NULL, DEV(conns), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_LINK_GROUPS_SEEN, "t", NULL, DEV(linkgroups_seen), RO),
	SD_BUS_PROPERTY(SMCD_BUS_DEVICE_PORTS, "a(ybssu)", prop_ports, DEV(n_ports), RO),
	SD_BUS_VTABLE_END,
};

static const sd_bus_vtable linkgroup_vtable[] = {
	SD_BUS_VTABLE_START(0),
	/* 8 hex digits, as in the path, smcctl's text and JSON and the textfile: one form per id
	 * (it was the number, 257, beside the path's 00000101). */
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_ID, "s", bus_snapshot_prop_string, LGR(id_hex),
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_TECHNOLOGY, "s", bus_snapshot_prop_string,
			LGR(technology), SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_CONNECTIONS, "u", NULL, LGR(conns), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_PNET_ID, "s", bus_snapshot_prop_string, LGR(pnetid), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_VLAN_ID, "y", NULL, LGR(vlan_id), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_DEVICE, "s", bus_snapshot_prop_string, LGR(device), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_ROLE, "s", bus_snapshot_prop_string, LGR(role), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_TYPE, "s", bus_snapshot_prop_string, LGR(type), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_VERSION, "y", NULL, LGR(version), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_PEER_HOST, "s", bus_snapshot_prop_string, LGR(peer_host),
			RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_NEGOTIATED_EID, "s", bus_snapshot_prop_string,
			LGR(neg_eid), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_PEER_OS, "s", bus_snapshot_prop_string, LGR(peer_os), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_GID, "s", bus_snapshot_prop_string, LGR(gid), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_PEER_GID, "s", bus_snapshot_prop_string, LGR(peer_gid), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_SNDBUF_ALLOC, "t", NULL, LGR(sndbuf_alloc), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_BUFFER_ALLOC, "t", NULL, LGR(buf_alloc), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_FIRST_SEEN_USEC, "t", NULL, LGR(first_seen_usec), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_PEAK_CONNECTIONS, "u", NULL, LGR(peak_conns), RO),
	SD_BUS_PROPERTY(SMCD_BUS_LINKGROUP_LINKS, "a(ysssu)", prop_links, LGR(n_links), RO),
	SD_BUS_VTABLE_END,
};

static const struct bus_snapshot_type device_type = {
	.iface = SMCD_BUS_IFACE_DEVICE,
	.vtable = device_vtable,
	.size = sizeof(struct obj_device),
	.path_offset = DEV(path),
	/*
	 * A device's path can carry a second interface: smclo's also has smc_lo's
	 * LoopbackDevice (bus-loopback.c) while the module is loaded, registered with SMC or
	 * not.  sd_bus_emit_object_added/removed() list every interface found on the path, so
	 * an activation announced LoopbackDevice again and a deactivation told ObjectManager
	 * clients it was gone while it stayed; name only our own.
	 */
	.whole_object = false,
};

static const struct bus_snapshot_type linkgroup_type = {
	.iface = SMCD_BUS_IFACE_LINKGROUP,
	.vtable = linkgroup_vtable,
	.size = sizeof(struct obj_linkgroup),
	.path_offset = LGR(path),
	.whole_object = true,
};

/* ------------------------------------------------------------------------------------- */
/* Lookup                                                                                 */

static struct obj_device *device_by_path(struct obj_device *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].path, path))
			return &v[i];
	return NULL;
}

static struct obj_linkgroup *linkgroup_by_path(struct obj_linkgroup *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].path, path))
			return &v[i];
	return NULL;
}

static int find_device(sd_bus *bus, const char *path, const char *iface, void *userdata, void **ret,
		       sd_bus_error *error)
{
	struct manager *m = userdata;
	struct obj_device *d = device_by_path(m->objects.devices, m->objects.n_devices, path);

	if (!d)
		return 0;
	*ret = d;
	return 1;
}

static int find_linkgroup(sd_bus *bus, const char *path, const char *iface, void *userdata,
			  void **ret, sd_bus_error *error)
{
	struct manager *m = userdata;
	struct obj_linkgroup *l =
		linkgroup_by_path(m->objects.linkgroups, m->objects.n_linkgroups, path);

	if (!l)
		return 0;
	*ret = l;
	return 1;
}

static int enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***ret, sd_bus_error *error)
{
	struct manager *m = userdata;
	char **v = calloc(m->objects.n_devices + m->objects.n_linkgroups + 1, sizeof(char *));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < m->objects.n_devices; i++)
		if (!(v[n++] = strdup(m->objects.devices[i].path)))
			goto oom;
	for (size_t i = 0; i < m->objects.n_linkgroups; i++)
		if (!(v[n++] = strdup(m->objects.linkgroups[i].path)))
			goto oom;
	*ret = v;
	return 0;
oom:
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return -ENOMEM;
}

int bus_objects_register(struct manager *m)
{
	int r;

	r = sd_bus_add_fallback_vtable(m->bus, NULL, SMCD_BUS_PATH_DEVICE, SMCD_BUS_IFACE_DEVICE,
				       device_vtable, find_device, m);
	if (r >= 0)
		r = sd_bus_add_fallback_vtable(m->bus, NULL, SMCD_BUS_PATH_LINKGROUP,
					       SMCD_BUS_IFACE_LINKGROUP, linkgroup_vtable,
					       find_linkgroup, m);
	if (r >= 0)
		r = sd_bus_add_node_enumerator(m->bus, NULL, SMCD_BUS_PATH, enumerate, m);
	return r;
}

/* ------------------------------------------------------------------------------------- */
/* Update                                                                                 */

/* Keep the first error of several. */
static void keep_first(int *r, int k)
{
	if (k < 0 && *r >= 0)
		*r = k;
}

int bus_objects_update(struct manager *m, struct obj_device *devices, size_t n_devices,
		       struct obj_linkgroup *linkgroups, size_t n_linkgroups)
{
	struct obj_device *old_devices = m->objects.devices;
	struct obj_linkgroup *old_linkgroups = m->objects.linkgroups;
	size_t n_old_devices = m->objects.n_devices, n_old_linkgroups = m->objects.n_linkgroups;
	int r = 0;

	/* InterfacesRemoved needs the object still in place: before the swap. */
	for (size_t i = 0; i < n_old_devices; i++)
		if (!device_by_path(devices, n_devices, old_devices[i].path))
			keep_first(&r,
				   bus_snapshot_emit(m->bus, &device_type, &old_devices[i], NULL));
	for (size_t i = 0; i < n_old_linkgroups; i++)
		if (!linkgroup_by_path(linkgroups, n_linkgroups, old_linkgroups[i].path))
			keep_first(&r, bus_snapshot_emit(m->bus, &linkgroup_type,
							 &old_linkgroups[i], NULL));

	m->objects.devices = devices;
	m->objects.n_devices = n_devices;
	m->objects.linkgroups = linkgroups;
	m->objects.n_linkgroups = n_linkgroups;

	for (size_t i = 0; i < n_devices; i++)
		keep_first(&r, bus_snapshot_emit(
				       m->bus, &device_type,
				       device_by_path(old_devices, n_old_devices, devices[i].path),
				       &devices[i]));
	for (size_t i = 0; i < n_linkgroups; i++)
		keep_first(&r, bus_snapshot_emit(m->bus, &linkgroup_type,
						 linkgroup_by_path(old_linkgroups, n_old_linkgroups,
								   linkgroups[i].path),
						 &linkgroups[i]));
	free(old_devices);
	free(old_linkgroups);
	return r;
}
