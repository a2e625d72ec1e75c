// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl device: SMC-D devices (ISM and DIBS loopback: the library merges GET_DEV_SMCD with
 * /sys/class/dibs, because the kernel never lists loopback devices over netlink) and SMC-R
 * (RDMA) devices.  The link group and connection counts per SMC-D device say which one
 * actually carries traffic.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>

#include "cli/loopback.h"
#include "cli/verbs.h"
#include "common/output.h"
#include "netlink/uapi/smc_lo.h"

static json_object *pci_json(bool has, uint32_t fid, uint16_t pchid, uint16_t vendor,
			     uint16_t device, const char *id)
{
	_cleanup_(json_object_putp) json_object *o = NULL;

	if (!has)
		return NULL;
	o = json_object_new_object();
	if (!o || json_add_str(o, "id", id[0] ? id : NULL) < 0 || json_add_u64(o, "fid", fid) < 0 ||
	    json_add_u64(o, "pchid", pchid) < 0 || json_add_u64(o, "vendor", vendor) < 0 ||
	    json_add_u64(o, "device", device) < 0)
		return NULL;
	return TAKE_PTR(o);
}

/* json_add() of a possibly-NULL object: NULL is JSON null, not an error. */
static int add_opt(json_object *o, const char *key, json_object *v)
{
	return v ? json_add(o, key, v) : json_add_null(o, key);
}

json_object *smcd_device_json(const struct smcd_device *d)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *src = json_object_new_array();
	bool netlink = d->seen & SMCD_SEEN_NETLINK;
	int r = 0;

	if (!o || json_add_str(o, "name", d->name) < 0 || json_add(o, "sources", src) < 0)
		return NULL;
	if (netlink)
		r |= json_append_str(src, "netlink");
	if (d->seen & SMCD_SEEN_DIBS)
		r |= json_append_str(src, "sysfs");
	if (d->seen & SMCD_SEEN_BUILTIN)
		r |= json_append_str(src, "inferred");
	r |= json_add_str(o, "type", d->loopback ? "loopback" : "ism");
	r |= d->has_fabric_id ? json_add_u64(o, "chid", d->fabric_id) : json_add_null(o, "chid");
	r |= json_add_str(o, "gid", d->gid[0] ? d->gid : NULL);
	r |= json_add_str(o, "pnetid", d->port.pnetid[0] ? d->port.pnetid : NULL);
	r |= json_add_bool(o, "pnetid_by_user", d->port.user_defined);
	r |= json_add_bool(o, "in_use", d->is_crit || d->linkgroups > 0);
	r |= json_add_u64(o, "linkgroups", d->linkgroups);
	r |= json_add_u64(o, "connections", d->conns);
	r |= add_opt(o, "pci",
		     pci_json(netlink && d->pci_id[0], d->pci_fid, d->pci_chid, d->pci_vendor,
			      d->pci_device, d->pci_id));
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *smcr_port_json(const struct smcr_port *p, unsigned idx)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_u64(o, "port", idx + 1);
	r |= json_add_str(o, "netdev", p->netdev[0] ? p->netdev : NULL);
	r |= json_add_u64(o, "ifindex", p->netdev_ifindex);
	r |= json_add_bool(o, "active", p->active);
	r |= json_add_str(o, "pnetid", p->pnet.pnetid[0] ? p->pnet.pnetid : NULL);
	r |= json_add_bool(o, "pnetid_by_user", p->pnet.user_defined);
	r |= json_add_u64(o, "links", p->link_cnt);
	return r < 0 ? NULL : TAKE_PTR(o);
}

json_object *smcr_device_json(const struct smcr_device *d)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *ports = json_object_new_array();
	int r = 0;

	if (!o || json_add_str(o, "ib_dev", d->ib_name) < 0 || json_add(o, "ports", ports) < 0)
		return NULL;
	r |= json_add_bool(o, "critical", d->is_crit);
	r |= add_opt(o, "pci",
		     pci_json(d->has_pci, d->pci_fid, d->pci_chid, d->pci_vendor, d->pci_device,
			      d->pci_id));
	for (unsigned i = 0; i < ELEMENTSOF(d->ports); i++)
		if (d->ports[i].valid)
			r |= json_append(ports, smcr_port_json(&d->ports[i], i));
	return r < 0 ? NULL : TAKE_PTR(o);
}

/* ---------------------------------------------------------------------------------- */
/* Text                                                                                */

/* smc-tools marks a PNET ID set by the user (PNET table) with a leading '*'. */
static const char *fmt_pnetid(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	const char *p = out_get_str(row, "pnetid", NULL);

	if (!p)
		return NULL;
	snprintf(buf, len, "%s%s", out_get_bool(row, "pnetid_by_user", false) ? "*" : "", p);
	return buf;
}

static const char *fmt_port_state(json_object *row, const struct out_column *col, char *buf,
				  size_t len)
{
	return out_get_bool(row, "active", false) ? "ACTIVE" : "INACTIVE";
}

static const struct out_column smcd_cols[] = {
	OUT_COL("name", "Name", OUT_STR),
	OUT_COL("type", "Type", OUT_STR),
	OUT_COL("chid", "CHID", OUT_HEX16),
	OUT_COL("linkgroups", "#LGs", OUT_U64),
	OUT_COL("connections", "#Conns", OUT_U64),
	OUT_COL("gid", "GID", OUT_STR, .detail = 1),
	OUT_COL("pci.id", "PCI-ID", OUT_STR, .detail = 1),
	OUT_COL("pci.fid", "FID", OUT_HEX32, .detail = 1),
	OUT_COL("pci.pchid", "PCHID", OUT_HEX16, .detail = 1),
	OUT_COL(NULL, "PNET-ID", OUT_CUSTOM, .format = fmt_pnetid),
};

static const struct out_column smcr_cols[] = {
	OUT_COL("netdev", "Net-Dev", OUT_STR),
	OUT_COL("ib_dev", "IB-Dev", OUT_STR),
	OUT_COL("port", "IB-P", OUT_U64),
	OUT_COL(NULL, "IB-State", OUT_CUSTOM, .format = fmt_port_state, .color = OUT_COLOR_STATE),
	OUT_COL("critical", "Crit", OUT_BOOL),
	OUT_COL("links", "#Links", OUT_U64),
	OUT_COL("pci.id", "PCI-ID", OUT_STR, .detail = 1),
	OUT_COL("pci.fid", "FID", OUT_HEX32, .detail = 1),
	OUT_COL("pci.pchid", "PCHID", OUT_HEX16, .detail = 1),
	OUT_COL(NULL, "PNET-ID", OUT_CUSTOM, .format = fmt_pnetid),
};

static const struct out_column smcd_fields[] = {
	OUT_COL("name", "Name", OUT_STR),
	OUT_COL("type", "Type", OUT_STR),
	OUT_COL("chid", "CHID", OUT_HEX16),
	OUT_COL("gid", "GID", OUT_STR),
	OUT_COL(NULL, "PNET-ID", OUT_CUSTOM, .format = fmt_pnetid),
	OUT_COL("in_use", "In use", OUT_BOOL),
	OUT_COL("linkgroups", "Link groups", OUT_U64),
	OUT_COL("connections", "Connections", OUT_U64),
	OUT_COL("pci.id", "PCI-ID", OUT_STR),
	OUT_COL("pci.fid", "FID", OUT_HEX32),
	OUT_COL("pci.pchid", "PCHID", OUT_HEX16),
	OUT_COL("pci.vendor", "PCI vendor", OUT_HEX16),
	OUT_COL("pci.device", "PCI device", OUT_HEX16),
	OUT_COL("sources", "Seen in", OUT_LIST),
};

static const struct out_column smcr_fields[] = {
	OUT_COL("ib_dev", "IB-Dev", OUT_STR),
	OUT_COL("critical", "Critical", OUT_BOOL),
	OUT_COL("pci.id", "PCI-ID", OUT_STR),
	OUT_COL("pci.fid", "FID", OUT_HEX32),
	OUT_COL("pci.pchid", "PCHID", OUT_HEX16),
	OUT_COL("pci.vendor", "PCI vendor", OUT_HEX16),
	OUT_COL("pci.device", "PCI device", OUT_HEX16),
};

static const struct out_column smcr_port_fields[] = {
	OUT_COL("port", "Port", OUT_U64),
	OUT_COL("netdev", "Net-Dev", OUT_STR),
	OUT_COL(NULL, "State", OUT_CUSTOM, .format = fmt_port_state, .color = OUT_COLOR_STATE),
	OUT_COL(NULL, "PNET-ID", OUT_CUSTOM, .format = fmt_pnetid),
	OUT_COL("links", "Links", OUT_U64),
};

/* Share a member of src with dst (json-c counts references; null stays null). */
static void share(json_object *dst, const char *key, json_object *val)
{
	json_object_object_add(dst, key, json_object_get(val));
}

/* One row per valid port of every RDMA device (the smc-tools layout). */
static json_object *smcr_port_rows(json_object *devs)
{
	json_object *rows = json_object_new_array();
	size_t n = devs ? json_object_array_length(devs) : 0;

	for (size_t i = 0; rows && i < n; i++) {
		json_object *d = json_object_array_get_idx(devs, i), *ports = out_get(d, "ports");
		size_t m = ports ? json_object_array_length(ports) : 0;

		for (size_t k = 0; k < m; k++) {
			json_object *row = json_object_new_object();

			if (!row)
				break;
			json_object_object_foreach(json_object_array_get_idx(ports, k), key, val)
				share(row, key, val);
			share(row, "ib_dev", out_get(d, "ib_dev"));
			share(row, "critical", out_get(d, "critical"));
			share(row, "pci", out_get(d, "pci"));
			json_append(rows, row);
		}
	}
	return rows;
}

static void section_table(struct smcctl *c, const char *title, json_object *rows,
			  const struct out_column *cols, size_t n_cols)
{
	if (!rows || json_object_array_length(rows) == 0) {
		fprintf(c->out, "%s: none\n", title);
		return;
	}
	fprintf(c->out, "%s:\n", title);
	out_table(c->out, cols, n_cols, rows, c->detail, 2);
}

void device_list_text(struct smcctl *c, json_object *doc)
{
	json_object *smcd = out_get(doc, "smcd"), *smcr = out_get(doc, "smcr");

	if (smcd) {
		section_table(c, "SMC-D devices", smcd, smcd_cols, ELEMENTSOF(smcd_cols));
		loopback_list_text(c, smcd);
	}
	if (smcr) {
		_cleanup_(json_object_putp) json_object *rows = smcr_port_rows(smcr);

		if (smcd)
			fputc('\n', c->out);
		if (json_object_array_length(smcr) && rows && !json_object_array_length(rows))
			fputs("SMC-R devices: present, but no port is usable\n", c->out);
		else
			section_table(c, "SMC-R devices", rows, smcr_cols, ELEMENTSOF(smcr_cols));
	}
}

void device_show_text(struct smcctl *c, json_object *doc)
{
	json_object *smcd = out_get(doc, "smcd"), *smcr = out_get(doc, "smcr");
	bool first = true;

	for (size_t i = 0; smcd && i < json_object_array_length(smcd); i++, first = false) {
		fprintf(c->out, "%sSMC-D device\n", first ? "" : "\n");
		out_kv(c->out, smcd_fields, ELEMENTSOF(smcd_fields),
		       json_object_array_get_idx(smcd, i), c->detail, 2);
		loopback_show_text(c, json_object_array_get_idx(smcd, i));
	}
	for (size_t i = 0; smcr && i < json_object_array_length(smcr); i++, first = false) {
		json_object *d = json_object_array_get_idx(smcr, i), *ports = out_get(d, "ports");

		fprintf(c->out, "%sSMC-R device\n", first ? "" : "\n");
		out_kv(c->out, smcr_fields, ELEMENTSOF(smcr_fields), d, c->detail, 2);
		for (size_t k = 0; ports && k < json_object_array_length(ports); k++) {
			fputs("  Port\n", c->out);
			out_kv(c->out, smcr_port_fields, ELEMENTSOF(smcr_port_fields),
			       json_object_array_get_idx(ports, k), c->detail, 4);
		}
	}
}

/*
 * `smcctl device` as it is mostly run (no -j, and no smc_lo module whose state amends the
 * SMC-D rows): drawn from the kernel's structs into out_table_cells(), so the text needs no
 * json-c (cli/dl.c loads it on first use), as linkgroup_rows_text() does for the groups.
 * test-cli-rows-text holds it equal to device_list_text() of the document for every
 * recording, at both detail levels.  The cells follow the columns by position.
 */
static const char *pnetid_cell(const struct smc_pnet_port *p, char *buf, size_t len)
{
	if (!p->pnetid[0])
		return "-";
	snprintf(buf, len, "%s%s", p->user_defined ? "*" : "", p->pnetid);
	return buf;
}

static const char *smcd_cell(const struct smcd_device *d, size_t i, char *buf, size_t len)
{
	enum out_fmt f = smcd_cols[i].fmt;
	bool pci = (d->seen & SMCD_SEEN_NETLINK) && d->pci_id[0];

	static_assert(ELEMENTSOF(smcd_cols) == 10, "smcd_cell() knows the columns");
	switch (i) {
	case 0:
		return out_fmt_str(d->name);
	case 1:
		return d->loopback ? "loopback" : "ism";
	case 2:
		return d->has_fabric_id ? out_fmt_uint(d->fabric_id, f, buf, len) : "-";
	case 3:
		return out_fmt_uint(d->linkgroups, f, buf, len);
	case 4:
		return out_fmt_uint(d->conns, f, buf, len);
	case 5:
		return out_fmt_str(d->gid);
	case 6:
		return pci ? out_fmt_str(d->pci_id) : "-";
	case 7:
		return pci ? out_fmt_uint(d->pci_fid, f, buf, len) : "-";
	case 8:
		return pci ? out_fmt_uint(d->pci_chid, f, buf, len) : "-";
	default:
		return pnetid_cell(&d->port, buf, len);
	}
}

static const char *smcr_cell(const struct smcr_device *d, unsigned port, size_t i, char *buf,
			     size_t len)
{
	const struct smcr_port *p = &d->ports[port];
	enum out_fmt f = smcr_cols[i].fmt;

	static_assert(ELEMENTSOF(smcr_cols) == 10, "smcr_cell() knows the columns");
	switch (i) {
	case 0:
		return out_fmt_str(p->netdev);
	case 1:
		return out_fmt_str(d->ib_name);
	case 2:
		return out_fmt_uint(port + 1, f, buf, len);
	case 3:
		return p->active ? "ACTIVE" : "INACTIVE";
	case 4:
		return out_fmt_uint(d->is_crit, f, buf, len);
	case 5:
		return out_fmt_uint(p->link_cnt, f, buf, len);
	case 6:
		return d->has_pci ? out_fmt_str(d->pci_id) : "-";
	case 7:
		return d->has_pci ? out_fmt_uint(d->pci_fid, f, buf, len) : "-";
	case 8:
		return d->has_pci ? out_fmt_uint(d->pci_chid, f, buf, len) : "-";
	default:
		return pnetid_cell(&p->pnet, buf, len);
	}
}

int device_rows_text(struct smcctl *c, const struct smcd_device *smcd, size_t n_smcd,
		     const struct smcr_device *smcr, size_t n_smcr, bool want_smcd, bool want_smcr)
{
	_cleanup_(out_cells_done) struct out_cells d = {}, r = {};
	size_t n_ports = 0;
	char buf[256];

	for (size_t k = 0; want_smcd && k < n_smcd; k++)
		for (size_t i = 0; i < ELEMENTSOF(smcd_cols); i++)
			if (smcd_cols[i].detail <= c->detail &&
			    out_cells_add(&d, smcd_cell(&smcd[k], i, buf, sizeof(buf))) < 0)
				return -ENOMEM;
	for (size_t k = 0; want_smcr && k < n_smcr; k++)
		for (unsigned p = 0; p < ELEMENTSOF(smcr[k].ports); p++) {
			if (!smcr[k].ports[p].valid)
				continue;
			n_ports++;
			for (size_t i = 0; i < ELEMENTSOF(smcr_cols); i++)
				if (smcr_cols[i].detail <= c->detail &&
				    out_cells_add(&r, smcr_cell(&smcr[k], p, i, buf, sizeof(buf))) < 0)
					return -ENOMEM;
		}
	if (want_smcd && out_section_cells(c->out, "SMC-D devices", smcd_cols,
					   ELEMENTSOF(smcd_cols), &d, n_smcd, c->detail) < 0)
		return -ENOMEM;
	if (!want_smcr)
		return 0;
	if (want_smcd)
		fputc('\n', c->out);
	if (n_smcr && !n_ports) {
		fputs("SMC-R devices: present, but no port is usable\n", c->out);
		return 0;
	}
	return out_section_cells(c->out, "SMC-R devices", smcr_cols, ELEMENTSOF(smcr_cols), &r,
				 n_ports, c->detail);
}

/* ---------------------------------------------------------------------------------- */
/* Handlers                                                                            */

struct devices {
	struct smcd_device *smcd;
	size_t n_smcd;
	struct smcr_device *smcr;
	size_t n_smcr;
};

static void devices_done(struct devices *d)
{
	free(d->smcd);
	free(d->smcr);
}

/* gids: the GIDs are shown (else they are read only where a device's link groups need them). */
static int fetch(struct smcctl *c, bool want_smcd, bool want_smcr, bool gids, struct devices *d)
{
	unsigned flags = SMCD_LIST_LINKGROUPS | (gids ? SMCD_LIST_GIDS : 0);
	struct smcnl *nl;
	int r, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	if (want_smcd && (r = smcd_device_list_flags(nl, flags, &d->smcd, &d->n_smcd)) < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot list the SMC-D devices");
	if (want_smcd && (r = smcd_builtin_loopback_error(nl)) < 0) {
		char buf[256];

		/* The devices listed stand; only the inferred one may be missing. */
		fprintf(c->err,
			"smcctl: cannot tell whether smc.ko's loopback-ism is there, so it is not listed: %s\n",
			smc_strerror(SMC_OP_QUERY, r, NULL, buf, sizeof(buf)));
	}
	if (want_smcr && (r = smcr_device_list(nl, &d->smcr, &d->n_smcr)) < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot list the SMC-R devices");
	return SMCCTL_EXIT_OK;
}

/* name == NULL: every device.  A name matches an SMC-D name or PCI id, an RDMA device
 * name, or the netdev of one of its ports. */
static bool smcd_match(const struct smcd_device *d, const char *name)
{
	return !name || streq(d->name, name) || streq(d->pci_id, name);
}

static bool smcr_match(const struct smcr_device *d, const char *name)
{
	if (!name || streq(d->ib_name, name))
		return true;
	for (unsigned i = 0; i < ELEMENTSOF(d->ports); i++)
		if (d->ports[i].valid && streq(d->ports[i].netdev, name))
			return true;
	return false;
}

static json_object *devices_json(const struct devices *d, bool want_smcd, bool want_smcr,
				 const char *name, size_t *ret_matches)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *smcd = NULL, *smcr = NULL;
	int r = 0;

	*ret_matches = 0;
	if (!o)
		return NULL;
	if (want_smcd && json_add(o, "smcd", smcd = json_object_new_array()) < 0)
		return NULL;
	if (want_smcr && json_add(o, "smcr", smcr = json_object_new_array()) < 0)
		return NULL;
	for (size_t i = 0; i < d->n_smcd; i++)
		if (smcd_match(&d->smcd[i], name)) {
			r |= json_append(smcd, smcd_device_json(&d->smcd[i]));
			(*ret_matches)++;
		}
	for (size_t i = 0; i < d->n_smcr; i++)
		if (smcr_match(&d->smcr[i], name)) {
			r |= json_append(smcr, smcr_device_json(&d->smcr[i]));
			(*ret_matches)++;
		}
	return r < 0 ? NULL : TAKE_PTR(o);
}

int device_list(struct smcctl *c, const struct verb_args *a)
{
	bool only_d = a->opt[FILTER_OPT_SMCD], only_r = a->opt[FILTER_OPT_SMCR];
	_cleanup_(devices_done) struct devices d = {};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	bool doc_text;
	size_t n;
	int s;

	if (only_d && only_r)
		return smcctl_usage(c, "--smcd and --smcr exclude each other");
	if ((s = smcctl_nl(c, &nl)))
		return s;
	/* smc_lo's state amends the rows (loopback_amend_devices()): that takes the document. */
	doc_text = c->json || (!only_r && smclo_module_loaded(nl));
	/* The default table has no GID column: -d, -j and the document show them. */
	if ((s = fetch(c, !only_r, !only_d, doc_text || c->detail, &d)))
		return s;
	if (!doc_text) {
		if (device_rows_text(c, d.smcd, d.n_smcd, d.smcr, d.n_smcr, !only_r, !only_d) < 0)
			return smcctl_oom(c);
		return smcctl_emit(c, NULL, NULL);
	}
	doc = devices_json(&d, !only_r, !only_d, NULL, &n);
	if (!doc || loopback_amend_devices(c, out_get(doc, "smcd"), NULL, &n) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, device_list_text);
}

int device_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(devices_done) struct devices d = {};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	size_t n;
	int s;

	if ((s = fetch(c, true, true, true, &d)))
		return s;
	doc = devices_json(&d, true, true, a->pos[0], &n);
	if (!doc || loopback_amend_devices(c, out_get(doc, "smcd"), a->pos[0], &n) < 0)
		return smcctl_oom(c);
	if (n == 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "no SMC device named '%s' (see 'smcctl device list')%s",
				    a->pos[0],
				    streq(a->pos[0], SMC_LO_DEFAULT_DEVNAME)
					    ? "; smclo is the device of the smc_lo module, which is "
					      "not loaded: install smc-lo-dkms or modprobe smc_lo"
					    : "");
	return smcctl_emit(c, doc, device_show_text);
}
