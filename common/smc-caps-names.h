/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names of what the kernel offers for SMC (struct smc_caps): ONE table for smcctl info
 * (text and -j) and the agent's Capabilities property (D-Bus, smcctl status -j), so a
 * capability has one spelling wherever it is shown.
 *
 * Why snake_case, info -j's spelling: it is what every other JSON key of smcctl is (smcctl(8)
 * JSON OUTPUT), and the agent's dictionary is read as JSON by smcctl status.  The agent used
 * to spell them its own way ("af-smc", "smc-genl"), so one script had to know two words for
 * one thing.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "netlink/smcnl.h"

struct smc_cap_name {
	const char *key;     /* JSON key and D-Bus dictionary key: "af_smc" */
	const char *label;   /* text: "AF_SMC" */
	size_t offset;	     /* the bool in struct smc_caps */
	bool info;	     /* shown by smcctl info (the rest come from the system information) */
	const char *missing; /* what its absence means and how to get it (info rows), or NULL */
};

/* Every capability, in smcctl info's order; *ret_n its length. */
const struct smc_cap_name *smc_caps_names(size_t *ret_n);

/* The row of key, or NULL. */
const struct smc_cap_name *smc_caps_name_lookup(const char *key);

/* The value of a row in caps (the module counts as there when its family answers). */
bool smc_caps_value(const struct smc_caps *caps, const struct smc_cap_name *c);

/* The facts the agent's Capabilities dictionary carries beside the flags, named as
 * smcctl info -j names them at its top level. */
#define SMC_CAPS_KEY_KERNEL_RELEASE "kernel_release"
#define SMC_CAPS_KEY_SMC_VERSION "smc_version"
#define SMC_CAPS_KEY_SMC_RELEASE "smc_release"
