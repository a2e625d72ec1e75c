// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SMC_LO generic netlink family of our loopback module (kmod/, smc-lo(4)): requests,
 * the "state" multicast group, and the deactivation protocol.  The contract is
 * netlink/uapi/smc_lo.h (shared with the module); this file checks every reply against it.
 *
 * Wire facts the module guarantees (kmod/smc_lo_genl.c) and this file relies on:
 *   - every command is a do-command whose reply is one GET-shaped message with the
 *     request's command number (NOTIFY for multicast), then the ACK we asked for;
 *   - DEV_NAME, STATE, PENDING, SETTINGS (all three settings) and COUNTERS are always
 *     present; GID (16 bytes), FABRIC_ID, GENERATION and ACTIVE_SETTINGS whenever a device
 *     is registered (state active or draining); DRAIN_TIMEOUT_MS and REMOVING while
 *     draining, DRAIN_REMAINING_MS until the removal starts; APPLY in SET replies, EVENT in
 *     notifications.  A reply without one of them is -EBADMSG, as is any value outside its
 *     documented range (state, DMB type, nocopy 0/1, max DMBs 1..32768, drain times).
 *   - Counters are u32 gauges and u64 totals; the library reads them by width, so a module
 *     that widens one still parses.  Unknown attributes are ignored (forward compatible).
 *
 * Family resolution goes through socket.c like SMC_GEN_NETLINK's, so resolving SMC_LO
 * autoloads smc_lo (MODULE_ALIAS_GENL_FAMILY) where it is installed.  Views that only
 * read (smcctl device list) check smclo_module_loaded() first: listing must not load a
 * module.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include <netlink/socket.h>

#include "common/clock.h"
#include "netlink/smcnl-internal.h"
#include "netlink/smclo.h"
#include "netlink/uapi/smc_lo.h"

/* Our enums mirror the uapi ones value for value (the uapi header stays inside the
 * library); the compiler checks that they do. */
_Static_assert((int)SMCLO_STATE_DRAINING == (int)SMC_LO_STATE_DRAINING, "state");
_Static_assert((int)SMCLO_DMB_VIRTUAL == (int)SMC_LO_DMB_VIRT, "dmb type");
_Static_assert((int)SMCLO_EVENT_SETTINGS == (int)SMC_LO_EVENT_SETTINGS, "event");
_Static_assert(SMCLO_GID_LEN == SMC_LO_GID_LEN, "gid");
_Static_assert(SMCLO_MAX_DMBS_MAX == SMC_LO_MAX_DMBS_MAX, "max dmbs");
_Static_assert(SMCLO_MAX_DMBS_MIN == SMC_LO_MAX_DMBS_MIN, "max dmbs");
_Static_assert(SMCLO_DRAIN_TIMEOUT_MAX_MS == SMC_LO_DRAIN_TIMEOUT_MAX_MS, "drain");
_Static_assert(SMCLO_DRAIN_TIMEOUT_DEFAULT_MS == SMC_LO_DRAIN_TIMEOUT_DEFAULT_MS, "drain");

#define NOTIFY_KEY "smclo-notify"

const char *smclo_state_name(uint8_t state)
{
	static const char *const names[] = { "inactive", "active", "draining" };

	return state < ELEMENTSOF(names) ? names[state] : NULL;
}

const char *smclo_dmb_type_name(uint8_t type)
{
	static const char *const names[] = { "physical", "virtual" };

	return type < ELEMENTSOF(names) ? names[type] : NULL;
}

int smclo_dmb_type_from_name(const char *s)
{
	for (uint8_t t = 0; smclo_dmb_type_name(t); t++)
		if (streq(s, smclo_dmb_type_name(t)))
			return t;
	return -EINVAL;
}

const char *smclo_event_name(uint8_t event)
{
	static const char *const names[] = { "activated", "draining", "removing", "deactivated",
					     "settings" };

	return event < ELEMENTSOF(names) ? names[event] : NULL;
}

bool smclo_module_loaded(struct smcnl *nl)
{
	char path[4096], state[16];

	bool loaded = smcnl_path(nl, path, sizeof(path), "/sys/module/smc_lo") == 0 &&
		      access(path, F_OK) == 0;

	/*
	 * Being unloaded: rmmod marks the module "going", then its exit function unregisters
	 * the family while /sys/module/smc_lo is still there.  Resolving the family then
	 * makes the kernel load the module again (request_module) once the old one is gone.
	 */
	if (loaded && smcnl_path(nl, path, sizeof(path), "/sys/module/smc_lo/initstate") == 0 &&
	    smcnl_read_file(path, state, sizeof(state)) >= 0 && streq(state, "going"))
		loaded = false;

	/* Loaded again later, its family has a new id. */
	if (!loaded && !smcnl_replaying(nl))
		smcnl_family_forget(nl, SMCNL_FAM_SMCLO);
	return loaded;
}

/* ---- parsing ------------------------------------------------------------------------------- */

/* A present u8/u32 attribute within [min, max]; absent is -EBADMSG when required. */
static int get_u8_range(const struct nlattr *a, bool required, uint8_t max, uint8_t *ret)
{
	if (!a)
		return required ? -EBADMSG : 0;
	if (attr_u8(a, ret) < 0 || *ret > max)
		return -EBADMSG;
	return 0;
}

static int get_u32_range(const struct nlattr *a, bool required, uint32_t min, uint32_t max,
			 uint32_t *ret)
{
	if (!a)
		return required ? -EBADMSG : 0;
	if (attr_u32(a, ret) < 0 || *ret < min || *ret > max)
		return -EBADMSG;
	return 0;
}

static int settings_parse(const struct nlattr *nest, struct smclo_settings *s)
{
	struct nlattr *tb[SMC_LO_S_MAX + 1];
	uint8_t nocopy = 0;
	int r;

	if (!nest)
		return -EBADMSG;
	r = smcnl_parse_nested(tb, SMC_LO_S_MAX, nest);
	r = r ?: get_u8_range(tb[SMC_LO_S_DMB_TYPE], true, SMC_LO_DMB_VIRT, &s->dmb_type);
	r = r ?: get_u8_range(tb[SMC_LO_S_NOCOPY], true, 1, &nocopy);
	r = r
		    ?: get_u32_range(tb[SMC_LO_S_MAX_DMBS], true, SMC_LO_MAX_DMBS_MIN,
				     SMC_LO_MAX_DMBS_MAX, &s->max_dmbs);
	s->nocopy = nocopy;
	return r;
}

static int counters_parse(const struct nlattr *nest, struct smclo_counters *c)
{
	struct nlattr *tb[SMC_LO_C_MAX + 1];
	int r;

	if (!nest)
		return -EBADMSG;
	r = smcnl_parse_nested(tb, SMC_LO_C_MAX, nest);
	/* The gauges say what holds the device: the module always sends them. */
#define COUNTER_PARSE(f, bits, attr, bus, kind, line, label)                               \
	if (r == 0 && SMCLO_COUNTER_##kind == SMCLO_COUNTER_GAUGE && !tb[SMC_LO_C_##attr]) \
		return -EBADMSG;                                                           \
	r = r ?: attr_u##bits(tb[SMC_LO_C_##attr], &c->f);
	SMCLO_COUNTERS(COUNTER_PARSE)
#undef COUNTER_PARSE
	return r;
}

static void gid_texts(struct smclo_device *d)
{
	static const char hex[] = "0123456789abcdef";
	size_t u = 0;

	for (size_t i = 0; i < SMCLO_GID_LEN; i++) {
		d->gid_hex[2 * i] = hex[d->gid[i] >> 4];
		d->gid_hex[2 * i + 1] = hex[d->gid[i] & 0xf];
		/* %pUb: 8-4-4-4-12 */
		if (i == 4 || i == 6 || i == 8 || i == 10)
			d->gid_uuid[u++] = '-';
		d->gid_uuid[u++] = hex[d->gid[i] >> 4];
		d->gid_uuid[u++] = hex[d->gid[i] & 0xf];
	}
	d->gid_hex[2 * SMCLO_GID_LEN] = '\0';
	d->gid_uuid[u] = '\0';
}

/* One message of the family: a reply to want_cmd, or a notification (want_cmd NOTIFY). */
static int device_parse(struct nlmsghdr *nlh, uint8_t want_cmd, struct smclo_device *d)
{
	struct nlattr *tb[SMC_LO_A_MAX + 1];
	uint8_t cmd, pending = 0, removing = 0, apply = 0;
	int r;

	memset(d, 0, sizeof(*d));
	r = smcnl_parse_genl(nlh, tb, SMC_LO_A_MAX, &cmd);
	if (r < 0)
		return r;
	if (cmd != want_cmd)
		return -EBADMSG;
	if (!tb[SMC_LO_A_DEV_NAME] || !tb[SMC_LO_A_STATE] || !tb[SMC_LO_A_PENDING])
		return -EBADMSG;
	r = r ?: attr_str(tb[SMC_LO_A_DEV_NAME], d->name, sizeof(d->name));
	r = r ?: get_u8_range(tb[SMC_LO_A_STATE], true, SMC_LO_STATE_DRAINING, &d->state);
	r = r ?: get_u8_range(tb[SMC_LO_A_PENDING], true, 1, &pending);
	r = r ?: settings_parse(tb[SMC_LO_A_SETTINGS], &d->settings);
	r = r ?: counters_parse(tb[SMC_LO_A_COUNTERS], &d->counters);
	if (r < 0)
		return r;
	if (!d->name[0])
		return -EBADMSG;
	d->pending = pending;
	d->registered = d->state != SMC_LO_STATE_INACTIVE;
	if (d->registered) {
		if (!tb[SMC_LO_A_GID] || nla_len(tb[SMC_LO_A_GID]) != SMC_LO_GID_LEN ||
		    !tb[SMC_LO_A_FABRIC_ID])
			return -EBADMSG;
		memcpy(d->gid, nla_data(tb[SMC_LO_A_GID]), SMC_LO_GID_LEN);
		gid_texts(d);
		r = r ?: attr_u16(tb[SMC_LO_A_FABRIC_ID], &d->fabric_id);
		r = r ?: get_u32_range(tb[SMC_LO_A_GENERATION], true, 1, UINT32_MAX, &d->generation);
		r = r ?: settings_parse(tb[SMC_LO_A_ACTIVE_SETTINGS], &d->active);
		if (r < 0)
			return r;
	}
	if (d->state == SMC_LO_STATE_DRAINING) {
		r = r
			    ?: get_u32_range(tb[SMC_LO_A_DRAIN_TIMEOUT_MS], true, 0,
					     SMC_LO_DRAIN_TIMEOUT_MAX_MS, &d->drain_timeout_ms);
		r = r ?: get_u8_range(tb[SMC_LO_A_REMOVING], true, 1, &removing);
		r = r
			    ?: get_u32_range(tb[SMC_LO_A_DRAIN_REMAINING_MS], false, 0,
					     SMC_LO_DRAIN_TIMEOUT_MAX_MS, &d->drain_remaining_ms);
		if (r < 0)
			return r;
		d->removing = removing;
		d->has_drain_remaining = tb[SMC_LO_A_DRAIN_REMAINING_MS] != NULL;
	}
	if (cmd == SMC_LO_CMD_SET) {
		r = get_u8_range(tb[SMC_LO_A_APPLY], true, SMC_LO_APPLY_NEXT_ACTIVATION, &apply);
		if (r < 0)
			return r;
		d->has_apply = true;
		d->apply_next_activation = apply == SMC_LO_APPLY_NEXT_ACTIVATION;
	}
	if (cmd == SMC_LO_CMD_NOTIFY) {
		r = get_u8_range(tb[SMC_LO_A_EVENT], true, SMC_LO_EVENT_SETTINGS, &d->event);
		if (r < 0)
			return r;
		d->has_event = true;
	}
	return 0;
}

/* ---- requests -------------------------------------------------------------------------------- */

struct reply_ctx {
	uint8_t cmd;
	struct smclo_device *dev;
	unsigned n;
};

static int reply_msg(struct nlmsghdr *nlh, void *userdata)
{
	struct reply_ctx *c = userdata;
	struct smclo_device d;
	int r;

	/* A do-command has exactly one reply message. */
	if (c->n++ > 0)
		return -EBADMSG;
	r = device_parse(nlh, c->cmd, &d);
	if (r == 0 && c->dev)
		*c->dev = d;
	return r;
}

/* Send msg (consumed) for cmd; the reply into ret (may be NULL). */
static int request(struct smcnl *nl, uint8_t cmd, struct nl_msg *msg, struct smclo_device *ret)
{
	struct reply_ctx c = { .cmd = cmd, .dev = ret };
	char key[96];
	int r;

	r = smcnl_request(nl, SMCNL_PROTO_GENL, msg,
			  smcnl_genl_key(SMCNL_FAM_SMCLO, cmd, key, sizeof(key)), reply_msg, &c);
	if (r == 0 && c.n == 0)
		r = -EBADMSG; /* the contract: every command replies */
	return r;
}

static int simple(struct smcnl *nl, uint8_t cmd, struct smclo_device *ret)
{
	struct nl_msg *msg;
	int r;

	r = smcnl_genl_msg_new(nl, SMCNL_FAM_SMCLO, cmd, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	return request(nl, cmd, msg, ret);
}

int smclo_get(struct smcnl *nl, struct smclo_device *ret)
{
	return simple(nl, SMC_LO_CMD_GET, ret);
}

int smclo_activate(struct smcnl *nl, struct smclo_device *ret)
{
	return simple(nl, SMC_LO_CMD_ACTIVATE, ret);
}

int smclo_deactivate(struct smcnl *nl, uint32_t timeout_ms, struct smclo_device *ret)
{
	struct nl_msg *msg;
	int r;

	if (timeout_ms != UINT32_MAX && timeout_ms > SMC_LO_DRAIN_TIMEOUT_MAX_MS)
		return -EINVAL;
	r = smcnl_genl_msg_new(nl, SMCNL_FAM_SMCLO, SMC_LO_CMD_DEACTIVATE, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	if (timeout_ms != UINT32_MAX && nla_put_u32(msg, SMC_LO_A_DRAIN_TIMEOUT_MS, timeout_ms) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return request(nl, SMC_LO_CMD_DEACTIVATE, msg, ret);
}

int smclo_set(struct smcnl *nl, const struct smclo_set_request *req, struct smclo_device *ret)
{
	struct nlattr *nest;
	struct nl_msg *msg;
	int r;

	/*
	 * The kernel's policy, checked here so that nothing invalid is sent.  Except
	 * "virtual": it is in the policy's range and refused by the module itself, whose
	 * extended ack says why; smcctl shows that answer.
	 */
	if (!req || (!req->set_dmb_type && !req->set_nocopy && !req->set_max_dmbs) ||
	    (req->set_dmb_type && req->dmb_type > SMC_LO_DMB_VIRT) ||
	    (req->set_max_dmbs &&
	     (req->max_dmbs < SMC_LO_MAX_DMBS_MIN || req->max_dmbs > SMC_LO_MAX_DMBS_MAX)))
		return -EINVAL;
	r = smcnl_genl_msg_new(nl, SMCNL_FAM_SMCLO, SMC_LO_CMD_SET, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	nest = nla_nest_start(msg, SMC_LO_A_SETTINGS);
	if (!nest || (req->set_dmb_type && nla_put_u8(msg, SMC_LO_S_DMB_TYPE, req->dmb_type) < 0) ||
	    (req->set_nocopy && nla_put_u8(msg, SMC_LO_S_NOCOPY, req->nocopy) < 0) ||
	    (req->set_max_dmbs && nla_put_u32(msg, SMC_LO_S_MAX_DMBS, req->max_dmbs) < 0)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return request(nl, SMC_LO_CMD_SET, msg, ret);
}

int smcnl_smclo_raw(struct smcnl *nl, uint8_t cmd, const uint16_t *types, const uint32_t *values,
		    size_t n, struct smclo_device *ret)
{
	struct reply_ctx c = { .cmd = cmd, .dev = ret };
	struct nl_msg *msg;
	char key[96];
	int r;

	r = smcnl_genl_msg_new(nl, SMCNL_FAM_SMCLO, cmd, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (nla_put_u32(msg, types[i], values[i]) < 0) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
	/* No "every command replies" check: an unknown command has no reply shape. */
	return smcnl_request(nl, SMCNL_PROTO_GENL, msg,
			     smcnl_genl_key(SMCNL_FAM_SMCLO, cmd, key, sizeof(key)), reply_msg, &c);
}

/* ---- notifications ----------------------------------------------------------------------------
 */

struct smclo_monitor {
	struct smcnl *nl;
	int family_id;	    /* the family's id when the monitor was opened */
	struct nl_sock *sk; /* live only */
	FILE *record;	    /* record mode: every message received, appended */
	uint8_t *replay;    /* replay mode: the recorded messages */
	size_t replay_len;
	size_t replay_pos;
};

static int monitor_replay_load(struct smclo_monitor *m)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s.bin", m->nl->replay_dir, NOTIFY_KEY);
	_cleanup_(fclosep) FILE *f = fopen(path, "re");
	if (!f)
		return 0; /* nothing was announced in the recording */
	if (fstat(fileno(f), &st) < 0)
		return negative_errno();
	if (st.st_size > 16 << 20)
		return -EFBIG;
	m->replay = malloc(st.st_size ? st.st_size : 1);
	if (!m->replay)
		return -ENOMEM;
	if (fread(m->replay, 1, st.st_size, f) != (size_t)st.st_size)
		return -EIO;
	m->replay_len = st.st_size;
	return 0;
}

int smclo_monitor_open(struct smcnl *nl, struct smclo_monitor **ret)
{
	_cleanup_(freep) struct smclo_monitor *m = calloc(1, sizeof(*m));
	int fam, grp, r;

	if (!m)
		return -ENOMEM;
	m->nl = nl;
	/* The family first (autoload, -EPROTONOSUPPORT), through the recorded path. */
	fam = smcnl_family_resolve(nl, SMCNL_FAM_SMCLO);
	if (fam < 0)
		return fam;
	m->family_id = fam;
	if (smcnl_replaying(nl)) {
		r = monitor_replay_load(m);
		if (r < 0) {
			free(m->replay);
			return r;
		}
		*ret = TAKE_PTR(m);
		return 0;
	}
	m->sk = nl_socket_alloc();
	if (!m->sk)
		return -ENOMEM;
	/* Multicast messages carry sequence number 0. */
	nl_socket_disable_seq_check(m->sk);
	r = nl_connect(m->sk, NETLINK_GENERIC);
	if (r < 0)
		goto fail_nle;
	grp = smcnl_genl_mcast_group(nl, SMC_LO_GENL_NAME, SMC_LO_MCGRP_STATE);
	if (grp < 0) {
		/* The family is there (resolved above), so its group is too: anything else is
		 * a family that is not ours. */
		r = grp == -ENOENT ? -EBADMSG : grp;
		goto fail;
	}
	r = nl_socket_add_membership(m->sk, grp);
	if (r < 0)
		goto fail_nle;
	/*
	 * nlctrl's announcements too: when smc_lo is unloaded or loaded again, its family and
	 * group get new ids and this monitor hears nothing more (smclo_monitor_read()'s
	 * -ESTALE).  Best effort: without them smclo_monitor_stale() still tells.
	 */
	grp = smcnl_genl_mcast_group(nl, "nlctrl", "notify");
	if (grp >= 0)
		(void)nl_socket_add_membership(m->sk, grp);
	r = nl_socket_set_nonblocking(m->sk);
	if (r < 0)
		goto fail_nle;
	if (nl->record_dir) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s.bin", nl->record_dir, NOTIFY_KEY);
		m->record = fopen(path, "ae");
		if (!m->record) {
			r = negative_errno();
			goto fail;
		}
	}
	*ret = TAKE_PTR(m);
	return 0;
fail_nle:
	r = smcnl_errno_from_nle(r);
fail:
	nl_socket_free(m->sk);
	return r;
}

void smclo_monitor_close(struct smclo_monitor *m)
{
	if (!m)
		return;
	if (m->sk)
		nl_socket_free(m->sk);
	if (m->record)
		fclose(m->record);
	free(m->replay);
	free(m);
}

int smclo_monitor_fd(const struct smclo_monitor *m)
{
	return m && m->sk ? nl_socket_get_fd(m->sk) : -1;
}

bool smclo_monitor_stale(const struct smclo_monitor *m)
{
	return m && m->nl->family_id[SMCNL_FAM_SMCLO] != m->family_id;
}

/* nlctrl announcing that our family went away or came (back): 1 if it is ours. */
static int ctrl_is_ours(struct nlmsghdr *nlh)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	char name[GENL_NAMSIZ];
	uint8_t cmd;

	if (smcnl_parse_genl(nlh, tb, CTRL_ATTR_MAX, &cmd) < 0)
		return 0;
	if (cmd != CTRL_CMD_DELFAMILY && cmd != CTRL_CMD_NEWFAMILY)
		return 0;
	if (!tb[CTRL_ATTR_FAMILY_NAME] || attr_str(tb[CTRL_ATTR_FAMILY_NAME], name, sizeof(name)) < 0)
		return 0;
	return streq(name, SMC_LO_GENL_NAME);
}

/* Parse one received message; 1 for a notification, 0 for anything else (skipped). */
static int monitor_parse(struct smclo_monitor *m, struct nlmsghdr *nlh, struct smclo_device *ret)
{
	int fam = m->family_id;

	if (!smcnl_replaying(m->nl) && nlh->nlmsg_type == GENL_ID_CTRL) {
		if (!ctrl_is_ours(nlh))
			return 0;
		smcnl_family_forget(m->nl, SMCNL_FAM_SMCLO);
		return -ESTALE;
	}
	/* Replayed messages carry the family id of the recording. */
	if (!smcnl_replaying(m->nl) && nlh->nlmsg_type != fam)
		return 0;
	if (nlh->nlmsg_type < GENL_MIN_ID)
		return 0;
	return device_parse(nlh, SMC_LO_CMD_NOTIFY, ret) < 0 ? -EBADMSG : 1;
}

int smclo_monitor_read(struct smclo_monitor *m, struct smclo_device *ret)
{
	uint8_t buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));

	if (!m)
		return -EINVAL;
	if (smcnl_replaying(m->nl)) {
		while (m->replay_pos < m->replay_len) {
			size_t rest = m->replay_len - m->replay_pos;
			struct nlmsghdr *nlh;
			int r;

			size_t n = rest < sizeof(buf) ? rest : sizeof(buf);

			if (rest < sizeof(*nlh))
				return -EBADMSG;
			/* One message at a time: the rest of the file may be longer than buf. */
			memcpy(buf, m->replay + m->replay_pos, n);
			nlh = (struct nlmsghdr *)buf;
			if (!nlmsg_ok(nlh, (int)n))
				return -EBADMSG;
			m->replay_pos += NLMSG_ALIGN(nlh->nlmsg_len) < rest
						 ? NLMSG_ALIGN(nlh->nlmsg_len)
						 : rest;
			r = monitor_parse(m, nlh, ret);
			if (r != 0)
				return r;
		}
		return 0;
	}
	for (;;) {
		ssize_t n = recv(nl_socket_get_fd(m->sk), buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *nlh;
		int len, r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return negative_errno(); /* ENOBUFS: notifications were lost */
		if (m->record && fwrite(buf, 1, (size_t)n, m->record) != (size_t)n)
			return -EIO;
		if (m->record)
			fflush(m->record);
		/* One notification per datagram; take the first that is ours. */
		len = (int)n;
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
			r = monitor_parse(m, nlh, ret);
			if (r != 0)
				return r;
		}
	}
}

/* ---- the deactivation protocol --------------------------------------------------------------- */

/*
 * Time for the wait loop.  Live: CLOCK_MONOTONIC and poll().  Replay: a virtual clock that
 * advances by each wait, so the unit tests run the same loop without sleeping.
 */
struct clock {
	bool replay;
	uint64_t virt_ms;
};

static uint64_t clock_ms(const struct clock *c)
{
	if (c->replay)
		return c->virt_ms;
	return now_msec(CLOCK_MONOTONIC);
}

static void clock_wait(struct clock *c, int fd, unsigned ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (c->replay) {
		c->virt_ms += ms;
		return;
	}
	if (fd >= 0)
		(void)poll(&p, 1, (int)ms);
	else
		(void)poll(NULL, 0, (int)ms);
}

/* Delete SMCLO_DRAIN_PNETID; 1 if deleted, 0 if there was none (or no PNET table at all). */
static int drain_pnetid_del(struct smcnl *nl)
{
	int r = smc_pnet_del(nl, SMCLO_DRAIN_PNETID);

	if (r == -ENOENT || r == -EPROTONOSUPPORT)
		return 0;
	return r < 0 ? r : 1;
}

int smclo_activate_clean(struct smcnl *nl, struct smclo_device *ret, bool *ret_changed)
{
	struct smclo_device d;
	int r;

	r = smclo_get(nl, &d);
	if (r < 0)
		return r;
	if (ret_changed)
		*ret_changed = d.state == SMC_LO_STATE_INACTIVE;
	if (d.state == SMC_LO_STATE_INACTIVE) {
		r = drain_pnetid_del(nl);
		if (r < 0)
			return r;
	}
	return smclo_activate(nl, ret);
}

/*
 * The device of generation gen is gone: inactive, or a later registration (someone
 * activated it again and the "deactivated" notification in between was lost).
 */
static bool gone(const struct smclo_device *d, uint32_t gen)
{
	return d->state == SMC_LO_STATE_INACTIVE || (d->registered && d->generation != gen);
}

int smclo_shutdown(struct smcnl *nl, uint32_t drain_ms, uint32_t removal_ms,
		   struct smclo_shutdown_result *res)
{
	struct smc_pnet_entry e = { .ib_port = 1 };
	struct smclo_monitor *mon = NULL;
	struct clock clk = { .replay = smcnl_replaying(nl) };
	uint64_t start, deadline, next_get;
	uint32_t gen;
	int r;

	memset(res, 0, sizeof(*res));
	if (drain_ms == 0 || drain_ms > SMC_LO_DRAIN_TIMEOUT_MAX_MS)
		return -EINVAL;
	r = smclo_get(nl, &res->last);
	if (r < 0)
		return r;
	if (res->last.state == SMC_LO_STATE_INACTIVE) {
		/* Nothing to drain; a PNET ID left by an interrupted shutdown goes. */
		r = drain_pnetid_del(nl);
		res->removed = true;
		res->pnet_removed = r > 0;
		return r < 0 ? r : 0;
	}
	res->was_active = true;
	gen = res->last.generation;

	/*
	 * 1. No client may select the device any more: a PNET ID makes it ineligible for
	 * SMC-Dv2 proposals (x86, arm64).  -EEXIST: it has a PNET ID already (a user's, or
	 * ours from an earlier attempt), which does the same.  -EPROTONOSUPPORT: no SMC, no
	 * proposals either.
	 */
	snprintf(e.pnetid, sizeof(e.pnetid), "%s", SMCLO_DRAIN_PNETID);
	snprintf(e.ib_name, sizeof(e.ib_name), "%s", res->last.name);
	r = smc_pnet_add(nl, &e);
	if (r == 0)
		res->pnet_added = true;
	else if (r != -EEXIST && r != -EPROTONOSUPPORT)
		return r;

	/* 2. Listen before asking, so the "deactivated" announcement cannot be missed.  Without
	 * the group (cannot happen with our module) the GETs below still see the end. */
	if (smclo_monitor_open(nl, &mon) < 0)
		mon = NULL;

	/* 3. Drain with a bound of seconds (never 0: smc-lo(4) BUGS). */
	r = smclo_deactivate(nl, drain_ms, &res->last);
	if (r < 0) {
		/* Still active: it must not keep a PNET ID that takes it out of SMC-Dv2. */
		if (res->pnet_added)
			(void)smc_pnet_del(nl, SMCLO_DRAIN_PNETID);
		res->pnet_added = false;
		smclo_monitor_close(mon);
		return r;
	}

	/* 4. Wait for the device to be gone. */
	start = clock_ms(&clk);
	deadline = start + drain_ms + removal_ms;
	next_get = start + 1000;
	while (!gone(&res->last, gen)) {
		struct smclo_device n;
		uint64_t now = clock_ms(&clk);
		bool got = false;

		while (mon && (r = smclo_monitor_read(mon, &n)) > 0) {
			res->last = n;
			got = true;
			if (n.event == SMC_LO_EVENT_DEACTIVATED || gone(&n, gen))
				break;
		}
		if (gone(&res->last, gen))
			break;
		/* A GET every second: notifications can be lost (allocation failure, overrun). */
		if (!got && now >= next_get) {
			r = smclo_get(nl, &res->last);
			if (r < 0)
				goto out;
			next_get = now + 1000;
			if (gone(&res->last, gen))
				break;
		}
		if (now >= deadline) {
			r = -ETIMEDOUT;
			goto out;
		}
		clock_wait(&clk, smclo_monitor_fd(mon),
			   (unsigned)(deadline - now < 200 ? deadline - now : 200));
	}
	res->waited_ms = (unsigned)(clock_ms(&clk) - start);
	res->removed = true;

	/* 5. The device is gone: the PNET ID would only be given to the next one. */
	r = drain_pnetid_del(nl);
	res->pnet_removed = r > 0;
	r = r < 0 ? r : 0;
out:
	if (r == -ETIMEDOUT)
		res->waited_ms = (unsigned)(clock_ms(&clk) - start);
	smclo_monitor_close(mon);
	return r;
}
