// SPDX-License-Identifier: GPL-2.0-or-later
/* smc.yaml loader: good files, and every class of error with its exact FILE:LINE:COL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/macro.h"
#include "config/config.h"
#include "config/keys.h"

static char tmp_path[] = "/tmp/test-agent-config-XXXXXX";

static int write_tmp(const char *text)
{
	FILE *f = fopen(tmp_path, "we");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int setup(void **state)
{
	int fd = mkstemp(tmp_path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(tmp_path);
	return 0;
}

/* Load text; return the config (and no errors) or NULL with errors. */
static struct config *load_text(const char *text, struct config_errors *errors)
{
	struct config *c = NULL;

	assert_int_equal(write_tmp(text), 0);
	memset(errors, 0, sizeof(*errors));
	if (config_load(tmp_path, &c, errors) < 0)
		return NULL;
	return c;
}

/* The first error must be exactly "TMPFILE:" + expected. */
static void expect_error(const char *text, const char *expected)
{
	struct config_errors errors;
	struct config *c = load_text(text, &errors);
	char want[1024];

	snprintf(want, sizeof(want), "%s:%s", tmp_path, expected);
	assert_null(c);
	assert_true(errors.n >= 1);
	assert_string_equal(errors.lines[0], want);
	config_errors_clear(&errors);
}

/*
 * The same, where the middle of the message is libsmcnl's reason (its wording is the
 * library's business): "TMPFILE:" + prefix ... suffix.
 */
static void expect_error_around(const char *text, const char *prefix, const char *suffix)
{
	struct config_errors errors;
	struct config *c = load_text(text, &errors);
	char want[1024];
	size_t n;

	snprintf(want, sizeof(want), "%s:%s", tmp_path, prefix);
	assert_null(c);
	assert_true(errors.n >= 1);
	assert_true(strncmp(errors.lines[0], want, strlen(want)) == 0);
	n = strlen(errors.lines[0]);
	assert_true(n > strlen(suffix));
	assert_string_equal(errors.lines[0] + n - strlen(suffix), suffix);
	config_errors_clear(&errors);
}

/* ---------------------------------------------------------------------------------- */

/* Tags and %TAG directives are refused where they are, not silently dropped (issue 35). */
static void test_yaml_tags_refused(void **state)
{
	expect_error(
		"seid:\n  enable: !!binary aGVsbG8=\n",
		"2:11: the YAML tag 'tag:yaml.org,2002:binary' is not supported (expected a value without a tag: remove it)");
	expect_error(
		"rate-limit: !custom 5\n",
		"1:13: the YAML tag '!custom' is not supported (expected a value without a tag: remove it)");
	expect_error(
		"ueid: !!map\n  auto: false\n",
		"1:7: the YAML tag 'tag:yaml.org,2002:map' is not supported (expected a value without a tag: remove it)");
	expect_error(
		"modules: !!seq [smc]\n",
		"1:10: the YAML tag 'tag:yaml.org,2002:seq' is not supported (expected a value without a tag: remove it)");
	expect_error(
		"%TAG !e! tag:example.com,2000:\n---\nseid: {enable: true}\n",
		"1:1: %TAG directives are not supported (expected no tags: remove the %TAG line)");
}

static void test_shipped_file(void **state)
{
	struct config_errors errors = {};
	struct config *c = NULL;
	char path[1024];

	snprintf(path, sizeof(path), "%s/etc/smc/smc.yaml", TOP_SRCDIR);
	assert_int_equal(config_load(path, &c, &errors), 0);
	assert_int_equal(errors.n, 0);
	assert_true(c->ueid.auto_derive);
	assert_int_equal(c->ueid.derivation, UEID_DERIVE_APP_SPECIFIC);
	assert_string_equal(c->ueid.machine_id_file, "/etc/machine-id");
	assert_int_equal(c->ueid.n_entries, 0);
	assert_false(c->ueid.exclusive);
	assert_int_equal(c->seid, CONFIG_LEAVE);
	assert_int_equal(c->hs_limitation, CONFIG_LEAVE);
	assert_int_equal(c->n_sysctls, 2);
	assert_string_equal(c->sysctls[0].desc->name, "wmem");
	assert_int_equal(c->sysctls[0].value, 65536);
	assert_string_equal(c->sysctls[1].desc->name, "rmem");
	assert_int_equal(c->sysctls[1].value, 262144);
	assert_int_equal(c->n_modules, 2);
	assert_int_equal(c->drift.action, DRIFT_REPAIR);
	assert_int_equal(c->drift.interval_usec, 30000000);
	assert_int_equal(c->monitor.interval_usec, 10000000);
	assert_string_equal(c->admin_group, "smcd");
	config_free(c);
}

/* The shipped file says what the built-in defaults are: both must agree. */
static void test_defaults_equal_shipped_file(void **state)
{
	struct config_errors errors = {};
	struct config *shipped = NULL, *def = NULL, *empty = NULL;
	char path[1024];
	char *a, *b, *e;

	snprintf(path, sizeof(path), "%s/etc/smc/smc.yaml", TOP_SRCDIR);
	assert_int_equal(config_load(path, &shipped, &errors), 0);
	assert_int_equal(config_new_default(path, &def), 0);
	empty = load_text("# nothing but a comment\n", &errors);
	assert_non_null(empty);
	a = config_dump(shipped);
	b = config_dump(def);
	e = config_dump(empty);
	/* Skip the first line (path and revision). */
	assert_string_equal(strchr(a, '\n'), strchr(b, '\n'));
	assert_string_equal(strchr(a, '\n'), strchr(e, '\n'));
	free(a);
	free(b);
	free(e);
	config_free(shipped);
	config_free(def);
	config_free(empty);
}

static void test_full_file(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("ueid:\n"
				     "  auto: false\n"
				     "  derive: machine-id\n"
				     "  machine-id-file: /run/mid\n"
				     "  entries: [SMC-HOSTS-A, \"MY.UEID-2\"]\n"
				     "  exclusive: true\n"
				     "seid: disable\n"
				     "handshake-limitation: true\n"
				     "sysctl:\n"
				     "  wmem: 512KiB\n"
				     "  rmem: 2M\n"
				     "  autocorking_size: 0\n"
				     "  smcr_buf_type: mixed\n"
				     "  smcr_testlink_time: 2m\n"
				     "  smcr_max_conns_per_lgr: 64\n"
				     "  hs_ctrl: mine\n"
				     "pnet:\n"
				     "  exclusive: true\n"
				     "  entries:\n"
				     "    - {pnetid: net1, eth: eth0}\n"
				     "    - pnetid: NET2\n"
				     "      ib: mlx5_0\n"
				     "      port: 2\n"
				     "    - {pnetid: LO, ib: lo}\n"
				     "modules: [smc]\n"
				     "drift: {action: report, interval: 5m}\n"
				     "monitor: {interval: 0}\n"
				     "admin-group: \"\"\n",
				     &errors);

	assert_int_equal(errors.n, 0);
	assert_non_null(c);
	assert_false(c->ueid.auto_derive);
	assert_int_equal(c->ueid.derivation, UEID_DERIVE_MACHINE_ID);
	assert_string_equal(c->ueid.machine_id_file, "/run/mid");
	assert_int_equal(c->ueid.n_entries, 2);
	assert_string_equal(c->ueid.entries[1].ueid, "MY.UEID-2");
	assert_int_equal(c->ueid.entries[1].mark.line, 5);
	assert_int_equal(c->ueid.entries[1].mark.column, 26);
	assert_true(c->ueid.exclusive);
	assert_int_equal(c->seid, CONFIG_DISABLE);
	assert_int_equal(c->hs_limitation, CONFIG_ENABLE);
	assert_int_equal(c->n_sysctls, 7);
	assert_int_equal(config_find_sysctl(c, "wmem")->value, 512 * 1024);
	assert_int_equal(config_find_sysctl(c, "rmem")->value, 2 * 1024 * 1024);
	assert_int_equal(config_find_sysctl(c, "smcr_buf_type")->value, 2);
	assert_int_equal(config_find_sysctl(c, "smcr_testlink_time")->value, 120);
	assert_string_equal(config_find_sysctl(c, "hs_ctrl")->string, "mine");
	assert_int_equal(config_find_sysctl(c, "wmem")->mark.line, 10);
	assert_true(c->pnet.exclusive);
	assert_int_equal(c->pnet.n_entries, 3);
	assert_string_equal(c->pnet.entries[0].pnetid, "NET1");
	assert_string_equal(c->pnet.entries[0].eth, "eth0");
	assert_string_equal(c->pnet.entries[1].ib, "mlx5_0");
	assert_int_equal(c->pnet.entries[1].port, 2);
	assert_int_equal(c->pnet.entries[2].port, 1);
	assert_int_equal(c->n_modules, 1);
	assert_int_equal(c->drift.action, DRIFT_REPORT);
	assert_int_equal(c->drift.interval_usec, 300000000ULL);
	assert_int_equal(c->monitor.interval_usec, 0);
	assert_null(c->admin_group);
	config_free(c);
}

static void test_sysctl_section_replaces_default(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("sysctl: {}\n", &errors);

	assert_non_null(c);
	assert_int_equal(c->n_sysctls, 0);
	config_free(c);
	c = load_text("sysctl:\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->n_sysctls, 0);
	config_free(c);
}

/* ueid.derive: app-specific by default, machine-id for hosts with the seed's UEID. */
static void test_ueid_derive(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("ueid:\n  derive: app-specific\n", &errors);

	assert_non_null(c);
	assert_int_equal(c->ueid.derivation, UEID_DERIVE_APP_SPECIFIC);
	config_free(c);
	c = load_text("ueid: {derive: machine-id}\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->ueid.derivation, UEID_DERIVE_MACHINE_ID);
	config_free(c);
	c = load_text("ueid: {auto: true}\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->ueid.derivation, UEID_DERIVE_APP_SPECIFIC);
	config_free(c);
	expect_error("ueid:\n  derive: MID\n",
		     "2:11: ueid.derive: 'MID' is not a valid value (expected app-specific or "
		     "machine-id)");
	expect_error("ueid:\n  derive: [machine-id]\n",
		     "2:11: ueid.derive: a list is not a valid value (expected app-specific or "
		     "machine-id)");
}

static void test_empty_file(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("", &errors);

	assert_non_null(c);
	assert_true(c->ueid.auto_derive);
	assert_int_equal(c->ueid.derivation, UEID_DERIVE_APP_SPECIFIC);
	assert_int_equal(c->n_sysctls, 2);
	config_free(c);
}

/* ---------------------------------------------------------------------------------- */
/* Errors, one class each                                                              */

static void test_error_syntax(void **state)
{
	expect_error(
		"ueid:\n  auto: [true\n",
		"3:1: YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence");
}

static void test_error_unknown_top_key(void **state)
{
	expect_error(
		"seid: leave\nexport:\n  prometheus: {}\n",
		"2:1: smc.yaml: unknown key 'export' (expected one of: ueid, seid, handshake-limitation, sysctl, pnet, modules, drift, monitor, admin-group, rate-limit, stats, assess, auto, policies, loopback)");
}

static void test_error_unknown_nested_key(void **state)
{
	expect_error("drift:\n  action: repair\n  intervall: 10s\n",
		     "3:3: drift: unknown key 'intervall' (expected one of: action, interval)");
}

static void test_error_unknown_sysctl(void **state)
{
	expect_error(
		"sysctl:\n  wmen: 1MiB\n",
		"2:3: sysctl: unknown sysctl 'wmen' (expected one of: autocorking_size, smcr_buf_type, smcr_testlink_time, wmem, rmem, smcr_max_links_per_lgr, smcr_max_conns_per_lgr, smcr_max_send_wr, smcr_max_recv_wr, hs_ctrl)");
}

static void test_error_limit_smc_hs(void **state)
{
	expect_error(
		"sysctl:\n  limit_smc_hs: 1\n",
		"2:3: sysctl: limit_smc_hs is set with the top-level key handshake-limitation (expected handshake-limitation: true|false|leave)");
}

static void test_error_wrong_type_scalar(void **state)
{
	expect_error("seid:\n  enable: true\n",
		     "2:3: seid: a mapping is not a valid value (expected leave, enable or disable)");
}

static void test_error_wrong_type_mapping(void **state)
{
	expect_error("ueid: true\n", "1:7: ueid: a scalar is not valid here (expected a mapping)");
}

static void test_error_wrong_type_list(void **state)
{
	expect_error(
		"modules: smc\n",
		"1:10: modules: a scalar is not valid here (expected a list of kernel module names)");
}

static void test_error_bool(void **state)
{
	expect_error("ueid:\n  exclusive: maybe\n",
		     "2:14: ueid.exclusive: 'maybe' is not a boolean (expected true or false)");
}

static void test_error_empty_value(void **state)
{
	expect_error(
		"seid:\n",
		"1:6: seid: an empty value is not a valid value (expected leave, enable or disable)");
}

static void test_error_out_of_range(void **state)
{
	expect_error("sysctl:\n  wmem: 8KiB\n",
		     "2:9: sysctl.wmem: 8KiB is out of range (expected 16KiB to 1GiB less 1 byte)");
	expect_error("sysctl:\n  smcr_max_conns_per_lgr: 300\n",
		     "2:27: sysctl.smcr_max_conns_per_lgr: 300 is out of range (expected 16 to 255)");
	expect_error(
		"drift:\n  interval: 2d\n",
		"2:13: drift.interval: '2d' is not a duration (expected a number with s, m or h, e.g. 30s)");
	expect_error("drift:\n  interval: 25h\n",
		     "2:13: drift.interval: 25h is out of range (expected 0 or 1s to 86400s)");
}

static void test_error_bad_unit(void **state)
{
	/* a near-miss unit gets the spelling it most likely meant */
	expect_error("sysctl:\n  rmem: 1 MB\n",
		     "2:9: sysctl.rmem: '1 MB' is not valid (expected a size such as 64KiB or 1MiB)"
		     ": did you mean 1MiB?");
	expect_error("sysctl:\n  rmem: 64KB\n",
		     "2:9: sysctl.rmem: '64KB' is not valid (expected a size such as 64KiB or 1MiB)"
		     ": did you mean 64KiB?");
	expect_error("sysctl:\n  rmem: 64QB\n",
		     "2:9: sysctl.rmem: '64QB' is not valid (expected a size such as 64KiB or 1MiB)");
	expect_error(
		"sysctl:\n  smcr_buf_type: contiguous\n",
		"2:18: sysctl.smcr_buf_type: 'contiguous' is not valid (expected physical, virtual, mixed)");
}

static void test_error_duplicate_key(void **state)
{
	expect_error("seid: leave\nsysctl:\n  wmem: 1MiB\n  wmem: 2MiB\n",
		     "4:3: sysctl: duplicate key 'wmem' (first given at line 3, column 3)");
	expect_error("seid: leave\nseid: enable\n",
		     "2:1: smc.yaml: duplicate key 'seid' (first given at line 1, column 1)");
}

/* The third and fourth of one key name the first, not the one before. */
static void test_error_duplicate_key_many(void **state)
{
	struct config_errors errors;
	struct config *c =
		load_text("sysctl:\n  wmem: 1MiB\n  rmem: 1MiB\n  wmem: 2MiB\n  wmem: 3MiB\n"
			  "modules: [smc, smc_diag, smc, smc]\n",
			  &errors);
	char want[256];

	assert_null(c);
	assert_int_equal(errors.n, 4);
	snprintf(want, sizeof(want),
		 "%s:4:3: sysctl: duplicate key 'wmem' (first given at line 2, column 3)", tmp_path);
	assert_string_equal(errors.lines[0], want);
	snprintf(want, sizeof(want),
		 "%s:5:3: sysctl: duplicate key 'wmem' (first given at line 2, column 3)", tmp_path);
	assert_string_equal(errors.lines[1], want);
	snprintf(want, sizeof(want),
		 "%s:6:26: modules: duplicate module 'smc' (first given at line 6, column 11)",
		 tmp_path);
	assert_string_equal(errors.lines[2], want);
	snprintf(want, sizeof(want),
		 "%s:6:31: modules: duplicate module 'smc' (first given at line 6, column 11)",
		 tmp_path);
	assert_string_equal(errors.lines[3], want);
	config_errors_clear(&errors);
}

/* A text of n times open, then n times close (each two bytes) after prefix. */
static char *nested(const char *prefix, size_t n, const char *open, const char *close)
{
	size_t p = strlen(prefix), lo = strlen(open), lc = strlen(close);
	char *s = malloc(p + n * (lo + lc) + 2);

	assert_non_null(s);
	memcpy(s, prefix, p);
	for (size_t i = 0; i < n; i++)
		memcpy(s + p + i * lo, open, lo);
	for (size_t i = 0; i < n; i++)
		memcpy(s + p + n * lo + i * lc, close, lc);
	strcpy(s + p + n * (lo + lc), "\n");
	return s;
}

/*
 * 40,000 nested lists (80 KB) overflowed the stack of the recursive tree builder: the
 * agent crashed at a Reload.  Refused at the 33rd level: where the 33rd "[" is.
 */
static void test_error_deep_nesting(void **state)
{
	_cleanup_(freep) char *seqs = nested("a: ", 40000, "[", "]");
	_cleanup_(freep) char *maps = nested("a: ", 40000, "{b: ", "}");
	_cleanup_(freep) char *ok = nested("policies:\n  cgroups: ", 1, "[", "]");

	expect_error(seqs, "1:35: nested more than 32 levels deep (smc.yaml needs at most 4)");
	/* (the 32nd mapping's key "b" at column 125 is the 33rd level) */
	expect_error(maps, "1:125: nested more than 32 levels deep (smc.yaml needs at most 4)");
	/* 32 levels are parsed (and refused by the schema, not by the bound). */
	free(seqs);
	seqs = nested("a: ", 31, "[", "]");
	expect_error_around(seqs, "1:1: smc.yaml: unknown key 'a' (expected one of: ", "loopback)");
	{
		struct config_errors errors;
		struct config *c = load_text(ok, &errors);

		assert_non_null(c);
		config_free(c);
	}
}

/* 200,000 keys (2.4 MB) took minutes (a duplicate check against every earlier key). */
static void test_error_too_many_nodes(void **state)
{
	size_t n = 200000, len = 0;
	_cleanup_(freep) char *text = malloc(n * 16 + 32);
	char want[128];

	assert_non_null(text);
	len += (size_t)sprintf(text, "pnet:\n  x:\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "    k%zu: 1\n", i);
	/* Nodes 1-5 are the root, pnet, its map, x and its map; line 3 + i holds key i (node
	 * 6 + 2i) and its value (7 + 2i), so node 20001 is the value of key 9997, on line 10000. */
	snprintf(want, sizeof(want),
		 "10000:12: more than 20000 YAML nodes (keys, values and list items): the file is too large");
	expect_error(text, want);
}

static void test_error_too_many_modules(void **state)
{
	char text[1024] = "modules: [";

	for (int i = 0; i < 65; i++)
		sprintf(text + strlen(text), "%sm%d", i ? ", " : "", i);
	strcat(text, "]\n");
	expect_error(text, "1:10: modules: 65 modules (expected at most 64, such as smc, smc_diag)");
}

/* A FIFO is refused without blocking for a writer, a directory is named as one. */
static void test_error_not_regular(void **state)
{
	char dir[] = "/tmp/test-agent-config-dir-XXXXXX", fifo[PATH_MAX], want[PATH_MAX + 64];
	struct config_errors errors = {};
	struct config *c = NULL;

	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/smc.yaml", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_true(config_load(fifo, &c, &errors) < 0);
	assert_null(c);
	assert_int_equal(errors.n, 1);
	snprintf(want, sizeof(want), "%s: is a FIFO (expected a regular YAML file)", fifo);
	assert_string_equal(errors.lines[0], want);
	config_errors_clear(&errors);
	assert_true(config_load(dir, &c, &errors) < 0);
	assert_int_equal(errors.n, 1);
	snprintf(want, sizeof(want), "%s: is a directory (expected a regular YAML file)", dir);
	assert_string_equal(errors.lines[0], want);
	config_errors_clear(&errors);
	unlink(fifo);
	rmdir(dir);
}

/* Encoding errors at their own position, not at 1:1 (column in characters: ä is one). */
static void test_error_encoding_position(void **state)
{
	expect_error(
		"seid: leave\nsysctl:\n  wmem: \"ab\xff\"\n",
		"3:12: invalid leading UTF-8 octet (expected UTF-8 text without control characters)");
	expect_error(
		"seid: le\xc3\xa4ve\xff\n",
		"1:12: invalid leading UTF-8 octet (expected UTF-8 text without control characters)");
	expect_error(
		"seid: leave\n\x01: 1\n",
		"2:1: control characters are not allowed (expected UTF-8 text without control characters)");
}

/* A control character from the file (here ESC, from a YAML escape) is shown as \xNN. */
static void test_error_controls_escaped(void **state)
{
	expect_error_around(
		"sysctl:\n  \"w\\e[31m\\nred\": 1\n",
		"2:3: sysctl: unknown sysctl 'w\\x1b[31m\\x0ared' (expected one of: ", ")");
}

static void test_error_ueid(void **state)
{
	expect_error_around("ueid:\n  entries: [smc-lower]\n",
			    "2:13: ueid.entries: 'smc-lower' is not a valid UEID: ",
			    " (expected up to 32 upper-case letters, digits, '.' or '-')");
	expect_error("ueid:\n  entries: [A, B, A]\n",
		     "2:19: ueid.entries: duplicate UEID 'A' (first given at line 2, column 13)");
	expect_error(
		"ueid:\n  entries: [A, B, C, D]\n",
		"2:3: ueid: 4 entries and the derived UEID are too many (expected at most 4 in all; set auto: false or remove one)");
	expect_error(
		"ueid:\n  auto: false\n  entries: [A, B, C, D, E]\n",
		"3:25: ueid.entries: too many UEIDs (expected at most 4: the kernel's table holds 4)");
	expect_error(
		"ueid:\n  machine-id-file: etc/machine-id\n",
		"2:20: ueid.machine-id-file: 'etc/machine-id' is not an absolute path (expected a path starting with /)");
}

static void test_error_pnet(void **state)
{
	expect_error(
		"pnet:\n  entries:\n    - {pnetid: NET1}\n",
		"3:7: pnet.entries: entry needs exactly one of eth or ib (expected eth: NETDEV, or ib: DEVICE with an optional port)");
	expect_error(
		"pnet:\n  entries:\n    - {pnetid: NET1, eth: eth0, ib: mlx5_0}\n",
		"3:7: pnet.entries: entry needs exactly one of eth or ib (expected eth: NETDEV, or ib: DEVICE with an optional port)");
	expect_error(
		"pnet:\n  entries:\n    - {pnetid: NET1, eth: eth0, port: 1}\n",
		"3:7: pnet.entries: port is only valid with ib (expected no port for an eth entry)");
	expect_error("pnet:\n  entries:\n    - {eth: eth0}\n",
		     "3:7: pnet.entries: entry without pnetid (expected pnetid: NAME)");
	expect_error_around("pnet:\n  entries:\n    - {pnetid: NET-1, eth: eth0}\n",
			    "3:16: pnet.entries.pnetid: 'NET-1' is not a valid PNET ID: ",
			    " (expected 1 to 16 letters or digits)");
	expect_error("pnet:\n  entries:\n    - {pnetid: N, ib: lo, port: 3}\n",
		     "3:33: pnet.entries.port: '3' is not a valid port (expected 1 or 2)");
	expect_error("pnet:\n  entries:\n    - {pnetid: N, eth: a}\n    - {pnetid: n, eth: a}\n",
		     "4:7: pnet.entries: duplicate entry (first given at line 3, column 7)");
	expect_error(
		"pnet:\n  entries:\n    - NET1\n",
		"3:7: pnet.entries: a scalar is not a valid entry (expected a mapping with pnetid and eth or ib)");
}

static void test_error_modules(void **state)
{
	expect_error("modules: [smc, smc]\n",
		     "1:16: modules: duplicate module 'smc' (first given at line 1, column 11)");
	expect_error(
		"modules: [../evil]\n",
		"1:11: modules: '../evil' is not a module name (expected lower-case letters, digits, '_' or '-')");
}

static void test_error_structure(void **state)
{
	expect_error(
		"- ueid\n",
		"1:1: the file is a list (expected a mapping of sections such as ueid:, sysctl:)");
	expect_error("seid: leave\n---\nseid: leave\n",
		     "3:1: a second YAML document (expected exactly one)");
	expect_error("drift: &d {action: repair}\nmonitor: *d\n",
		     "2:10: YAML aliases are not supported (write the value out)");
}

/* Several errors are reported in one run, in file order; nothing is returned. */
static void test_error_all_reported(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("seid: on\nsysctl:\n  wmem: 1\n  rmem: x\nbogus: 1\n", &errors);

	assert_null(c);
	assert_int_equal(errors.n, 4);
	assert_non_null(strstr(errors.lines[0], ":1:7: seid:"));
	assert_non_null(strstr(errors.lines[1], ":3:9: sysctl.wmem:"));
	assert_non_null(strstr(errors.lines[2], ":4:9: sysctl.rmem:"));
	assert_non_null(strstr(errors.lines[3], ":5:1: smc.yaml: unknown key 'bogus'"));
	config_errors_clear(&errors);
}

static void test_error_missing_file(void **state)
{
	struct config_errors errors = {};
	struct config *c = NULL;

	assert_int_equal(config_load("/nonexistent/smc.yaml", &c, &errors), -ENOENT);
	assert_int_equal(errors.n, 1);
	assert_string_equal(
		errors.lines[0],
		"/nonexistent/smc.yaml: cannot read: No such file or directory (expected a readable YAML file)");
	config_errors_clear(&errors);
}

/* ---------------------------------------------------------------------------------- */

/* The key table itself: unique paths, each section's rows together (the walker and the dump
 * rely on it), every row under a section that is a row or has rows, named types. */
static void test_key_table(void **state)
{
	for (size_t i = 0; i < config_n_keys; i++) {
		const struct config_key *k = &config_keys[i];
		const char *dot = strrchr(k->path, '.');

		assert_ptr_equal(config_key_find(&config_key_table, k->path), k);
		assert_string_not_equal(config_key_type_name(k->type), "?");
		if (k->type == CONFIG_KEY_ENUM)
			assert_true(k->names && k->n_names && k->expected);
		if (k->type == CONFIG_KEY_CUSTOM)
			assert_true(k->parse && k->dump);
		if (!dot || i == 0)
			continue;
		/* a section's rows are together: where one starts, no earlier row is in it */
		size_t n = (size_t)(dot - k->path);
		const char *prev = config_keys[i - 1].path;

		if (strncmp(prev, k->path, n) == 0 && (prev[n] == '.' || prev[n] == '\0'))
			continue;
		for (size_t j = 0; j + 1 < i; j++)
			if (strncmp(config_keys[j].path, k->path, n) == 0 &&
			    config_keys[j].path[n] == '.')
				fail_msg("%s is apart from %s, a row of its section", k->path,
					 config_keys[j].path);
	}
}

/* rate-limit: one row of config/keys.c, nothing else (default, range, dump). */
static void test_rate_limit(void **state)
{
	struct config_errors errors = {};
	struct config *c = NULL;
	char *dump;

	assert_int_equal(config_new_default("/x", &c), 0);
	assert_int_equal(c->rate_limit, 20);
	config_free(c);
	c = load_text("rate-limit: 200\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->rate_limit, 200);
	dump = config_dump(c);
	assert_non_null(strstr(dump, "\nadmin-group: \"smcd\"\nrate-limit: 200\nstats:\n"));
	free(dump);
	config_free(c);
	expect_error("rate-limit: 0\n",
		     "1:13: rate-limit: '0' is not valid (expected a whole number from 1 to 10000)");
	expect_error(
		"rate-limit: 10001\n",
		"1:13: rate-limit: '10001' is not valid (expected a whole number from 1 to 10000)");
	expect_error("rate-limit: 2k\n",
		     "1:13: rate-limit: '2k' is not valid (expected a whole number from 1 to 10000)");
	expect_error("rate-limit: [20]\n", "1:13: rate-limit: a list is not a valid value "
					   "(expected a whole number from 1 to 10000)");
}

/* ---------------------------------------------------------------------------------- */
/* auto: the autopilot's keys                                                          */

static const char auto_default_dump[] = "\nauto:\n"
					"  mode: off\n"
					"  window: 30s\n"
					"  budget: 256MiB\n"
					"  scope:\n"
					"    cgroups: []\n"
					"    units: []\n"
					"    netns: []\n"
					"  exclude-ports: []\n"
					"policies:";

/* What a missing key means: off, 30s, 256MiB, every workload, no port excluded. */
static void test_auto_defaults(void **state)
{
	struct config_errors errors;
	struct config *c = NULL;
	char *dump;

	assert_int_equal(config_new_default("/x", &c), 0);
	assert_int_equal(c->autopilot.mode, AUTO_MODE_OFF);
	assert_int_equal(c->autopilot.window_usec, 30 * 1000000ULL);
	assert_int_equal(c->autopilot.budget_bytes, 256ULL << 20);
	assert_int_equal(c->autopilot.scope.n_cgroups, 0);
	assert_int_equal(c->autopilot.scope.n_units, 0);
	assert_int_equal(c->autopilot.scope.n_netns, 0);
	assert_int_equal(c->autopilot.n_exclude_ports, 0);
	dump = config_dump(c);
	assert_non_null(strstr(dump, auto_default_dump));
	free(dump);
	config_free(c);
	/* an empty section is the defaults too */
	c = load_text("auto:\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->autopilot.mode, AUTO_MODE_OFF);
	dump = config_dump(c);
	assert_non_null(strstr(dump, auto_default_dump));
	free(dump);
	config_free(c);
	assert_string_equal(auto_mode_to_string(AUTO_MODE_OFF), "off");
	assert_string_equal(auto_mode_to_string(AUTO_MODE_OBSERVE), "observe");
	assert_string_equal(auto_mode_to_string(AUTO_MODE_ON), "on");
	assert_null(auto_mode_to_string((enum auto_mode)3));
}

static void test_auto_values(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("auto:\n"
				     "  mode: observe\n"
				     "  window: 2m\n"
				     "  budget: 1G\n"
				     "  scope:\n"
				     "    cgroups: [/system.slice, \"/machine.slice/a b\"]\n"
				     "    units: [nginx, getty@tty1.service, app.scope]\n"
				     "    netns: [blue, /proc/1/ns/net, \"/run/netns/a b\"]\n"
				     "  exclude-ports: [22, 0443, 65535]\n",
				     &errors);
	struct config *d;
	char *dump, *again;

	assert_non_null(c);
	assert_int_equal(c->autopilot.mode, AUTO_MODE_OBSERVE);
	assert_int_equal(c->autopilot.window_usec, 120 * 1000000ULL);
	assert_int_equal(c->autopilot.budget_bytes, 1ULL << 30);
	assert_int_equal(c->autopilot.scope.n_cgroups, 2);
	assert_string_equal(c->autopilot.scope.cgroups[0], "/system.slice");
	assert_string_equal(c->autopilot.scope.cgroups[1], "/machine.slice/a b");
	assert_int_equal(c->autopilot.scope.n_units, 3);
	/* as systemd names them: "nginx" is nginx.service */
	assert_string_equal(c->autopilot.scope.units[0], "nginx.service");
	assert_string_equal(c->autopilot.scope.units[1], "getty@tty1.service");
	assert_string_equal(c->autopilot.scope.units[2], "app.scope");
	/* as policies.netns takes them: "blue" is /run/netns/blue */
	assert_int_equal(c->autopilot.scope.n_netns, 3);
	assert_string_equal(c->autopilot.scope.netns[0], "/run/netns/blue");
	assert_string_equal(c->autopilot.scope.netns[1], "/proc/1/ns/net");
	assert_string_equal(c->autopilot.scope.netns[2], "/run/netns/a b");
	assert_int_equal(c->autopilot.n_exclude_ports, 3);
	assert_int_equal(c->autopilot.exclude_ports[0], 22);
	assert_int_equal(c->autopilot.exclude_ports[1], 443);
	assert_int_equal(c->autopilot.exclude_ports[2], 65535);
	dump = config_dump(c);
	assert_non_null(strstr(
		dump, "\nauto:\n"
		      "  mode: observe\n"
		      "  window: 2m\n"
		      "  budget: 1GiB\n"
		      "  scope:\n"
		      "    cgroups: [\"/system.slice\", \"/machine.slice/a b\"]\n"
		      "    units: [\"nginx.service\", \"getty@tty1.service\", \"app.scope\"]\n"
		      "    netns: [\"/run/netns/blue\", \"/proc/1/ns/net\", \"/run/netns/a b\"]\n"
		      "  exclude-ports: [22, 443, 65535]\n"
		      "policies:"));
	/* the dump reads back as itself */
	d = load_text(dump, &errors);
	assert_non_null(d);
	again = config_dump(d);
	assert_string_equal(strchr(dump, '\n'), strchr(again, '\n'));
	free(again);
	free(dump);
	config_free(d);
	config_free(c);

	c = load_text("auto: {mode: on, window: 10s, budget: 0}\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->autopilot.mode, AUTO_MODE_ON);
	assert_int_equal(c->autopilot.window_usec, 10 * 1000000ULL);
	assert_int_equal(c->autopilot.budget_bytes, 0); /* no budget */
	config_free(c);
	c = load_text("auto: {mode: off, window: 1h, budget: 1024GiB}\n", &errors);
	assert_non_null(c);
	assert_int_equal(c->autopilot.mode, AUTO_MODE_OFF);
	assert_int_equal(c->autopilot.window_usec, 3600 * 1000000ULL);
	assert_int_equal(c->autopilot.budget_bytes, 1024ULL << 30);
	config_free(c);
	c = load_text("auto: {scope: {cgroups: [/]}}\n", &errors);
	assert_non_null(c);
	assert_string_equal(c->autopilot.scope.cgroups[0], "/");
	config_free(c);
}

static void test_auto_errors(void **state)
{
	/* auto.mode */
	expect_error("auto:\n  mode: yes\n",
		     "2:9: auto.mode: 'yes' is not a valid value (expected off, observe or on)");
	expect_error("auto:\n  mode: ON\n",
		     "2:9: auto.mode: 'ON' is not a valid value (expected off, observe or on)");
	expect_error("auto:\n  mode: [on]\n",
		     "2:9: auto.mode: a list is not a valid value (expected off, observe or on)");
	expect_error("auto:\n  mode:\n", "2:8: auto.mode: an empty value is not a valid value "
					 "(expected off, observe or on)");
	/* auto.window */
	expect_error("auto:\n  window: 9s\n",
		     "2:11: auto.window: '9s' is not valid (expected a duration from 10s to 1h)");
	expect_error("auto:\n  window: 61m\n",
		     "2:11: auto.window: '61m' is not valid (expected a duration from 10s to 1h)");
	expect_error("auto:\n  window: 0\n",
		     "2:11: auto.window: '0' is not valid (expected a duration from 10s to 1h)");
	expect_error("auto:\n  window: soon\n",
		     "2:11: auto.window: 'soon' is not valid (expected a duration from 10s to 1h)");
	/* auto.budget */
	expect_error("auto:\n  budget: 1025GiB\n",
		     "2:11: auto.budget: '1025GiB' is not valid (expected 0 for no budget, or a size "
		     "up to 1024GiB such as 256MiB)");
	expect_error("auto:\n  budget: -1\n",
		     "2:11: auto.budget: '-1' is not valid (expected 0 for no budget, or a size up "
		     "to 1024GiB such as 256MiB)");
	expect_error("auto:\n  budget: 256MB\n",
		     "2:11: auto.budget: '256MB' is not valid (expected 0 for no budget, or a size "
		     "up to 1024GiB such as 256MiB): did you mean 256MiB?");
	expect_error("auto:\n  budget: {size: 1}\n",
		     "2:11: auto.budget: a mapping is not a valid value (expected a size such as "
		     "256MiB, or 0)");
	/* auto.scope.cgroups: policies.cgroups' rules */
	expect_error("auto:\n  scope:\n    cgroups: [system.slice]\n",
		     "3:15: auto.scope.cgroups: 'system.slice' is not a valid cgroup path: it is not "
		     "absolute (expected a path below the cgroup2 root such as /system.slice or "
		     "/system.slice/nginx.service)");
	expect_error("auto:\n  scope:\n    cgroups: [/sys/fs/cgroup/system.slice]\n",
		     "3:15: auto.scope.cgroups: '/sys/fs/cgroup/system.slice' is not a valid cgroup "
		     "path: it includes the mount point /sys/fs/cgroup (write the path below it, as "
		     "/proc/PID/cgroup shows it) (expected a path below the cgroup2 root such as "
		     "/system.slice or /system.slice/nginx.service)");
	expect_error("auto:\n  scope:\n    cgroups: [/a/../b]\n",
		     "3:15: auto.scope.cgroups: '/a/../b' is not a valid cgroup path: it has an "
		     "empty, '.' or '..' component (expected a path below the cgroup2 root such as "
		     "/system.slice or /system.slice/nginx.service)");
	expect_error("auto:\n  scope:\n    cgroups: [/a, /a]\n",
		     "3:19: auto.scope.cgroups: duplicate cgroup '/a' (first given at line 3, column "
		     "15)");
	expect_error("auto:\n  scope:\n    cgroups: /a\n",
		     "3:14: auto.scope.cgroups: a scalar is not valid here (expected a list of "
		     "cgroup paths)");
	expect_error("auto:\n  scope:\n    cgroups: [[/a]]\n",
		     "3:15: auto.scope.cgroups: a list is not a valid value (expected a cgroup path "
		     "such as /system.slice)");
	/* auto.scope.units: smcctl enable's rules */
	expect_error("auto:\n  scope:\n    units: [backup.timer]\n",
		     "3:13: auto.scope.units: 'backup.timer' is not a unit name: this kind of unit "
		     "runs no processes (expected a service, scope, slice, socket, mount or swap "
		     "unit)");
	expect_error("auto:\n  scope:\n    units: [\"my app\"]\n",
		     "3:13: auto.scope.units: 'my app' is not a unit name: a unit name has only "
		     "letters, digits and \":-_.\\@\" (expected a unit name such as nginx, "
		     "nginx.service or getty@tty1.service)");
	expect_error("auto:\n  scope:\n    units: [getty@.service]\n",
		     "3:13: auto.scope.units: 'getty@.service' is not a unit name: it is a template "
		     "(NAME@.TYPE), which runs no processes (expected an instance of it, such as "
		     "NAME@INSTANCE.service)");
	expect_error("auto:\n  scope:\n    units: [nginx, nginx.service]\n",
		     "3:20: auto.scope.units: duplicate unit 'nginx.service' (first given at line "
		     "3, column 13)");
	expect_error("auto:\n  scope:\n    units: nginx\n",
		     "3:12: auto.scope.units: a scalar is not valid here (expected a list of unit "
		     "names)");
	/* auto.scope.netns: policies.netns' rules */
	expect_error("auto:\n  scope:\n    netns: [../x]\n",
		     "3:13: auto.scope.netns: '../x' is not a network namespace: it is neither a "
		     "name (without '/') nor an absolute path (expected a name in /run/netns such as "
		     "blue, or an absolute path such as /proc/PID/ns/net)");
	expect_error("auto:\n  scope:\n    netns: [/run/netns/../x]\n",
		     "3:13: auto.scope.netns: '/run/netns/../x' is not a network namespace: it has a "
		     "'..' component (expected a name in /run/netns such as blue, or an absolute path "
		     "such as /proc/PID/ns/net)");
	expect_error("auto:\n  scope:\n    netns: [\"..\"]\n",
		     "3:13: auto.scope.netns: '..' is not a network namespace: '.' and '..' name no "
		     "namespace (expected a name in /run/netns such as blue, or an absolute path such "
		     "as /proc/PID/ns/net)");
	expect_error(
		"auto:\n  scope:\n    netns: [\"\"]\n",
		"3:13: auto.scope.netns: '' is not a network namespace: it is empty (expected a "
		"name in /run/netns such as blue, or an absolute path such as /proc/PID/ns/net)");
	{
		char text[512], want[1024], name[257];

		memset(name, 'n', 256);
		name[256] = 0;
		snprintf(text, sizeof(text), "auto:\n  scope:\n    netns: [%s]\n", name);
		snprintf(want, sizeof(want),
			 "3:13: auto.scope.netns: '%s' is not a network namespace: a name is at most "
			 "255 characters (expected a name in /run/netns such as blue, or an absolute "
			 "path such as /proc/PID/ns/net)",
			 name);
		expect_error(text, want);
		name[255] = 0; /* the longest name is one */
		snprintf(text, sizeof(text), "auto: {scope: {netns: [%s]}}\n", name);
		{
			struct config_errors errors;
			struct config *c = load_text(text, &errors);

			assert_non_null(c);
			assert_int_equal(c->autopilot.scope.n_netns, 1);
			config_free(c);
		}
	}
	expect_error("auto:\n  scope:\n    netns: [blue, /run/netns/blue]\n",
		     "3:19: auto.scope.netns: duplicate network namespace '/run/netns/blue' (first "
		     "given at line 3, column 13)");
	expect_error("auto:\n  scope:\n    netns: blue\n",
		     "3:12: auto.scope.netns: a scalar is not valid here (expected a list of network "
		     "namespaces)");
	expect_error("auto:\n  scope:\n    netns: [{name: blue}]\n",
		     "3:13: auto.scope.netns: a mapping is not a valid value (expected a name in "
		     "/run/netns or a path such as /proc/PID/ns/net)");
	/* auto.exclude-ports */
	expect_error("auto:\n  exclude-ports: [0]\n",
		     "2:19: auto.exclude-ports: '0' is not a port (expected a TCP port from 1 to "
		     "65535)");
	expect_error("auto:\n  exclude-ports: [65536]\n",
		     "2:19: auto.exclude-ports: '65536' is not a port (expected a TCP port from 1 to "
		     "65535)");
	expect_error("auto:\n  exclude-ports: [ssh]\n",
		     "2:19: auto.exclude-ports: 'ssh' is not a port (expected a TCP port from 1 to "
		     "65535)");
	expect_error("auto:\n  exclude-ports: [80, 080]\n",
		     "2:23: auto.exclude-ports: duplicate port '080' (first given at line 2, column "
		     "19)");
	expect_error("auto:\n  exclude-ports: 22\n",
		     "2:18: auto.exclude-ports: a scalar is not valid here (expected a list of TCP "
		     "ports)");
	/* the section */
	expect_error("auto:\n  modes: on\n", "2:3: auto: unknown key 'modes' (expected one of: "
					     "mode, window, budget, scope, exclude-ports)");
	expect_error("auto:\n  scope:\n    namespaces: [blue]\n",
		     "3:5: auto.scope: unknown key 'namespaces' (expected one of: cgroups, units, "
		     "netns)");
	expect_error("auto: on\n", "1:7: auto: a scalar is not valid here (expected a mapping)");
}

/* More entries than a list holds, each list: refused as a whole at the list. */
static void test_auto_too_many(void **state)
{
	static const char *const lists[] = { "scope: {cgroups: [", "scope: {units: [",
					     "scope: {netns: [", "exclude-ports: [" };
	char text[4096], want[256];

	for (size_t l = 0; l < ELEMENTSOF(lists); l++) {
		size_t o = (size_t)snprintf(text, sizeof(text), "auto: {%s", lists[l]);

		for (int i = 1; i <= 65; i++)
			o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s%d", i > 1 ? ", " : "",
					      l == 0		 ? "/c"
					      : l == 1 || l == 2 ? "u"
								 : "",
					      i);
		snprintf(text + o, sizeof(text) - o, "]%s}\n", l < 3 ? "}" : "");
		snprintf(want, sizeof(want), "1:%zu: auto.%s: 65 entries (expected at most 64)",
			 strlen("auto: {") + strlen(lists[l]),
			 l == 0	  ? "scope.cgroups"
			 : l == 1 ? "scope.units"
			 : l == 2 ? "scope.netns"
				  : "exclude-ports");
		expect_error(text, want);
	}
}

/* A workload without a network namespace known: config_auto_in_scope() before netns. */
static bool in_scope(const struct config *c, const char *cgroup, const char *unit)
{
	return config_auto_in_scope(c, cgroup, unit, 0, NULL);
}

/* config_auto_in_scope(): in or below a cgroup, or a named unit; both empty: everything. */
static void test_auto_in_scope(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("auto: {}\n", &errors);

	assert_non_null(c);
	assert_true(in_scope(c, "/system.slice/nginx.service", "nginx.service"));
	assert_true(in_scope(c, NULL, NULL));
	config_free(c);

	c = load_text("auto:\n  scope:\n    cgroups: [/system.slice/web.slice, /machine.slice]\n",
		      &errors);
	assert_non_null(c);
	assert_true(in_scope(c, "/system.slice/web.slice", NULL));
	assert_true(in_scope(c, "/system.slice/web.slice/nginx.service", NULL));
	assert_true(in_scope(c, "/machine.slice/libpod-1.scope/container", NULL));
	/* a prefix of a name is not a parent */
	assert_false(in_scope(c, "/system.slice/web.slice2", NULL));
	assert_false(in_scope(c, "/system.slice", NULL));
	assert_false(in_scope(c, "/user.slice/a.scope", "nginx.service"));
	assert_false(in_scope(c, NULL, NULL));
	config_free(c);

	c = load_text("auto:\n  scope:\n    units: [nginx, getty@tty1.service]\n", &errors);
	assert_non_null(c);
	assert_true(in_scope(c, "/whatever", "nginx.service"));
	assert_true(in_scope(c, NULL, "nginx")); /* as systemd names it */
	assert_true(in_scope(c, NULL, "getty@tty1.service"));
	assert_false(in_scope(c, NULL, "getty@tty2.service"));
	assert_false(in_scope(c, NULL, "nginx.socket"));
	assert_false(in_scope(c, NULL, "no such unit!"));
	assert_false(in_scope(c, "/system.slice/nginx.service", NULL));
	config_free(c);

	/* either list admits */
	c = load_text("auto:\n  scope: {cgroups: [/machine.slice], units: [redis]}\n", &errors);
	assert_non_null(c);
	assert_true(in_scope(c, "/machine.slice/x.scope", "other.service"));
	assert_true(in_scope(c, "/system.slice/redis.service", "redis.service"));
	assert_false(in_scope(c, "/system.slice/other.service", "other.service"));
	config_free(c);

	c = load_text("auto:\n  scope: {cgroups: [/]}\n", &errors);
	assert_non_null(c);
	assert_true(in_scope(c, "/", NULL));
	assert_true(in_scope(c, "/user.slice/u.scope", NULL));
	assert_false(in_scope(c, NULL, "nginx.service"));
	config_free(c);
}

/*
 * ... or a server in a listed network namespace, by the cookies the agent found for
 * auto.scope.netns (0: not found); all three lists empty: everything.
 */
static void test_auto_in_scope_netns(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("auto: {}\n", &errors);
	/* blue is 4097, red is not found (0), /proc/1/ns/net is 1 */
	const uint64_t found[] = { 4097, 0, 1 };

	/* none listed: every namespace, known or not, found or not */
	assert_non_null(c);
	assert_true(config_auto_in_scope(c, NULL, NULL, 4097, NULL));
	assert_true(config_auto_in_scope(c, "/a", NULL, 0, found));
	config_free(c);

	c = load_text("auto:\n  scope:\n    netns: [blue, red, /proc/1/ns/net]\n", &errors);
	assert_non_null(c);
	assert_true(config_auto_in_scope(c, NULL, NULL, 4097, found));
	assert_true(config_auto_in_scope(c, "/system.slice/x.service", "x.service", 1, found));
	/* another namespace, an unknown one, and one of a namespace not found */
	assert_false(config_auto_in_scope(c, "/system.slice/x.service", "x.service", 4098, found));
	assert_false(config_auto_in_scope(c, "/system.slice/x.service", NULL, 0, found));
	/* none found: nothing is in scope (listing netns is not "everything") */
	assert_false(config_auto_in_scope(c, NULL, NULL, 4097, NULL));
	assert_false(config_auto_in_scope(c, NULL, NULL, 4097, (const uint64_t[]){ 0, 0, 0 }));
	config_free(c);

	/* any of the three admits */
	c = load_text("auto:\n  scope: {cgroups: [/machine.slice], units: [redis], netns: [blue]}\n",
		      &errors);
	assert_non_null(c);
	assert_true(config_auto_in_scope(c, "/machine.slice/x.scope", NULL, 5, found));
	assert_true(config_auto_in_scope(c, "/system.slice/redis.service", "redis", 5, found));
	assert_true(config_auto_in_scope(c, "/system.slice/other.service", "other.service", 4097,
					 found));
	assert_false(
		config_auto_in_scope(c, "/system.slice/other.service", "other.service", 5, found));
	/* its cookie is found[0]; the others are not its */
	assert_false(
		config_auto_in_scope(c, "/system.slice/other.service", "other.service", 1, found));
	config_free(c);
}

/* The assessment's window: assess.interval wins; else auto.window while auto runs. */
static void test_auto_assess_window(void **state)
{
	struct config_errors errors;
	struct config *c = load_text("auto: {window: 45s}\n", &errors);

	assert_non_null(c);
	assert_int_equal(config_assess_window_usec(c), 0); /* off: no assessment */
	config_free(c);
	c = load_text("auto: {mode: observe, window: 45s}\n", &errors);
	assert_non_null(c);
	assert_int_equal(config_assess_window_usec(c), 45 * 1000000ULL);
	config_free(c);
	c = load_text("auto: {mode: on}\n", &errors);
	assert_non_null(c);
	assert_int_equal(config_assess_window_usec(c), 30 * 1000000ULL);
	config_free(c);
	c = load_text("assess: {interval: 10m}\nauto: {mode: on, window: 45s}\n", &errors);
	assert_non_null(c);
	assert_int_equal(config_assess_window_usec(c), 600 * 1000000ULL);
	config_free(c);
	c = load_text("assess: {interval: 10m}\n", &errors);
	assert_non_null(c);
	assert_int_equal(config_assess_window_usec(c), 600 * 1000000ULL);
	config_free(c);
}

static void test_units(void **state)
{
	int64_t v;
	uint64_t u;
	bool b;
	char buf[32];

	assert_int_equal(parse_size("1MiB", &v), 0);
	assert_int_equal(v, 1048576);
	assert_int_equal(parse_size("64k", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(parse_size("1G", &v), 0);
	assert_int_equal(v, 1073741824);
	assert_int_equal(parse_size("12345", &v), 0);
	assert_int_equal(v, 12345);
	assert_int_equal(parse_size("100 bytes", &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(parse_size("-1", &v), -EINVAL);
	assert_int_equal(parse_size("1.5MiB", &v), -EINVAL);
	assert_int_equal(parse_size("99999999999999999999", &v), -ERANGE);
	assert_int_equal(parse_size("", &v), -EINVAL);
	/* "64KB" stays refused (1000 or 1024?), with the binary spelling as a hint */
	assert_int_equal(parse_size("64KB", &v), -EINVAL);
	assert_string_equal(size_hint("64KB", buf, sizeof(buf)), ": did you mean 64KiB?");
	assert_string_equal(size_hint("2 gb", buf, sizeof(buf)), ": did you mean 2GiB?");
	assert_string_equal(size_hint("1Mi", buf, sizeof(buf)), ": did you mean 1MiB?");
	assert_string_equal(size_hint("8kbytes", buf, sizeof(buf)), ": did you mean 8KiB?");
	assert_string_equal(size_hint("64KiB", buf, sizeof(buf)), "");
	assert_string_equal(size_hint("64TB", buf, sizeof(buf)), "");
	assert_string_equal(size_hint("KB", buf, sizeof(buf)), "");
	assert_string_equal(size_hint("lots", buf, sizeof(buf)), "");
	assert_int_equal(parse_seconds("2m", &v), 0);
	assert_int_equal(v, 120);
	assert_int_equal(parse_seconds("30", &v), 0);
	assert_int_equal(v, 30);
	assert_int_equal(parse_duration_usec("30s", &u), 0);
	assert_int_equal(u, 30000000);
	assert_int_equal(parse_duration_usec("45", &u), 0);
	assert_int_equal(u, 45000000);
	assert_int_equal(parse_duration_usec("500ms", &u), 0);
	assert_int_equal(u, 500000);
	assert_int_equal(parse_bool("Yes", &b), 0);
	assert_true(b);
	assert_int_equal(parse_bool("off", &b), 0);
	assert_false(b);
	assert_int_equal(parse_bool("2", &b), -EINVAL);
	/* ports: smcctl check's and policies.exclude.port */
	uint16_t port;

	assert_int_equal(parse_port("1", &port), 0);
	assert_int_equal(port, 1);
	assert_int_equal(parse_port("65535", &port), 0);
	assert_int_equal(port, 65535);
	assert_int_equal(parse_port("0", &port), -ERANGE);
	assert_int_equal(parse_port("65536", &port), -ERANGE);
	assert_int_equal(parse_port("http", &port), -EINVAL);
	assert_int_equal(parse_port("-1", &port), -EINVAL);
	assert_int_equal(parse_port("+80", &port), -EINVAL);
	assert_int_equal(parse_port("80s", &port), -EINVAL);
	assert_int_equal(parse_port("", &port), -EINVAL);
	/* no spaces either side (issue 35: '80 ' was taken, ' 80' refused) */
	assert_int_equal(parse_port("80 ", &port), -EINVAL);
	assert_int_equal(parse_port(" 80", &port), -EINVAL);
	assert_int_equal(parse_port("8 0", &port), -EINVAL);
	assert_int_equal(parse_port("80\n", &port), -EINVAL);
	assert_int_equal(parse_port("99999999999999999999999", &port), -ERANGE);
	assert_int_equal(parse_port("0080", &port), 0);
	assert_int_equal(port, 80);
	assert_string_equal(format_size(1048576, buf, sizeof(buf)), "1MiB");
	assert_string_equal(format_size(16384, buf, sizeof(buf)), "16KiB");
	assert_string_equal(format_size(1000, buf, sizeof(buf)), "1000");
	/* the values smcctl takes besides smc.yaml's: link group ids, durations as written */
	uint32_t id;

	assert_int_equal(parse_hex32("0x1f00", &id), 0);
	assert_int_equal(id, 0x1f00);
	assert_int_equal(parse_hex32("DEADbeef", &id), 0);
	assert_int_equal(id, 0xdeadbeef);
	assert_int_equal(parse_hex32("0x", &id), -EINVAL);
	assert_int_equal(parse_hex32("123456789", &id), -EINVAL);
	assert_int_equal(parse_hex32("12g", &id), -EINVAL);
	assert_int_equal(parse_hex32("-1", &id), -EINVAL);
	/* values as the kernel writes them in /proc/sys */
	int64_t k;

	assert_int_equal(parse_int64("212992\n", &k), 0);
	assert_int_equal(k, 212992);
	assert_int_equal(parse_int64("-1", &k), 0);
	assert_int_equal(k, -1);
	assert_int_equal(parse_int64("", &k), -EINVAL);
	assert_int_equal(parse_int64(" 1", &k), -EINVAL);
	assert_int_equal(parse_int64("4096\t87380", &k), -EINVAL);
	assert_int_equal(parse_int64("1KiB", &k), -EINVAL);
	assert_int_equal(parse_int64("99999999999999999999", &k), -ERANGE);
	assert_string_equal(format_duration(0, buf, sizeof(buf)), "0s");
	assert_string_equal(format_duration(120000000, buf, sizeof(buf)), "2m");
	assert_string_equal(format_duration(90000000, buf, sizeof(buf)), "90s");
	assert_string_equal(format_duration(1500000, buf, sizeof(buf)), "1500ms");
}

static void test_dump_round_trip(void **state)
{
	struct config_errors errors;
	struct config *c =
		load_text("ueid: {entries: [X1]}\nsysctl: {smcr_buf_type: virtual, wmem: 256k}\n"
			  "pnet: {entries: [{pnetid: a, eth: eth0}, {pnetid: b, ib: lo}]}\n",
			  &errors);
	struct config *d;
	char *text, *again;

	assert_non_null(c);
	text = config_dump(c);
	d = load_text(text, &errors);
	assert_non_null(d);
	again = config_dump(d);
	assert_string_equal(strchr(text, '\n'), strchr(again, '\n'));
	free(text);
	free(again);
	config_free(c);
	config_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_file),
		cmocka_unit_test(test_defaults_equal_shipped_file),
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_sysctl_section_replaces_default),
		cmocka_unit_test(test_ueid_derive),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_error_syntax),
		cmocka_unit_test(test_error_unknown_top_key),
		cmocka_unit_test(test_error_unknown_nested_key),
		cmocka_unit_test(test_error_unknown_sysctl),
		cmocka_unit_test(test_error_limit_smc_hs),
		cmocka_unit_test(test_error_wrong_type_scalar),
		cmocka_unit_test(test_error_wrong_type_mapping),
		cmocka_unit_test(test_error_wrong_type_list),
		cmocka_unit_test(test_error_bool),
		cmocka_unit_test(test_error_empty_value),
		cmocka_unit_test(test_error_out_of_range),
		cmocka_unit_test(test_error_bad_unit),
		cmocka_unit_test(test_error_duplicate_key),
		cmocka_unit_test(test_error_ueid),
		cmocka_unit_test(test_error_pnet),
		cmocka_unit_test(test_error_modules),
		cmocka_unit_test(test_error_structure),
		cmocka_unit_test(test_error_all_reported),
		cmocka_unit_test(test_error_missing_file),
		cmocka_unit_test(test_error_duplicate_key_many),
		cmocka_unit_test(test_error_deep_nesting),
		cmocka_unit_test(test_error_too_many_nodes),
		cmocka_unit_test(test_error_too_many_modules),
		cmocka_unit_test(test_error_not_regular),
		cmocka_unit_test(test_error_encoding_position),
		cmocka_unit_test(test_error_controls_escaped),
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_rate_limit),
		cmocka_unit_test(test_auto_defaults),
		cmocka_unit_test(test_auto_values),
		cmocka_unit_test(test_auto_errors),
		cmocka_unit_test(test_auto_too_many),
		cmocka_unit_test(test_auto_in_scope),
		cmocka_unit_test(test_auto_in_scope_netns),
		cmocka_unit_test(test_auto_assess_window),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_yaml_tags_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
