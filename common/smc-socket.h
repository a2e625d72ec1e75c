/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The socket-level constants of SMC that the C library's headers lack on Debian 12 (glibc
 * 2.36): AF_SMC's value where <sys/socket.h> has none, IPPROTO_SMC (linux/in.h since
 * 6.11) and AF_SMC's protocols (net/smc/smc.h, kernel-internal).  One place for smcctl, the
 * LD_PRELOAD library and the test tools; header-only.
 */
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#ifndef IPPROTO_SMC
#define IPPROTO_SMC 256
#endif
#define SMCPROTO_SMC 0	/* AF_SMC over IPv4 addresses */
#define SMCPROTO_SMC6 1 /* AF_SMC over IPv6 addresses */
