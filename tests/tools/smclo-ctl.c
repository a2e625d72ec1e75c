// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smclo-ctl: drive the smc_lo module's SMC_LO generic netlink family (and the few SMC
 * netlink requests the kmod guest tests need) from tests/vm/guest/kmod-*.sh.
 *
 * A TEST-ONLY tool.  The product's client of the family is netlink/smclo.c with smcctl
 * on top (`smcctl device loopback-ism ...`); once those exist the guest tests switch to
 * smcctl and this file goes away.
 *
 *   smclo-ctl get [KEY]                     state as KEY=VALUE lines (or one value)
 *   smclo-ctl dump                          the same through a dump request
 *   smclo-ctl activate
 *   smclo-ctl deactivate [TIMEOUT_MS]       start draining (drain bound in ms)
 *   smclo-ctl set dmb-type|nocopy|max-dmbs VALUE   (raw numbers are passed through)
 *   smclo-ctl wait STATE [SECONDS]          wait (multicast + polling) for a state
 *   smclo-ctl monitor COUNT [SECONDS]       print COUNT notifications
 *   smclo-ctl raw CMD [ATTR=U32]...         send any command (policy tests)
 *   smclo-ctl ueid-add UEID                 SMC_GEN_NETLINK ADD_UEID (blank-padded)
 *   smclo-ctl pnet-add PNETID IBNAME        SMC_PNETID ADD (IBNAME = a DIBS device)
 *   smclo-ctl pnet-del PNETID               SMC_PNETID DEL
 *   smclo-ctl lgrs                          SMC-D link groups: "id gid conns chid" per line
 *   smclo-ctl fback                         fallback reasons: "server|client 0xCODE COUNT"
 *   smclo-ctl socks                         SMC sockets (smc_diag): "state mode sport dport inode"
 *
 * Failures print "error: ERRNO (strerror): EXTACK" on stderr and exit 1 (2 for usage).
 * The errno is printed as a positive number so shell tests can match it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/smc_diag.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "netlink/uapi/smc_lo.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* SMC_GEN_NETLINK and SMC_PNETID numbers (include/uapi/linux/smc.h, 7.3). */
#define SMC_GEN_NAME "SMC_GEN_NETLINK"
#define SMC_CMD_GET_LGR_SMCD 4
#define SMC_CMD_ADD_UEID 10
#define SMC_GEN_LGR_SMCD 4
#define SMC_NLA_LGR_D_ID 1
#define SMC_NLA_LGR_D_GID 2
#define SMC_NLA_LGR_D_CONNS_NUM 5
#define SMC_NLA_LGR_D_CHID 7
#define SMC_NLA_LGR_D_EXT_GID 10
#define SMC_NLA_LGR_D_MAX 13
#define SMC_NLA_EID_TABLE_ENTRY 1
#define SMC_CMD_GET_FBACK_STATS 8
#define SMC_GEN_FBACK_STATS 8
#define SMC_NLA_FBACK_STATS_TYPE 1
#define SMC_NLA_FBACK_STATS_RSN_CODE 4
#define SMC_NLA_FBACK_STATS_RSN_CNT 5
#define SMC_NLA_FBACK_STATS_MAX 5
#define SMC_PNET_NAME "SMC_PNETID"
#define SMC_PNETID_ADD 2
#define SMC_PNETID_DEL 3
#define SMC_PNETID_NAME 1
#define SMC_PNETID_IBNAME 3

struct ctl {
	struct nl_sock *sk;
	int family;
	char extack[512];
	int err;
	/* where the reply of the current request goes */
	int (*on_msg)(struct nl_msg *msg, void *arg);
	void *arg;
};

static int usage(void)
{
	fprintf(stderr, "usage: smclo-ctl get|dump|activate|deactivate|set|wait|monitor|raw|"
			"ueid-add|pnet-add|pnet-del|lgrs ... (see the source)\n");
	return 2;
}

static int die_err(const struct ctl *c, int err, const char *what)
{
	fprintf(stderr, "error: %d (%s): %s%s%s\n", -err, strerror(-err), what,
		c->extack[0] ? ": " : "", c->extack);
	return 1;
}

/* Keep the kernel's errno and extended-ack text (libnl would fold them into NLE_*). */
static int err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *hdr = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct ctl *c = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off;
	int len;

	c->err = e->error;
	if (!(hdr->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	off = sizeof(*e);
	if (!(hdr->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	len = (int)hdr->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len > 0 &&
	    !nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off), len, NULL) &&
	    tb[NLMSGERR_ATTR_MSG])
		snprintf(c->extack, sizeof(c->extack), "%s", nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	((struct ctl *)arg)->err = 0;
	return NL_STOP;
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct ctl *c = arg;

	return c->on_msg ? c->on_msg(msg, c->arg) : NL_OK;
}

static int ctl_open(struct ctl *c, const char *family)
{
	int one = 1;

	memset(c, 0, sizeof(*c));
	c->sk = nl_socket_alloc();
	if (!c->sk || genl_connect(c->sk))
		return -ENOMEM;
	setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	nl_socket_disable_seq_check(c->sk);
	nl_socket_modify_err_cb(c->sk, NL_CB_CUSTOM, err_cb, c);
	nl_socket_modify_cb(c->sk, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, c);
	nl_socket_modify_cb(c->sk, NL_CB_FINISH, NL_CB_CUSTOM, ack_cb, c);
	nl_socket_modify_cb(c->sk, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, c);
	c->family = genl_ctrl_resolve(c->sk, family);
	return c->family < 0 ? -ENOENT : 0;
}

/* Send msg (consumed), run callbacks until the ACK or DONE; return the kernel's errno. */
static int ctl_request(struct ctl *c, struct nl_msg *msg)
{
	int rc;

	c->err = 1;
	c->extack[0] = 0;
	rc = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (rc < 0)
		return -EIO;
	while (c->err == 1) {
		rc = nl_recvmsgs_default(c->sk);
		if (rc < 0 && c->err == 1)
			return -EIO;
	}
	return c->err;
}

static struct nl_msg *ctl_msg(struct ctl *c, int cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0,
				flags | NLM_F_ACK, cmd, SMC_LO_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* ---- printing a device message -------------------------------------------------- */

static const char *const state_names[] = { "inactive", "active", "draining" };
static const char *const event_names[] = { "activated", "draining", "removing", "deactivated",
					   "settings" };
static const char *const counter_names[SMC_LO_C_MAX + 1] = {
	[SMC_LO_C_DMBS] = "dmbs",
	[SMC_LO_C_DMB_BYTES] = "dmb_bytes",
	[SMC_LO_C_ATTACHED] = "attached",
	[SMC_LO_C_LINK_GROUPS] = "link_groups",
	[SMC_LO_C_REGISTRATIONS] = "registrations",
	[SMC_LO_C_UNREGISTRATIONS] = "unregistrations",
	[SMC_LO_C_ALLOC_FAILURES] = "alloc_failures",
	[SMC_LO_C_LIMIT_REJECTS] = "limit_rejects",
	[SMC_LO_C_MOVES] = "moves",
	[SMC_LO_C_MOVE_BYTES] = "move_bytes",
	[SMC_LO_C_MOVE_SIGNALS] = "move_signals",
	[SMC_LO_C_MOVE_ERRORS] = "move_errors",
	[SMC_LO_C_ATTACHES] = "attaches",
	[SMC_LO_C_DETACHES] = "detaches",
	[SMC_LO_C_ACTIVATIONS] = "activations",
	[SMC_LO_C_DEACTIVATIONS] = "deactivations",
	[SMC_LO_C_DRAIN_REJECTS] = "drain_rejects",
};

struct printer {
	const char *key; /* print only this key's value */
	int state;       /* last state seen */
	int event;       /* last event seen, -1 none */
};

static void emit(struct printer *p, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(struct printer *p, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (p->key && strcmp(p->key, key))
		return;
	if (!p->key)
		printf("%s=", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void print_settings(struct printer *p, struct nlattr *nest, const char *prefix)
{
	struct nlattr *tb[SMC_LO_S_MAX + 1];
	char key[64];

	if (!nest || nla_parse_nested(tb, SMC_LO_S_MAX, nest, NULL))
		return;
	if (tb[SMC_LO_S_DMB_TYPE]) {
		snprintf(key, sizeof(key), "%sdmb_type", prefix);
		emit(p, key, "%s", nla_get_u8(tb[SMC_LO_S_DMB_TYPE]) ? "virtual" : "physical");
	}
	if (tb[SMC_LO_S_NOCOPY]) {
		snprintf(key, sizeof(key), "%snocopy", prefix);
		emit(p, key, "%u", nla_get_u8(tb[SMC_LO_S_NOCOPY]));
	}
	if (tb[SMC_LO_S_MAX_DMBS]) {
		snprintf(key, sizeof(key), "%smax_dmbs", prefix);
		emit(p, key, "%u", nla_get_u32(tb[SMC_LO_S_MAX_DMBS]));
	}
}

static void print_counters(struct printer *p, struct nlattr *nest)
{
	struct nlattr *tb[SMC_LO_C_MAX + 1];
	int i;

	if (!nest || nla_parse_nested(tb, SMC_LO_C_MAX, nest, NULL))
		return;
	for (i = SMC_LO_C_DMBS; i <= SMC_LO_C_MAX; i++) {
		if (!tb[i])
			continue;
		if (nla_len(tb[i]) == 8)
			emit(p, counter_names[i], "%" PRIu64, nla_get_u64(tb[i]));
		else
			emit(p, counter_names[i], "%u", nla_get_u32(tb[i]));
	}
}

static int print_dev_msg(struct nl_msg *msg, void *arg)
{
	struct printer *p = arg;
	struct nlattr *tb[SMC_LO_A_MAX + 1];
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	uint8_t *g;
	int i;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, SMC_LO_A_MAX, NULL))
		return NL_SKIP;
	if (gh->cmd == SMC_LO_CMD_NOTIFY && tb[SMC_LO_A_EVENT]) {
		p->event = nla_get_u8(tb[SMC_LO_A_EVENT]);
		emit(p, "event", "%s", p->event < 5 ? event_names[p->event] : "?");
	}
	if (tb[SMC_LO_A_DEV_NAME])
		emit(p, "dev", "%s", nla_get_string(tb[SMC_LO_A_DEV_NAME]));
	if (tb[SMC_LO_A_STATE]) {
		p->state = nla_get_u8(tb[SMC_LO_A_STATE]);
		emit(p, "state", "%s", p->state < 3 ? state_names[p->state] : "?");
	}
	if (tb[SMC_LO_A_GID] && nla_len(tb[SMC_LO_A_GID]) == SMC_LO_GID_LEN) {
		char hex[2 * SMC_LO_GID_LEN + 1];

		g = nla_data(tb[SMC_LO_A_GID]);
		for (i = 0; i < SMC_LO_GID_LEN; i++)
			sprintf(hex + 2 * i, "%02x", g[i]);
		emit(p, "gid", "%s", hex);
	}
	if (tb[SMC_LO_A_FABRIC_ID])
		emit(p, "fabric_id", "0x%04x", nla_get_u16(tb[SMC_LO_A_FABRIC_ID]));
	if (tb[SMC_LO_A_GENERATION])
		emit(p, "generation", "%u", nla_get_u32(tb[SMC_LO_A_GENERATION]));
	if (tb[SMC_LO_A_PENDING])
		emit(p, "pending", "%u", nla_get_u8(tb[SMC_LO_A_PENDING]));
	if (tb[SMC_LO_A_APPLY])
		emit(p, "apply", "%s", nla_get_u8(tb[SMC_LO_A_APPLY]) ? "next-activation" : "now");
	if (tb[SMC_LO_A_DRAIN_TIMEOUT_MS])
		emit(p, "drain_timeout_ms", "%u", nla_get_u32(tb[SMC_LO_A_DRAIN_TIMEOUT_MS]));
	if (tb[SMC_LO_A_DRAIN_REMAINING_MS])
		emit(p, "drain_remaining_ms", "%u", nla_get_u32(tb[SMC_LO_A_DRAIN_REMAINING_MS]));
	if (tb[SMC_LO_A_REMOVING])
		emit(p, "removing", "%u", nla_get_u8(tb[SMC_LO_A_REMOVING]));
	print_settings(p, tb[SMC_LO_A_SETTINGS], "");
	print_settings(p, tb[SMC_LO_A_ACTIVE_SETTINGS], "active_");
	print_counters(p, tb[SMC_LO_A_COUNTERS]);
	fflush(stdout);
	return NL_OK;
}

static int cmd_simple(struct ctl *c, int cmd, int flags, struct nl_msg *msg, const char *key)
{
	struct printer p = { .key = key, .event = -1 };
	int rc;

	if (!msg)
		msg = ctl_msg(c, cmd, flags);
	c->on_msg = print_dev_msg;
	c->arg = &p;
	rc = ctl_request(c, msg);
	return rc ? die_err(c, rc, "request failed") : 0;
}

static int parse_setting(const char *name, const char *val, int *ret_attr, uint32_t *ret_v)
{
	char *end;

	if (!strcmp(name, "dmb-type")) {
		*ret_attr = SMC_LO_S_DMB_TYPE;
		if (!strcmp(val, "physical"))
			val = "0";
		else if (!strcmp(val, "virtual"))
			val = "1";
	} else if (!strcmp(name, "nocopy")) {
		*ret_attr = SMC_LO_S_NOCOPY;
		if (!strcmp(val, "on"))
			val = "1";
		else if (!strcmp(val, "off"))
			val = "0";
	} else if (!strcmp(name, "max-dmbs")) {
		*ret_attr = SMC_LO_S_MAX_DMBS;
	} else {
		return -1;
	}
	*ret_v = strtoul(val, &end, 0);
	return *end ? -1 : 0;
}

static int cmd_set(struct ctl *c, int argc, char **argv)
{
	struct nl_msg *msg;
	struct nlattr *nest;
	uint32_t v;
	int attr, i;

	if (argc < 2 || argc % 2)
		return usage();
	msg = ctl_msg(c, SMC_LO_CMD_SET, 0);
	nest = nla_nest_start(msg, SMC_LO_A_SETTINGS);
	for (i = 0; i < argc; i += 2) {
		if (parse_setting(argv[i], argv[i + 1], &attr, &v))
			return usage();
		if (attr == SMC_LO_S_MAX_DMBS)
			nla_put_u32(msg, attr, v);
		else
			nla_put_u8(msg, attr, v);
	}
	nla_nest_end(msg, nest);
	return cmd_simple(c, SMC_LO_CMD_SET, 0, msg, NULL);
}

/* raw CMD [ATTR=U32]...: top-level u32 attributes, to probe the policies. */
static int cmd_raw(struct ctl *c, int argc, char **argv)
{
	struct nl_msg *msg;
	int i;

	if (argc < 1)
		return usage();
	msg = ctl_msg(c, atoi(argv[0]), 0);
	for (i = 1; i < argc; i++) {
		unsigned int a, v;

		if (sscanf(argv[i], "%u=%u", &a, &v) != 2)
			return usage();
		nla_put_u32(msg, a, v);
	}
	return cmd_simple(c, 0, 0, msg, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int get_state(struct ctl *c)
{
	struct printer p = { .key = "-", .event = -1, .state = -1 };

	c->on_msg = print_dev_msg;
	c->arg = &p;
	if (ctl_request(c, ctl_msg(c, SMC_LO_CMD_GET, 0)))
		return -1;
	return p.state;
}

/* Notifications arrive on a second socket; the first one polls as a safety net. */
static int cmd_wait_or_monitor(struct ctl *c, int want_state, int count, double secs)
{
	struct printer p = { .event = -1, .state = -1, .key = want_state >= 0 ? "-" : NULL };
	struct nl_sock *mon;
	double end = now_s() + secs;
	int grp, seen = 0;

	mon = nl_socket_alloc();
	if (!mon || genl_connect(mon))
		return die_err(c, -ENOMEM, "monitor socket");
	nl_socket_disable_seq_check(mon);
	nl_socket_modify_cb(mon, NL_CB_VALID, NL_CB_CUSTOM, print_dev_msg, &p);
	grp = genl_ctrl_resolve_grp(c->sk, SMC_LO_GENL_NAME, SMC_LO_MCGRP_STATE);
	if (grp < 0 || nl_socket_add_membership(mon, grp))
		return die_err(c, -ENOENT, "joining the state group");
	while (now_s() < end) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(mon), .events = POLLIN };

		if (want_state >= 0 && get_state(c) == want_state) {
			printf("state=%s\n", state_names[want_state]);
			return 0;
		}
		if (poll(&pfd, 1, 200) > 0) {
			p.event = -1;
			nl_recvmsgs_default(mon);
			if (p.event >= 0 && ++seen >= count && want_state < 0)
				return 0;
		}
	}
	fprintf(stderr, "error: timeout after %.1f s\n", secs);
	return 1;
}

static int state_from_name(const char *s)
{
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(s, state_names[i]))
			return i;
	return -1;
}

/* ---- SMC requests --------------------------------------------------------------- */

static int smc_simple(const char *family, int cmd, struct nl_msg **ret_msg, struct ctl *c)
{
	if (ctl_open(c, family))
		return -ENOENT;
	*ret_msg = nlmsg_alloc();
	genlmsg_put(*ret_msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, NLM_F_ACK, cmd, 1);
	return 0;
}

static int cmd_ueid_add(int argc, char **argv)
{
	struct nl_msg *msg;
	struct ctl c;
	char ueid[33];
	int rc;

	if (argc != 1 || strlen(argv[0]) > 32)
		return usage();
	snprintf(ueid, sizeof(ueid), "%-32s", argv[0]);
	if (smc_simple(SMC_GEN_NAME, SMC_CMD_ADD_UEID, &msg, &c))
		return die_err(&c, -ENOENT, SMC_GEN_NAME);
	nla_put(msg, SMC_NLA_EID_TABLE_ENTRY, 33, ueid);
	rc = ctl_request(&c, msg);
	if (rc == -EEXIST)
		rc = 0;
	return rc ? die_err(&c, rc, "ADD_UEID") : 0;
}

static int cmd_pnet(int add, int argc, char **argv)
{
	struct nl_msg *msg;
	struct ctl c;
	int rc;

	if (argc != (add ? 2 : 1))
		return usage();
	if (smc_simple(SMC_PNET_NAME, add ? SMC_PNETID_ADD : SMC_PNETID_DEL, &msg, &c))
		return die_err(&c, -ENOENT, SMC_PNET_NAME);
	nla_put_string(msg, SMC_PNETID_NAME, argv[0]);
	if (add)
		nla_put_string(msg, SMC_PNETID_IBNAME, argv[1]);
	rc = ctl_request(&c, msg);
	return rc ? die_err(&c, rc, add ? "PNETID ADD" : "PNETID DEL") : 0;
}

static int print_lgr(struct nl_msg *msg, void *arg)
{
	struct nlattr *top[SMC_GEN_LGR_SMCD + 1], *tb[SMC_NLA_LGR_D_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, top, SMC_GEN_LGR_SMCD, NULL) ||
	    !top[SMC_GEN_LGR_SMCD] ||
	    nla_parse_nested(tb, SMC_NLA_LGR_D_MAX, top[SMC_GEN_LGR_SMCD], NULL))
		return NL_SKIP;
	printf("%u %016" PRIx64 "%016" PRIx64 " %u 0x%04x\n",
	       tb[SMC_NLA_LGR_D_ID] ? nla_get_u32(tb[SMC_NLA_LGR_D_ID]) : 0,
	       tb[SMC_NLA_LGR_D_GID] ? nla_get_u64(tb[SMC_NLA_LGR_D_GID]) : 0,
	       tb[SMC_NLA_LGR_D_EXT_GID] ? nla_get_u64(tb[SMC_NLA_LGR_D_EXT_GID]) : 0,
	       tb[SMC_NLA_LGR_D_CONNS_NUM] ? nla_get_u32(tb[SMC_NLA_LGR_D_CONNS_NUM]) : 0,
	       tb[SMC_NLA_LGR_D_CHID] ? nla_get_u32(tb[SMC_NLA_LGR_D_CHID]) : 0);
	return NL_OK;
}

static int print_fback(struct nl_msg *msg, void *arg)
{
	struct nlattr *top[SMC_GEN_FBACK_STATS + 1], *tb[SMC_NLA_FBACK_STATS_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, top, SMC_GEN_FBACK_STATS, NULL) ||
	    !top[SMC_GEN_FBACK_STATS] ||
	    nla_parse_nested(tb, SMC_NLA_FBACK_STATS_MAX, top[SMC_GEN_FBACK_STATS], NULL) ||
	    !tb[SMC_NLA_FBACK_STATS_RSN_CODE])
		return NL_SKIP;
	printf("%s 0x%08x %u\n",
	       tb[SMC_NLA_FBACK_STATS_TYPE] && nla_get_u8(tb[SMC_NLA_FBACK_STATS_TYPE]) ?
		       "server" : "client",
	       nla_get_u32(tb[SMC_NLA_FBACK_STATS_RSN_CODE]),
	       tb[SMC_NLA_FBACK_STATS_RSN_CNT] ? nla_get_u16(tb[SMC_NLA_FBACK_STATS_RSN_CNT]) : 0);
	return NL_OK;
}

static int smc_dump(int cmd, int (*fn)(struct nl_msg *, void *))
{
	struct nl_msg *msg;
	struct ctl c;
	int rc;

	if (ctl_open(&c, SMC_GEN_NAME))
		return die_err(&c, -ENOENT, SMC_GEN_NAME);
	msg = nlmsg_alloc();
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c.family, 0, NLM_F_DUMP, cmd, 1);
	c.on_msg = fn;
	rc = ctl_request(&c, msg);
	return rc ? die_err(&c, rc, "SMC dump") : 0;
}

static int print_sock(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct smc_diag_msg *m = nlmsg_data(h);

	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return NL_SKIP;
	printf("state=%u mode=%u sport=%u dport=%u inode=%llu shutdown=%u\n", m->diag_state,
	       m->diag_mode, ntohs(m->id.idiag_sport), ntohs(m->id.idiag_dport),
	       (unsigned long long)m->diag_inode, m->diag_shutdown);
	return NL_OK;
}

static int cmd_socks(void)
{
	struct smc_diag_req req = { .diag_family = 43 };
	struct nl_msg *msg;
	struct ctl c;
	int rc;

	memset(&c, 0, sizeof(c));
	c.sk = nl_socket_alloc();
	if (!c.sk || nl_connect(c.sk, NETLINK_SOCK_DIAG))
		return die_err(&c, -ENOMEM, "sock_diag");
	nl_socket_disable_seq_check(c.sk);
	nl_socket_modify_err_cb(c.sk, NL_CB_CUSTOM, err_cb, &c);
	nl_socket_modify_cb(c.sk, NL_CB_FINISH, NL_CB_CUSTOM, ack_cb, &c);
	nl_socket_modify_cb(c.sk, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &c);
	msg = nlmsg_alloc_simple(SOCK_DIAG_BY_FAMILY, NLM_F_DUMP);
	nlmsg_append(msg, &req, sizeof(req), NLMSG_ALIGNTO);
	c.on_msg = print_sock;
	rc = ctl_request(&c, msg);
	return rc ? die_err(&c, rc, "smc_diag") : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	struct nl_msg *msg;
	struct ctl c;

	if (!strcmp(cmd, "ueid-add"))
		return cmd_ueid_add(argc - 2, argv + 2);
	if (!strcmp(cmd, "pnet-add") || !strcmp(cmd, "pnet-del"))
		return cmd_pnet(!strcmp(cmd, "pnet-add"), argc - 2, argv + 2);
	if (!strcmp(cmd, "lgrs"))
		return smc_dump(SMC_CMD_GET_LGR_SMCD, print_lgr);
	if (!strcmp(cmd, "socks"))
		return cmd_socks();
	if (!strcmp(cmd, "fback"))
		return smc_dump(SMC_CMD_GET_FBACK_STATS, print_fback);
	if (!*cmd)
		return usage();

	if (ctl_open(&c, SMC_LO_GENL_NAME))
		return die_err(&c, -ENOENT, "family " SMC_LO_GENL_NAME " not found");
	if (!strcmp(cmd, "get"))
		return cmd_simple(&c, SMC_LO_CMD_GET, 0, NULL, argc > 2 ? argv[2] : NULL);
	if (!strcmp(cmd, "dump"))
		return cmd_simple(&c, SMC_LO_CMD_GET, NLM_F_DUMP, NULL, NULL);
	if (!strcmp(cmd, "activate"))
		return cmd_simple(&c, SMC_LO_CMD_ACTIVATE, 0, NULL, NULL);
	if (!strcmp(cmd, "deactivate")) {
		msg = ctl_msg(&c, SMC_LO_CMD_DEACTIVATE, 0);
		if (argc > 2)
			nla_put_u32(msg, SMC_LO_A_DRAIN_TIMEOUT_MS, strtoul(argv[2], NULL, 0));
		return cmd_simple(&c, 0, 0, msg, NULL);
	}
	if (!strcmp(cmd, "set"))
		return cmd_set(&c, argc - 2, argv + 2);
	if (!strcmp(cmd, "raw"))
		return cmd_raw(&c, argc - 2, argv + 2);
	if (!strcmp(cmd, "wait") && argc > 2 && state_from_name(argv[2]) >= 0)
		return cmd_wait_or_monitor(&c, state_from_name(argv[2]), 0,
					   argc > 3 ? atof(argv[3]) : 30);
	if (!strcmp(cmd, "monitor") && argc > 2)
		return cmd_wait_or_monitor(&c, -1, atoi(argv[2]), argc > 3 ? atof(argv[3]) : 30);
	return usage();
}
