// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc.yaml's auto: section, the autopilot's (smc.yaml(5), auto): its lists, which the key
 * table's rows (keys.c) name, their dumps, and the scope they describe.  auto.mode,
 * auto.window and auto.budget are plain rows of keys.c.  A cgroup is written as in
 * policies.cgroups and checked by the same function (config_cgroup_path_problem()), a unit
 * as smcctl enable takes it (config_unit_name()), a network namespace as in policies.netns
 * (config_netns_path_problem()): one spelling of each in the whole file.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "config/config.h"
#include "config/dropin.h"
#include "config/sections.h"
#include "config/units.h"

static void strv_clear(char ***v, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free((*v)[i]);
	free(*v);
	*v = NULL;
	*n = 0;
}

void config_auto_free(struct config *c)
{
	strv_clear(&c->autopilot.scope.cgroups, &c->autopilot.scope.n_cgroups);
	strv_clear(&c->autopilot.scope.units, &c->autopilot.scope.n_units);
	strv_clear(&c->autopilot.scope.netns, &c->autopilot.scope.n_netns);
	free(c->autopilot.exclude_ports);
	c->autopilot.exclude_ports = NULL;
	c->autopilot.n_exclude_ports = 0;
}

static int strv_add(char ***v, size_t *n, const char *s)
{
	char **a = realloc(*v, (*n + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	*v = a;
	a[*n] = strdup(s);
	if (!a[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The list of key, bounded: NULL (said at its line) when v is none or too long. */
static const struct ynode *bounded_seq(struct ctx *ctx, const struct ynode *v, const char *key,
				       const char *what, size_t max)
{
	const struct ynode *seq = get_seq(ctx, v, key, what);

	if (seq && seq->n_items > max) {
		error_at(ctx, seq->mark, "%s: %zu entries (expected at most %zu)", key,
			 seq->n_items, max);
		return NULL;
	}
	return seq;
}

static void error_duplicate(struct ctx *ctx, const struct ynode *e, const char *key,
			    const char *what, const struct ynode *first)
{
	error_at(ctx, e->mark, "%s: duplicate %s '%s' (first given at line %u, column %u)", key,
		 what, e->value, first->mark.line, first->mark.column);
}

/* ---- auto.scope.cgroups --------------------------------------------------------------- */

int auto_scope_cgroups(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	static const char key[] = "auto.scope.cgroups";
	struct config *c = ctx->config;
	const struct ynode *seq;
	int ret = 0;

	_cleanup_(freep) size_t *first = NULL;

	strv_clear(&c->autopilot.scope.cgroups, &c->autopilot.scope.n_cgroups);
	seq = bounded_seq(ctx, v, key, "cgroup paths", AUTO_SCOPE_MAX);
	if (!seq)
		return -EINVAL;
	if (find_duplicates((const struct ynode *const *)seq->items, seq->n_items, 1, &first) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *e = seq->items[i];
		const char *s = get_scalar(ctx, e, key, "a cgroup path such as /system.slice"),
			   *problem;

		if (!s) {
			ret = -EINVAL;
			continue;
		}
		problem = config_cgroup_path_problem(s);
		if (problem) {
			error_at(ctx, e->mark,
				 "%s: '%s' is not a valid cgroup path: %s (expected a path below the cgroup2 root such as /system.slice or /system.slice/nginx.service)",
				 key, s, problem);
			ret = -EINVAL;
			continue;
		}
		if (first[i] != SIZE_MAX) {
			error_duplicate(ctx, e, key, "cgroup", seq->items[first[i]]);
			ret = -EINVAL;
			continue;
		}
		if (strv_add(&c->autopilot.scope.cgroups, &c->autopilot.scope.n_cgroups, s) < 0)
			return -ENOMEM;
	}
	return ret;
}

/* ---- auto.scope.units ----------------------------------------------------------------- */

int auto_scope_units(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	static const char key[] = "auto.scope.units";
	struct config *c = ctx->config;
	const struct ynode *seq = bounded_seq(ctx, v, key, "unit names", AUTO_SCOPE_MAX);
	const struct ynode *given[AUTO_SCOPE_MAX];
	int ret = 0;

	strv_clear(&c->autopilot.scope.units, &c->autopilot.scope.n_units);
	if (!seq)
		return -EINVAL;
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *e = seq->items[i];
		const char *s = get_scalar(ctx, e, key, "a unit name such as nginx.service"), *why;
		char unit[CONFIG_UNIT_NAME_MAX + 1];
		size_t j, n = c->autopilot.scope.n_units;

		if (!s) {
			ret = -EINVAL;
			continue;
		}
		if (config_unit_name(s, unit, &why) < 0) {
			error_at(ctx, e->mark, "%s: '%s' is not a unit name: %s", key, s, why);
			ret = -EINVAL;
			continue;
		}
		/* "nginx" and "nginx.service" are one unit. */
		for (j = 0; j < n && !streq(c->autopilot.scope.units[j], unit); j++)
			;
		if (j < n) {
			error_duplicate(ctx, e, key, "unit", given[j]);
			ret = -EINVAL;
			continue;
		}
		if (strv_add(&c->autopilot.scope.units, &c->autopilot.scope.n_units, unit) < 0)
			return -ENOMEM;
		given[n] = e;
	}
	return ret;
}

/* ---- auto.scope.netns ----------------------------------------------------------------- */

int auto_scope_netns(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	static const char key[] = "auto.scope.netns";
	struct config *c = ctx->config;
	const struct ynode *seq = bounded_seq(ctx, v, key, "network namespaces", AUTO_SCOPE_MAX);
	const struct ynode *given[AUTO_SCOPE_MAX];
	int ret = 0;

	strv_clear(&c->autopilot.scope.netns, &c->autopilot.scope.n_netns);
	if (!seq)
		return -EINVAL;
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *e = seq->items[i];
		const char *s = get_scalar(ctx, e, key,
					   "a name in /run/netns or a path such as /proc/PID/ns/net"),
			   *problem;
		char path[PATH_MAX];
		size_t j, n = c->autopilot.scope.n_netns;

		if (!s) {
			ret = -EINVAL;
			continue;
		}
		problem = config_netns_path_problem(s, path, sizeof(path));
		if (problem) {
			error_at(ctx, e->mark,
				 "%s: '%s' is not a network namespace: %s (expected a name in /run/netns such as blue, or an absolute path such as /proc/PID/ns/net)",
				 key, s, problem);
			ret = -EINVAL;
			continue;
		}
		/* "blue" and "/run/netns/blue" are one namespace. */
		for (j = 0; j < n && !streq(c->autopilot.scope.netns[j], path); j++)
			;
		if (j < n) {
			error_duplicate(ctx, e, key, "network namespace", given[j]);
			ret = -EINVAL;
			continue;
		}
		if (strv_add(&c->autopilot.scope.netns, &c->autopilot.scope.n_netns, path) < 0)
			return -ENOMEM;
		given[n] = e;
	}
	return ret;
}

/* ---- auto.exclude-ports --------------------------------------------------------------- */

int auto_exclude_ports(struct ctx *ctx, const struct ynode *k, const struct ynode *v)
{
	static const char key[] = "auto.exclude-ports";
	struct config *c = ctx->config;
	const struct ynode *seq = bounded_seq(ctx, v, key, "TCP ports", AUTO_EXCLUDE_PORTS_MAX);
	const struct ynode *given[AUTO_EXCLUDE_PORTS_MAX];
	int ret = 0;

	free(c->autopilot.exclude_ports);
	c->autopilot.exclude_ports = NULL;
	c->autopilot.n_exclude_ports = 0;
	if (!seq)
		return -EINVAL;
	if (seq->n_items) {
		c->autopilot.exclude_ports = calloc(seq->n_items, sizeof(uint16_t));
		if (!c->autopilot.exclude_ports)
			return -ENOMEM;
	}
	for (size_t i = 0; i < seq->n_items; i++) {
		const struct ynode *e = seq->items[i];
		const char *s = get_scalar(ctx, e, key, "a TCP port from 1 to 65535");
		size_t j, n = c->autopilot.n_exclude_ports;
		uint16_t port;

		if (!s) {
			ret = -EINVAL;
			continue;
		}
		if (parse_port(s, &port) < 0) {
			error_at(ctx, e->mark,
				 "%s: '%s' is not a port (expected a TCP port from 1 to 65535)",
				 key, s);
			ret = -EINVAL;
			continue;
		}
		/* "80" and "0080" are one port. */
		for (j = 0; j < n && c->autopilot.exclude_ports[j] != port; j++)
			;
		if (j < n) {
			error_duplicate(ctx, e, key, "port", given[j]);
			ret = -EINVAL;
			continue;
		}
		c->autopilot.exclude_ports[n] = port;
		given[n] = e;
		c->autopilot.n_exclude_ports++;
	}
	return ret;
}

/* ---- dumps ---------------------------------------------------------------------------- */

static void dump_strv(FILE *f, const char *indent_key, char *const *v, size_t n)
{
	fprintf(f, "%s: [", indent_key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		config_dump_string(f, v[i]);
	}
	fputs("]\n", f);
}

void auto_scope_cgroups_dump(FILE *f, const struct config *c)
{
	dump_strv(f, "    cgroups", c->autopilot.scope.cgroups, c->autopilot.scope.n_cgroups);
}

void auto_scope_units_dump(FILE *f, const struct config *c)
{
	dump_strv(f, "    units", c->autopilot.scope.units, c->autopilot.scope.n_units);
}

void auto_scope_netns_dump(FILE *f, const struct config *c)
{
	dump_strv(f, "    netns", c->autopilot.scope.netns, c->autopilot.scope.n_netns);
}

void auto_exclude_ports_dump(FILE *f, const struct config *c)
{
	fputs("  exclude-ports: [", f);
	for (size_t i = 0; i < c->autopilot.n_exclude_ports; i++)
		fprintf(f, "%s%u", i ? ", " : "", c->autopilot.exclude_ports[i]);
	fputs("]\n", f);
}

/* ---- what the agent asks ------------------------------------------------------------- */

/* cgroup is scope or below it ("/" holds every cgroup). */
static bool cgroup_in(const char *cgroup, const char *scope)
{
	size_t n = strlen(scope);

	if (streq(scope, "/"))
		return true;
	return strncmp(cgroup, scope, n) == 0 && (cgroup[n] == '\0' || cgroup[n] == '/');
}

bool config_auto_in_scope(const struct config *c, const char *cgroup, const char *unit,
			  uint64_t netns, const uint64_t *scope_netns)
{
	char *const *cgroups = c->autopilot.scope.cgroups, *const *units = c->autopilot.scope.units;
	size_t n_cgroups = c->autopilot.scope.n_cgroups, n_units = c->autopilot.scope.n_units,
	       n_netns = c->autopilot.scope.n_netns;
	char name[CONFIG_UNIT_NAME_MAX + 1];
	const char *why;

	if (n_cgroups == 0 && n_units == 0 && n_netns == 0)
		return true;
	for (size_t i = 0; cgroup && i < n_cgroups; i++)
		if (cgroup_in(cgroup, cgroups[i]))
			return true;
	/* A namespace not found (0) is none, and an unknown one (0) is in none. */
	for (size_t i = 0; netns && scope_netns && i < n_netns; i++)
		if (scope_netns[i] == netns)
			return true;
	/* The units were stored as systemd names them; a name it would refuse is in none. */
	if (!unit || config_unit_name(unit, name, &why) < 0)
		return false;
	for (size_t i = 0; i < n_units; i++)
		if (streq(units[i], name))
			return true;
	return false;
}

uint64_t config_assess_window_usec(const struct config *c)
{
	if (c->assess.interval_usec)
		return c->assess.interval_usec;
	return c->autopilot.mode != AUTO_MODE_OFF ? c->autopilot.window_usec : 0;
}
