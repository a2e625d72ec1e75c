// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The smc.yaml loader against damaged input: a deterministic mutation fuzzer over valid
 * files (flipped, inserted, deleted and duplicated bytes and lines).  Every input must give
 * either a config or errors, never both, never a crash; every error must carry a location
 * ("FILE:LINE:COL: " or, for unreadable files, "FILE: "); every config must dump to YAML
 * that loads back to the same dump.  Under --enable-sanitizers this
 * also checks memory safety and leaks.  SMCD_FUZZ_ITERATIONS overrides the count (3000 by
 * default: about a second; the seed is fixed, so a failure reproduces).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/macro.h"
#include "config/config.h"

static char tmp_path[] = "/tmp/test-agent-config-fuzz-XXXXXX";

static const char *const seeds[] = {
	"ueid:\n  auto: true\n  machine-id-file: /etc/machine-id\n  entries: [SMC-A, B.C]\n"
	"  exclusive: false\nseid: leave\nhandshake-limitation: true\n",
	"sysctl:\n  wmem: 1MiB\n  rmem: 512KiB\n  autocorking_size: 0\n  smcr_buf_type: mixed\n"
	"  smcr_testlink_time: 2m\n  hs_ctrl: \"x\"\n",
	"pnet:\n  exclusive: true\n  entries:\n    - {pnetid: NET1, eth: eth0}\n"
	"    - pnetid: NET2\n      ib: mlx5_0\n      port: 2\n",
	"modules: [smc, smc_diag]\ndrift: {action: report, interval: 30s}\n"
	"monitor: {interval: 0}\nadmin-group: smcd\n",
	"# comment only\n",
	"",
	/* Strings a dump must quote to read them back: " #", ": ", quotes, a newline. */
	"ueid: {machine-id-file: \"/etc/machine id #1: x \\\"q\\\" 'a'\"}\n"
	"stats: {prometheus: {path: \"/var/lib/p: q/smc #.prom\"}}\n"
	"policies:\n  netns: [\"a\\nb\", \"/run/netns/x: y\"]\n  cgroups: [\"/a #b\"]\n",
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static const char interesting[] = ":-[]{},\"'&*!|>#%@\n \t0123456789aAzZ~";

static size_t mutate(char *buf, size_t len, size_t cap)
{
	size_t n = 1 + rng() % 4;

	for (size_t k = 0; k < n; k++) {
		size_t pos = len ? rng() % len : 0;

		switch (rng() % 5) {
		case 0: /* flip */
			if (len)
				buf[pos] = interesting[rng() % (sizeof(interesting) - 1)];
			break;
		case 1: /* insert */
			if (len + 1 < cap) {
				memmove(buf + pos + 1, buf + pos, len - pos);
				buf[pos] = interesting[rng() % (sizeof(interesting) - 1)];
				len++;
			}
			break;
		case 2: /* delete */
			if (len) {
				memmove(buf + pos, buf + pos + 1, len - pos - 1);
				len--;
			}
			break;
		case 3: { /* duplicate a span (repeats keys, lines, indentation) */
			size_t span = 1 + rng() % 24;

			if (pos + span <= len && len + span < cap) {
				memmove(buf + pos + span, buf + pos, len - pos);
				len += span;
			}
			break;
		}
		default: /* raw byte, including NUL and high bytes */
			if (len)
				buf[pos] = (char)(rng() & 0xff);
			break;
		}
	}
	return len;
}

static char tmp_dump_path[] = "/tmp/test-agent-config-fuzz-dump-XXXXXX";

/* What a loaded file dumps to must load, and dump to the same text (past the header line,
 * which names the file and its hash). */
static void round_trip(const char *dump)
{
	struct config_errors errors = {};
	struct config *c = NULL;
	FILE *f = fopen(tmp_dump_path, "we");
	char *again;

	assert_non_null(f);
	fputs(dump, f);
	assert_int_equal(fclose(f), 0);
	if (config_load(tmp_dump_path, &c, &errors) != 0) {
		fprintf(stderr, "the dump does not load back:\n%s\nerror: %s\n", dump,
			errors.n ? errors.lines[0] : "?");
		fail();
	}
	again = config_dump(c);
	assert_non_null(again);
	assert_string_equal(strchr(dump, '\n'), strchr(again, '\n'));
	free(again);
	config_free(c);
	config_errors_clear(&errors);
}

static void check_one(const char *data, size_t len)
{
	struct config_errors errors = {};
	struct config *c = NULL;
	FILE *f = fopen(tmp_path, "we");
	int r;

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	r = config_load(tmp_path, &c, &errors);
	if (r == 0) {
		char *dump;

		assert_non_null(c);
		assert_int_equal(errors.n, 0);
		dump = config_dump(c);
		assert_non_null(dump);
		round_trip(dump);
		free(dump);
		config_free(c);
	} else {
		assert_null(c);
		assert_true(errors.n > 0);
		for (size_t i = 0; i < errors.n; i++) {
			unsigned line, col;
			const char *rest = errors.lines[i] + strlen(tmp_path);

			assert_true(strncmp(errors.lines[i], tmp_path, strlen(tmp_path)) == 0);
			assert_true(sscanf(rest, ":%u:%u: ", &line, &col) == 2 ||
				    strncmp(rest, ": cannot read", 13) == 0);
		}
	}
	config_errors_clear(&errors);
}

static void test_mutations(void **state)
{
	const char *env = getenv("SMCD_FUZZ_ITERATIONS");
	unsigned long iterations = env ? strtoul(env, NULL, 10) : 3000;
	char buf[4096];

	for (unsigned long i = 0; i < iterations; i++) {
		const char *seed = seeds[rng() % ELEMENTSOF(seeds)];
		size_t len = strlen(seed);

		memcpy(buf, seed, len);
		len = mutate(buf, len, sizeof(buf));
		check_one(buf, len);
	}
}

static void test_seeds_valid(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(seeds); i++) {
		struct config_errors errors = {};
		struct config *c = NULL;
		FILE *f = fopen(tmp_path, "we");

		fputs(seeds[i], f);
		fclose(f);
		assert_int_equal(config_load(tmp_path, &c, &errors), 0);
		config_free(c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seeds_valid),
		cmocka_unit_test(test_mutations),
	};
	int fd = mkstemp(tmp_path), r;

	if (fd < 0)
		return 1;
	close(fd);
	fd = mkstemp(tmp_dump_path);
	if (fd < 0)
		return 1;
	close(fd);
	r = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(tmp_path);
	unlink(tmp_dump_path);
	return r;
}
