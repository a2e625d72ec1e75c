// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names for the kernel's numbers, as tables (tests/unit/test-netlink-names checks that
 * every table round-trips).  CLC decline codes: net/smc/smc_clc.h (7.3), all of them,
 * including those smc-tools prints as "[unknown]" (NOUEID, RELEASEERR, MAXCONNERR,
 * MAXLINKERR, NOROUTE, NOINDIRECT).  The same codes are the fallback reasons of the
 * statistics and of smc_diag (SMC_DIAG_FALLBACK).  Names are the kernel's without the
 * SMC_CLC_DECL_ prefix; every lookup returns NULL for a number it does not know.
 */
#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#include "netlink/smcnl-internal.h"

struct decline {
	uint32_t code;
	const char *name;
	const char *text;
	const char *advice;
};

/* Off s390 there is no System EID: EID negotiation (SMC-Dv2, SMC-Rv2) needs a UEID. */
#define UEID_ADVICE                                                                        \
	"configure a UEID: smcctl ueid derive --apply (for connections within this host; " \
	"peers on other hosts need a UEID in common: smcctl ueid add UEID on each)"

static const struct decline declines[] = {
	{ 0x01010000, "MEM", "insufficient memory resources",
	  "check memory pressure (SMC buffers "
	  "are physically contiguous); lowering net.smc.wmem/rmem helps" },
	{ 0x02010000, "TIMEOUT_CL", "timeout waiting for the SMC-R confirm link",
	  "check the RDMA "
	  "path between the hosts (RoCE link, PFC/pause frames)" },
	{ 0x02020000, "TIMEOUT_AL", "timeout waiting for the SMC-R add link",
	  "check the second "
	  "RDMA path between the hosts" },
	{ 0x03000000, "CNFERR", "configuration error", NULL },
	{ 0x03010000, "PEERNOSMC",
	  "the peer does not speak SMC (no SMC option in its TCP "
	  "handshake)",
	  "nothing to do here: enable SMC on the peer if it should use it" },
	{ 0x03020000, "IPSEC", "the connection uses IPsec, which SMC does not support", NULL },
	{ 0x03030000, "NOSMCDEV", "no usable SMC device (SMC-R or SMC-D) found",
	  "check "
	  "'smcctl device' on both hosts, PNET IDs ('smcctl pnet') and, off s390, the UEID" },
	{ 0x03030001, "NOSMCDDEV",
	  "no usable SMC-D device found (off s390 "
	  "typically: no UEID in common, so SMC-Dv2 could not be negotiated)",
	  UEID_ADVICE "; else check 'smcctl device' for an SMC-D device" },
	{ 0x03030002, "NOSMCRDEV", "no usable SMC-R (RoCE) device found",
	  "check 'smcctl "
	  "device' and that the RoCE device has the netdev's PNET ID ('smcctl pnet')" },
	{ 0x03030003, "NOISM2SUPP", "the hardware has no ISMv2 support", NULL },
	{ 0x03030004, "NOV2EXT", "the peer sent no CLC v2 extension",
	  "the peer runs SMC v1 "
	  "only: SMC-D loopback and SMC-Rv2 need v2 on both sides" },
	{ 0x03030005, "NOV2DEXT", "the peer sent no SMC-Dv2 extension", NULL },
	{ 0x03030006, "NOSEID", "the peer sent no System EID", UEID_ADVICE },
	{ 0x03030007, "NOSMCD2DEV", "no SMC-Dv2 device found",
	  "check 'smcctl device' for an "
	  "SMC-D v2 capable device (on x86: a DIBS loopback device)" },
	{ 0x03030008, "NOUEID", "the peer sent no UEID", UEID_ADVICE },
	{ 0x03030009, "RELEASEERR", "SMC release version negotiation failed", NULL },
	{ 0x0303000a, "MAXCONNERR",
	  "negotiation of the maximum connections per link group "
	  "failed",
	  "check net.smc.smcr_max_conns_per_lgr on both hosts" },
	{ 0x0303000b, "MAXLINKERR", "negotiation of the maximum links per link group failed",
	  "check net.smc.smcr_max_links_per_lgr on both hosts" },
	{ 0x03040000, "MODEUNSUPP", "SMC modes do not match (SMC-R vs SMC-D)", NULL },
	{ 0x03050000, "RMBE_EC", "the peer has an eye catcher in its receive buffer", NULL },
	{ 0x03060000, "OPTUNSUPP",
	  "a socket option SMC does not support was used (TCP Fast "
	  "Open)",
	  "the application must not use TCP_FASTOPEN on SMC sockets" },
	{ 0x03070000, "DIFFPREFIX", "the peers are not in the same IP subnet (SMC-Rv1 / SMC-Dv1)",
	  NULL },
	{ 0x03080000, "GETVLANERR", "could not get the VLAN id of the IP device", NULL },
	{ 0x03090000, "ISMVLANERR", "could not register the VLAN id on the ISM device",
	  "SMC-D "
	  "devices without VLAN support (loopback) cannot carry VLAN traffic" },
	{ 0x030a0000, "NOACTLINK", "no active SMC-R link in the link group", NULL },
	{ 0x030b0000, "NOSRVLINK", "the SMC-R link from the server was not found", NULL },
	{ 0x030c0000, "VERSMISMAT", "SMC version mismatch", NULL },
	{ 0x030d0000, "MAX_DMB", "the SMC-D device has no free DMB (limit reached)",
	  "too many "
	  "SMC-D connections on this device: close some, or spread them over devices" },
	{ 0x030e0000, "NOROUTE", "SMC-Rv2: no route to the peer",
	  "check the RoCE netdev's "
	  "routing to the peer" },
	{ 0x030f0000, "NOINDIRECT", "SMC-Rv2: direct/indirect connection mismatch", NULL },
	{ 0x04000000, "SYNCERR", "synchronization error", NULL },
	{ 0x05000000, "PEERDECL", "the peer declined the SMC handshake",
	  "see the peer's "
	  "reason (peer diagnosis) and act on that side" },
	{ 0x09990000, "INTERR", "internal error", NULL },
	{ 0x09990001, "ERR_RTOK", "rtoken handling failed", NULL },
	{ 0x09990002, "ERR_RDYLNK", "ib ready link failed", NULL },
	{ 0x09990003, "ERR_REGBUF", "registering RDMA buffers failed", NULL },
};

static const struct decline *decline_find(uint32_t code)
{
	for (size_t i = 0; i < ELEMENTSOF(declines); i++)
		if (declines[i].code == code)
			return &declines[i];
	return NULL;
}

const char *smc_decline_name(uint32_t code)
{
	const struct decline *d = decline_find(code);

	return d ? d->name : NULL;
}

const char *smc_decline_text(uint32_t code)
{
	const struct decline *d = decline_find(code);

	return d ? d->text : NULL;
}

const char *smc_decline_advice(uint32_t code)
{
	const struct decline *d = decline_find(code);

	return d ? d->advice : NULL;
}

/* "NOUEID", "SMC_CLC_DECL_NOUEID" (any case), or a number ("0x03030008"). */
int smc_decline_from_name(const char *name, uint32_t *ret_code)
{
	char *end;
	unsigned long v;

	if (!name || !*name)
		return -EINVAL;
	if (strncasecmp(name, "SMC_CLC_DECL_", 13) == 0)
		name += 13;
	for (size_t i = 0; i < ELEMENTSOF(declines); i++)
		if (strcasecmp(declines[i].name, name) == 0) {
			*ret_code = declines[i].code;
			return 0;
		}
	errno = 0;
	v = strtoul(name, &end, 0);
	if (errno == 0 && end != name && *end == '\0' && v <= UINT32_MAX) {
		*ret_code = (uint32_t)v;
		return 0;
	}
	return -ENOENT;
}

/* ---- small enums ---------------------------------------------------------------------- */

struct name {
	unsigned value;
	const char *name;
};

static const char *name_of(const struct name *t, size_t n, unsigned value)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].value == value)
			return t[i].name;
	return NULL;
}

static int value_of(const struct name *t, size_t n, const char *name, unsigned *ret)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcasecmp(t[i].name, name) == 0) {
			*ret = t[i].value;
			return 0;
		}
	return -ENOENT;
}

/* net/smc/smc.h enum smc_state (sk_state of SMC sockets) */
static const struct name sock_states[] = {
	{ 1, "ACTIVE" },	   { 2, "INIT" },
	{ 7, "CLOSED" },	   { 10, "LISTEN" },
	{ 20, "PEERCLOSEWAIT1" },  { 21, "PEERCLOSEWAIT2" },
	{ 22, "APPCLOSEWAIT1" },   { 23, "APPCLOSEWAIT2" },
	{ 24, "APPFINCLOSEWAIT" }, { 25, "PEERFINCLOSEWAIT" },
	{ 26, "PEERABORTWAIT" },   { 27, "PROCESSABORT" },
};

/* uapi SMC_DIAG_MODE_* */
static const struct name sock_modes[] = {
	{ 0, "SMCR" },
	{ 1, "TCP" },
	{ 2, "SMCD" },
};

/* net/smc/smc_core.h enum smc_link_state */
static const struct name link_states[] = {
	{ 0, "UNUSED" },
	{ 1, "INACTIVE" },
	{ 2, "ACTIVATING" },
	{ 3, "ACTIVE" },
};

/* enum smc_lgr_type */
static const struct name lgr_types[] = {
	{ 0, "NONE" }, { 1, "SINGLE" }, { 2, "SYM" }, { 3, "ASYMP" }, { 4, "ASYML" },
};

/* enum smc_lgr_role */
static const struct name lgr_roles[] = {
	{ 0, "CLNT" },
	{ 1, "SERV" },
};

/* SMC_CLC_OS_* (peer OS in the CLC v2 extension) */
static const struct name oses[] = {
	{ 1, "ZOS" },
	{ 2, "LINUX" },
	{ 3, "AIX" },
};

/* enum smcr_buf_type (also net.smc.smcr_buf_type) */
static const struct name buf_types[] = {
	{ 0, "physical" },
	{ 1, "virtual" },
	{ 2, "mixed" },
};

#define NAME_OF(t, v) name_of(t, ELEMENTSOF(t), v)

const char *smc_sock_state_name(uint8_t state)
{
	return NAME_OF(sock_states, state);
}

const char *smc_sock_mode_name(uint8_t mode)
{
	return NAME_OF(sock_modes, mode);
}

const char *smc_link_state_name(uint32_t state)
{
	return NAME_OF(link_states, state);
}

const char *smc_lgr_type_name(uint8_t type)
{
	return NAME_OF(lgr_types, type);
}

const char *smc_lgr_role_name(uint8_t role)
{
	return NAME_OF(lgr_roles, role);
}

const char *smc_os_name(uint8_t os)
{
	return NAME_OF(oses, os);
}

const char *smc_buf_type_name(uint8_t t)
{
	return NAME_OF(buf_types, t);
}

int smc_sock_state_from_name(const char *name, uint8_t *ret)
{
	unsigned v;
	int r = value_of(sock_states, ELEMENTSOF(sock_states), name, &v);

	if (r == 0)
		*ret = (uint8_t)v;
	return r;
}

int smc_sock_mode_from_name(const char *name, uint8_t *ret)
{
	unsigned v;
	int r = value_of(sock_modes, ELEMENTSOF(sock_modes), name, &v);

	if (r == 0)
		*ret = (uint8_t)v;
	return r;
}
