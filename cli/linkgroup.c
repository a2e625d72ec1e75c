// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl linkgroup: SMC-D and SMC-R link groups (global: the kernel does not filter them
 * by network namespace).  IDs print as 8 hex digits, like smc-tools.  SMC-D GIDs are
 * 128 bits since 6.8 (GID + EXT_GID) and print as 32 hex digits: with DIBS (6.18+) that
 * is the device's sysfs gid without dashes, so a link group can be matched to its device.
 *
 * When smcd-agent runs, each group gets the agent's statistics of it ("agent": peak
 * connections, when the agent first saw it, whether it has Prometheus series of its own);
 * the text adds the columns Peak and Age (cli/stats-agent.c fetches them).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>

#include "cli/objects.h"
#include "common/output.h"
#include "config/units.h"

static int add_opt_u64(json_object *o, const char *key, bool has, uint64_t v)
{
	return has ? json_add_u64(o, key, v) : json_add_null(o, key);
}

static int add_gid(json_object *o, const char *key, bool has_ext, uint64_t gid, uint64_t ext)
{
	char buf[33];

	if (has_ext)
		smcd_gid_format(gid, ext, buf);
	else
		snprintf(buf, sizeof(buf), "%016" PRIx64, gid);
	return json_add_str(o, key, buf);
}

static json_object *v2_json(const struct smc_lgr_v2 *v)
{
	_cleanup_(json_object_putp) json_object *o = NULL;
	int r = 0;

	if (!v->present)
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	r |= json_add_u64(o, "version", v->ver);
	r |= json_add_u64(o, "peer_release", v->rel);
	r |= json_add_str(o, "peer_os", smc_os_name(v->os));
	r |= json_add_str(o, "negotiated_eid", v->neg_eid[0] ? v->neg_eid : NULL);
	r |= json_add_str(o, "peer_host", v->peer_host[0] ? v->peer_host : NULL);
	return r < 0 ? NULL : TAKE_PTR(o);
}

static int add_v2(json_object *o, const struct smc_lgr_v2 *v)
{
	json_object *j = v2_json(v);

	if (!j && v->present)
		return -ENOMEM;
	return j ? json_add(o, "v2", j) : json_add_null(o, "v2");
}

json_object *smcd_linkgroup_json(const struct smcd_linkgroup *g)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_u64(o, "id", g->id);
	r |= json_add_u64(o, "vlan", g->vlan_id);
	r |= json_add_u64(o, "conns", g->conns);
	r |= json_add_u64(o, "chid", g->chid);
	r |= json_add_str(o, "device", g->device[0] ? g->device : NULL);
	r |= add_gid(o, "gid", g->has_ext_gid, g->gid, g->ext_gid);
	r |= add_gid(o, "peer_gid", g->has_ext_gid, g->peer_gid, g->peer_ext_gid);
	r |= json_add_str(o, "pnetid", g->pnetid[0] ? g->pnetid : NULL);
	r |= add_opt_u64(o, "sndbuf_alloc", g->has_alloc, g->sndbuf_alloc);
	r |= add_opt_u64(o, "dmb_alloc", g->has_alloc, g->dmb_alloc);
	r |= add_v2(o, &g->v2);
	return r < 0 ? NULL : TAKE_PTR(o);
}

static json_object *smcr_link_json(const struct smcr_link *l)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= json_add_u64(o, "id", l->id);
	r |= json_add_str(o, "state", smc_link_state_name(l->state));
	r |= json_add_u64(o, "conns", l->conn_cnt);
	r |= json_add_str(o, "ib_dev", l->ib_dev[0] ? l->ib_dev : NULL);
	r |= json_add_u64(o, "ib_port", l->ib_port);
	r |= json_add_str(o, "netdev", l->netdev[0] ? l->netdev : NULL);
	r |= json_add_u64(o, "ifindex", l->netdev_ifindex);
	r |= json_add_u64(o, "uid", l->uid);
	r |= json_add_u64(o, "peer_uid", l->peer_uid);
	r |= json_add_str(o, "gid", l->gid[0] ? l->gid : NULL);
	r |= json_add_str(o, "peer_gid", l->peer_gid[0] ? l->peer_gid : NULL);
	return r < 0 ? NULL : TAKE_PTR(o);
}

json_object *smcr_linkgroup_json(const struct smcr_linkgroup *g)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *links = json_object_new_array();
	int r = 0;

	if (!o || json_add_u64(o, "id", g->id) < 0)
		return NULL;
	r |= json_add_str(o, "role", smc_lgr_role_name(g->role));
	r |= json_add_str(o, "type", smc_lgr_type_name(g->type));
	r |= json_add_u64(o, "vlan", g->vlan_id);
	r |= json_add_u64(o, "conns", g->conns);
	r |= json_add_str(o, "pnetid", g->pnetid[0] ? g->pnetid : NULL);
	r |= add_opt_u64(o, "net_cookie", g->has_net_cookie, g->net_cookie);
	r |= json_add_str(o, "buf_type", g->has_buf_type ? smc_buf_type_name(g->buf_type) : NULL);
	r |= add_opt_u64(o, "sndbuf_alloc", g->has_alloc, g->sndbuf_alloc);
	r |= add_opt_u64(o, "rmb_alloc", g->has_alloc, g->rmb_alloc);
	r |= add_v2(o, &g->v2);
	r |= g->has_v2r ? json_add_bool(o, "direct", g->direct) : json_add_null(o, "direct");
	r |= add_opt_u64(o, "max_conns", g->has_v2r, g->max_conns);
	r |= add_opt_u64(o, "max_links", g->has_v2r, g->max_links);
	r |= json_add(o, "links", links);
	for (size_t i = 0; links && i < g->n_links; i++)
		r |= json_append(links, smcr_link_json(&g->links[i]));
	return r < 0 ? NULL : TAKE_PTR(o);
}

int linkgroup_parse_id(const char *s, uint32_t *ret)
{
	return parse_hex32(s, ret);
}

/* ---------------------------------------------------------------------------------- */
/* Text                                                                                */

static const char *fmt_n_links(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	json_object *l = out_get(row, "links");

	snprintf(buf, len, "%zu", l ? json_object_array_length(l) : (size_t)0);
	return buf;
}

/* "3d", "5h", "12m", "40s": how long ago the agent first saw the group. */
static const char *fmt_age(json_object *row, const struct out_column *col, char *buf, size_t len)
{
	uint64_t first = out_get_u64(row, "agent.first_seen_usec", 0), now;
	struct timespec ts;

	if (!first)
		return NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
	now = now > first ? (now - first) / 1000000 : 0;
	if (now >= 86400)
		snprintf(buf, len, "%" PRIu64 "d", now / 86400);
	else if (now >= 3600)
		snprintf(buf, len, "%" PRIu64 "h", now / 3600);
	else if (now >= 60)
		snprintf(buf, len, "%" PRIu64 "m", now / 60);
	else
		snprintf(buf, len, "%" PRIu64 "s", now);
	return buf;
}

static const char *fmt_first_seen(json_object *row, const struct out_column *col, char *buf,
				  size_t len)
{
	time_t t = (time_t)(out_get_u64(row, "agent.first_seen_usec", 0) / 1000000);
	struct tm tm;

	if (!t || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		return NULL;
	return buf;
}

#define AGENT_COLS                                    \
	OUT_COL("agent.peak_conns", "Peak", OUT_U64), \
		OUT_COL(NULL, "Age", OUT_CUSTOM, .flags = OUT_RIGHT, .format = fmt_age)
#define AGENT_FIELDS                                                               \
	OUT_COL("agent.peak_conns", "Peak conns", OUT_U64),                        \
		OUT_COL(NULL, "First seen", OUT_CUSTOM, .format = fmt_first_seen), \
		OUT_COL("agent.own_series", "Own series", OUT_BOOL)

static const struct out_column smcd_cols[] = {
	OUT_COL("id", "LG-ID", OUT_HEX32, .flags = OUT_LEFT),
	OUT_COL("vlan", "VLAN", OUT_U64),
	OUT_COL("conns", "#Conns", OUT_U64),
	OUT_COL("chid", "CHID", OUT_HEX16),
	OUT_COL("device", "Device", OUT_STR),
	OUT_COL("pnetid", "PNET-ID", OUT_STR),
	AGENT_COLS,
};

static const struct out_column smcd_fields[] = {
	OUT_COL("id", "LG-ID", OUT_HEX32),
	OUT_COL("vlan", "VLAN", OUT_U64),
	OUT_COL("chid", "CHID", OUT_HEX16),
	OUT_COL("device", "Device", OUT_STR),
	OUT_COL("gid", "GID", OUT_STR),
	OUT_COL("peer_gid", "Peer-GID", OUT_STR),
	OUT_COL("pnetid", "PNET-ID", OUT_STR),
	OUT_COL("v2.version", "Version", OUT_U64),
	OUT_COL("v2.peer_release", "Peer-Rel", OUT_U64),
	OUT_COL("v2.peer_host", "Peer-Host", OUT_STR),
	OUT_COL("v2.peer_os", "Peer-OS", OUT_STR),
	OUT_COL("v2.negotiated_eid", "EID", OUT_STR),
	OUT_COL("conns", "#Conns", OUT_U64),
	OUT_COL("sndbuf_alloc", "Sndbuf", OUT_BYTES),
	OUT_COL("dmb_alloc", "DMB", OUT_BYTES),
	AGENT_FIELDS,
};

static const struct out_column smcr_cols[] = {
	OUT_COL("id", "LG-ID", OUT_HEX32, .flags = OUT_LEFT),
	OUT_COL("role", "Role", OUT_STR),
	OUT_COL("type", "Type", OUT_STR),
	OUT_COL("vlan", "VLAN", OUT_U64),
	OUT_COL("conns", "#Conns", OUT_U64),
	OUT_COL(NULL, "#Links", OUT_CUSTOM, .flags = OUT_RIGHT, .format = fmt_n_links),
	OUT_COL("pnetid", "PNET-ID", OUT_STR),
	AGENT_COLS,
};

static const struct out_column smcr_fields[] = {
	OUT_COL("id", "LG-ID", OUT_HEX32),
	OUT_COL("role", "Role", OUT_STR),
	OUT_COL("type", "Type", OUT_STR),
	OUT_COL("vlan", "VLAN", OUT_U64),
	OUT_COL("pnetid", "PNET-ID", OUT_STR),
	OUT_COL("net_cookie", "Netns cookie", OUT_U64),
	OUT_COL("buf_type", "Buffer type", OUT_STR),
	OUT_COL("v2.version", "Version", OUT_U64),
	OUT_COL("v2.peer_release", "Peer-Rel", OUT_U64),
	OUT_COL("v2.peer_host", "Peer-Host", OUT_STR),
	OUT_COL("v2.peer_os", "Peer-OS", OUT_STR),
	OUT_COL("v2.negotiated_eid", "EID", OUT_STR),
	OUT_COL("direct", "Direct", OUT_BOOL),
	OUT_COL("max_conns", "Max conns", OUT_U64),
	OUT_COL("max_links", "Max links", OUT_U64),
	OUT_COL("conns", "#Conns", OUT_U64),
	OUT_COL("sndbuf_alloc", "Sndbuf", OUT_BYTES),
	OUT_COL("rmb_alloc", "RMB", OUT_BYTES),
	AGENT_FIELDS,
};

static const struct out_column link_cols[] = {
	OUT_COL("id", "Link-ID", OUT_U64),
	OUT_COL("state", "State", OUT_STR, .color = out_color_state),
	OUT_COL("conns", "#Conns", OUT_U64),
	OUT_COL("netdev", "Net-Dev", OUT_STR),
	OUT_COL("ib_dev", "IB-Dev", OUT_STR),
	OUT_COL("ib_port", "IB-P", OUT_U64),
	OUT_COL("uid", "Link-UID", OUT_HEX32),
	OUT_COL("peer_uid", "Peer-UID", OUT_HEX32),
	OUT_COL("gid", "Local-GID", OUT_STR, .detail = 2),
	OUT_COL("peer_gid", "Peer-GID", OUT_STR, .detail = 2),
};

#define N_AGENT_COLS 2
#define N_AGENT_FIELDS 3

static void print_section(struct smcctl *c, const char *title, json_object *arr, bool blocks,
			  const struct out_column *cols, size_t n_cols,
			  const struct out_column *fields, size_t n_fields, bool links, bool agent)
{
	size_t n = arr ? json_object_array_length(arr) : 0;
	unsigned detail = blocks && c->detail < 1 ? 1 : c->detail;

	/* The agent's columns are the last ones: left out without an agent. */
	if (!agent) {
		n_cols -= N_AGENT_COLS;
		n_fields -= N_AGENT_FIELDS;
	}

	if (n == 0) {
		fprintf(c->out, "%s: none\n", title);
		return;
	}
	fprintf(c->out, "%s:\n", title);
	if (!blocks) {
		out_table(c->out, cols, n_cols, arr, detail, 2);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(arr, i), *l = out_get(g, "links");

		if (i)
			fputc('\n', c->out);
		out_kv(c->out, fields, n_fields, g, detail, 2);
		if (!links)
			continue;
		if (l && json_object_array_length(l)) {
			fputs("  Links:\n", c->out);
			out_table(c->out, link_cols, ELEMENTSOF(link_cols), l, detail, 4);
		} else {
			fputs("  Links: none\n", c->out);
		}
	}
}

static void print_all(struct smcctl *c, json_object *doc, bool blocks)
{
	json_object *smcd = out_get(doc, "smcd"), *smcr = out_get(doc, "smcr");
	bool agent = out_get_bool(doc, "agent", false);

	if (smcd)
		print_section(c, "SMC-D link groups", smcd, blocks, smcd_cols, ELEMENTSOF(smcd_cols),
			      smcd_fields, ELEMENTSOF(smcd_fields), false, agent);
	if (smcd && smcr)
		fputc('\n', c->out);
	if (smcr)
		print_section(c, "SMC-R link groups", smcr, blocks, smcr_cols, ELEMENTSOF(smcr_cols),
			      smcr_fields, ELEMENTSOF(smcr_fields), true, agent);
}

/* A table; with -d the smc-tools -d layout, one block per link group. */
void linkgroup_list_text(struct smcctl *c, json_object *doc)
{
	print_all(c, doc, c->detail > 0);
}

void linkgroup_show_text(struct smcctl *c, json_object *doc)
{
	print_all(c, doc, true);
}

/*
 * `smcctl linkgroup` as it is mostly run (the tables, no -d, no agent): drawn from the
 * kernel's structs into out_table_cells(), which lays them out as out_table() lays out the
 * document, so this text needs no json-c (cli/dl.c loads it on first use: mapping it, and
 * building and freeing the document, were a third of the verb's instructions).
 * test-cli-rows-text holds it equal to linkgroup_list_text() of the document for every
 * recording.  The cells follow the columns (and their formats) by position.
 */
static const char *smcd_cell(const struct smcd_linkgroup *g, size_t i, char *buf, size_t len)
{
	enum out_fmt f = smcd_cols[i].fmt;

	static_assert(ELEMENTSOF(smcd_cols) == 6 + N_AGENT_COLS, "smcd_cell() knows the columns");
	switch (i) {
	case 0:
		return out_fmt_uint(g->id, f, buf, len);
	case 1:
		return out_fmt_uint(g->vlan_id, f, buf, len);
	case 2:
		return out_fmt_uint(g->conns, f, buf, len);
	case 3:
		return out_fmt_uint(g->chid, f, buf, len);
	case 4:
		return out_fmt_str(g->device);
	default:
		return out_fmt_str(g->pnetid);
	}
}

static const char *smcr_cell(const struct smcr_linkgroup *g, size_t i, char *buf, size_t len)
{
	enum out_fmt f = smcr_cols[i].fmt;

	static_assert(ELEMENTSOF(smcr_cols) == 7 + N_AGENT_COLS, "smcr_cell() knows the columns");
	switch (i) {
	case 0:
		return out_fmt_uint(g->id, f, buf, len);
	case 1:
		return out_fmt_str(smc_lgr_role_name(g->role));
	case 2:
		return out_fmt_str(smc_lgr_type_name(g->type));
	case 3:
		return out_fmt_uint(g->vlan_id, f, buf, len);
	case 4:
		return out_fmt_uint(g->conns, f, buf, len);
	case 5:
		return out_fmt_uint(g->n_links, OUT_U64, buf, len);
	default:
		return out_fmt_str(g->pnetid);
	}
}

int linkgroup_rows_text(struct smcctl *c, const struct smcd_linkgroup *smcd, size_t n_smcd,
			const struct smcr_linkgroup *smcr, size_t n_smcr, bool want_smcd,
			bool want_smcr)
{
	_cleanup_(out_cells_done) struct out_cells d = {}, r = {};
	const size_t n_d = ELEMENTSOF(smcd_cols) - N_AGENT_COLS;
	const size_t n_r = ELEMENTSOF(smcr_cols) - N_AGENT_COLS;
	char buf[256];

	for (size_t g = 0; want_smcd && g < n_smcd; g++)
		for (size_t i = 0; i < n_d; i++)
			if (out_cells_add(&d, smcd_cell(&smcd[g], i, buf, sizeof(buf))) < 0)
				return -ENOMEM;
	for (size_t g = 0; want_smcr && g < n_smcr; g++)
		for (size_t i = 0; i < n_r; i++)
			if (out_cells_add(&r, smcr_cell(&smcr[g], i, buf, sizeof(buf))) < 0)
				return -ENOMEM;
	if (want_smcd &&
	    out_section_cells(c->out, "SMC-D link groups", smcd_cols, n_d, &d, n_smcd, 0) < 0)
		return -ENOMEM;
	if (want_smcd && want_smcr)
		fputc('\n', c->out);
	if (want_smcr &&
	    out_section_cells(c->out, "SMC-R link groups", smcr_cols, n_r, &r, n_smcr, 0) < 0)
		return -ENOMEM;
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Handlers                                                                            */

struct linkgroups {
	struct smcd_linkgroup *smcd;
	size_t n_smcd;
	struct smcr_linkgroup *smcr;
	size_t n_smcr;
};

static void linkgroups_done(struct linkgroups *l)
{
	free(l->smcd);
	smcr_linkgroup_list_free(l->smcr, l->n_smcr);
}

static int fetch(struct smcctl *c, bool want_smcd, bool want_smcr, struct linkgroups *l)
{
	struct smcnl *nl;
	int r, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	if (want_smcd && (r = smcd_linkgroup_list(nl, &l->smcd, &l->n_smcd)) < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot list the SMC-D link groups");
	if (want_smcr && (r = smcr_linkgroup_list(nl, true, &l->smcr, &l->n_smcr)) < 0)
		return smcctl_fail(c, SMC_OP_QUERY, r, "cannot list the SMC-R link groups");
	return SMCCTL_EXIT_OK;
}

/*
 * The low byte of an SMC-R id numbers the links of a group (the kernel steps group ids by
 * 256), so a link's id given to "show" selects its group, as in smc-tools.
 */
/* The agent's statistics of one group, from GetStatistics()'s linkgroup_list. */
static json_object *agent_group(json_object *agent, const char *tech, uint32_t id)
{
	json_object *list = out_get(agent, "linkgroup_list");
	size_t n = list && json_object_is_type(list, json_type_array)
			   ? json_object_array_length(list)
			   : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(list, i);
		_cleanup_(json_object_putp) json_object *o = NULL;

		if (!streq_ptr(out_get_str(g, "technology", NULL), tech) ||
		    out_get_u64(g, "id", UINT64_MAX) != id)
			continue;
		o = json_object_new_object();
		if (!o || json_add_u64(o, "peak_conns", out_get_u64(g, "peak_conns", 0)) < 0 ||
		    json_add_u64(o, "first_seen_usec", out_get_u64(g, "first_seen_usec", 0)) < 0 ||
		    json_add_bool(o, "own_series", out_get_bool(g, "own_series", false)) < 0)
			return NULL;
		return TAKE_PTR(o);
	}
	return NULL;
}

static int append_group(json_object *arr, json_object *g, json_object *agent, const char *tech,
			uint32_t id)
{
	json_object *s;

	if (!g)
		return -ENOMEM;
	if (agent) {
		s = agent_group(agent, tech, id);
		/* A group newer than the agent's last look has no statistics yet: null. */
		if (s ? json_add(g, "agent", s) < 0 : json_add_null(g, "agent") < 0) {
			json_object_put(g);
			return -ENOMEM;
		}
	}
	return json_append(arr, g);
}

static json_object *linkgroups_json(const struct linkgroups *l, bool want_smcd, bool want_smcr,
				    const uint32_t *id, json_object *agent, size_t *ret_matches)
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
	for (size_t i = 0; i < l->n_smcd; i++)
		if (!id || l->smcd[i].id == *id) {
			r |= append_group(smcd, smcd_linkgroup_json(&l->smcd[i]), agent, "smcd",
					  l->smcd[i].id);
			(*ret_matches)++;
		}
	for (size_t i = 0; i < l->n_smcr; i++)
		if (!id || l->smcr[i].id == *id || l->smcr[i].id == (*id & 0xffffff00u)) {
			r |= append_group(smcr, smcr_linkgroup_json(&l->smcr[i]), agent, "smcr",
					  l->smcr[i].id);
			(*ret_matches)++;
		}
	if (agent)
		r |= json_add_bool(o, "agent", true);
	return r < 0 ? NULL : TAKE_PTR(o);
}

int linkgroup_list_with(struct smcctl *c, const struct verb_args *a, json_object *agent)
{
	bool only_d = a->opt[FILTER_OPT_SMCD], only_r = a->opt[FILTER_OPT_SMCR];
	_cleanup_(linkgroups_done) struct linkgroups l = {};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	size_t n;
	int s;

	if (only_d && only_r)
		return smcctl_usage(c, "--smcd and --smcr exclude each other");
	if ((s = fetch(c, !only_r, !only_d, &l)))
		return s;
	if (!c->json && !agent && c->detail == 0) {
		if (linkgroup_rows_text(c, l.smcd, l.n_smcd, l.smcr, l.n_smcr, !only_r, !only_d) < 0)
			return smcctl_oom(c);
		return smcctl_emit(c, NULL, NULL);
	}
	doc = linkgroups_json(&l, !only_r, !only_d, NULL, agent, &n);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, linkgroup_list_text);
}

int linkgroup_show_with(struct smcctl *c, const struct verb_args *a, json_object *agent)
{
	_cleanup_(linkgroups_done) struct linkgroups l = {};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	bool all = a->n_pos == 0 || streq(a->pos[0], "all");
	uint32_t id = 0;
	size_t n;
	int s;

	if (!all && linkgroup_parse_id(a->pos[0], &id) < 0)
		return smcctl_usage(c, "invalid link group ID '%s': expected up to 8 hex digits",
				    a->pos[0]);
	if ((s = fetch(c, true, true, &l)))
		return s;
	doc = linkgroups_json(&l, true, true, all ? NULL : &id, agent, &n);
	if (!doc)
		return smcctl_oom(c);
	if (!all && n == 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "no link group %08x (see 'smcctl linkgroup list')", id);
	return smcctl_emit(c, doc, linkgroup_show_text);
}

int linkgroup_list(struct smcctl *c, const struct verb_args *a)
{
	return linkgroup_list_with(c, a, NULL);
}

int linkgroup_show(struct smcctl *c, const struct verb_args *a)
{
	return linkgroup_show_with(c, a, NULL);
}
