// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The PNET table: generic netlink family SMC_PNETID (net/smc/smc_pnet.c), per network
 * namespace (a non-initial netns sees and may add ETH entries only).
 *
 * The family parses liberally (GENL_DONT_VALIDATE_STRICT | _DUMP).  Facts that shape
 * this file:
 *   - ADD validates NAME like smc_pnetid_valid(): leading/trailing isspace() trimmed, 1-16
 *     isalnum() bytes, lower case converted to upper case (kernel Latin-1 ctype);
 *   - DEL does not normalise: it compares the name byte by byte with the stored upper-case
 *     form, so we send the normalised name (otherwise "net1" never matches "NET1");
 *   - FLUSH returns 0 in 7.3; older kernels gave -ENOENT for an empty table, which is
 *     success here (smc-tools meant to do this, but its condition is inverted);
 *   - ETH entries report IBNAME "n/a" and IBPORT 0xff, IB entries ETHNAME "n/a": the
 *     model has empty names and port 0 instead;
 *   - GET with a NAME (a do-command) answers with a hand-built multipart reply; we dump the
 *     table and filter by the normalised name instead: same data, one code path.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "netlink/smcnl-internal.h"

int smc_pnetid_validate(const char *pnetid, char ret_norm[SMC_PNETID_LEN + 1], const char **ret_reason)
{
	const char *reason = NULL;
	char norm[SMC_PNETID_LEN + 1];
	const unsigned char *b, *e;
	size_t n = 0;

	if (!pnetid) {
		reason = "no PNET ID given";
		goto invalid;
	}
	b = (const unsigned char *)pnetid;
	while (*b && k_isspace(*b))
		b++;
	e = b + strlen((const char *)b);
	while (e > b && k_isspace(e[-1]))
		e--;
	if (e == b) {
		reason = "the PNET ID is empty";
		goto invalid;
	}
	if (e - b > SMC_PNETID_LEN) {
		reason = "a PNET ID is at most 16 characters long";
		goto invalid;
	}
	for (; b < e; b++) {
		if (!k_isalnum(*b)) {
			reason = "a PNET ID consists of letters and digits only";
			goto invalid;
		}
		/* The kernel's toupper(): islower() bytes minus 0x20 (Latin-1 too). */
		norm[n++] = (char)(k_islower(*b) ? *b - 0x20 : *b);
	}
	norm[n] = '\0';
	if (ret_norm)
		memcpy(ret_norm, norm, n + 1);
	if (ret_reason)
		*ret_reason = NULL;
	return 0;
invalid:
	if (ret_reason)
		*ret_reason = reason;
	return -EINVAL;
}

struct pnet_ctx {
	const char *filter; /* normalised PNET ID or NULL */
	struct smc_pnet_entry *v;
	size_t n;
};

static int pnet_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_PNETID_MAX + 1];
	struct pnet_ctx *c = userdata;
	struct smc_pnet_entry e = {};
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_PNETID_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_PNETID_GET || !tb[SMC_PNETID_NAME])
		return 0;
	r = r ?: attr_str(tb[SMC_PNETID_NAME], e.pnetid, sizeof(e.pnetid));
	r = r ?: attr_str(tb[SMC_PNETID_ETHNAME], e.eth_name, sizeof(e.eth_name));
	r = r ?: attr_str(tb[SMC_PNETID_IBNAME], e.ib_name, sizeof(e.ib_name));
	r = r ?: attr_u8(tb[SMC_PNETID_IBPORT], &e.ib_port);
	if (r < 0)
		return r;
	strip_blanks(e.pnetid);
	if (streq(e.eth_name, "n/a"))
		e.eth_name[0] = '\0';
	if (streq(e.ib_name, "n/a"))
		e.ib_name[0] = '\0';
	if (e.ib_port == 0xff || !e.ib_name[0])
		e.ib_port = 0;
	if (c->filter && !streq(c->filter, e.pnetid))
		return 0;
	return SMCNL_APPEND(c->v, c->n, e);
}

int smc_pnet_list(struct smcnl *nl, const char *pnetid, struct smc_pnet_entry **ret, size_t *ret_n)
{
	char norm[SMC_PNETID_LEN + 1];
	struct pnet_ctx c = {};
	int r;

	if (pnetid) {
		r = smc_pnetid_validate(pnetid, norm, NULL);
		if (r < 0)
			return r;
		c.filter = norm;
	}
	r = smcnl_genl_dump(nl, SMCNL_FAM_PNET, SMC_PNETID_GET, pnet_msg, &c);
	if (r < 0) {
		free(c.v);
		return r;
	}
	*ret = c.v;
	*ret_n = c.n;
	return 0;
}

int smc_pnet_add(struct smcnl *nl, const struct smc_pnet_entry *e)
{
	char norm[SMC_PNETID_LEN + 1], key[96];
	struct nl_msg *msg;
	int r;

	if (!e)
		return -EINVAL;
	r = smc_pnetid_validate(e->pnetid, norm, NULL);
	if (r < 0)
		return r;
	/*
	 * One of the two kinds (the kernel accepts both at once, but with neither it
	 * answers -EEXIST, which would only confuse); port 1 or 2 for IB/SMC-D devices.
	 */
	if (strnlen(e->eth_name, sizeof(e->eth_name)) >= IF_NAMESIZE ||
	    strnlen(e->ib_name, sizeof(e->ib_name)) >= SMC_IB_NAME_LEN ||
	    (!e->eth_name[0] && !e->ib_name[0]) || e->ib_port > 2 || (e->ib_port && !e->ib_name[0]))
		return -EINVAL;
	r = smcnl_genl_msg_new(nl, SMCNL_FAM_PNET, SMC_PNETID_ADD, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	if (nla_put_string(msg, SMC_PNETID_NAME, norm) < 0 ||
	    (e->eth_name[0] && nla_put_string(msg, SMC_PNETID_ETHNAME, e->eth_name) < 0) ||
	    (e->ib_name[0] && nla_put_string(msg, SMC_PNETID_IBNAME, e->ib_name) < 0) ||
	    (e->ib_port && nla_put_u8(msg, SMC_PNETID_IBPORT, e->ib_port) < 0)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return smcnl_request(nl, SMCNL_PROTO_GENL, msg,
			     smcnl_genl_key(SMCNL_FAM_PNET, SMC_PNETID_ADD, key, sizeof(key)), NULL,
			     NULL);
}

int smc_pnet_del(struct smcnl *nl, const char *pnetid)
{
	char norm[SMC_PNETID_LEN + 1];
	int r;

	r = smc_pnetid_validate(pnetid, norm, NULL);
	if (r < 0)
		return r;
	return smcnl_genl_do(nl, SMCNL_FAM_PNET, SMC_PNETID_DEL, SMC_PNETID_NAME, norm,
			     strlen(norm) + 1);
}

int smc_pnet_flush(struct smcnl *nl)
{
	int r = smcnl_genl_do(nl, SMCNL_FAM_PNET, SMC_PNETID_FLUSH, 0, NULL, 0);

	return r == -ENOENT ? 0 : r;
}
