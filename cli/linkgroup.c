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

#include "cli/verbs.h"
#include "common/clock.h"
#include "common/output.h"
#include "config/units.h"

int linkgroup_parse_id(const char *s, uint32_t *ret)
{
	return parse_hex32(s, ret);
}

/* ---------------------------------------------------------------------------------- */
/* Text                                                                                */

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
		OUT_COL("agent.first_seen_usec", "Age", OUT_STR, .flags = OUT_RIGHT)
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
	OUT_COL("links", "#Links", OUT_STR, .flags = OUT_RIGHT),
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
	OUT_COL("state", "State", OUT_STR, .color = OUT_COLOR_STATE),
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

/* One block per link group (-d, show): the smc-tools -d layout, from the document. */
static void print_section(struct smcctl *c, const char *title, json_object *arr,
			  const struct out_column *fields, size_t n_fields, bool links, bool agent)
{
	size_t n = arr ? json_object_array_length(arr) : 0;
	unsigned detail = c->detail < 1 ? 1 : c->detail;

	/* The agent's fields are the last ones: left out without an agent. */
	if (!agent)
		n_fields -= N_AGENT_FIELDS;
	if (n == 0) {
		fprintf(c->out, "%s: none\n", title);
		return;
	}
	fprintf(c->out, "%s:\n", title);
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

void linkgroup_blocks_text(struct smcctl *c, json_object *doc)
{
	json_object *smcd = out_get(doc, "smcd"), *smcr = out_get(doc, "smcr");
	bool agent = out_get_bool(doc, "agent", false);

	if (smcd)
		print_section(c, "SMC-D link groups", smcd, smcd_fields, ELEMENTSOF(smcd_fields),
			      false, agent);
	if (smcd && smcr)
		fputc('\n', c->out);
	if (smcr)
		print_section(c, "SMC-R link groups", smcr, smcr_fields, ELEMENTSOF(smcr_fields),
			      true, agent);
}

/* ---------------------------------------------------------------------------------- */
/* The answer: each field once, into a sink (common/output.h)                         */

enum { LD_ID, LD_VLAN, LD_CONNS, LD_CHID, LD_DEVICE, LD_PNETID, LD_PEAK, LD_AGE };
enum { LR_ID, LR_ROLE, LR_TYPE, LR_VLAN, LR_CONNS, LR_LINKS, LR_PNETID, LR_PEAK, LR_AGE };
static_assert(ELEMENTSOF(smcd_cols) == LD_AGE + 1, "smcd_cols[] and LD_* agree");
static_assert(ELEMENTSOF(smcr_cols) == LR_AGE + 1, "smcr_cols[] and LR_* agree");

static void opt_u64(struct out_sink *o, const char *key, bool has, uint64_t v)
{
	if (has)
		out_u64(o, key, OUT_NO_COL, v);
	else
		out_null(o, key, OUT_NO_COL);
}

static void gid_emit(struct out_sink *o, const char *key, bool has_ext, uint64_t gid, uint64_t ext)
{
	char buf[33];

	if (out_is_text(o))
		return;
	if (has_ext)
		smcd_gid_format(gid, ext, buf);
	else
		snprintf(buf, sizeof(buf), "%016" PRIx64, gid);
	out_str(o, key, OUT_NO_COL, buf);
}

static const char *str_or_null(const char *s)
{
	return s[0] ? s : NULL;
}

static void v2_emit(struct out_sink *o, const struct smc_lgr_v2 *v)
{
	if (!v->present) {
		out_null(o, "v2", OUT_NO_COL);
		return;
	}
	out_object_begin(o, "v2");
	out_u64(o, "version", OUT_NO_COL, v->ver);
	out_u64(o, "peer_release", OUT_NO_COL, v->rel);
	out_str(o, "peer_os", OUT_NO_COL, smc_os_name(v->os));
	out_str(o, "negotiated_eid", OUT_NO_COL, str_or_null(v->neg_eid));
	out_str(o, "peer_host", OUT_NO_COL, str_or_null(v->peer_host));
	out_object_end(o);
}

static void smcd_group_emit(struct out_sink *o, const struct smcd_linkgroup *g)
{
	out_u64(o, "id", LD_ID, g->id);
	out_u64(o, "vlan", LD_VLAN, g->vlan_id);
	out_u64(o, "conns", LD_CONNS, g->conns);
	out_u64(o, "chid", LD_CHID, g->chid);
	out_str(o, "device", LD_DEVICE, str_or_null(g->device));
	gid_emit(o, "gid", g->has_ext_gid, g->gid, g->ext_gid);
	gid_emit(o, "peer_gid", g->has_ext_gid, g->peer_gid, g->peer_ext_gid);
	out_str(o, "pnetid", LD_PNETID, str_or_null(g->pnetid));
	opt_u64(o, "sndbuf_alloc", g->has_alloc, g->sndbuf_alloc);
	opt_u64(o, "dmb_alloc", g->has_alloc, g->dmb_alloc);
	v2_emit(o, &g->v2);
}

static void smcr_link_emit(struct out_sink *o, const struct smcr_link *l)
{
	out_object_begin(o, NULL);
	out_u64(o, "id", OUT_NO_COL, l->id);
	out_str(o, "state", OUT_NO_COL, smc_link_state_name(l->state));
	out_u64(o, "conns", OUT_NO_COL, l->conn_cnt);
	out_str(o, "ib_dev", OUT_NO_COL, str_or_null(l->ib_dev));
	out_u64(o, "ib_port", OUT_NO_COL, l->ib_port);
	out_str(o, "netdev", OUT_NO_COL, str_or_null(l->netdev));
	out_u64(o, "ifindex", OUT_NO_COL, l->netdev_ifindex);
	out_u64(o, "uid", OUT_NO_COL, l->uid);
	out_u64(o, "peer_uid", OUT_NO_COL, l->peer_uid);
	out_str(o, "gid", OUT_NO_COL, str_or_null(l->gid));
	out_str(o, "peer_gid", OUT_NO_COL, str_or_null(l->peer_gid));
	out_object_end(o);
}

static void smcr_group_emit(struct out_sink *o, const struct smcr_linkgroup *g)
{
	char buf[24];

	out_u64(o, "id", LR_ID, g->id);
	out_str(o, "role", LR_ROLE, smc_lgr_role_name(g->role));
	out_str(o, "type", LR_TYPE, smc_lgr_type_name(g->type));
	out_u64(o, "vlan", LR_VLAN, g->vlan_id);
	out_u64(o, "conns", LR_CONNS, g->conns);
	out_str(o, "pnetid", LR_PNETID, str_or_null(g->pnetid));
	opt_u64(o, "net_cookie", g->has_net_cookie, g->net_cookie);
	out_str(o, "buf_type", OUT_NO_COL, g->has_buf_type ? smc_buf_type_name(g->buf_type) : NULL);
	opt_u64(o, "sndbuf_alloc", g->has_alloc, g->sndbuf_alloc);
	opt_u64(o, "rmb_alloc", g->has_alloc, g->rmb_alloc);
	v2_emit(o, &g->v2);
	if (g->has_v2r)
		out_bool(o, "direct", OUT_NO_COL, g->direct);
	else
		out_null(o, "direct", OUT_NO_COL);
	opt_u64(o, "max_conns", g->has_v2r, g->max_conns);
	opt_u64(o, "max_links", g->has_v2r, g->max_links);
	out_array_begin(o, "links");
	for (size_t i = 0; !out_is_text(o) && i < g->n_links; i++)
		smcr_link_emit(o, &g->links[i]);
	out_array_end(o);
	if (out_text_wants(o, LR_LINKS))
		out_cell(o, LR_LINKS, out_fmt_dec(g->n_links, buf, sizeof(buf)));
}

/* "3d", "5h", "12m", "40s": how long ago the agent first saw the group. */
static const char *age_text(uint64_t first, char *buf, size_t len)
{
	struct timespec ts;
	uint64_t now;

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

/* The agent's statistics of one group, from GetStatistics()'s linkgroup_list. */
static json_object *agent_group(json_object *agent, const char *tech, uint32_t id)
{
	json_object *list = out_get(agent, "linkgroup_list");
	size_t n = list && json_object_is_type(list, json_type_array)
			   ? json_object_array_length(list)
			   : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(list, i);

		if (streq_ptr(out_get_str(g, "technology", NULL), tech) &&
		    out_get_u64(g, "id", UINT64_MAX) == id)
			return g;
	}
	return NULL;
}

/* "agent": {peak_conns, first_seen_usec, own_series}; null for a group newer than the
 * agent's last look.  Text: the columns Peak and Age. */
static void agent_emit(struct out_sink *o, json_object *agent, const char *tech, uint32_t id,
		       int col_peak, int col_age)
{
	json_object *g = agent_group(agent, tech, id);
	uint64_t first = out_get_u64(g, "first_seen_usec", 0);
	char buf[32];

	if (!g) {
		out_null(o, "agent", col_peak);
		return;
	}
	out_object_begin(o, "agent");
	out_u64(o, "peak_conns", col_peak, out_get_u64(g, "peak_conns", 0));
	out_u64(o, "first_seen_usec", OUT_NO_COL, first);
	out_bool(o, "own_series", OUT_NO_COL, out_get_bool(g, "own_series", false));
	out_object_end(o);
	if (out_text_wants(o, col_age))
		out_cell(o, col_age, age_text(first, buf, sizeof(buf)));
}

static bool smcr_matches(const struct smcr_linkgroup *g, const uint32_t *id)
{
	return !id || g->id == *id || g->id == (*id & 0xffffff00u);
}

int linkgroup_list_emit(struct out_sink *o, const struct smcd_linkgroup *smcd, size_t n_smcd,
			const struct smcr_linkgroup *smcr, size_t n_smcr, bool want_smcd,
			bool want_smcr, const uint32_t *id, json_object *agent)
{
	size_t m_d = 0, m_r = 0;

	for (size_t i = 0; i < n_smcd; i++)
		m_d += !id || smcd[i].id == *id;
	for (size_t i = 0; i < n_smcr; i++)
		m_r += smcr_matches(&smcr[i], id);
	out_object_begin(o, NULL);
	if (want_smcd) {
		out_text(o, m_d ? "%s:\n" : "%s: none\n", "SMC-D link groups");
		/* the agent's columns are the last ones: left out without an agent */
		out_table_begin(o, "smcd", smcd_cols,
				ELEMENTSOF(smcd_cols) - (agent ? 0 : N_AGENT_COLS), 2);
		for (size_t i = 0; i < n_smcd; i++) {
			if (id && smcd[i].id != *id)
				continue;
			out_row_begin(o);
			smcd_group_emit(o, &smcd[i]);
			if (agent)
				agent_emit(o, agent, "smcd", smcd[i].id, LD_PEAK, LD_AGE);
			out_row_end(o);
		}
		if (m_d || !out_is_text(o)) /* "none" has no header */
			out_table_end(o);
		else
			out_table_drop(o);
	}
	if (want_smcd && want_smcr)
		out_text(o, "\n");
	if (want_smcr) {
		out_text(o, m_r ? "%s:\n" : "%s: none\n", "SMC-R link groups");
		out_table_begin(o, "smcr", smcr_cols,
				ELEMENTSOF(smcr_cols) - (agent ? 0 : N_AGENT_COLS), 2);
		for (size_t i = 0; i < n_smcr; i++) {
			if (!smcr_matches(&smcr[i], id))
				continue;
			out_row_begin(o);
			smcr_group_emit(o, &smcr[i]);
			if (agent)
				agent_emit(o, agent, "smcr", smcr[i].id, LR_PEAK, LR_AGE);
			out_row_end(o);
		}
		if (m_r || !out_is_text(o))
			out_table_end(o);
		else
			out_table_drop(o);
	}
	if (agent)
		out_bool(o, "agent", OUT_NO_COL, true);
	out_object_end(o);
	return out_sink_done(o);
}

json_object *smcd_linkgroup_json(const struct smcd_linkgroup *g)
{
	struct out_sink o;

	out_sink_doc(&o);
	out_object_begin(&o, NULL);
	smcd_group_emit(&o, g);
	out_object_end(&o);
	out_sink_done(&o);
	return out_sink_take_doc(&o);
}

json_object *smcr_linkgroup_json(const struct smcr_linkgroup *g)
{
	struct out_sink o;

	out_sink_doc(&o);
	out_object_begin(&o, NULL);
	smcr_group_emit(&o, g);
	out_object_end(&o);
	out_sink_done(&o);
	return out_sink_take_doc(&o);
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

static int linkgroup_fetch(struct smcctl *c, bool want_smcd, bool want_smcr, struct linkgroups *l)
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
 * The answer into a sink: the tables as text, or streamed JSON; the blocks (-d, show) are
 * drawn from the document the same emits build (the document sink).
 */
static int answer(struct smcctl *c, const struct linkgroups *l, bool want_smcd, bool want_smcr,
		  const uint32_t *id, json_object *agent, bool blocks)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct out_sink o;
	int r;

	if (c->json || !blocks) {
		if (c->json)
			out_sink_json(&o, c->out, c->pretty);
		else
			out_sink_text(&o, c->out, c->detail);
		r = linkgroup_list_emit(&o, l->smcd, l->n_smcd, l->smcr, l->n_smcr, want_smcd,
					want_smcr, id, agent);
		if (r == -ENOMEM)
			return smcctl_oom(c);
		return smcctl_flush(c);
	}
	out_sink_doc(&o);
	r = linkgroup_list_emit(&o, l->smcd, l->n_smcd, l->smcr, l->n_smcr, want_smcd, want_smcr,
				id, agent);
	doc = out_sink_take_doc(&o);
	if (r < 0 || !doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, linkgroup_blocks_text);
}

int linkgroup_list_with(struct smcctl *c, const struct verb_args *a, json_object *agent)
{
	bool only_d = a->opt[FILTER_OPT_SMCD], only_r = a->opt[FILTER_OPT_SMCR];
	_cleanup_(linkgroups_done) struct linkgroups l = {};
	int s;

	if (only_d && only_r)
		return smcctl_usage(c, "--smcd and --smcr exclude each other");
	if ((s = linkgroup_fetch(c, !only_r, !only_d, &l)))
		return s;
	/* a table; with -d the smc-tools -d layout, one block per link group */
	return answer(c, &l, !only_r, !only_d, NULL, agent, c->detail > 0);
}

int linkgroup_show_with(struct smcctl *c, const struct verb_args *a, json_object *agent)
{
	_cleanup_(linkgroups_done) struct linkgroups l = {};
	bool all = a->n_pos == 0 || streq(a->pos[0], "all");
	uint32_t id = 0;
	size_t n = 0;
	int s;

	if (!all && linkgroup_parse_id(a->pos[0], &id) < 0)
		return smcctl_usage(c, "invalid link group ID '%s': expected up to 8 hex digits",
				    a->pos[0]);
	if ((s = linkgroup_fetch(c, true, true, &l)))
		return s;
	/*
	 * The low byte of an SMC-R id numbers the links of a group (the kernel steps group
	 * ids by 256), so a link's id given to "show" selects its group, as in smc-tools.
	 */
	for (size_t i = 0; !all && i < l.n_smcd; i++)
		n += l.smcd[i].id == id;
	for (size_t i = 0; !all && i < l.n_smcr; i++)
		n += smcr_matches(&l.smcr[i], &id);
	if (!all && n == 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "no link group %08x (see 'smcctl linkgroup list')", id);
	return answer(c, &l, true, true, all ? NULL : &id, agent, true);
}

int linkgroup_list(struct smcctl *c, const struct verb_args *a)
{
	return linkgroup_list_with(c, a, NULL);
}

int linkgroup_show(struct smcctl *c, const struct verb_args *a)
{
	return linkgroup_show_with(c, a, NULL);
}
