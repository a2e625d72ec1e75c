// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * EIDs: the global UEID table (at most 4 entries of exactly 32 bytes) and the s390 SEID.
 *
 * Kernel side (net/smc/smc_clc.c, 7.3):
 *   ADD_UEID / REMOVE_UEID take SMC_NLA_EID_TABLE_ENTRY with a payload of exactly 33 bytes
 *   (32 characters + NUL; -EINVAL otherwise), validated by smc_clc_ueid_valid():
 *   trailing isspace() skipped, nothing left = invalid, first byte isalnum && !islower,
 *   every byte up to the last non-space isalnum && !islower, or '.' or '-'.  The kernel's
 *   ctype is Latin-1 (lib/ctype.c): 0xC0-0xDE except 0xD7 are upper-case letters, 0xDF-0xFF
 *   except 0xF7 lower-case, 0xA0 is a space.  ".." is accepted (smc-tools rejects it in
 *   user space; we validate exactly as the kernel does).
 *   ADD: -ERANGE when the table already has 4 entries (checked before duplicates), -EEXIST
 *   for a duplicate; a string longer than 32 characters fails the netlink policy with
 *   -ERANGE too, with the extack "Attribute failed policy validation" - smc_strerror()
 *   tells the two apart by that text, and smc_ueid_validate() never sends such a string.
 *   REMOVE: -ENOENT if absent; on s390 removing the last UEID re-enables the SEID and
 *   returns -EAGAIN although the removal succeeded (smc_ueid_del() returns 1 then).
 *   ENABLE/DISABLE_SEID: -EOPNOTSUPP except on s390; DISABLE needs a UEID (-ENOENT).
 */
#include <errno.h>
#include <string.h>

#include "netlink/smcnl-internal.h"

static const char *ueid_char_reason(unsigned char c)
{
	if (k_islower(c))
		return "lower-case letters are not allowed (the kernel compares UEIDs byte by "
		       "byte): use upper case";
	if (k_isspace(c))
		return "blanks inside a UEID are not allowed";
	return "only letters A-Z, digits, '.' and '-' are allowed";
}

int smc_ueid_validate(const char *ueid, char ret_padded[SMC_EID_LEN + 1], const char **ret_reason)
{
	char buf[SMC_EID_LEN + 1];
	const char *reason = NULL;
	size_t len;
	int end;

	if (!ueid) {
		reason = "no UEID given";
		goto invalid;
	}
	len = strlen(ueid);
	if (len > SMC_EID_LEN) {
		reason = "a UEID is at most 32 characters long";
		goto invalid;
	}
	/* The kernel stores exactly 32 bytes; shorter UEIDs are padded with blanks. */
	memset(buf, ' ', SMC_EID_LEN);
	memcpy(buf, ueid, len);
	buf[SMC_EID_LEN] = '\0';

	for (end = SMC_EID_LEN - 1; end >= 0 && k_isspace((unsigned char)buf[end]); end--)
		;
	if (end < 0) {
		reason = "the UEID is empty";
		goto invalid;
	}
	if (!(k_isupper((unsigned char)buf[0]) || k_isdigit((unsigned char)buf[0]))) {
		if (k_islower((unsigned char)buf[0]))
			reason = ueid_char_reason((unsigned char)buf[0]);
		else
			reason = "the first character must be a letter (A-Z) or a digit";
		goto invalid;
	}
	for (int i = 0; i <= end; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (!(k_isupper(c) || k_isdigit(c) || c == '.' || c == '-')) {
			reason = ueid_char_reason(c);
			goto invalid;
		}
	}
	/*
	 * Trailing white space (tabs, 0xA0, ...) passes the kernel's check but would be
	 * stored as it is: "ABC\t" and "ABC" would be two UEIDs that print the same and never
	 * match each other in an EID negotiation.  Normalise the trailing padding to blanks.
	 */
	memset(buf + end + 1, ' ', SMC_EID_LEN - end - 1);
	if (ret_padded)
		memcpy(ret_padded, buf, sizeof(buf));
	if (ret_reason)
		*ret_reason = NULL;
	return 0;

invalid:
	if (ret_reason)
		*ret_reason = reason;
	return -EINVAL;
}

struct ueid_ctx {
	char (*v)[SMC_EID_LEN + 1];
	size_t n;
};

static int ueid_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_NLA_EID_TABLE_MAX + 1];
	struct ueid_ctx *c = userdata;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_NLA_EID_TABLE_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_DUMP_UEID || !tb[SMC_NLA_EID_TABLE_ENTRY])
		return 0;
	/* The table holds SMC_MAX_UEID entries: more is a kernel this build does not know. */
	if (c->n >= SMC_UEID_MAX)
		return -EBADMSG;
	r = attr_str(tb[SMC_NLA_EID_TABLE_ENTRY], c->v[c->n], SMC_EID_LEN + 1);
	if (r < 0)
		return r;
	strip_blanks(c->v[c->n]);
	c->n++;
	return 0;
}

int smc_ueid_list(struct smcnl *nl, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1], size_t *ret_n)
{
	char v[SMC_UEID_MAX][SMC_EID_LEN + 1] = {};
	struct ueid_ctx c = { .v = v };
	int r;

	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_DUMP_UEID, ueid_msg, &c);
	if (r < 0)
		return r;
	memcpy(ret, v, sizeof(v));
	*ret_n = c.n;
	return 0;
}

static int ueid_do(struct smcnl *nl, uint8_t cmd, const char *ueid)
{
	char padded[SMC_EID_LEN + 1];
	int r;

	r = smc_ueid_validate(ueid, padded, NULL);
	if (r < 0)
		return r;
	/* 32 blank-padded characters and the NUL: the kernel wants exactly 33 bytes. */
	return smcnl_genl_do(nl, SMCNL_FAM_SMC, cmd, SMC_NLA_EID_TABLE_ENTRY, padded,
			     SMC_EID_LEN + 1);
}

int smc_ueid_add(struct smcnl *nl, const char *ueid)
{
	return ueid_do(nl, SMC_NETLINK_ADD_UEID, ueid);
}

int smcnl_ueid_add_raw(struct smcnl *nl, const void *data, size_t len)
{
	return smcnl_genl_do(nl, SMCNL_FAM_SMC, SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, data,
			     len);
}

int smc_ueid_del(struct smcnl *nl, const char *ueid)
{
	int r = ueid_do(nl, SMC_NETLINK_REMOVE_UEID, ueid);

	/* s390: the last UEID is gone and the SEID is active again - a success. */
	return r == -EAGAIN ? 1 : r;
}

int smc_ueid_flush(struct smcnl *nl)
{
	int r = smcnl_genl_do(nl, SMCNL_FAM_SMC, SMC_NETLINK_FLUSH_UEID, 0, NULL, 0);

	/* 7.3 always answers 0; treat an s390-style -EAGAIN like smc_ueid_del() does. */
	return r == -EAGAIN ? 1 : r;
}

struct seid_ctx {
	struct smc_seid *seid;
	bool seen;
};

static int seid_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[SMC_NLA_SEID_TABLE_MAX + 1];
	struct seid_ctx *c = userdata;
	uint8_t cmd;
	int r;

	r = smcnl_parse_genl(nlh, tb, SMC_NLA_SEID_TABLE_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != SMC_NETLINK_DUMP_SEID)
		return 0;
	c->seen = true;
	/* An empty message: not ISMv2 capable, no SEID to report. */
	memset(c->seid, 0, sizeof(*c->seid));
	if (!tb[SMC_NLA_SEID_ENTRY])
		return 0;
	r = attr_str(tb[SMC_NLA_SEID_ENTRY], c->seid->seid, sizeof(c->seid->seid));
	r = r ?: attr_bool(tb[SMC_NLA_SEID_ENABLED], &c->seid->enabled);
	if (r < 0)
		return r;
	strip_blanks(c->seid->seid);
	c->seid->present = true;
	return 0;
}

int smc_seid_get(struct smcnl *nl, struct smc_seid *ret)
{
	struct smc_seid seid = {};
	struct seid_ctx c = { .seid = &seid };
	int r;

	r = smcnl_genl_dump(nl, SMCNL_FAM_SMC, SMC_NETLINK_DUMP_SEID, seid_msg, &c);
	if (r < 0)
		return r;
	if (!c.seen)
		return -EBADMSG;
	*ret = seid;
	return 0;
}

int smc_seid_set(struct smcnl *nl, bool enable)
{
	return smcnl_genl_do(nl, SMCNL_FAM_SMC,
			     enable ? SMC_NETLINK_ENABLE_SEID : SMC_NETLINK_DISABLE_SEID, 0, NULL, 0);
}
