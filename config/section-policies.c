// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml "policies:" (see policy.h and smc.yaml(5)).  Everything a kernel can be
 * asked about later is checked here already: paths that can never match (too long for the
 * BPF map, relative, with "..", written with the /sys/fs/cgroup prefix), addresses with
 * host bits set, duplicates, and more entries than the BPF maps hold.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/macro.h"
#include "config/sections.h"
#include "config/units.h"

void config_policies_clear(struct config_policies *p)
{
	for (size_t i = 0; i < p->n_cgroups; i++)
		free(p->cgroups[i].path);
	for (size_t i = 0; i < p->n_netns; i++)
		free(p->netns[i].path);
	free(p->cgroups);
	free(p->netns);
	free(p->exclude);
	memset(p, 0, sizeof(*p));
}

size_t config_policies_count(const struct config_policies *p)
{
	return p->n_cgroups + p->n_netns + p->n_exclude;
}

static struct config_policies *pol(struct ctx *ctx)
{
	return &ctx->config->policies;
}

/* ---- cgroups: ------------------------------------------------------------------------- */

/* dropin.h */
const char *config_cgroup_path_problem(const char *s)
{
	size_t n = strlen(s);

	if (s[0] != '/')
		return "it is not absolute";
	if (strncmp(s, "/sys/fs/cgroup/", 15) == 0 || streq(s, "/sys/fs/cgroup"))
		return "it includes the mount point /sys/fs/cgroup (write the path below it, as /proc/PID/cgroup shows it)";
	if (n > CONFIG_POLICY_CGROUP_PATH_MAX)
		return "it is longer than 255 characters";
	if (n > 1 && s[n - 1] == '/')
		return "it ends with '/'";
	if (strstr(s, "//") || strstr(s, "/./") || strstr(s, "/../") ||
	    (n >= 2 && streq(s + n - 2, "/.")) || (n >= 3 && streq(s + n - 3, "/..")))
		return "it has an empty, '.' or '..' component";
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return "it has a control character";
	return NULL;
}

static int add_target(struct ctx *ctx, struct config_policy_target **v, size_t *n, const char *path,
		      const struct ynode *node)
{
	struct config_policy_target *a = realloc(*v, (*n + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	*v = a;
	a[*n] = (struct config_policy_target){ .path = strdup(path),
					       .line = node->mark.line,
					       .column = node->mark.column,
					       .file = ctx->source };
	if (!a[*n].path)
		return -ENOMEM;
	(*n)++;
	return 0;
}

/*
 * An entry given twice: in the same file a mistake (an error), in two files (smc.yaml and a
 * drop-in, or two drop-ins) one entry, the first kept: "smcctl enable" of a unit smc.yaml
 * already lists, or a drop-in shipped by a package beside the operator's line, asks for
 * the same thing twice and gets it once.  1 when merged, -EINVAL for the error, 0 when new.
 */
static int target_dup(struct ctx *ctx, const struct config_policy_target *v, size_t n,
		      const char *path, const struct ynode *node, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		if (!streq(v[i].path, path))
			continue;
		if (v[i].file != ctx->source)
			return 1;
		error_at(ctx, node->mark,
			 "%s: duplicate entry '%s' (first given at line %u, column %u)", key, path,
			 v[i].line, v[i].column);
		return -EINVAL;
	}
	return 0;
}

static bool rules_full(struct ctx *ctx, const struct ynode *node, const char *key)
{
	if (pol(ctx)->n_cgroups + pol(ctx)->n_netns < CONFIG_POLICY_MAX_RULES)
		return false;
	error_at(ctx, node->mark,
		 "%s: too many entries (expected at most %d cgroups and netns entries together)",
		 key, CONFIG_POLICY_MAX_RULES);
	return true;
}

/* An entry of cgroups: or netns: as the target it names (s itself or made in buf); NULL when
 * it names none (said at its line). */
typedef const char *target_fn(struct ctx *ctx, const struct ynode *e, const char *s, char *buf,
			      size_t len);

/* cgroups: and netns: alike: a list of targets, each once, with the rules' common bound. */
static int policy_targets(struct ctx *ctx, const struct ynode *v, const char *key, const char *what,
			  const char *expected, target_fn *target,
			  struct config_policy_target **list, size_t *n)
{
	const struct ynode *seq = get_seq(ctx, v, key, what);
	int ret = 0, dup;

	if (!seq)
		return -EINVAL;
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *e = seq->items[i];
		const char *s = get_scalar(ctx, e, key, expected), *path;
		char buf[4096];

		if (!s || !(path = target(ctx, e, s, buf, sizeof(buf)))) {
			ret = -EINVAL;
			continue;
		}
		dup = target_dup(ctx, *list, *n, path, e, key);
		if (dup > 0)
			continue;
		if (dup < 0 || rules_full(ctx, e, key)) {
			ret = -EINVAL;
			continue;
		}
		if (add_target(ctx, list, n, path, e) < 0)
			return -ENOMEM;
	}
	return ret;
}

static const char *cgroup_target(struct ctx *ctx, const struct ynode *e, const char *s, char *buf,
				 size_t len)
{
	const char *problem = config_cgroup_path_problem(s);

	if (problem) {
		error_at(ctx, e->mark,
			 "policies.cgroups: '%s' is not a valid cgroup path: %s (expected a path below the cgroup2 root such as /system.slice/nginx.service or /machine.slice)",
			 s, problem);
		return NULL;
	}
	return s;
}

static int policy_cgroups(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	struct config_policies *p = pol(ctx);

	return policy_targets(ctx, v, "policies.cgroups", "cgroup paths",
			      "a cgroup path such as /system.slice/nginx.service", cgroup_target,
			      &p->cgroups, &p->n_cgroups);
}

/* ---- netns: --------------------------------------------------------------------------- */

/* section-policies.h */
const char *config_netns_path_problem(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (!s[0])
		return "it is empty";
	if (!strchr(s, '/')) {
		/* NAME is /run/netns/NAME, as for "ip netns" and "smcctl -n". */
		if (streq(s, ".") || streq(s, ".."))
			return "'.' and '..' name no namespace";
		if (n > NAME_MAX)
			return "a name is at most 255 characters";
		snprintf(buf, len, "/run/netns/%s", s);
		return NULL;
	}
	if (s[0] != '/')
		return "it is neither a name (without '/') nor an absolute path";
	if (n >= len)
		return "it is too long for a path";
	if (strstr(s, "/../") || (n >= 3 && streq(s + n - 3, "/..")))
		return "it has a '..' component";
	snprintf(buf, len, "%s", s);
	return NULL;
}

static const char *netns_target(struct ctx *ctx, const struct ynode *e, const char *s, char *buf,
				size_t len)
{
	if (config_netns_path_problem(s, buf, len)) {
		error_at(ctx, e->mark,
			 "policies.netns: '%s' is not valid (expected a name in /run/netns or an absolute path such as /proc/PID/ns/net)",
			 s);
		return NULL;
	}
	return buf;
}

static int policy_netns(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	struct config_policies *p = pol(ctx);

	return policy_targets(ctx, v, "policies.netns", "network namespaces",
			      "a name in /run/netns or a path such as /proc/PID/ns/net",
			      netns_target, &p->netns, &p->n_netns);
}

/* ---- exclude: ------------------------------------------------------------------------- */

void policy_exclude_text(struct config_policy_exclude *e)
{
	char a[INET6_ADDRSTRLEN] = "*", pfx[8] = "", port[8] = "";
	bool v6 = e->family == AF_INET6;

	if (e->family)
		inet_ntop(e->family, e->addr, a, sizeof(a));
	if (e->family && e->prefixlen != (v6 ? 128 : 32))
		snprintf(pfx, sizeof(pfx), "/%u", e->prefixlen);
	if (e->port)
		snprintf(port, sizeof(port), ":%u", e->port);
	snprintf(e->text, sizeof(e->text), "%s%s%s%s%s", v6 ? "[" : "", a, v6 ? "]" : "", pfx, port);
}

int policy_parse_prefix(const char *s, struct config_policy_exclude *ret, char *expected, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	unsigned long plen;
	int family, max;
	uint8_t masked[16];

	if (strlen(s) >= sizeof(buf)) {
		snprintf(expected, len, "an IPv4 or IPv6 address, optionally /LENGTH");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	memset(ret->addr, 0, sizeof(ret->addr));
	if (inet_pton(AF_INET, buf, ret->addr) == 1)
		family = AF_INET, max = 32;
	else if (inet_pton(AF_INET6, buf, ret->addr) == 1)
		family = AF_INET6, max = 128;
	else {
		snprintf(expected, len, "an IPv4 or IPv6 address, optionally /LENGTH");
		return -EINVAL;
	}
	plen = (unsigned long)max;
	if (slash) {
		int64_t v;

		if (parse_count(slash, &v) < 0 || v > max) {
			snprintf(expected, len, "a prefix length from 0 to %d", max);
			return -EINVAL;
		}
		plen = (unsigned long)v;
	}
	memcpy(masked, ret->addr, sizeof(masked));
	for (int bit = (int)plen; bit < 128; bit++)
		masked[bit / 8] &= (uint8_t) ~(0x80u >> (bit % 8));
	ret->family = family;
	ret->prefixlen = (uint8_t)plen;
	if (memcmp(masked, ret->addr, sizeof(masked)) != 0) {
		char net[INET6_ADDRSTRLEN];

		inet_ntop(family, masked, net, sizeof(net));
		snprintf(expected, len, "the network %s/%lu, without host bits", net, plen);
		return -ERANGE;
	}
	return 0;
}

static int exclude_address(struct ctx *ctx, const struct ynode *v, struct config_policy_exclude *e)
{
	const char *s = get_scalar(ctx, v, "policies.exclude.address",
				   "an IPv4 or IPv6 address or prefix such as 192.0.2.0/24");
	char expected[160];
	int r;

	if (!s)
		return -EINVAL;
	r = policy_parse_prefix(s, e, expected, sizeof(expected));
	if (r < 0) {
		error_at(ctx, v->mark, "policies.exclude: '%s' is not %s (expected %s)", s,
			 r == -ERANGE ? "a network: it has host bits set" : "a valid address",
			 expected);
		return -EINVAL;
	}
	return 0;
}

/* The entry being parsed is the last one. */
static struct config_policy_exclude *exclude_current(struct ctx *ctx)
{
	return &pol(ctx)->exclude[pol(ctx)->n_exclude - 1];
}

static int exclude_address_key(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	return exclude_address(ctx, v, exclude_current(ctx));
}

static int exclude_port_key(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const char *s = get_scalar(ctx, v, "policies.exclude.port", "a port from 1 to 65535");

	if (!s)
		return -EINVAL;
	if (parse_port(s, &exclude_current(ctx)->port) < 0) {
		error_at(ctx, v->mark,
			 "policies.exclude.port: '%s' is not a valid port (expected a port from 1 to 65535)",
			 s);
		return -EINVAL;
	}
	return 0;
}

static const struct key_handler exclude_keys[] = {
	{ "address", exclude_address_key },
	{ "port", exclude_port_key },
};

static bool exclude_same(const struct config_policy_exclude *a, const struct config_policy_exclude *b)
{
	return a->family == b->family && a->prefixlen == b->prefixlen && a->port == b->port &&
	       memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

static int exclude_entry(struct ctx *ctx, const struct ynode *e)
{
	struct config_policies *p = pol(ctx);
	struct config_policy_exclude *x;
	int r;

	if (p->n_exclude >= CONFIG_POLICY_MAX_EXCLUDE) {
		error_at(ctx, e->mark, "policies.exclude: too many entries (expected at most %d)",
			 CONFIG_POLICY_MAX_EXCLUDE);
		return -EINVAL;
	}
	x = realloc(p->exclude, (p->n_exclude + 1) * sizeof(*x));
	if (!x)
		return -ENOMEM;
	p->exclude = x;
	x = &p->exclude[p->n_exclude++];
	*x = (struct config_policy_exclude){ .line = e->mark.line,
					     .column = e->mark.column,
					     .file = ctx->source };
	if (e->type == YNODE_MAP) {
		r = parse_map(ctx, e, "policies.exclude", exclude_keys, ELEMENTSOF(exclude_keys));
		if (r == 0 && !x->family && !x->port) {
			error_at(ctx, e->mark,
				 "policies.exclude: an entry needs an address, a port or both (expected {address: ADDRESS[/LENGTH], port: PORT})");
			r = -EINVAL;
		}
	} else
		r = exclude_address(ctx, e, x);
	if (r == 0)
		for (size_t i = 0; i + 1 < p->n_exclude; i++)
			if (exclude_same(&p->exclude[i], x)) {
				/* In another file: one entry (target_dup()). */
				if (p->exclude[i].file != ctx->source) {
					p->n_exclude--;
					return 0;
				}
				policy_exclude_text(x);
				error_at(ctx, e->mark,
					 "policies.exclude: duplicate entry %s (first given at line %u, column %u)",
					 x->text, p->exclude[i].line, p->exclude[i].column);
				r = -EINVAL;
				break;
			}
	if (r < 0) {
		p->n_exclude--;
		return r;
	}
	policy_exclude_text(x);
	return 0;
}

static int policy_exclude(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	const struct ynode *seq = get_seq(ctx, v, "policies.exclude",
					  "addresses, prefixes or {address:, port:} entries");
	int ret = 0;

	if (!seq)
		return -EINVAL;
	for (size_t i = 0; i < seq->n_items; i++) {
		int r = exclude_entry(ctx, seq->items[i]);

		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ret = r;
	}
	return ret;
}

static const struct key_handler policies_keys[] = {
	{ "cgroups", policy_cgroups },
	{ "netns", policy_netns },
	{ "exclude", policy_exclude },
};

int section_policies(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	if (!ctx->source)
		pol(ctx)->line = k->mark.line;
	return parse_map(ctx, v, "policies", policies_keys, ELEMENTSOF(policies_keys));
}

/*
 * exclude: works through net.smc.hs_ctrl (the agent sets it to its smc_hs_ctrl in every
 * network namespace).  A sysctl: hs_ctrl line would name another one, and the two would
 * undo each other on every reconcile: one owner only.
 */
int config_policies_check(struct ctx *ctx)
{
	const struct config_sysctl *hs = config_find_sysctl(ctx->config, "hs_ctrl");
	const struct config_policies *p = pol(ctx);

	if (!hs || !p->n_exclude)
		return 0;
	error_at(ctx, hs->mark,
		 "sysctl.hs_ctrl: net.smc.hs_ctrl is set by policies.exclude (%s%sline %u) to the agent's own smc_hs_ctrl (expected no sysctl.hs_ctrl while policies.exclude has entries)",
		 p->exclude[0].file ? p->exclude[0].file : "", p->exclude[0].file ? ", " : "",
		 p->exclude[0].line);
	return -EINVAL;
}

/* ---- dump ------------------------------------------------------------------------------ */

static void dump_targets(FILE *f, const char *key, const struct config_policy_target *v, size_t n)
{
	fprintf(f, "  %s: [", key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		config_dump_string(f, v[i].path);
	}
	fputs("]\n", f);
}

/*
 * With entries of drop-ins, one per line with where it came from as a comment (the YAML
 * reads back the same); without, the compact form of before.
 */
static void dump_targets_sourced(FILE *f, const char *key, const struct config_policy_target *v,
				 size_t n, const char *main_path)
{
	fprintf(f, "  %s:%s\n", key, n ? "" : " []");
	for (size_t i = 0; i < n; i++) {
		fputs("    - ", f);
		config_dump_string(f, v[i].path);
		fprintf(f, "  # %s:%u\n", v[i].file ? v[i].file : main_path, v[i].line);
	}
}

static bool has_dropin_entries(const struct config_policies *p)
{
	for (size_t i = 0; i < p->n_cgroups; i++)
		if (p->cgroups[i].file)
			return true;
	for (size_t i = 0; i < p->n_netns; i++)
		if (p->netns[i].file)
			return true;
	for (size_t i = 0; i < p->n_exclude; i++)
		if (p->exclude[i].file)
			return true;
	return false;
}

void config_policies_dump(FILE *f, const struct config_policies *p, const char *main_path)
{
	bool sourced = has_dropin_entries(p);

	if (!config_policies_count(p)) {
		fputs("policies: {}\n", f);
		return;
	}
	fputs("policies:\n", f);
	if (sourced) {
		dump_targets_sourced(f, "cgroups", p->cgroups, p->n_cgroups, main_path);
		dump_targets_sourced(f, "netns", p->netns, p->n_netns, main_path);
	} else {
		dump_targets(f, "cgroups", p->cgroups, p->n_cgroups);
		dump_targets(f, "netns", p->netns, p->n_netns);
	}
	fprintf(f, "  exclude:%s\n", p->n_exclude ? "" : " []");
	for (size_t i = 0; i < p->n_exclude; i++) {
		const struct config_policy_exclude *e = &p->exclude[i];
		char a[INET6_ADDRSTRLEN];

		fputs("    - {", f);
		if (e->family) {
			inet_ntop(e->family, e->addr, a, sizeof(a));
			fprintf(f, "address: \"%s/%u\"%s", a, e->prefixlen, e->port ? ", " : "");
		}
		if (e->port)
			fprintf(f, "port: %u", e->port);
		fputs("}", f);
		if (sourced)
			fprintf(f, "  # %s:%u", e->file ? e->file : main_path, e->line);
		fputs("\n", f);
	}
}

/* The policies: row of the key table (keys.c). */
void policies_dump(FILE *f, const struct config *c)
{
	config_policies_dump(f, &c->policies, c->path);
}
