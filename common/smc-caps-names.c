// SPDX-License-Identifier: GPL-2.0-or-later
/* The one table of capability names (see smc-caps-names.h). */
#include "common/smc-caps-names.h"

#include "common/macro.h"

#define CAP(k, l, f, i, m)                               \
	{                                                \
		k, l, offsetof(struct smc_caps, f), i, m \
	}

static const struct smc_cap_name caps_names[] = {
	CAP("smc_module", "SMC module", smc_module, true,
	    "the smc module is not loaded and could not be loaded (CONFIG_SMC; since Linux 6.18 "
	    "SMC also needs CONFIG_DIBS)"),
	CAP("smc_gen_netlink", "SMC_GEN_NETLINK", smc_genl, true,
	    "no SMC netlink family: no link groups, devices, statistics or UEIDs"),
	CAP("smc_pnetid", "SMC_PNETID", pnet_genl, true,
	    "no PNET table family (it is loaded with smc_diag: modprobe smc_diag)"),
	CAP("smc_diag", "smc_diag", smc_diag, true,
	    "'smcctl socket' cannot list sockets (CONFIG_SMC_DIAG: modprobe smc_diag)"),
	CAP("af_smc", "AF_SMC", af_smc, true,
	    "socket(AF_SMC) fails: applications cannot create SMC sockets"),
	CAP("ipproto_smc", "IPPROTO_SMC", ipproto_smc, true,
	    "socket(AF_INET, SOCK_STREAM, IPPROTO_SMC) fails: needs Linux 6.11 or later"),
	CAP("dibs", "DIBS", dibs, true,
	    "no /sys/class/dibs: the DIBS device layer arrived in Linux 6.18 (CONFIG_DIBS)"),
	CAP("loopback", "SMC-D loopback device", loopback, true,
	    "no SMC-D loopback device: needs CONFIG_DIBS_LO (6.18+) or CONFIG_SMC_LO "
	    "(6.10 to 6.17)"),
	/* From the system information: smcctl info shows them as its features, not here. */
	CAP("smcd_v2", "SMC-Dv2", smcd_v2, false, NULL),
	CAP("smcr_v2", "SMC-Rv2", smcr_v2, false, NULL),
	/* "seid_supported", not "seid": that key is the SEID itself in smcctl seid -j */
	CAP("seid_supported", "SEID", seid_supported, false, NULL),
};

const struct smc_cap_name *smc_caps_names(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(caps_names);
	return caps_names;
}

const struct smc_cap_name *smc_caps_name_lookup(const char *key)
{
	for (size_t i = 0; key && i < ELEMENTSOF(caps_names); i++)
		if (streq(caps_names[i].key, key))
			return &caps_names[i];
	return NULL;
}

bool smc_caps_value(const struct smc_caps *caps, const struct smc_cap_name *c)
{
	/*
	 * The module is there when its netlink family answers, whatever /sys/module says: a
	 * built-in smc without parameters has no /sys/module/smc, and the family lookup may
	 * itself have just loaded the module.
	 */
	if (c->offset == offsetof(struct smc_caps, smc_module) && caps->smc_genl)
		return true;
	return *(const bool *)((const char *)caps + c->offset);
}
