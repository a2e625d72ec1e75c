// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sections of smc.yaml with code of their own but no file of their own: ueid:,
 * handshake-limitation:, sysctl:, pnet:, modules:, stats.netns, with their dumps and the
 * lists' built-in defaults.  Called by the key table (keys.c) and config.c; calls only the
 * toolkit (ytree.c) and the value syntax (units.c).  policies: and loopback: have files of
 * their own (policy.c, loopback.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/util.h"
#include "config/config.h"
#include "config/keys.h"
#include "config/sections.h"
#include "config/ytree.h"

/* ------------------------------------------------------------------------------------- */
/* ueid:                                                                                  */

int ueid_entries(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const struct ynode *seq = get_seq(ctx, v, "ueid.entries", "UEIDs");
	struct config *c = ctx->config;
	int ret = 0;

	if (!seq)
		return -EINVAL;
	c->ueid.mark = k->mark;
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *e = seq->items[i];
		const char *s = get_scalar(ctx, e, "ueid.entries", "a UEID such as SMC-HOSTS-A");
		char padded[SMC_EID_LEN + 1];
		const char *reason = NULL;
		struct config_ueid *u;
		bool dup = false;

		if (!s) {
			ret = -EINVAL;
			continue;
		}
		if (smc_ueid_validate(s, padded, &reason) < 0) {
			error_at(ctx, e->mark,
				 "ueid.entries: '%s' is not a valid UEID: %s (expected up to 32 upper-case letters, digits, '.' or '-')",
				 s, reason ? reason : "rejected");
			ret = -EINVAL;
			continue;
		}
		strstrip_trailing(padded);
		for (size_t j = 0; j < c->ueid.n_entries; j++)
			if (streq(c->ueid.entries[j].ueid, padded)) {
				error_at(ctx, e->mark,
					 "ueid.entries: duplicate UEID '%s' (first given at line %u, column %u)",
					 padded, c->ueid.entries[j].mark.line,
					 c->ueid.entries[j].mark.column);
				dup = true;
			}
		if (dup) {
			ret = -EINVAL;
			continue;
		}
		if (c->ueid.n_entries >= SMC_UEID_MAX) {
			error_at(ctx, e->mark,
				 "ueid.entries: too many UEIDs (expected at most %d: the kernel's table holds %d)",
				 SMC_UEID_MAX, SMC_UEID_MAX);
			ret = -EINVAL;
			continue;
		}
		u = &c->ueid.entries[c->ueid.n_entries++];
		snprintf(u->ueid, sizeof(u->ueid), "%s", padded);
		u->mark = e->mark;
	}
	return ret;
}

void ueid_entries_dump(FILE *f, const struct config *c)
{
	fprintf(f, "  entries: [");
	for (size_t i = 0; i < c->ueid.n_entries; i++)
		fprintf(f, "%s%s", i ? ", " : "", c->ueid.entries[i].ueid);
	fprintf(f, "]\n");
}

int section_ueid(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	int r = config_keys_parse(ctx, v, "ueid");
	struct config *c = ctx->config;

	if (r == 0 && c->ueid.auto_derive && c->ueid.n_entries >= SMC_UEID_MAX) {
		error_at(ctx, c->ueid.mark,
			 "ueid: %zu entries and the derived UEID are too many (expected at most %d in all; set auto: false or remove one)",
			 c->ueid.n_entries, SMC_UEID_MAX);
		r = -EINVAL;
	}
	return r;
}

/* ------------------------------------------------------------------------------------- */
/* seid:, handshake-limitation:                                                           */

/* YAML's booleans plus "leave": the limitation is a flag, so true/false read naturally. */
int hs_limitation_parse(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const char *s = get_scalar(ctx, v, "handshake-limitation", "leave, true or false");
	bool b;

	if (!s)
		return -EINVAL;
	if (streq(s, "leave"))
		ctx->config->hs_limitation = CONFIG_LEAVE;
	else if (parse_bool(s, &b) == 0)
		ctx->config->hs_limitation = b ? CONFIG_ENABLE : CONFIG_DISABLE;
	else {
		error_at(ctx, v->mark,
			 "handshake-limitation: '%s' is not a valid value (expected leave, true or false)",
			 s);
		return -EINVAL;
	}
	ctx->config->hs_limitation_mark = v->mark;
	return 0;
}

void hs_limitation_dump(FILE *f, const struct config *c)
{
	fprintf(f, "handshake-limitation: %s\n",
		c->hs_limitation == CONFIG_LEAVE    ? "leave"
		: c->hs_limitation == CONFIG_ENABLE ? "true"
						    : "false");
}

/* ------------------------------------------------------------------------------------- */
/* sysctl:                                                                                */

static int sysctl_value(struct ctx *ctx, const struct smc_sysctl_desc *d, const struct ynode *v,
			struct config_sysctl *ret)
{
	char key[80], expected[160];
	const char *s;
	int r;

	snprintf(key, sizeof(key), "sysctl.%s", d->name);
	sysctl_value_expected(d, expected, sizeof(expected));
	s = get_scalar(ctx, v, key, expected);
	if (!s)
		return -EINVAL;
	ret->desc = d;
	ret->mark = v->mark;
	r = sysctl_parse_value(d, s, &ret->value, expected, sizeof(expected));
	if (r == -ERANGE && d->unit != SMC_UNIT_STRING) {
		error_at(ctx, v->mark, "%s: %s is out of range (expected %s)", key, s, expected);
		return -EINVAL;
	}
	if (r < 0) {
		char hint[64] = "";

		if (d->unit == SMC_UNIT_BYTES)
			size_hint(s, hint, sizeof(hint));
		error_at(ctx, v->mark, "%s: '%s' is not valid (expected %s)%s", key, s, expected,
			 hint);
		return -EINVAL;
	}
	if (d->unit == SMC_UNIT_STRING) {
		ret->string = strdup(s);
		return ret->string ? 0 : -ENOMEM;
	}
	return 0;
}

static int sysctl_entry(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const struct smc_sysctl_desc *d = smc_sysctl_find(k->value);
	struct config *c = ctx->config;
	struct config_sysctl *a, e = {};
	int r;

	/*
	 * limit_smc_hs is the same kernel variable as the netlink handshake limitation.  One
	 * key only, so two lines can never disagree: handshake-limitation, because the netlink
	 * control exists on every SMC kernel (the sysctl only since 6.12) and the sysctl writes
	 * an int into a bool, which is wrong on big-endian machines.
	 */
	if (d && streq(d->name, "limit_smc_hs")) {
		error_at(ctx, k->mark,
			 "sysctl: limit_smc_hs is set with the top-level key handshake-limitation (expected handshake-limitation: true|false|leave)");
		return -EINVAL;
	}
	if (!d) {
		size_t n;
		const struct smc_sysctl_desc *t = smc_sysctl_table(&n);
		char names[512];
		size_t o = 0;

		names[0] = '\0';
		for (size_t i = 0; i < n && o < sizeof(names); i++)
			if (!streq(t[i].name, "limit_smc_hs"))
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s",
						      o ? ", " : "", t[i].name);
		error_at(ctx, k->mark, "sysctl: unknown sysctl '%s' (expected one of: %s)",
			 k->value, names);
		return -EINVAL;
	}
	r = sysctl_value(ctx, d, v, &e);
	if (r < 0)
		return r;
	a = realloc(c->sysctls, (c->n_sysctls + 1) * sizeof(*a));
	if (!a) {
		free(e.string);
		return -ENOMEM;
	}
	c->sysctls = a;
	c->sysctls[c->n_sysctls++] = e;
	return 0;
}

static const struct key_handler sysctl_keys[] = {
	{ "*", sysctl_entry },
};

static void sysctls_clear(struct config *c)
{
	for (size_t i = 0; i < c->n_sysctls; i++)
		free(c->sysctls[i].string);
	free(c->sysctls);
	c->sysctls = NULL;
	c->n_sysctls = 0;
}

/* A sysctl: section replaces the built-in one: what the file shows is all that is managed. */
int section_sysctl(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	sysctls_clear(ctx->config);
	return parse_map(ctx, v, "sysctl", sysctl_keys, ELEMENTSOF(sysctl_keys));
}

const struct config_sysctl *config_find_sysctl(const struct config *c, const char *name)
{
	for (size_t i = 0; i < c->n_sysctls; i++)
		if (streq(c->sysctls[i].desc->name, name))
			return &c->sysctls[i];
	return NULL;
}

/* ------------------------------------------------------------------------------------- */
/* pnet:                                                                                  */

static int pnet_pnetid(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
static int pnet_eth(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
static int pnet_ib(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
static int pnet_port(struct ctx *ctx, const struct ynode *k, const struct ynode *v);

static const struct key_handler pnet_entry_keys[] = {
	{ "pnetid", pnet_pnetid },
	{ "eth", pnet_eth },
	{ "ib", pnet_ib },
	{ "port", pnet_port },
};

/* The entry being parsed is the last one of the array. */
static struct config_pnet *pnet_current(struct ctx *ctx)
{
	return &ctx->config->pnet.entries[ctx->config->pnet.n_entries - 1];
}

static int pnet_pnetid(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const char *s =
		get_scalar(ctx, v, "pnet.entries.pnetid", "a PNET ID of 1 to 16 letters or digits");
	const char *reason = NULL;

	if (!s)
		return -EINVAL;
	if (smc_pnetid_validate(s, pnet_current(ctx)->pnetid, &reason) < 0) {
		error_at(ctx, v->mark,
			 "pnet.entries.pnetid: '%s' is not a valid PNET ID: %s (expected 1 to 16 letters or digits)",
			 s, reason ? reason : "rejected");
		return -EINVAL;
	}
	return 0;
}

static int pnet_name(struct ctx *ctx, const struct ynode *v, const char *key, char *dst, size_t max)
{
	const char *s = get_scalar(ctx, v, key, "a device name");

	if (!s)
		return -EINVAL;
	if (strlen(s) >= max || strpbrk(s, " /\t")) {
		error_at(ctx, v->mark,
			 "%s: '%s' is not a valid device name (expected at most %zu characters, no blanks or '/')",
			 key, s, max - 1);
		return -EINVAL;
	}
	snprintf(dst, max, "%s", s);
	return 0;
}

static int pnet_eth(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	return pnet_name(ctx, v, "pnet.entries.eth", pnet_current(ctx)->eth, IF_NAMESIZE);
}

static int pnet_ib(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	return pnet_name(ctx, v, "pnet.entries.ib", pnet_current(ctx)->ib, SMC_IB_NAME_LEN);
}

static int pnet_port(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const char *s = get_scalar(ctx, v, "pnet.entries.port", "1 or 2");

	if (!s)
		return -EINVAL;
	if (!streq(s, "1") && !streq(s, "2")) {
		error_at(ctx, v->mark,
			 "pnet.entries.port: '%s' is not a valid port (expected 1 or 2)", s);
		return -EINVAL;
	}
	pnet_current(ctx)->port = (uint8_t)(s[0] - '0');
	return 0;
}

static bool pnet_same(const struct config_pnet *a, const struct config_pnet *b)
{
	return streq(a->pnetid, b->pnetid) && streq(a->eth, b->eth) && streq(a->ib, b->ib) &&
	       a->port == b->port;
}

static int pnet_check_entry(struct ctx *ctx, const struct ynode *item)
{
	struct config *c = ctx->config;
	struct config_pnet *p = pnet_current(ctx);
	bool has_port = false;

	for (size_t i = 0; i < item->n_items; i += 2)
		if (item->items[i]->type == YNODE_SCALAR && streq(item->items[i]->value, "port"))
			has_port = true;
	if (!p->pnetid[0]) {
		error_at(ctx, item->mark,
			 "pnet.entries: entry without pnetid (expected pnetid: NAME)");
		return -EINVAL;
	}
	if (!!p->eth[0] == !!p->ib[0]) {
		error_at(ctx, item->mark,
			 "pnet.entries: entry needs exactly one of eth or ib (expected eth: NETDEV, or ib: DEVICE with an optional port)");
		return -EINVAL;
	}
	if (p->eth[0] && has_port) {
		error_at(ctx, item->mark,
			 "pnet.entries: port is only valid with ib (expected no port for an eth entry)");
		return -EINVAL;
	}
	if (p->ib[0] && !p->port)
		p->port = 1;
	for (size_t j = 0; j + 1 < c->pnet.n_entries; j++)
		if (pnet_same(&c->pnet.entries[j], p)) {
			error_at(ctx, item->mark,
				 "pnet.entries: duplicate entry (first given at line %u, column %u)",
				 c->pnet.entries[j].mark.line, c->pnet.entries[j].mark.column);
			return -EINVAL;
		}
	return 0;
}

int pnet_entries(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const struct ynode *seq = get_seq(ctx, v, "pnet.entries", "entries");
	struct config *c = ctx->config;
	int ret = 0;

	if (!seq)
		return -EINVAL;
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *item = seq->items[i];
		struct config_pnet *a;
		int r;

		if (item->type != YNODE_MAP) {
			error_at(ctx, item->mark,
				 "pnet.entries: %s is not a valid entry (expected a mapping with pnetid and eth or ib)",
				 node_type_name(item));
			ret = -EINVAL;
			continue;
		}
		a = realloc(c->pnet.entries, (c->pnet.n_entries + 1) * sizeof(*a));
		if (!a)
			return -ENOMEM;
		c->pnet.entries = a;
		memset(&a[c->pnet.n_entries], 0, sizeof(*a));
		a[c->pnet.n_entries++].mark = item->mark;
		r = parse_map(ctx, item, "pnet.entries", pnet_entry_keys,
			      ELEMENTSOF(pnet_entry_keys));
		if (r == 0)
			r = pnet_check_entry(ctx, item);
		if (r < 0) {
			c->pnet.n_entries--;
			ret = r;
		}
	}
	return ret;
}

/* ------------------------------------------------------------------------------------- */
/* modules:                                                                               */

static void modules_clear(struct config *c)
{
	for (size_t i = 0; i < c->n_modules; i++)
		free(c->modules[i]);
	free(c->modules);
	c->modules = NULL;
	c->n_modules = 0;
}

#define CONFIG_MAX_MODULES 64

static int modules_add(struct config *c, const char *name)
{
	char **v = realloc(c->modules, (c->n_modules + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->modules = v;
	v[c->n_modules] = strdup(name);
	if (!v[c->n_modules])
		return -ENOMEM;
	c->n_modules++;
	return 0;
}

int section_modules(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const struct ynode *seq = get_seq(ctx, v, "modules", "kernel module names");
	struct config *c = ctx->config;
	int ret = 0;

	_cleanup_(freep) size_t *first = NULL;

	if (!seq)
		return -EINVAL;
	/* The agent loads each at every start and reconcile: a long list is a mistake. */
	if (seq->n_items > CONFIG_MAX_MODULES) {
		error_at(ctx, seq->mark,
			 "modules: %zu modules (expected at most %u, such as smc, smc_diag)",
			 seq->n_items, CONFIG_MAX_MODULES);
		return -EINVAL;
	}
	if (find_duplicates((const struct ynode *const *)seq->items, seq->n_items, 1, &first) < 0)
		return -ENOMEM;
	modules_clear(c);
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *e = seq->items[i];
		const char *s = get_scalar(ctx, e, "modules", "a module name such as smc");

		if (!s) {
			ret = -EINVAL;
			continue;
		}
		if (strlen(s) >= 56 ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(s)) {
			error_at(ctx, e->mark,
				 "modules: '%s' is not a module name (expected lower-case letters, digits, '_' or '-')",
				 s);
			ret = -EINVAL;
			continue;
		}
		if (first[i] != SIZE_MAX) {
			error_at(ctx, e->mark,
				 "modules: duplicate module '%s' (first given at line %u, column %u)",
				 s, seq->items[first[i]]->mark.line,
				 seq->items[first[i]]->mark.column);
			ret = -EINVAL;
			continue;
		}
		if (modules_add(c, s) < 0)
			return -ENOMEM;
	}
	return ret;
}

/* ------------------------------------------------------------------------------------- */
/* stats.netns                                                                            */

static void stats_netns_clear(struct config *c)
{
	for (size_t i = 0; i < c->stats.n_netns_names; i++)
		free(c->stats.netns_names[i]);
	free(c->stats.netns_names);
	c->stats.netns_names = NULL;
	c->stats.n_netns_names = 0;
}

/* A name ip netns accepts: a file name of /run/netns. */
static bool netns_name(const char *s)
{
	return *s && strlen(s) < 256 && !strchr(s, '/') && !streq(s, ".") && !streq(s, "..");
}

/* all, none, or a list of names in /run/netns. */
int stats_netns_parse(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	static const char expected[] = "all, none or a list of names in /run/netns";
	struct config *c = ctx->config;
	const struct ynode *seq;
	const char *s;
	int ret = 0;

	_cleanup_(freep) size_t *first = NULL;

	stats_netns_clear(c);
	if (v->type != YNODE_SEQ) {
		s = get_scalar(ctx, v, "stats.netns", expected);
		if (!s)
			return -EINVAL;
		if (!streq(s, "all") && !streq(s, "none")) {
			error_at(ctx, v->mark, "stats.netns: '%s' is not valid (expected %s)", s,
				 expected);
			return -EINVAL;
		}
		c->stats.netns = streq(s, "all") ? CONFIG_NETNS_ALL : CONFIG_NETNS_NONE;
		return 0;
	}
	seq = get_seq(ctx, v, "stats.netns", expected);
	if (!seq)
		return -EINVAL;
	if (seq->n_items > STATS_NETNS_MAX) {
		error_at(ctx, seq->mark, "stats.netns: %zu names (expected at most %u)",
			 seq->n_items, STATS_NETNS_MAX);
		return -EINVAL;
	}
	if (find_duplicates((const struct ynode *const *)seq->items, seq->n_items, 1, &first) < 0)
		return -ENOMEM;
	c->stats.netns = CONFIG_NETNS_LIST;
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *e = seq->items[i];
		char **nv;

		s = get_scalar(ctx, e, "stats.netns", "a name in /run/netns");
		if (!s) {
			ret = -EINVAL;
			continue;
		}
		if (!netns_name(s)) {
			error_at(ctx, e->mark,
				 "stats.netns: '%s' is not a network namespace name (expected a file name of /run/netns, as 'ip netns list' shows)",
				 s);
			ret = -EINVAL;
			continue;
		}
		if (first[i] != SIZE_MAX) {
			error_at(ctx, e->mark,
				 "stats.netns: duplicate name '%s' (first given at line %u, column %u)",
				 s, seq->items[first[i]]->mark.line,
				 seq->items[first[i]]->mark.column);
			ret = -EINVAL;
			continue;
		}
		nv = realloc(c->stats.netns_names, (c->stats.n_netns_names + 1) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		c->stats.netns_names = nv;
		nv[c->stats.n_netns_names] = strdup(s);
		if (!nv[c->stats.n_netns_names])
			return -ENOMEM;
		c->stats.n_netns_names++;
	}
	return ret;
}

void stats_netns_dump(FILE *f, const struct config *c)
{
	if (c->stats.netns != CONFIG_NETNS_LIST) {
		fprintf(f, "  netns: %s\n", c->stats.netns == CONFIG_NETNS_ALL ? "all" : "none");
		return;
	}
	fprintf(f, "  netns: [");
	for (size_t i = 0; i < c->stats.n_netns_names; i++) {
		fputs(i ? ", " : "", f);
		config_dump_string(f, c->stats.netns_names[i]);
	}
	fprintf(f, "]\n");
}

/* ------------------------------------------------------------------------------------- */
/* The lists' defaults                                                                   */

/*
 * Built-in defaults: what a fresh install needs for SMC-D loopback on x86 (kernel-smc.md
 * §2.3: a UEID, here derived from the machine id) and the buffer sizes of
 * bench/smc-run/README.md.  rmem 256 KiB instead of the kernel's 64 KiB, which fills on
 * almost every send: +7% bulk throughput (1 MiB, seed 001's size, gives +9.5% for four
 * times the memory and made redis-benchmark's connection churn 19% slower, each new
 * connection zeroing its buffers).  wmem stays at the kernel's 64 KiB, listed so that the
 * agent keeps it there: on the loopback devices with nocopy it allocates nothing (the
 * sender writes into the peer's buffer), where it is a buffer of its own (smc_lo with
 * nocopy off) 256 KiB cost redis GET 5.4% to zeroing for one point of throughput; SMC-R
 * over soft-RoCE moved with neither size (rdma_rxe's own work bounds it there).
 */
int config_lists_defaults(struct config *c)
{
	static const struct {
		const char *name;
		uint64_t value;
	} sysctls[] = { { "wmem", 64 * 1024 }, { "rmem", 256 * 1024 } };

	c->sysctls = calloc(ELEMENTSOF(sysctls), sizeof(*c->sysctls));
	if (!c->sysctls)
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(sysctls); i++) {
		c->sysctls[i].desc = smc_sysctl_find(sysctls[i].name);
		if (!c->sysctls[i].desc)
			return -EINVAL;
		c->sysctls[i].value = sysctls[i].value;
		c->n_sysctls++;
	}
	if (modules_add(c, "smc") < 0 || modules_add(c, "smc_diag") < 0)
		return -ENOMEM;
	return 0;
}

void config_lists_free(struct config *c)
{
	sysctls_clear(c);
	modules_clear(c);
	stats_netns_clear(c);
}

/* ------------------------------------------------------------------------------------- */
/* Dump                                                                                   */

static void dump_sysctl(FILE *f, const struct config_sysctl *s)
{
	const struct smc_sysctl_desc *d = s->desc;
	char buf[32];

	fprintf(f, "  %s: ", d->name);
	switch (d->unit) {
	case SMC_UNIT_BYTES:
		fprintf(f, "%s\n", format_size(s->value, buf, sizeof(buf)));
		break;
	case SMC_UNIT_SECONDS:
		fprintf(f, "%" PRId64 "s\n", s->value);
		break;
	case SMC_UNIT_BOOL:
		fprintf(f, "%s\n", s->value ? "true" : "false");
		break;
	case SMC_UNIT_ENUM:
		fprintf(f, "%s\n", d->enum_names[s->value]);
		break;
	case SMC_UNIT_COUNT:
		fprintf(f, "%" PRId64 "\n", s->value);
		break;
	case SMC_UNIT_STRING:
		config_dump_string(f, s->string);
		fputc('\n', f);
		break;
	}
}

/* "  key: "VALUE"\n" (or what is around it), the value quoted so that it reads back. */
static void dump_kv(FILE *f, const char *before, const char *value, const char *after)
{
	fputs(before, f);
	config_dump_string(f, value);
	fputs(after, f);
}

void sysctl_dump(FILE *f, const struct config *c)
{
	fprintf(f, "sysctl:%s\n", c->n_sysctls ? "" : " {}");
	for (size_t i = 0; i < c->n_sysctls; i++)
		dump_sysctl(f, &c->sysctls[i]);
}

void pnet_entries_dump(FILE *f, const struct config *c)
{
	fprintf(f, "  entries:%s\n", c->pnet.n_entries ? "" : " []");
	for (size_t i = 0; i < c->pnet.n_entries; i++) {
		const struct config_pnet *p = &c->pnet.entries[i];

		dump_kv(f, "    - {pnetid: ", p->pnetid, p->eth[0] ? ", eth: " : ", ib: ");
		config_dump_string(f, p->eth[0] ? p->eth : p->ib);
		if (p->eth[0])
			fputs("}\n", f);
		else
			fprintf(f, ", port: %u}\n", p->port);
	}
}

void modules_dump(FILE *f, const struct config *c)
{
	fprintf(f, "modules: [");
	for (size_t i = 0; i < c->n_modules; i++)
		fprintf(f, "%s%s", i ? ", " : "", c->modules[i]);
	fprintf(f, "]\n");
}
