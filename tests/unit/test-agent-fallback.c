// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fallback attribution's table (smcd-agent/fallback-attr.c): counts per reason and unit
 * with the bound of fallback.h (the first FBATTR_TOP_UNITS units, then "other"), the
 * units largest first, the bound on reasons, the labels of cgroup paths, and the
 * Prometheus families rendered from it (bounded label set, counters that only grow).  The
 * BPF program and the cgroup walk are exercised by tests/vm/guest/fallback-7x.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/macro.h"
#include "smcd-agent/fallback.h"
#include "smcd-agent/objects.h"
#include "smcd-agent/stats-engine.h"

#define NOUEID 0x03030008u
#define PEERDECL 0x05000000u
#define LOWER 0x03010000u /* below NOUEID */

static const struct fbattr_unit *unit_of(const struct fbattr_reason *r, const char *unit)
{
	for (size_t i = 0; i < r->n_units; i++)
		if (streq(r->units[i].unit, unit))
			return &r->units[i];
	return NULL;
}

static void test_counts_and_other(void **state)
{
	struct fbattr *a = calloc(1, sizeof(*a));
	char name[32];

	(void)state;
	assert_non_null(a);
	for (int i = 0; i < 3; i++)
		fbattr_add(a, NOUEID, "nginx.service");
	/* FBATTR_TOP_UNITS - 1 more units: every one has its own count. */
	for (int i = 1; i < FBATTR_TOP_UNITS; i++) {
		snprintf(name, sizeof(name), "app%d.service", i);
		fbattr_add(a, NOUEID, name);
	}
	assert_int_equal(a->n_reasons, 1);
	assert_int_equal(a->reasons[0].n_units, FBATTR_TOP_UNITS);
	assert_int_equal(a->reasons[0].other, 0);
	/* Beyond the bound: "other", however often, and a known unit still counts itself. */
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "late%d.service", i);
		fbattr_add(a, NOUEID, name);
	}
	fbattr_add(a, NOUEID, "nginx.service");
	assert_int_equal(a->reasons[0].n_units, FBATTR_TOP_UNITS);
	assert_int_equal(a->reasons[0].other, 50);
	assert_int_equal(unit_of(&a->reasons[0], "nginx.service")->count, 4);
	assert_null(unit_of(&a->reasons[0], "late0.service"));
	assert_int_equal(a->reasons[0].total, 4 + (FBATTR_TOP_UNITS - 1) + 50);
	assert_int_equal(a->events, a->reasons[0].total);
	/* Another reason has units of its own: the bound is per reason. */
	fbattr_add(a, LOWER, "late0.service");
	assert_int_equal(a->n_reasons, 2);
	assert_int_equal(a->reasons[0].code, LOWER); /* sorted by code */
	assert_int_equal(a->reasons[1].code, NOUEID);
	assert_non_null(unit_of(&a->reasons[0], "late0.service"));
	/* No unit: "unknown", counted. */
	fbattr_add(a, LOWER, NULL);
	assert_int_equal(unit_of(&a->reasons[0], FBATTR_UNKNOWN)->count, 1);
	free(a);
}

static void test_sorted(void **state)
{
	struct fbattr *a = calloc(1, sizeof(*a));
	struct fbattr_unit u[FBATTR_TOP_UNITS];

	(void)state;
	assert_non_null(a);
	fbattr_add(a, NOUEID, "b.service");
	fbattr_add(a, NOUEID, "a.service");
	for (int i = 0; i < 5; i++)
		fbattr_add(a, NOUEID, "big.service");
	fbattr_add(a, NOUEID, "a.service");
	fbattr_add(a, NOUEID, "c.service");
	fbattr_add(a, NOUEID, "c.service");
	assert_int_equal(fbattr_units_sorted(&a->reasons[0], u), 4);
	assert_string_equal(u[0].unit, "big.service");
	assert_int_equal(u[0].count, 5);
	/* Ties by name. */
	assert_string_equal(u[1].unit, "a.service");
	assert_string_equal(u[2].unit, "c.service");
	assert_string_equal(u[3].unit, "b.service");
	free(a);
}

static void test_reason_bound(void **state)
{
	struct fbattr *a = calloc(1, sizeof(*a));

	(void)state;
	assert_non_null(a);
	for (uint32_t i = 0; i < FBATTR_MAX_REASONS + 10; i++)
		fbattr_add(a, 0x03010000u + (FBATTR_MAX_REASONS + 10 - i), "x.service");
	assert_int_equal(a->n_reasons, FBATTR_MAX_REASONS);
	assert_int_equal(a->other_reasons, 10);
	for (size_t i = 1; i < a->n_reasons; i++)
		assert_true(a->reasons[i - 1].code < a->reasons[i].code);
	/* A reason already in the table still counts. */
	fbattr_add(a, a->reasons[3].code, "x.service");
	assert_int_equal(a->reasons[3].total, 2);
	assert_int_equal(a->other_reasons, 10);
	free(a);
}

static void test_label(void **state)
{
	char b[FBATTR_UNIT_LEN];

	(void)state;
	fbattr_label("/system.slice/nginx.service", NULL, b, sizeof(b));
	assert_string_equal(b, "nginx.service");
	fbattr_label("/smcd-test.slice/fb-app.service", NULL, b, sizeof(b));
	assert_string_equal(b, "fb-app.service");
	/* a user's delegated cgroup may be named anything: never invalid UTF-8 in a label, no
	 * control character (common/name-sanitize.c); quotes are the textfile writer's to escape */
	fbattr_label("/user.slice/user-1000.slice/user@1000.service/app.slice/\xff\"x.service",
		     NULL, b, sizeof(b));
	assert_string_equal(b, "user@1000.service/\\xff\"x.service");
	fbattr_label("/odd\n\xc3\xa9\033[2J", NULL, b, sizeof(b));
	assert_string_equal(b, "/odd\\x0a\xc3\xa9\\x1b[2J");
	/* A service's own sub-cgroups belong to it. */
	fbattr_label("/system.slice/nginx.service/workers", NULL, b, sizeof(b));
	assert_string_equal(b, "nginx.service");
	fbattr_label("/user.slice/user-1000.slice/user@1000.service/app.slice/foo.scope", NULL, b,
		     sizeof(b));
	assert_string_equal(b, "user@1000.service/foo.scope");
	/* No unit: the cgroup itself; the root; not found. */
	fbattr_label("/smc-on", NULL, b, sizeof(b));
	assert_string_equal(b, "/smc-on");
	fbattr_label("/", NULL, b, sizeof(b));
	assert_string_equal(b, "/");
	fbattr_label(NULL, NULL, b, sizeof(b));
	assert_string_equal(b, FBATTR_UNKNOWN);
	/* A container named by its runtime (fallback.c asks common/container-ident.c): its
	 * name, not its scope; sanitised as any name; "" is no name: the scope again. */
	fbattr_label("/machine.slice/libpod-"
		     "e13652de5c3a1c8d631ef02ff574212a799a02b0afaf52be45475c03ca804ae7.scope",
		     "podman:smc-srv", b, sizeof(b));
	assert_string_equal(b, "podman:smc-srv");
	fbattr_label("/docker.slice/docker-"
		     "c0639fb49cbfeb1fa04b8efde41fed84ea95a094707fa902294079057c9b889c.scope",
		     "docker:\033[2Jx\xff", b, sizeof(b));
	assert_string_equal(b, "docker:\\x1b[2Jx\\xff");
	fbattr_label("/machine.slice/libpod-"
		     "e13652de5c3a1c8d631ef02ff574212a799a02b0afaf52be45475c03ca804ae7.scope",
		     "", b, sizeof(b));
	assert_string_equal(
		b, "libpod-e13652de5c3a1c8d631ef02ff574212a799a02b0afaf52be45475c03ca804ae7.scope");
}

/* The samples of one family in text, counted; *sum their values. */
static size_t series(const char *text, const char *family, uint64_t *sum)
{
	size_t n = 0, len = strlen(family);

	*sum = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, family, len) == 0 && (p[len] == '{' || p[len] == ' ')) {
			const char *v = strchr(p, ' ');

			n++;
			*sum += strtoull(v + 1, NULL, 10);
		}
	}
	return n;
}

static void test_prometheus(void **state)
{
	struct fbattr *a = calloc(1, sizeof(*a));
	struct stats_engine *e = NULL;
	char name[32];
	uint64_t sum, other_before;
	char *text;

	(void)state;
	assert_non_null(a);
	assert_int_equal(stats_engine_new(10, &e), 0);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "u%02d.service", i);
		fbattr_add(a, NOUEID, name);
		fbattr_add(a, NOUEID, "u00.service");
	}
	fbattr_add(a, PEERDECL, "nginx.service");
	text = prometheus_render_fallback(
		e, &(struct objects){},
		&(struct prom_fallback){ .table = a, .available = true, .lost = 2, .unsignalled = 3 });
	assert_non_null(text);
	/* Bounded: FBATTR_TOP_UNITS + "other" for NOUEID, one for PEERDECL; nothing lost. */
	assert_int_equal(series(text, "smc_fallback_attributed_total", &sum),
			 FBATTR_TOP_UNITS + 1 + 1);
	assert_int_equal(sum, a->events);
	assert_non_null(strstr(
		text, "smc_fallback_attributed_total{reason=\"NOUEID\",unit=\"u00.service\"} 41\n"));
	assert_non_null(strstr(text, "smc_fallback_attributed_total{reason=\"NOUEID\",unit=\"other\"} "
				     "32\n"));
	assert_non_null(strstr(
		text,
		"smc_fallback_attributed_total{reason=\"PEERDECL\",unit=\"nginx.service\"} 1\n"));
	assert_non_null(strstr(text, "\nsmc_fallback_attribution_available 1\n"));
	assert_non_null(strstr(text, "\nsmc_fallback_attribution_lost_total 2\n"));
	assert_non_null(strstr(text, "\nsmc_fallback_attribution_unsignalled_total 3\n"));
	assert_non_null(strstr(text, "# TYPE smc_fallback_attributed_total counter\n"));
	free(text);
	/* More fallbacks: every series only grows (a counter), the label set stays. */
	other_before = a->reasons[0].other;
	fbattr_add(a, NOUEID, "newcomer.service");
	assert_int_equal(a->reasons[0].other, other_before + 1);
	text = prometheus_render_fallback(e, &(struct objects){},
					  &(struct prom_fallback){ .table = a, .available = true });
	assert_int_equal(series(text, "smc_fallback_attributed_total", &sum),
			 FBATTR_TOP_UNITS + 1 + 1);
	assert_null(strstr(text, "newcomer"));
	free(text);
	/* Unavailable and nothing counted: only the gauge saying so. */
	text = prometheus_render_fallback(e, &(struct objects){},
					  &(struct prom_fallback){ .available = false });
	assert_non_null(strstr(text, "\nsmc_fallback_attribution_available 0\n"));
	assert_null(strstr(text, "smc_fallback_attributed_total"));
	free(text);
	/* Without attribution (the fuzzers, the golden file): none of its families. */
	text = prometheus_render(e, &(struct objects){});
	assert_null(strstr(text, "smc_fallback_attribution"));
	free(text);
	stats_engine_free(e);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_other), cmocka_unit_test(test_sorted),
		cmocka_unit_test(test_reason_bound),	 cmocka_unit_test(test_label),
		cmocka_unit_test(test_prometheus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
