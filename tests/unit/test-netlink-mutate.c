// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every recorded reply stream, cut at every length and corrupted byte by byte, through the
 * public API: truncation must give -EBADMSG, corruption any clean answer - and under
 * --enable-sanitizers neither may read out of bounds or leak.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "netlink/smcnl-internal.h"
#include "netlink/smclo.h"
#include "tests/unit/netlink-test-util.h"

typedef int (*call_fn)(struct smcnl *nl);

#define LIST_CALL(name, type, fn, freefn) \
	static int name(struct smcnl *nl) \
	{                                 \
		type *v = NULL;           \
		size_t n = 0;             \
		int r = fn;               \
		if (r == 0)               \
			freefn;           \
		return r;                 \
	}

LIST_CALL(c_dev_d, struct smcd_device, smcd_device_list(nl, &v, &n), free(v))
LIST_CALL(c_dev_r, struct smcr_device, smcr_device_list(nl, &v, &n), free(v))
LIST_CALL(c_lgr_d, struct smcd_linkgroup, smcd_linkgroup_list(nl, &v, &n), free(v))
LIST_CALL(c_lgr_r, struct smcr_linkgroup, smcr_linkgroup_list(nl, false, &v, &n),
	  smcr_linkgroup_list_free(v, n))
LIST_CALL(c_link_r, struct smcr_linkgroup, smcr_linkgroup_list(nl, true, &v, &n),
	  smcr_linkgroup_list_free(v, n))
LIST_CALL(c_pnet, struct smc_pnet_entry, smc_pnet_list(nl, NULL, &v, &n), free(v))
LIST_CALL(c_rdma, struct smcnl_rdma_port, smcnl_rdma_ports(nl, &v, &n), free(v))
LIST_CALL(c_sock0, struct smc_socket, smc_socket_list(nl, 0, &v, &n), free(v))
LIST_CALL(c_sock7, struct smc_socket,
	  smc_socket_list(nl, SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO | SMC_DIAG_WANT_DMBINFO,
			  &v, &n),
	  free(v))

static int c_sysinfo(struct smcnl *nl)
{
	struct smc_sysinfo i;

	return smc_sysinfo_get(nl, &i);
}

static int c_stats(struct smcnl *nl)
{
	struct smc_stats s;

	return smc_stats_get(nl, &s);
}

static int c_fback(struct smcnl *nl)
{
	struct smc_fback_stats s;

	return smc_fback_stats_get(nl, &s);
}

static int c_ueid(struct smcnl *nl)
{
	char v[SMC_UEID_MAX][SMC_EID_LEN + 1];
	size_t n;

	return smc_ueid_list(nl, v, &n);
}

static int c_seid(struct smcnl *nl)
{
	struct smc_seid s;

	return smc_seid_get(nl, &s);
}

static int c_hs(struct smcnl *nl)
{
	bool b;

	return smc_hs_limitation_get(nl, &b);
}

static int c_smclo_get(struct smcnl *nl)
{
	struct smclo_device d;

	return smclo_get(nl, &d);
}

static int c_smclo_set(struct smcnl *nl)
{
	struct smclo_set_request q = { .set_max_dmbs = true, .max_dmbs = 64 };
	struct smclo_device d;

	return smclo_set(nl, &q, &d);
}

static const struct {
	const char *file;
	call_fn call;
	bool dump; /* a truncated dump must be -EBADMSG; others (ctrl) may fail otherwise */
} targets[] = {
	{ "smc-genl-get-sys-info.bin", c_sysinfo, true },
	{ "smc-genl-get-dev-smcd.bin", c_dev_d, true },
	{ "smc-genl-get-dev-smcr.bin", c_dev_r, true },
	{ "smc-genl-get-lgr-smcd.bin", c_lgr_d, true },
	{ "smc-genl-get-lgr-smcr.bin", c_lgr_r, true },
	{ "smc-genl-get-link-smcr.bin", c_link_r, true },
	{ "smc-genl-get-stats.bin", c_stats, true },
	{ "smc-genl-get-fback-stats.bin", c_fback, true },
	{ "smc-genl-dump-ueid.bin", c_ueid, true },
	{ "smc-genl-dump-seid.bin", c_seid, true },
	{ "smc-genl-dump-hs-limitation.bin", c_hs, true },
	{ "pnet-get.bin", c_pnet, true },
	{ "sock-diag-00.bin", c_sock0, true },
	{ "sock-diag-0b.bin", c_sock7, true },
	{ "genl-ctrl-SMC_GEN_NETLINK.bin", c_sysinfo, false },
	{ "rdma-dev-get.bin", c_rdma, true },
	{ "rdma-port-get.bin", c_rdma, true },
	{ "smclo-get.bin", c_smclo_get, true },
	{ "smclo-set.bin", c_smclo_set, true },
};

static const char *const sources[] = {
	"7x/loopback",
	"7x/fallback",
	"7x/pnet-list",
	"7x/ueid-full",
	"612/fallback",
	"synthetic/smcr",
	"7x-smcr/server",
	"7x-smclo/smclo-traffic",
	"7x-smclo/smclo-set-pending",
};

/* Copy every .bin of src except skip into dir. */
static void copy_companions(const char *src, const char *dir, const char *skip)
{
	struct dirent *de;
	DIR *d = opendir(src);
	char path[PATH_MAX];

	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), n;
		uint8_t *buf;

		if (len < 5 || strcmp(de->d_name + len - 4, ".bin") != 0 || streq(de->d_name, skip))
			continue;
		snprintf(path, sizeof(path), "%s/%s", src, de->d_name);
		buf = read_whole(path, &n);
		write_file(dir, de->d_name, buf, n);
		free(buf);
	}
	closedir(d);
}

static int run(const char *dir, call_fn call)
{
	struct smcnl *nl = replay_open_abs(dir);
	int r = call(nl);

	smcnl_close(nl);
	return r;
}

static void sweep(const char *src, size_t t, bool corrupt, size_t *ret_runs)
{
	char path[PATH_MAX];
	uint8_t *buf;
	size_t len, stride;
	char *dir;
	int r;

	snprintf(path, sizeof(path), "%s/%s", src, targets[t].file);
	if (access(path, R_OK) < 0)
		return;
	buf = read_whole(path, &len);
	dir = tmpdir_new();
	copy_companions(src, dir, targets[t].file);
	/* Unchanged first: the baseline must parse. */
	write_file(dir, targets[t].file, buf, len);
	r = run(dir, targets[t].call);
	if (r != 0 && targets[t].dump)
		fail_msg("%s: the unchanged stream gives %d", path, r);
	if (!corrupt) {
		for (size_t cut = 0; cut < len; cut++) {
			write_file(dir, targets[t].file, buf, cut);
			r = run(dir, targets[t].call);
			if (targets[t].dump ? r != -EBADMSG : r > 0)
				fail_msg("%s cut at %zu/%zu: got %d", path, cut, len, r);
			(*ret_runs)++;
		}
	} else {
		/* Big streams: a sample of offsets, always including every header byte. */
		stride = len > 3000 ? len / 1500 : 1;
		for (size_t off = 0; off < len; off++) {
			if (off % stride && off % NLMSG_ALIGNTO)
				continue;
			for (int k = 0; k < 2; k++) {
				uint8_t saved = buf[off];

				buf[off] = k ? buf[off] ^ 0xff : 0x7f;
				write_file(dir, targets[t].file, buf, len);
				r = run(dir, targets[t].call);
				buf[off] = saved;
				if (r > 0)
					fail_msg("%s byte %zu: got %d", path, off, r);
				(*ret_runs)++;
			}
		}
	}
	tmpdir_remove(dir);
	free(buf);
}

static void test_truncate(void **state)
{
	size_t runs = 0;

	for (size_t s = 0; s < ELEMENTSOF(sources); s++)
		for (size_t t = 0; t < ELEMENTSOF(targets); t++)
			sweep(fixture_path(sources[s]), t, false, &runs);
	print_message("%zu truncated streams\n", runs);
	assert_true(runs > 1000);
}

static void test_corrupt(void **state)
{
	size_t runs = 0;

	for (size_t s = 0; s < ELEMENTSOF(sources); s++)
		for (size_t t = 0; t < ELEMENTSOF(targets); t++)
			sweep(fixture_path(sources[s]), t, true, &runs);
	print_message("%zu corrupted streams\n", runs);
	assert_true(runs > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_corrupt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
