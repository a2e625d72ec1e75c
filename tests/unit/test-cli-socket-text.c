// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl socket prints its table from the sockets (socket_rows_text(), cli/socket.c), not
 * from their document: the text must be exactly what socket_list_text() renders from
 * socket_json() of the same sockets, at every detail level.  Checked for every socket
 * dump recorded in tests/fixtures (every lane and step, with and without the -d infos) and
 * for synthetic sockets with what no recording has (IPv6, no address, SMC-R link infos,
 * unknown and peer reason codes, more reasons than the legend keeps).
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cli/objects.h"
#include "common/output.h"
#include "tests/unit/golden.h"

static char *render_doc(const struct smc_socket *s, size_t n, unsigned detail)
{
	json_object *doc = json_object_new_object(), *arr = json_object_new_array();
	struct smcctl c = { .detail = detail };
	struct capture cap;

	assert_int_equal(json_add(doc, "sockets", arr), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(json_append(arr, socket_json(&s[i])), 0);
	capture_begin(&cap);
	c.out = cap.f;
	socket_list_text(&c, doc);
	capture_end(&cap);
	json_object_put(doc);
	return cap.buf;
}

static char *render_rows(const struct smc_socket *s, size_t n, unsigned detail)
{
	const struct smc_socket **rows = calloc(n ? n : 1, sizeof(*rows));
	struct smcctl c = { .detail = detail };
	struct capture cap;

	assert_non_null(rows);
	for (size_t i = 0; i < n; i++)
		rows[i] = &s[i];
	capture_begin(&cap);
	c.out = cap.f;
	assert_int_equal(socket_rows_text(&c, rows, n), 0);
	capture_end(&cap);
	free(rows);
	return cap.buf;
}

static void check_same(const char *what, const struct smc_socket *s, size_t n)
{
	for (unsigned d = 0; d <= 2; d++) {
		char *a = render_doc(s, n, d), *b = render_rows(s, n, d);

		if (strcmp(a, b) != 0)
			fail_msg("%s, detail %u: the text differs\n--- from the document:\n%s\n"
				 "--- from the sockets:\n%s",
				 what, d, a, b);
		free(a);
		free(b);
	}
}

static void test_synthetic(void **state)
{
	struct smc_socket v[80] = {};
	size_t n = 0;

	/* SMC-D, IPv4, every info */
	v[n] = (struct smc_socket){ .diag_family = 43,
				    .state = 1,
				    .mode = 2,
				    .addr_family = AF_INET,
				    .sport = 5201,
				    .dport = 40000,
				    .inode = 1234,
				    .has_fallback = true,
				    .has_conninfo = true,
				    .has_dmbinfo = true };
	inet_pton(AF_INET, "127.0.0.1", &v[n].src.s6_addr32[0]);
	inet_pton(AF_INET, "10.1.2.3", &v[n].dst.s6_addr32[0]);
	v[n].conn.token = 0x1234;
	v[n].conn.sndbuf_size = 65536;
	v[n].conn.rx_prod = (struct smc_cursor){ 1, 200 };
	v[n].conn.tx_cons = (struct smc_cursor){ 65535, 4294967295u };
	v[n].dmb.linkid = 0x100;
	n++;
	/* SMC-R over IPv6 with link infos, an empty IB device name */
	v[n] = (struct smc_socket){ .diag_family = 10,
				    .state = 1,
				    .mode = 0,
				    .addr_family = AF_INET6,
				    .sport = 1,
				    .dport = 65535,
				    .uid = 4294967295u,
				    .inode = 7,
				    .ifindex = 3,
				    .shutdown = 3,
				    .has_conninfo = true,
				    .has_lgrinfo = true };
	inet_pton(AF_INET6, "fe80::1", &v[n].src);
	inet_pton(AF_INET6, "2001:db8::42", &v[n].dst);
	v[n].lgr.link_id = 2;
	v[n].lgr.ibport = 1;
	n++;
	v[n] = v[n - 1];
	snprintf(v[n].lgr.ibname, sizeof(v[n].lgr.ibname), "rxe0");
	n++;
	/* IPPROTO_SMC without addresses, a listener, a socket in INIT, an unknown state */
	v[n++] = (struct smc_socket){ .diag_family = 2, .state = 10, .mode = 2, .sport = 80 };
	v[n++] = (struct smc_socket){ .diag_family = 43, .state = 2, .mode = 0 };
	v[n++] = (struct smc_socket){ .diag_family = 43, .state = 200, .mode = 9 };
	/* fallbacks: known, unknown, with a peer diagnosis, reason 0 in TCP mode */
	v[n++] = (struct smc_socket){ .diag_family = 43,
				      .state = 1,
				      .mode = 1,
				      .addr_family = AF_INET,
				      .has_fallback = true,
				      .fallback_reason = 0x03030008 };
	v[n++] = (struct smc_socket){ .diag_family = 43,
				      .state = 1,
				      .mode = 1,
				      .has_fallback = true,
				      .fallback_reason = 0x05000000,
				      .peer_diagnosis = 0x03030008 };
	v[n++] = (struct smc_socket){ .diag_family = 43,
				      .state = 1,
				      .mode = 1,
				      .has_fallback = true,
				      .fallback_reason = 0x12345678,
				      .peer_diagnosis = 0x9abcdef0 };
	v[n++] = (struct smc_socket){ .diag_family = 43, .state = 1, .mode = 1, .has_fallback = true };
	v[n++] = (struct smc_socket){ .diag_family = 43,
				      .state = 1,
				      .mode = 2,
				      .has_fallback = true,
				      .fallback_reason = 0x03030008 };
	/* more distinct reasons than the legend keeps (64) */
	while (n < ELEMENTSOF(v)) {
		v[n] = (struct smc_socket){ .diag_family = 43,
					    .state = 1,
					    .mode = 1,
					    .has_fallback = true,
					    .fallback_reason = 0x7f000000u + (uint32_t)n };
		n++;
	}
	check_same("synthetic", v, n);
	check_same("synthetic, the first 11", v, 11);
	check_same("no sockets", v, 0);
}

/* Every recorded socket dump, with and without the -d infos. */
static void replay_dir(const char *dir)
{
	static const unsigned wants[] = { 0, SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						     SMC_DIAG_WANT_DMBINFO };
	char sysroot[2048];

	assert_true(strlen(dir) < 1800);
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", dir);
	for (size_t w = 0; w < ELEMENTSOF(wants); w++) {
		struct smcnl_options opts = { .replay_dir = dir, .sysroot = sysroot };
		struct smc_socket *s = NULL;
		struct smcnl *nl = NULL;
		size_t n = 0;
		char what[2048];

		assert_int_equal(smcnl_open(&opts, &nl), 0);
		if (smc_socket_list(nl, wants[w], &s, &n) == 0) {
			snprintf(what, sizeof(what), "%s, want %u", dir, wants[w]);
			check_same(what, s, n);
		}
		free(s);
		smcnl_close(nl);
	}
}

static void test_recorded(void **state)
{
	/* The lanes recorded dozens of steps with sockets: finding none is a broken path. */
	assert_true(golden_each_fixture_step("sock-diag-00.bin", replay_dir) >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
