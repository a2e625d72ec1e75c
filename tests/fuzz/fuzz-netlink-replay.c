// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the reply parsers of libsmcnl: the input is a raw reply stream
 * (what the kernel would send for one request), preceded by one byte choosing the
 * request.  Every read function parses it through the public API in replay mode, exactly
 * as the unit tests do.  Built only with clang and only on request:
 *
 *   make fuzz                          (FUZZ_CC=clang by default)
 *   make fuzz-run FUZZ_SECONDS=60      (seeds: every recorded stream in tests/fixtures)
 *
 * A seed file is the selector byte followed by a recorded .bin (tests/fuzz/seed-corpus
 * builds them; the selector is the index in targets[] below).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/smcnl-internal.h"
#include "netlink/smclo.h"

static int list_free(int r, void *v)
{
	if (r == 0)
		free(v);
	return r;
}

static int f_sysinfo(struct smcnl *nl)
{
	struct smc_sysinfo i;

	return smc_sysinfo_get(nl, &i);
}

static int f_dev_d(struct smcnl *nl)
{
	struct smcd_device *v = NULL;
	size_t n;

	return list_free(smcd_device_list(nl, &v, &n), v);
}

static int f_dev_r(struct smcnl *nl)
{
	struct smcr_device *v = NULL;
	size_t n;

	return list_free(smcr_device_list(nl, &v, &n), v);
}

static int f_lgr_d(struct smcnl *nl)
{
	struct smcd_linkgroup *v = NULL;
	size_t n;

	return list_free(smcd_linkgroup_list(nl, &v, &n), v);
}

static int f_link_r(struct smcnl *nl)
{
	struct smcr_linkgroup *v = NULL;
	size_t n;
	int r = smcr_linkgroup_list(nl, true, &v, &n);

	if (r == 0)
		smcr_linkgroup_list_free(v, n);
	return r;
}

static int f_stats(struct smcnl *nl)
{
	struct smc_stats s;

	return smc_stats_get(nl, &s);
}

static int f_fback(struct smcnl *nl)
{
	struct smc_fback_stats s;

	return smc_fback_stats_get(nl, &s);
}

static int f_eids(struct smcnl *nl)
{
	char v[SMC_UEID_MAX][SMC_EID_LEN + 1];
	struct smc_seid seid;
	bool hs;
	size_t n;

	smc_seid_get(nl, &seid);
	smc_hs_limitation_get(nl, &hs);
	return smc_ueid_list(nl, v, &n);
}

static int f_pnet(struct smcnl *nl)
{
	struct smc_pnet_entry *v = NULL;
	size_t n;

	return list_free(smc_pnet_list(nl, NULL, &v, &n), v);
}

static int f_sockets(struct smcnl *nl)
{
	struct smc_socket *v = NULL;
	size_t n;

	return list_free(smc_socket_list(nl,
					 SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO |
						 SMC_DIAG_WANT_DMBINFO,
					 &v, &n),
			 v);
}

static int f_ack(struct smcnl *nl)
{
	return smc_ueid_add(nl, "FUZZ");
}

static int f_smclo_get(struct smcnl *nl)
{
	struct smclo_device d;

	return smclo_get(nl, &d);
}

static int f_smclo_set(struct smcnl *nl)
{
	struct smclo_set_request q = { .set_nocopy = true };
	struct smclo_device d;

	return smclo_set(nl, &q, &d);
}

static int f_smcr_reach(struct smcnl *nl)
{
	struct smcr_reach *v = NULL;
	size_t n;

	return list_free(smcr_reach_list(nl, &v, &n), v);
}

static const struct {
	const char *key;
	int (*call)(struct smcnl *nl);
} targets[] = {
	{ "smc-genl-get-sys-info", f_sysinfo },
	{ "smc-genl-get-dev-smcd", f_dev_d },
	{ "smc-genl-get-dev-smcr", f_dev_r },
	{ "smc-genl-get-lgr-smcd", f_lgr_d },
	{ "smc-genl-get-link-smcr", f_link_r },
	{ "smc-genl-get-stats", f_stats },
	{ "smc-genl-get-fback-stats", f_fback },
	{ "smc-genl-dump-ueid", f_eids },
	{ "pnet-get", f_pnet },
	{ "sock-diag-0b", f_sockets },
	{ "smc-genl-add-ueid", f_ack },
	{ "smclo-get", f_smclo_get },
	{ "smclo-set", f_smclo_set },
	{ "rtnl-getlink", f_smcr_reach },
};

/* The same stream answers every other request of the target too (devices: the LGRs). */
static const char *const others[] = {
	"smc-genl-get-lgr-smcd",
	"pnet-get",
	"smc-genl-dump-seid",
	"smc-genl-dump-hs-limitation",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smcnl_options o = { .replay_dir = "/nonexistent", .sysroot = "/nonexistent" };
	struct smcnl *nl;
	size_t t;

	if (size < 1)
		return 0;
	t = data[0] % ELEMENTSOF(targets);
	if (smcnl_open(&o, &nl) < 0)
		return 0;
	smcnl_replay_mem(nl, targets[t].key, data + 1, size - 1);
	for (size_t i = 0; i < ELEMENTSOF(others); i++)
		smcnl_replay_mem(nl, others[i], data + 1, size - 1);
	targets[t].call(nl);
	smcnl_close(nl);
	return 0;
}
