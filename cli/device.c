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

/* ---------------------------------------------------------------------------------- */
/* The answer: each field once, into a sink (common/output.h)                         */

enum {
	DD_NAME,
	DD_TYPE,
	DD_CHID,
	DD_LGS,
	DD_CONNS,
	DD_GID,
	DD_PCI_ID,
	DD_FID,
	DD_PCHID,
	DD_PNETID
};
enum {
	DR_NETDEV,
	DR_IBDEV,
	DR_PORT,
	DR_STATE,
	DR_CRIT,
	DR_LINKS,
	DR_PCI_ID,
	DR_FID,
	DR_PCHID,
	DR_PNETID
};

/* smc-tools marks a PNET ID set by the user (PNET table) with a leading '*'. */
static void pnetid_emit(struct out_sink *o, int col, const struct smc_pnet_port *p)
{
	char buf[64];

	out_str(o, "pnetid", OUT_NO_COL, p->pnetid[0] ? p->pnetid : NULL);
	out_bool(o, "pnetid_by_user", OUT_NO_COL, p->user_defined);
	if (out_text_wants(o, col) && p->pnetid[0]) {
		snprintf(buf, sizeof(buf), "%s%s", p->user_defined ? "*" : "", p->pnetid);
		out_cell(o, col, buf);
	}
}

/* "pci": {id, fid, pchid, vendor, device}, or null. */
static void pci_emit(struct out_sink *o, bool has, const char *id, uint32_t fid, uint16_t pchid,
		     uint16_t vendor, uint16_t device, int col_id, int col_fid, int col_pchid)
{
	if (!has) {
		out_null(o, "pci", OUT_NO_COL);
		return;
	}
	out_object_begin(o, "pci");
	out_str(o, "id", col_id, id[0] ? id : NULL);
	out_u64(o, "fid", col_fid, fid);
	out_u64(o, "pchid", col_pchid, pchid);
	out_u64(o, "vendor", OUT_NO_COL, vendor);
	out_u64(o, "device", OUT_NO_COL, device);
	out_object_end(o);
}

/*
 * One SMC-D device.  lo: smc_lo's view of it (loopback_amend(): a source and the "smc_lo"
 * object); with_lo: whether the "smc_lo" key is there at all (the device views have it,
 * null for the other devices; device loopback-ism's "loopback_ism" has not).
 */
static void smcd_dev_emit(struct out_sink *o, const struct smcd_device *d,
			  const struct smclo_device *lo, bool with_lo)
{
	bool netlink = d->seen & SMCD_SEEN_NETLINK;

	out_str(o, "name", DD_NAME, d->name);
	out_array_begin(o, "sources");
	if (netlink)
		out_str(o, NULL, OUT_NO_COL, "netlink");
	if (d->seen & SMCD_SEEN_DIBS)
		out_str(o, NULL, OUT_NO_COL, "sysfs");
	if (d->seen & SMCD_SEEN_BUILTIN)
		out_str(o, NULL, OUT_NO_COL, "inferred");
	if (lo)
		out_str(o, NULL, OUT_NO_COL, "smc_lo");
	out_array_end(o);
	out_str(o, "type", DD_TYPE, d->loopback ? "loopback" : "ism");
	if (d->has_fabric_id)
		out_u64(o, "chid", DD_CHID, d->fabric_id);
	else
		out_null(o, "chid", DD_CHID);
	out_str(o, "gid", DD_GID, d->gid[0] ? d->gid : NULL);
	pnetid_emit(o, DD_PNETID, &d->port);
	out_bool(o, "in_use", OUT_NO_COL, d->is_crit || d->linkgroups > 0);
	out_u64(o, "linkgroups", DD_LGS, d->linkgroups);
	out_u64(o, "connections", DD_CONNS, d->conns);
	pci_emit(o, netlink && d->pci_id[0], d->pci_id, d->pci_fid, d->pci_chid, d->pci_vendor,
		 d->pci_device, DD_PCI_ID, DD_FID, DD_PCHID);
	if (!with_lo)
		return;
	if (lo)
		smclo_device_emit(o, "smc_lo", lo);
	else
		out_null(o, "smc_lo", OUT_NO_COL);
}

static void smcr_port_emit(struct out_sink *o, const struct smcr_port *p, unsigned idx)
{
	out_u64(o, "port", DR_PORT, idx + 1);
	out_str(o, "netdev", DR_NETDEV, p->netdev[0] ? p->netdev : NULL);
	out_u64(o, "ifindex", OUT_NO_COL, p->netdev_ifindex);
	out_bool(o, "active", OUT_NO_COL, p->active);
	out_cell(o, DR_STATE, p->active ? "ACTIVE" : "INACTIVE");
	pnetid_emit(o, DR_PNETID, &p->pnet);
	out_u64(o, "links", DR_LINKS, p->link_cnt);
}

/* The device's own fields; the text has them in each of its ports' rows. */
static void smcr_dev_fields_emit(struct out_sink *o, const struct smcr_device *d)
{
	out_bool(o, "critical", DR_CRIT, d->is_crit);
	pci_emit(o, d->has_pci, d->pci_id, d->pci_fid, d->pci_chid, d->pci_vendor, d->pci_device,
		 DR_PCI_ID, DR_FID, DR_PCHID);
}

/*
 * One RDMA device: in JSON an object with its ports; as text one row per valid port (the
 * smc-tools layout), the device's fields in each.
 */
static void smcr_dev_emit(struct out_sink *o, const struct smcr_device *d)
{
	if (out_is_text(o)) {
		for (unsigned i = 0; i < ELEMENTSOF(d->ports); i++) {
			if (!d->ports[i].valid)
				continue;
			out_row_begin(o);
			out_str(o, "ib_dev", DR_IBDEV, d->ib_name);
			smcr_port_emit(o, &d->ports[i], i);
			smcr_dev_fields_emit(o, d);
			out_row_end(o);
		}
		return;
	}
	out_row_begin(o); /* an object, also outside a table */
	out_str(o, "ib_dev", DR_IBDEV, d->ib_name);
	out_array_begin(o, "ports");
	for (unsigned i = 0; i < ELEMENTSOF(d->ports); i++)
		if (d->ports[i].valid) {
			out_object_begin(o, NULL);
			smcr_port_emit(o, &d->ports[i], i);
			out_object_end(o);
		}
	out_array_end(o);
	smcr_dev_fields_emit(o, d);
	out_row_end(o);
}

json_object *smcd_device_json(const struct smcd_device *d)
{
	struct out_sink o;

	out_sink_doc(&o);
	out_object_begin(&o, NULL);
	smcd_dev_emit(&o, d, NULL, false);
	out_object_end(&o);
	out_sink_done(&o);
	return out_sink_take_doc(&o);
}

json_object *smcr_device_json(const struct smcr_device *d)
{
	struct out_sink o;

	out_sink_doc(&o);
	smcr_dev_emit(&o, d);
	out_sink_done(&o);
	return out_sink_take_doc(&o);
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
	OUT_COL(NULL, "PNET-ID", OUT_STR),
};

static const struct out_column smcr_cols[] = {
	OUT_COL("netdev", "Net-Dev", OUT_STR),
	OUT_COL("ib_dev", "IB-Dev", OUT_STR),
	OUT_COL("port", "IB-P", OUT_U64),
	OUT_COL(NULL, "IB-State", OUT_STR, .color = OUT_COLOR_STATE),
	OUT_COL("critical", "Crit", OUT_BOOL),
	OUT_COL("links", "#Links", OUT_U64),
	OUT_COL("pci.id", "PCI-ID", OUT_STR, .detail = 1),
	OUT_COL("pci.fid", "FID", OUT_HEX32, .detail = 1),
	OUT_COL("pci.pchid", "PCHID", OUT_HEX16, .detail = 1),
	OUT_COL(NULL, "PNET-ID", OUT_STR),
};
static_assert(ELEMENTSOF(smcd_cols) == DD_PNETID + 1, "smcd_cols[] and DD_* agree");
static_assert(ELEMENTSOF(smcr_cols) == DR_PNETID + 1, "smcr_cols[] and DR_* agree");

/* The PCI function's fields, in an ISM and in an RDMA device's block (device show). */
#define PCI_FIELDS                                                                  \
	OUT_COL("pci.id", "PCI-ID", OUT_STR), OUT_COL("pci.fid", "FID", OUT_HEX32), \
		OUT_COL("pci.pchid", "PCHID", OUT_HEX16),                           \
		OUT_COL("pci.vendor", "PCI vendor", OUT_HEX16),                     \
		OUT_COL("pci.device", "PCI device", OUT_HEX16)

static const struct out_column smcd_fields[] = {
	OUT_COL("name", "Name", OUT_STR),
	OUT_COL("type", "Type", OUT_STR),
	OUT_COL("chid", "CHID", OUT_HEX16),
	OUT_COL("gid", "GID", OUT_STR),
	OUT_COL(NULL, "PNET-ID", OUT_CUSTOM, .format = fmt_pnetid),
	OUT_COL("in_use", "In use", OUT_BOOL),
	OUT_COL("linkgroups", "Link groups", OUT_U64),
	OUT_COL("connections", "Connections", OUT_U64),
	PCI_FIELDS,
	OUT_COL("sources", "Seen in", OUT_LIST),
};

static const struct out_column smcr_fields[] = {
	OUT_COL("ib_dev", "IB-Dev", OUT_STR),
	OUT_COL("critical", "Critical", OUT_BOOL),
	PCI_FIELDS,
};

static const struct out_column smcr_port_fields[] = {
	OUT_COL("port", "Port", OUT_U64),
	OUT_COL("netdev", "Net-Dev", OUT_STR),
	OUT_COL(NULL, "State", OUT_CUSTOM, .format = fmt_port_state, .color = OUT_COLOR_STATE),
	OUT_COL(NULL, "PNET-ID", OUT_CUSTOM, .format = fmt_pnetid),
	OUT_COL("links", "Links", OUT_U64),
};

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

int device_list_emit(struct out_sink *o, const struct smcd_device *smcd, size_t n_smcd,
		     const struct smcr_device *smcr, size_t n_smcr, bool want_smcd, bool want_smcr,
		     const char *name, const struct smclo_device *lo, size_t lo_idx)
{
	size_t m_d = 0, m_r = 0, n_ports = 0;

	for (size_t i = 0; i < n_smcd; i++)
		m_d += smcd_match(&smcd[i], name);
	for (size_t i = 0; i < n_smcr; i++)
		if (smcr_match(&smcr[i], name)) {
			m_r++;
			for (unsigned p = 0; p < ELEMENTSOF(smcr[i].ports); p++)
				n_ports += smcr[i].ports[p].valid;
		}
	out_object_begin(o, NULL);
	if (want_smcd) {
		out_text(o, m_d ? "%s:\n" : "%s: none\n", "SMC-D devices");
		out_table_begin(o, "smcd", smcd_cols, ELEMENTSOF(smcd_cols), 2);
		for (size_t i = 0; i < n_smcd; i++) {
			if (!smcd_match(&smcd[i], name))
				continue;
			out_row_begin(o);
			smcd_dev_emit(o, &smcd[i], lo && i == lo_idx ? lo : NULL, true);
			out_row_end(o);
		}
		if (m_d || !out_is_text(o)) /* "none" has no header */
			out_table_end(o);
		else
			out_table_drop(o);
		if (lo)
			loopback_list_emit(o, smcd, n_smcd, lo);
	}
	if (want_smcd && want_smcr)
		out_text(o, "\n");
	if (want_smcr) {
		if (m_r && !n_ports)
			out_text(o, "SMC-R devices: present, but no port is usable\n");
		else
			out_text(o, n_ports ? "%s:\n" : "%s: none\n", "SMC-R devices");
		out_table_begin(o, "smcr", smcr_cols, ELEMENTSOF(smcr_cols), 2);
		for (size_t i = 0; i < n_smcr; i++)
			if (smcr_match(&smcr[i], name))
				smcr_dev_emit(o, &smcr[i]);
		if (n_ports || !out_is_text(o))
			out_table_end(o);
		else
			out_table_drop(o);
	}
	out_object_end(o);
	return out_sink_done(o);
}

/* ---------------------------------------------------------------------------------- */
/* Handlers                                                                            */

struct devices {
	struct smcd_device *smcd;
	size_t n_smcd;
	struct smcr_device *smcr;
	size_t n_smcr;
	struct smclo_device lo; /* when has_lo: smc_lo's, the entry smcd[lo_idx] */
	bool has_lo;
	size_t lo_idx;
};

static void devices_done(struct devices *d)
{
	free(d->smcd);
	free(d->smcr);
}

/* gids: the GIDs are shown (else they are read only where a device's link groups need them).
 * name: the device show names (smc_lo's inactive device is added when it is that one). */
static int device_fetch(struct smcctl *c, bool want_smcd, bool want_smcr, bool gids,
			const char *name, struct devices *d)
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
	/* smc_lo's state amends the SMC-D devices (cli/loopback.c; not entered without it). */
	if (want_smcd && smclo_module_loaded(nl)) {
		r = loopback_amend(c, &d->smcd, &d->n_smcd, name, &d->lo, &d->lo_idx);
		if (r < 0)
			return smcctl_oom(c);
		d->has_lo = r > 0;
	}
	return SMCCTL_EXIT_OK;
}

/* The answer into the sink of -j (streamed) or of the table's text. */
static int device_answer(struct smcctl *c, const struct devices *d, bool want_smcd, bool want_smcr)
{
	struct out_sink o;

	if (c->json)
		out_sink_json(&o, c->out, c->pretty);
	else
		out_sink_text(&o, c->out, c->detail);
	if (device_list_emit(&o, d->smcd, d->n_smcd, d->smcr, d->n_smcr, want_smcd, want_smcr, NULL,
			     d->has_lo ? &d->lo : NULL, d->lo_idx) == -ENOMEM)
		return smcctl_oom(c);
	return smcctl_flush(c);
}

int device_list(struct smcctl *c, const struct verb_args *a)
{
	bool only_d = a->opt[FILTER_OPT_SMCD], only_r = a->opt[FILTER_OPT_SMCR];
	_cleanup_(devices_done) struct devices d = {};
	int s;

	if (only_d && only_r)
		return smcctl_usage(c, "--smcd and --smcr exclude each other");
	/* The default table has no GID column: -d and -j show them. */
	if ((s = device_fetch(c, !only_r, !only_d, c->json || c->detail, NULL, &d)))
		return s;
	return device_answer(c, &d, !only_r, !only_d);
}

int device_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(devices_done) struct devices d = {};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	const char *name = a->pos[0];
	struct out_sink o;
	size_t n = 0;
	int s;

	if ((s = device_fetch(c, true, true, true, name, &d)))
		return s;
	for (size_t i = 0; i < d.n_smcd; i++)
		n += smcd_match(&d.smcd[i], name);
	for (size_t i = 0; i < d.n_smcr; i++)
		n += smcr_match(&d.smcr[i], name);
	if (n == 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "no SMC device named '%s' (see 'smcctl device list')%s", name,
				    streq(name, SMC_LO_DEFAULT_DEVNAME)
					    ? "; smclo is the device of the smc_lo module, which is "
					      "not loaded: install smc-lo-dkms or modprobe smc_lo"
					    : "");
	/* -j streamed; the blocks from the document the same emits build. */
	if (c->json)
		out_sink_json(&o, c->out, c->pretty);
	else
		out_sink_doc(&o);
	s = device_list_emit(&o, d.smcd, d.n_smcd, d.smcr, d.n_smcr, true, true, name,
			     d.has_lo ? &d.lo : NULL, d.lo_idx);
	if (s == -ENOMEM)
		return smcctl_oom(c);
	if (c->json)
		return smcctl_flush(c);
	doc = out_sink_take_doc(&o);
	if (s < 0 || !doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, device_show_text);
}
