// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Devices: SMC_NETLINK_GET_DEV_SMCD merged with /sys/class/dibs, and GET_DEV_SMCR.
 *
 * GET_DEV_SMCD has no device name attribute and skips loopback devices (fabric id 0xFFFF)
 * since 6.10; PCI values come from the DIBS parent.  So the SMC-D list is built from:
 *   1. the netlink dump (ISM devices; named by their PCI id until sysfs says better),
 *   2. /sys/class/dibs (6.18+): every DIBS device with its name, UUID GID and fabric id;
 *      a DIBS device whose parent is the PCI function of a netlink device is that device,
 *   3. the SMC-D link group dump, to count link groups and connections per device by GID
 *      (7.3 mapping: "%016llx%016llx" of GID, EXT_GID == sysfs gid without dashes).
 * On 6.10-6.17 the loopback device ("loopback-ism", CONFIG_SMC_LO) lived inside smc.ko:
 * skipped by the netlink dump and never added to sysfs.  Off s390 nothing else makes the
 * kernel ISMv2 capable (SMC_NLA_SYS_IS_ISM_V2), so without DIBS that flag means it exists
 * (smc_caps.loopback's rule): it is listed as "loopback-ism", fabric id 0xFFFF, its GID
 * taken from its link groups (CHID 0xFFFF; linkgroup.c names them "loopback-ism"), unknown
 * while it has none.
 * The PNET ID of such a device comes from the PNET table (smcd_pnet_from_table()).
 * Devices seen only through netlink (ISM before 6.18) have no GID to match: their link
 * group count is the kernel's own (SMC_NLA_DEV_USE_CNT), their connections are counted by
 * CHID (= PCHID for ISM) when no other device shares it, else left 0.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/smcnl-internal.h"

struct pci_vals {
	bool any;
	uint32_t fid;
	uint16_t chid, vendor, device;
	char id[SMC_PCI_ID_LEN + 1];
};

static int pci_parse(struct nlattr **tb, struct pci_vals *p)
{
	int r = 0;

	memset(p, 0, sizeof(*p));
	r = r ?: attr_u32(tb[SMC_NLA_DEV_PCI_FID], &p->fid);
	r = r ?: attr_u16(tb[SMC_NLA_DEV_PCI_CHID], &p->chid);
	r = r ?: attr_u16(tb[SMC_NLA_DEV_PCI_VENDOR], &p->vendor);
	r = r ?: attr_u16(tb[SMC_NLA_DEV_PCI_DEVICE], &p->device);
	r = r ?: attr_str(tb[SMC_NLA_DEV_PCI_ID], p->id, sizeof(p->id));
	p->any = tb[SMC_NLA_DEV_PCI_FID] || tb[SMC_NLA_DEV_PCI_CHID] ||
		 tb[SMC_NLA_DEV_PCI_VENDOR] || tb[SMC_NLA_DEV_PCI_DEVICE] || tb[SMC_NLA_DEV_PCI_ID];
	return r;
}

/* SMC_NLA_DEV_PORT / PORT2 nest; rp is NULL for SMC-D (only the PNET attributes). */
static int port_parse(const struct nlattr *nest, struct smc_pnet_port *pnet, struct smcr_port *rp)
{
	struct nlattr *tb[SMC_NLA_DEV_PORT_MAX + 1];
	int r;

	if (!nest)
		return 0;
	r = smcnl_parse_nested(tb, SMC_NLA_DEV_PORT_MAX, nest);
	r = r ?: attr_bool(tb[SMC_NLA_DEV_PORT_PNET_USR], &pnet->user_defined);
	r = r ?: attr_str(tb[SMC_NLA_DEV_PORT_PNETID], pnet->pnetid, sizeof(pnet->pnetid));
	if (r < 0)
		return r;
	strip_blanks(pnet->pnetid);
	if (!rp)
		return 0;
	r = r ?: attr_u32(tb[SMC_NLA_DEV_PORT_NETDEV], &rp->netdev_ifindex);
	r = r ?: attr_bool(tb[SMC_NLA_DEV_PORT_VALID], &rp->valid);
	r = r ?: attr_bool(tb[SMC_NLA_DEV_PORT_STATE], &rp->active);
	r = r ?: attr_u32(tb[SMC_NLA_DEV_PORT_LNK_CNT], &rp->link_cnt);
	return r;
}

/* ---- SMC-D ------------------------------------------------------------------------------- */

struct smcd_ctx {
	struct smcd_device *v;
	size_t n;
};

static int smcd_dev_add(struct smcd_ctx *c, struct smcd_device **ret)
{
	struct smcd_device *nv = realloc(c->v, (c->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	c->v = nv;
	*ret = &c->v[c->n++];
	memset(*ret, 0, sizeof(**ret));
	return 0;
}

static int smcd_dev_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_GEN_MAX + 1], *dev[SMC_NLA_DEV_MAX + 1];
	struct smcd_ctx *c = userdata;
	struct smcd_device d = {};
	struct pci_vals pci;
	struct smcd_device *slot;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_GEN_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_GET_DEV_SMCD || !tb[SMC_GEN_DEV_SMCD])
		return 0;
	r = smcnl_parse_nested(dev, SMC_NLA_DEV_MAX, tb[SMC_GEN_DEV_SMCD]);
	r = r ?: attr_u32(dev[SMC_NLA_DEV_USE_CNT], &d.use_cnt);
	r = r ?: attr_bool(dev[SMC_NLA_DEV_IS_CRIT], &d.is_crit);
	r = r ?: pci_parse(dev, &pci);
	r = r ?: port_parse(dev[SMC_NLA_DEV_PORT], &d.port, NULL);
	if (r < 0)
		return r;
	d.seen = SMCD_SEEN_NETLINK;
	d.pci_fid = pci.fid;
	d.pci_chid = pci.chid;
	d.pci_vendor = pci.vendor;
	d.pci_device = pci.device;
	snprintf(d.pci_id, sizeof(d.pci_id), "%s", pci.id);
	snprintf(d.name, sizeof(d.name), "%s", pci.id);
	/* ISM: the SMC-D CHID is the PCHID (s390 only; 0 elsewhere = unknown). */
	if (pci.chid) {
		d.has_fabric_id = true;
		d.fabric_id = pci.chid;
	}
	r = smcd_dev_add(c, &slot);
	if (r < 0)
		return r;
	*slot = d;
	return 0;
}

/* *ret_class: whether the DIBS class exists (6.18+). */
static int smcd_merge_dibs(struct smcnl *nl, struct smcd_ctx *c, bool gids, bool *ret_class)
{
	_cleanup_(freep) struct smcnl_dibs *dibs = NULL;
	size_t n_dibs;
	int r;

	/* The parent names the netlink device a DIBS device is: only read with such devices. */
	r = smcnl_dibs_read(
		nl, (gids ? SMCNL_DIBS_GID : 0) | SMCNL_DIBS_FABRIC | (c->n ? SMCNL_DIBS_PARENT : 0),
		&dibs, &n_dibs, ret_class);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_dibs; i++) {
		const struct smcnl_dibs *b = &dibs[i];
		struct smcd_device *d = NULL;

		for (size_t j = 0; b->parent[0] && j < c->n; j++)
			if ((c->v[j].seen & SMCD_SEEN_NETLINK) && streq(c->v[j].pci_id, b->parent))
				d = &c->v[j];
		if (!d) {
			r = smcd_dev_add(c, &d);
			if (r < 0)
				return r;
		}
		d->seen |= SMCD_SEEN_DIBS;
		snprintf(d->name, sizeof(d->name), "%s", b->name);
		snprintf(d->gid, sizeof(d->gid), "%s", b->gid);
		if (b->has_fabric_id) {
			d->has_fabric_id = true;
			d->fabric_id = b->fabric_id;
		}
		d->loopback = d->has_fabric_id && d->fabric_id == SMC_LOOPBACK_FABRIC;
	}
	return 0;
}

/*
 * 6.10-6.17: smc.ko's loopback-ism, inferred (see the top of this file).  A failed system
 * information query skips the inference only (its error kept for
 * smcd_builtin_loopback_error()): it says nothing about the devices the kernel did list.
 */
static int smcd_builtin_loopback(struct smcnl *nl, struct smcd_ctx *c, bool dibs_class)
{
	struct smc_sysinfo info;
	struct smcd_device *d;
	int r;

	if (ARCH_HAS_ISM || dibs_class)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].loopback)
			return 0;
	r = smc_sysinfo_get(nl, &info);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		nl->builtin_loopback_error = r;
		return 0;
	}
	if (!info.ism_v2)
		return 0;
	r = smcd_dev_add(c, &d);
	if (r < 0)
		return r;
	d->seen = SMCD_SEEN_BUILTIN;
	snprintf(d->name, sizeof(d->name), "%s", SMC_BUILTIN_LOOPBACK_NAME);
	d->loopback = true;
	d->has_fabric_id = true;
	d->fabric_id = SMC_LOOPBACK_FABRIC;
	return 0;
}

static bool chid_unique(const struct smcd_ctx *c, uint16_t chid)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].has_fabric_id && c->v[i].fabric_id == chid)
			n++;
	return n == 1;
}

/*
 * A DIBS device whose GID was not read (SMCD_LIST_GIDS not asked): its link groups are
 * those with its fabric id as CHID when no other device has that fabric id (a link
 * group's CHID is its device's), else its GID is read now to tell them apart.
 */
static bool by_chid(struct smcnl *nl, struct smcd_ctx *c, struct smcd_device *d)
{
	if (d->gid[0] || !(d->seen & SMCD_SEEN_DIBS))
		return false;
	if (d->has_fabric_id && chid_unique(c, d->fabric_id))
		return true;
	smcnl_dibs_gid(nl, d->name, d->gid, sizeof(d->gid));
	return false;
}

static int smcd_count_lgrs(struct smcnl *nl, struct smcd_ctx *c)
{
	struct smcd_linkgroup *lgrs;
	size_t n_lgrs;
	int r;

	r = smcnl_lgr_d_dump(nl, &lgrs, &n_lgrs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n; i++) {
		struct smcd_device *d = &c->v[i];
		char hex[33];
		bool by_gid;

		/* loopback-ism's GID is that of its link groups (it has no other source). */
		for (size_t j = 0; (d->seen & SMCD_SEEN_BUILTIN) && !d->gid[0] && j < n_lgrs; j++)
			if (lgrs[j].chid == SMC_LOOPBACK_FABRIC)
				smcd_gid_format(lgrs[j].gid, lgrs[j].ext_gid, d->gid);
		if (by_chid(nl, c, d)) {
			for (size_t j = 0; j < n_lgrs; j++)
				if (lgrs[j].chid == d->fabric_id) {
					d->linkgroups++;
					d->conns += lgrs[j].conns;
				}
			continue;
		}
		by_gid = d->gid[0] != '\0';

		if (!by_gid)
			d->linkgroups = d->use_cnt;
		for (size_t j = 0; j < n_lgrs; j++) {
			if (by_gid) {
				char want[33];
				size_t k = 0;

				smcd_gid_format(lgrs[j].gid, lgrs[j].ext_gid, hex);
				for (const char *p = d->gid; *p && k < 32; p++)
					if (*p != '-')
						want[k++] = (char)(*p | 0x20); /* hex: lower case */
				want[k] = '\0';
				if (!streq(hex, want))
					continue;
				d->linkgroups++;
				d->conns += lgrs[j].conns;
			} else if (d->has_fabric_id && lgrs[j].chid == d->fabric_id &&
				   chid_unique(c, d->fabric_id)) {
				d->conns += lgrs[j].conns;
			}
		}
	}
	free(lgrs);
	return 0;
}

/*
 * The PNET ID of a device the netlink dump skipped (loopback) is only known from the PNET
 * table: an IB entry naming the DIBS device (or its parent) sets it (smc_pnet_add_ib()).
 * This matters: on x86 a loopback device with a PNET ID is never proposed for SMC-Dv2.
 * Best effort - IB entries exist only in the initial netns' table, and a failing dump
 * just leaves the PNET ID unknown.
 */
static void smcd_pnet_from_table(struct smcnl *nl, struct smcd_ctx *c)
{
	_cleanup_(freep) struct smc_pnet_entry *e = NULL;
	bool need = false;
	size_t n;

	for (size_t i = 0; i < c->n; i++)
		need |= !(c->v[i].seen & SMCD_SEEN_NETLINK);
	if (!need || smc_pnet_list(nl, NULL, &e, &n) < 0)
		return;
	for (size_t i = 0; i < c->n; i++) {
		struct smcd_device *d = &c->v[i];

		if (d->seen & SMCD_SEEN_NETLINK)
			continue;
		for (size_t j = 0; j < n; j++)
			if (e[j].ib_name[0] && streq(e[j].ib_name, d->name)) {
				snprintf(d->port.pnetid, sizeof(d->port.pnetid), "%s", e[j].pnetid);
				d->port.user_defined = true;
			}
	}
}

int smcd_builtin_loopback_error(const struct smcnl *nl)
{
	return nl->builtin_loopback_error;
}

int smcd_device_list_flags(struct smcnl *nl, unsigned flags, struct smcd_device **ret, size_t *ret_n)
{
	struct smcd_ctx c = {};
	bool dibs_class = false;
	int r;

	nl->builtin_loopback_error = 0;
	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_GET_DEV_SMCD, smcd_dev_msg, &c);
	r = r ?: smcd_merge_dibs(nl, &c, flags & SMCD_LIST_GIDS, &dibs_class);
	r = r ?: smcd_builtin_loopback(nl, &c, dibs_class);
	if (r == 0 && (flags & SMCD_LIST_LINKGROUPS))
		r = smcd_count_lgrs(nl, &c);
	if (r == 0)
		smcd_pnet_from_table(nl, &c);
	if (r < 0) {
		free(c.v);
		return r;
	}
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}

int smcd_device_list(struct smcnl *nl, struct smcd_device **ret, size_t *ret_n)
{
	return smcd_device_list_flags(nl, SMCD_LIST_LINKGROUPS | SMCD_LIST_GIDS, ret, ret_n);
}

/* ---- SMC-R ------------------------------------------------------------------------------- */

struct smcr_ctx {
	struct smcr_device *v;
	size_t n;
};

static int smcr_dev_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_GEN_MAX + 1], *dev[SMC_NLA_DEV_MAX + 1];
	struct smcr_ctx *c = userdata;
	struct smcr_device d = {};
	struct pci_vals pci;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_GEN_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_GET_DEV_SMCR || !tb[SMC_GEN_DEV_SMCR])
		return 0;
	r = smcnl_parse_nested(dev, SMC_NLA_DEV_MAX, tb[SMC_GEN_DEV_SMCR]);
	r = r ?: attr_bool(dev[SMC_NLA_DEV_IS_CRIT], &d.is_crit);
	r = r ?: pci_parse(dev, &pci);
	r = r ?: attr_str(dev[SMC_NLA_DEV_IB_NAME], d.ib_name, sizeof(d.ib_name));
	/* PORT is port 1, PORT2 port 2; only valid ports are sent. */
	r = r ?: port_parse(dev[SMC_NLA_DEV_PORT], &d.ports[0].pnet, &d.ports[0]);
	r = r ?: port_parse(dev[SMC_NLA_DEV_PORT2], &d.ports[1].pnet, &d.ports[1]);
	if (r < 0)
		return r;
	d.has_pci = pci.any;
	d.pci_fid = pci.fid;
	d.pci_chid = pci.chid;
	d.pci_vendor = pci.vendor;
	d.pci_device = pci.device;
	snprintf(d.pci_id, sizeof(d.pci_id), "%s", pci.id);
	return SMCNL_APPEND(c->v, c->n, d);
}

/*
 * A port's GID types from sysfs: gid_attrs/types/<index> reads "IB/RoCE v1" or "RoCE v2" for
 * a used GID and fails (EINVAL) for an empty slot.  The table has gid_tbl_len slots (1024
 * for rxe), so this is that many small reads per port; only used slots can be read.
 */
static void smcr_port_gid_types(struct smcnl *nl, const char *ib_name, int port, struct smcr_port *p)
{
	char dir[PATH_MAX], path[PATH_MAX], buf[32];
	struct dirent *e;
	DIR *d;

	if (smcnl_path(nl, dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%d/gid_attrs/types",
		       ib_name, port) < 0 ||
	    !(d = opendir(dir)))
		return;
	p->has_gid_types = true;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path) ||
		    smcnl_read_file(path, buf, sizeof(buf)) < 0)
			continue;
		if (streq(buf, "IB/RoCE v1"))
			p->roce_v1 = true;
		else if (streq(buf, "RoCE v2"))
			p->roce_v2 = true;
	}
	closedir(d);
}

/*
 * Port netdevs: the ifindex in GET_DEV_SMCR is the one in the netdev's own netns, which
 * need not be ours (rdma.c); name a port only when RDMA netlink says that this ifindex is
 * the port's netdev in our netns.  Best effort: without an answer no port is named.
 */
static void smcr_name_netdevs(struct smcnl *nl, struct smcr_device *v, size_t n)
{
	_cleanup_(freep) struct smcnl_rdma_port *ports = NULL;
	size_t n_ports = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++)
		for (int p = 0; p < 2; p++)
			any |= v[i].ports[p].netdev_ifindex != 0;
	if (!any || smcnl_rdma_ports(nl, &ports, &n_ports) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		for (int p = 0; p < 2; p++)
			smcnl_rdma_netdev_name(ports, n_ports, v[i].ib_name, (uint32_t)p + 1,
					       v[i].ports[p].netdev_ifindex, v[i].ports[p].netdev);
}

int smcnl_smcr_dev_dump(struct smcnl *nl, struct smcr_device **ret, size_t *ret_n)
{
	struct smcr_ctx c = {};
	int r;

	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_GET_DEV_SMCR, smcr_dev_msg, &c);
	if (r < 0) {
		free(c.v);
		return r;
	}
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}

int smcr_device_list(struct smcnl *nl, struct smcr_device **ret, size_t *ret_n)
{
	struct smcr_ctx c = {};
	int r;

	r = smcnl_smcr_dev_dump(nl, &c.v, &c.n);
	if (r < 0)
		return r;
	smcr_name_netdevs(nl, c.v, c.n);
	for (size_t i = 0; i < c.n; i++)
		for (int p = 0; p < 2; p++)
			if (c.v[i].ports[p].valid)
				smcr_port_gid_types(nl, c.v[i].ib_name, p + 1, &c.v[i].ports[p]);
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}
