/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's model of the kernel's SMC devices and link groups (objects.c): what one read
 * of the kernel found, plus what the agent keeps about them (stats.c).  The D-Bus objects
 * (bus-objects.c), the statistics (stats*.c) and the Prometheus textfile (prometheus.c)
 * all read this model; none of them reads another one's copy.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include "netlink/smcnl.h"

struct kernel;

#define SMC_LINKS_PER_LGR 3

/*
 * Flat copies, so that change detection is a field-by-field compare (bus-snapshot.h).  path
 * is the object's identity: technology and name (device) or id (link group), spelled as
 * its D-Bus object path because that is where every reader finds it.
 */
struct obj_linkgroup {
	char path[256];
	char technology[8]; /* "smcd" or "smcr" */
	uint32_t id;
	char id_hex[9]; /* id as everyone shows it: 8 hex digits, "00000101" (the Id property) */
	uint32_t conns;
	char pnetid[SMC_PNETID_LEN + 1];
	uint8_t vlan_id;
	char device[SMC_IB_NAME_LEN + 1];
	char role[8];
	char type[8];
	uint8_t version;
	char peer_host[SMC_HOSTNAME_LEN + 1];
	char neg_eid[SMC_EID_LEN + 1];
	char peer_os[8];
	char gid[SMC_GID_TEXT_LEN + 1];
	char peer_gid[SMC_GID_TEXT_LEN + 1];
	uint64_t sndbuf_alloc;
	uint64_t buf_alloc;
	/* Kept by the agent (stats.c), not the kernel: before the array, which compares to the end. */
	uint64_t first_seen_usec;
	uint32_t peak_conns;
	size_t n_links;
	struct {
		uint8_t id;
		char state[16];
		char ib_dev[SMC_IB_NAME_LEN + 1];
		char netdev[IF_NAMESIZE];
		uint32_t conns;
	} links[SMC_LINKS_PER_LGR];
};

struct obj_device {
	char path[256];
	char technology[8];
	char name[SMC_IB_NAME_LEN + 1];
	bool loopback;
	uint16_t fabric_id;
	char gid[SMC_UUID_TEXT_LEN + 1];
	char pci_id[SMC_PCI_ID_LEN + 1];
	char pnetid[SMC_PNETID_LEN + 1];
	bool pnet_user_defined;
	uint32_t linkgroups;
	uint32_t conns;
	uint64_t linkgroups_seen; /* kept by the agent (stats.c) */
	size_t n_ports;
	struct {
		uint8_t port;
		bool active;
		char pnetid[SMC_PNETID_LEN + 1];
		char netdev[IF_NAMESIZE];
		uint32_t links;
	} ports[2];
};

/*
 * The objects of the last good read.  A read that fails (other than "no SMC") says nothing
 * about what exists: the objects stay as they were, and error marks them stale until a
 * read succeeds again.
 */
struct objects {
	struct obj_device *devices;
	size_t n_devices;
	struct obj_linkgroup *linkgroups;
	size_t n_linkgroups;
	uint64_t read_mono_usec; /* CLOCK_MONOTONIC of the last good read; 0: none yet */
	uint64_t read_real_usec; /* and its CLOCK_REALTIME (ObjectsReadUSec) */
	int error;		 /* the last read's negative errno: stale; 0: current */
};

static inline bool objects_stale(const struct objects *o)
{
	return o->error < 0;
}

void obj_linkgroup_from_smcd(const struct smcd_linkgroup *l, struct obj_linkgroup *ret);
void obj_linkgroup_from_smcr(const struct smcr_linkgroup *l, struct obj_linkgroup *ret);
void obj_device_from_smcd(const struct smcd_device *d, struct obj_device *ret);
void obj_device_from_smcr(const struct smcr_device *d, struct obj_device *ret);

/*
 * One read of the devices and link groups into *ret (arrays only; the caller sets the
 * times).  A kernel without SMC (or without the command) has none: 0 with empty arrays.
 * Any other error is returned as it is and *ret is untouched.
 */
int objects_read(struct kernel *k, struct objects *ret);
/* Free the arrays and empty o (the times and error stay). */
void objects_clear_arrays(struct objects *o);
