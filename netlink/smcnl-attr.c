// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Validated attribute access.  libnl's nla_parse() does the table work, but it stops
 * silently at a malformed attribute and, without a policy, checks no lengths; a reply
 * from a kernel we do not know (or a corrupt fixture) must give -EBADMSG, never a read
 * beyond an attribute.  So: the attribute stream is walked once for structure, and every
 * getter checks the length of what it reads.
 *
 * Integers are read by width (1, 2, 4 or 8 bytes) and must fit the model's type.  That
 * covers the kernel's "uint" attributes (nla_put_uint: 4 or 8 bytes), SMC_NLA_LGR_D_CHID
 * (a u32 on the wire, documented as u16) and any future widening, without ever reading a
 * u32 as a u16 (wrong on big-endian).  Unknown attribute types are ignored by nla_parse()
 * (types above maxtype) and by the parsers (types they do not read), which is also what
 * happens to pad attributes: forward compatible with newer kernels.
 */
#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/sock_diag.h>

#include <netlink/msg.h>

#include "netlink/smcnl-internal.h"

int smcnl_parse_attrs(struct nlattr **tb, int maxtype, struct nlattr *head, int len)
{
	struct nlattr *nla;
	int rem;

	if (len < 0)
		return -EBADMSG;
	nla_for_each_attr(nla, head, len, rem);
	/* Leftover bytes that do not form an attribute: truncated or corrupt. */
	if (rem > 0)
		return -EBADMSG;
	if (nla_parse(tb, maxtype, head, len, NULL) < 0)
		return -EBADMSG;
	return 0;
}

int smcnl_sock_diag_parse(struct nlmsghdr *nlh, void *hdr, size_t hdr_len, struct nlattr **tb,
			  int maxtype)
{
	int r;

	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return 0;
	if (nlmsg_datalen(nlh) < (int)hdr_len)
		return -EBADMSG;
	memcpy(hdr, nlmsg_data(nlh), hdr_len);
	r = smcnl_parse_attrs(tb, maxtype, nlmsg_attrdata(nlh, hdr_len), nlmsg_attrlen(nlh, hdr_len));
	return r < 0 ? r : 1;
}

int smcnl_parse_nested(struct nlattr **tb, int maxtype, const struct nlattr *nest)
{
	return smcnl_parse_attrs(tb, maxtype, nla_data(nest), nla_len(nest));
}

void *smcnl_genlmsg_put(struct nl_msg *msg, uint32_t port, uint32_t seq, int family, int flags,
			uint8_t cmd, uint8_t version)
{
	struct genlmsghdr hdr = { .cmd = cmd, .version = version };
	struct nlmsghdr *nlh = nlmsg_put(msg, port, seq, family, GENL_HDRLEN, flags);

	if (!nlh)
		return NULL;
	memcpy(nlmsg_data(nlh), &hdr, sizeof(hdr));
	return (char *)nlmsg_data(nlh) + GENL_HDRLEN;
}

bool smcnl_genl_valid(const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN;
}

int smcnl_parse_genl(struct nlmsghdr *nlh, struct nlattr **tb, int maxtype, uint8_t *ret_cmd)
{
	struct genlmsghdr *ghdr;

	if (!smcnl_genl_valid(nlh))
		return -EBADMSG;
	ghdr = nlmsg_data(nlh);
	if (ret_cmd)
		*ret_cmd = ghdr->cmd;
	return smcnl_parse_attrs(tb, maxtype, (struct nlattr *)((char *)ghdr + GENL_HDRLEN),
				 (int)(nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN));
}

int attr_uint(const struct nlattr *a, uint64_t *ret)
{
	const void *d;

	if (!a)
		return 0;
	d = nla_data(a);
	switch (nla_len(a)) {
	case 1:
		*ret = *(const uint8_t *)d;
		return 0;
	case 2: {
		uint16_t v;
		memcpy(&v, d, sizeof(v));
		*ret = v;
		return 0;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, d, sizeof(v));
		*ret = v;
		return 0;
	}
	case 8: {
		/* memcpy: without pad attributes a u64 may sit on a 4-byte boundary */
		uint64_t v;
		memcpy(&v, d, sizeof(v));
		*ret = v;
		return 0;
	}
	default:
		return -EBADMSG;
	}
}

static int attr_uint_max(const struct nlattr *a, uint64_t max, uint64_t *ret)
{
	uint64_t v;
	int r;

	if (!a)
		return 1;
	r = attr_uint(a, &v);
	if (r < 0)
		return r;
	if (v > max)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int attr_u8(const struct nlattr *a, uint8_t *ret)
{
	uint64_t v;
	int r = attr_uint_max(a, UINT8_MAX, &v);

	if (r == 0)
		*ret = (uint8_t)v;
	return r < 0 ? r : 0;
}

int attr_u16(const struct nlattr *a, uint16_t *ret)
{
	uint64_t v;
	int r = attr_uint_max(a, UINT16_MAX, &v);

	if (r == 0)
		*ret = (uint16_t)v;
	return r < 0 ? r : 0;
}

int attr_u32(const struct nlattr *a, uint32_t *ret)
{
	uint64_t v;
	int r = attr_uint_max(a, UINT32_MAX, &v);

	if (r == 0)
		*ret = (uint32_t)v;
	return r < 0 ? r : 0;
}

int attr_u64(const struct nlattr *a, uint64_t *ret)
{
	return attr_uint(a, ret);
}

int attr_bool(const struct nlattr *a, bool *ret)
{
	uint64_t v;
	int r = attr_uint_max(a, UINT64_MAX, &v);

	if (r == 0)
		*ret = v != 0;
	return r < 0 ? r : 0;
}

int attr_str(const struct nlattr *a, char *buf, size_t size)
{
	size_t n;

	if (!a)
		return 0;
	if (nla_len(a) < 0 || size == 0)
		return -EBADMSG;
	/* nla_put_string() includes the NUL; take the bytes up to the first NUL anyway. */
	n = strnlen(nla_data(a), nla_len(a));
	if (n >= size)
		return -EBADMSG;
	memcpy(buf, nla_data(a), n);
	buf[n] = '\0';
	return 0;
}

int attr_struct(const struct nlattr *a, void *buf, size_t size, size_t min, size_t *ret_len)
{
	size_t len;

	if (!a)
		return 0;
	if (nla_len(a) < 0 || (size_t)nla_len(a) < min)
		return -EBADMSG;
	len = (size_t)nla_len(a) < size ? (size_t)nla_len(a) : size;
	memset(buf, 0, size);
	memcpy(buf, nla_data(a), len);
	if (ret_len)
		*ret_len = nla_len(a);
	return 0;
}

void strip_blanks(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
}
