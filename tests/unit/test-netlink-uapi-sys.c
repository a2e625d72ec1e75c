// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The system's uapi (Debian 12: Linux 6.1 headers), in a translation unit of its own:
 * these headers define the same names as netlink/uapi/, so the two never meet in one file.
 */
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <rdma/rdma_netlink.h>

#include "tests/unit/test-netlink-uapi.h"

#define INT(n) { #n, (long long)(n) },
#define STR(n) { #n, n },
#define OFF(s, f) { #s "." #f, (long long)offsetof(struct s, f) },
#define SIZE(s) { #s, (long long)sizeof(struct s) },

const struct uapi_value uapi_sys_ints[] = { UAPI_INTS(INT){ NULL, 0 } };
const struct uapi_value uapi_sys_maxes[] = { UAPI_MAXES(INT){ NULL, 0 } };
const struct uapi_str uapi_sys_strings[] = { UAPI_STRINGS(STR){ NULL, NULL } };
const struct uapi_value uapi_sys_offsets[] = { UAPI_FIELDS(OFF){ NULL, 0 } };
const struct uapi_value uapi_sys_sizes[] = { UAPI_STRUCTS(SIZE){ NULL, 0 } };
