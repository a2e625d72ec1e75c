// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsmcnl's SMC_LO client (netlink/smcnl-smclo.c) against the real module's answers recorded in
 * the 7x lane (tests/fixtures/7x-smclo, tests/fixtures/record --lane 7x-smclo): every
 * command, the kernel's refusals with their extended acks, the "state" notifications and
 * the deactivation protocol, replayed through the public API.  The assertions hold for any
 * re-recording: they check the scenario's facts (states, generations, which device carries
 * the link groups), not GIDs or counter values that vary.
 *
 * Then the contract checks: replies that lack an "always present" attribute or carry a
 * value outside its documented range are -EBADMSG, built by editing a recorded reply.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <linux/genetlink.h>

#include "netlink/smcnl-internal.h"
#include "netlink/smclo.h"
#include "netlink/uapi/smc_lo.h"
#include "tests/unit/netlink-test-util.h"

static struct smcnl *open_step(const char *step)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "7x-smclo/%s", step);
	return replay_open(rel);
}

static void test_get_inactive(void **state)
{
	struct smcnl *nl = open_step("smclo-get-inactive");
	struct smclo_device d;

	assert_int_equal(smclo_get(nl, &d), 0);
	assert_string_equal(d.name, "smclo");
	assert_int_equal(d.state, SMCLO_STATE_INACTIVE);
	assert_false(d.registered);
	assert_false(d.pending);
	assert_int_equal(d.settings.dmb_type, SMCLO_DMB_PHYSICAL);
	assert_true(d.settings.nocopy);
	assert_int_equal(d.settings.max_dmbs, 5000);
	assert_int_equal(d.counters.activations, 0);
	assert_false(d.has_apply || d.has_event);
	smcnl_close(nl);
}

static void test_module_loaded(void **state)
{
	struct smcnl *nl = open_step("smclo-idle");
	struct smcnl *old = replay_open("7x/idle");

	assert_true(smclo_module_loaded(nl));
	assert_false(smclo_module_loaded(old));
	smcnl_close(nl);
	smcnl_close(old);
}

/* A module being removed (initstate "going") is not loaded: resolving its family would make
 * the kernel load it again. */
static void test_module_going(void **state)
{
	static const char *const dirs[] = { "sysroot", "sysroot/sys", "sysroot/sys/module",
					    "sysroot/sys/module/smc_lo" };
	char *dir = tmpdir_new();
	char sub[PATH_MAX];
	struct smcnl *nl;

	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, dirs[i]);
		assert_int_equal(mkdir(sub, 0755), 0);
	}
	nl = replay_open_abs(dir);
	assert_true(smclo_module_loaded(nl)); /* no initstate: taken as loaded */
	write_text(dir, "sysroot/sys/module/smc_lo/initstate", "live\n");
	assert_true(smclo_module_loaded(nl));
	write_text(dir, "sysroot/sys/module/smc_lo/initstate", "going\n");
	assert_false(smclo_module_loaded(nl));
	smcnl_close(nl);
	tmpdir_remove(dir);
}

static void test_refusals(void **state)
{
	struct smclo_set_request virt = { .set_dmb_type = true, .dmb_type = SMCLO_DMB_VIRTUAL };
	struct smclo_set_request zero = { .set_max_dmbs = true, .max_dmbs = 0 };
	struct smclo_device d;
	struct smcnl *nl;
	char buf[512];
	uint16_t t[1];
	uint32_t v[1];

	/* Virtual DMBs: sent, refused by the module, which says why. */
	nl = open_step("smclo-set-virtual");
	assert_int_equal(smclo_set(nl, &virt, &d), -EOPNOTSUPP);
	assert_non_null(strstr(smcnl_extack(nl), "virt_to_page"));
	smc_strerror(SMC_OP_LOOPBACK_SET, -EOPNOTSUPP, smcnl_extack(nl), buf, sizeof(buf));
	assert_non_null(strstr(buf, "refuses virtually contiguous DMBs"));
	assert_non_null(strstr(buf, "(kernel: virtual DMBs are unsafe"));
	smcnl_close(nl);

	/* max-dmbs 0: refused here (nothing sent), and by the kernel's policy when sent. */
	nl = open_step("smclo-set-max-dmbs-0");
	assert_int_equal(smclo_set(nl, &zero, &d), -EINVAL);
	zero.max_dmbs = 32769;
	assert_int_equal(smclo_set(nl, &zero, &d), -EINVAL);
	assert_int_equal(smclo_set(nl, &(struct smclo_set_request){ 0 }, &d), -EINVAL);
	assert_int_equal(smclo_deactivate(nl, 600001, &d), -EINVAL);
	t[0] = SMC_LO_S_MAX_DMBS;
	v[0] = 0;
	assert_int_equal(smcnl_smclo_raw(nl, SMC_LO_CMD_SET, t, v, 1, NULL), -ERANGE);
	assert_string_equal(smcnl_extack(nl), "integer out of range");
	smcnl_close(nl);

	/* Strict validation: GET takes no attribute. */
	nl = open_step("smclo-raw-get-attr");
	t[0] = SMC_LO_A_PAD + 1;
	v[0] = 1;
	assert_int_equal(smcnl_smclo_raw(nl, SMC_LO_CMD_GET, t, v, 1, NULL), -EINVAL);
	assert_non_null(smcnl_extack(nl));
	smcnl_close(nl);

	nl = open_step("smclo-raw-unknown");
	assert_int_equal(smcnl_smclo_raw(nl, 9, NULL, NULL, 0, NULL), -EOPNOTSUPP);
	smcnl_close(nl);

	nl = open_step("smclo-raw-drain-range");
	t[0] = SMC_LO_A_DRAIN_TIMEOUT_MS;
	v[0] = 600001;
	assert_int_equal(smcnl_smclo_raw(nl, SMC_LO_CMD_DEACTIVATE, t, v, 1, NULL), -ERANGE);
	smcnl_close(nl);
}

static void test_settings(void **state)
{
	struct smclo_set_request off = { .set_nocopy = true, .nocopy = false };
	struct smclo_set_request max = { .set_max_dmbs = true, .max_dmbs = 64 };
	struct smclo_device d;
	struct smcnl *nl;

	nl = open_step("smclo-set-nocopy");
	assert_int_equal(smclo_set(nl, &off, &d), 0);
	assert_true(d.has_apply);
	assert_false(d.apply_next_activation); /* inactive: nothing pending */
	assert_false(d.settings.nocopy);
	assert_false(d.pending);
	smcnl_close(nl);

	nl = open_step("smclo-set-pending");
	assert_int_equal(smclo_set(nl, &max, &d), 0);
	assert_true(d.has_apply && d.apply_next_activation);
	assert_true(d.pending);
	assert_int_equal(d.settings.max_dmbs, 64);
	assert_int_equal(d.active.max_dmbs, 5000);
	assert_int_equal(d.state, SMCLO_STATE_ACTIVE);
	smcnl_close(nl);
}

static void test_activate(void **state)
{
	struct smclo_device d, again, second;
	struct smcnl *nl;

	nl = open_step("smclo-activate");
	assert_int_equal(smclo_activate_clean(nl, &d, NULL), 0);
	assert_int_equal(d.state, SMCLO_STATE_ACTIVE);
	assert_true(d.registered);
	assert_int_equal(d.generation, 1);
	assert_int_equal(d.fabric_id, 0xffff);
	assert_int_equal(d.counters.activations, 1);
	assert_int_equal(strlen(d.gid_hex), 32);
	assert_int_equal(strlen(d.gid_uuid), 36);
	assert_int_equal(d.gid_uuid[8], '-');
	assert_memory_equal(d.gid_hex, d.gid_uuid, 8);
	smcnl_close(nl);

	nl = open_step("smclo-activate-again");
	assert_int_equal(smclo_activate_clean(nl, &again, NULL), 0);
	assert_int_equal(again.generation, 1);
	assert_string_equal(again.gid_hex, d.gid_hex);
	smcnl_close(nl);

	nl = open_step("smclo-activate-2");
	assert_int_equal(smclo_activate_clean(nl, &second, NULL), 0);
	assert_int_equal(second.generation, 2);
	assert_int_equal(second.active.max_dmbs, 64);
	assert_false(second.pending);
	assert_string_not_equal(second.gid_hex, d.gid_hex);
	smcnl_close(nl);

	nl = open_step("smclo-activate-busy");
	assert_int_equal(smclo_activate_clean(nl, &d, NULL), -EBUSY);
	assert_non_null(strstr(smcnl_extack(nl), "still being removed"));
	smcnl_close(nl);
}

/* The device's GID is the link groups' GID and /sys/class/dibs/smclo/gid. */
static void test_traffic(void **state)
{
	struct smcnl *nl = open_step("smclo-traffic");
	struct smcd_linkgroup *lg;
	struct smcd_device *dev;
	struct smclo_device d;
	char path[PATH_MAX];
	char *sysfs;
	size_t n, len, on_smclo = 0;

	assert_int_equal(smcd_device_list(nl, &dev, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(dev[1].name, "smclo");
	assert_true(dev[1].loopback);
	assert_true(dev[1].linkgroups >= 1);
	assert_int_equal(dev[0].linkgroups, 0);
	assert_string_equal(dev[0].port.pnetid, SMCLO_LO_PNETID);
	assert_int_equal(smcd_linkgroup_list(nl, &lg, &n), 0);
	assert_true(n >= 1);
	assert_int_equal(smclo_get(nl, &d), 0);
	for (size_t i = 0; i < n; i++) {
		char gid[33];

		smcd_gid_format(lg[i].gid, lg[i].ext_gid, gid);
		on_smclo += streq(gid, d.gid_hex);
		assert_string_equal(lg[i].device, "smclo");
	}
	assert_int_equal(on_smclo, n);
	assert_int_equal(d.counters.link_groups, n);
	assert_true(d.counters.dmbs >= 4 && d.counters.registrations >= 4);
	assert_true(d.counters.attached >= 4 && d.counters.moves > 0);
	snprintf(path, sizeof(path), "%s/sysroot/sys/class/dibs/smclo/gid",
		 fixture_path("7x-smclo/smclo-traffic"));
	sysfs = (char *)read_whole(path, &len);
	assert_true(len >= 36);
	assert_memory_equal(sysfs, d.gid_uuid, 36);
	free(sysfs);
	free(lg);
	free(dev);
	smcnl_close(nl);
}

/*
 * Both loopback devices carry link groups: 7.3's GET_LGR_SMCD dump lists "lo"'s and, with
 * its per-device cursor not reset, may drop smclo's; the module still counts them.
 */
static void test_both(void **state)
{
	struct smcnl *nl = open_step("smclo-both");
	struct smcd_linkgroup *lg;
	struct smclo_device d;
	size_t n, on_lo = 0;

	assert_int_equal(smcd_linkgroup_list(nl, &lg, &n), 0);
	for (size_t i = 0; i < n; i++)
		on_lo += streq(lg[i].device, "lo");
	assert_true(on_lo >= 1);
	assert_int_equal(smclo_get(nl, &d), 0);
	assert_true(d.counters.link_groups >= 1);
	free(lg);
	smcnl_close(nl);
}

static void test_notifications(void **state)
{
	static const uint8_t want[] = { SMCLO_EVENT_DRAINING, SMCLO_EVENT_REMOVING,
					SMCLO_EVENT_DEACTIVATED };
	struct smcnl *nl = open_step("smclo-shutdown");
	struct smclo_monitor *m;
	struct smclo_device d;

	assert_int_equal(smclo_monitor_open(nl, &m), 0);
	assert_int_equal(smclo_monitor_fd(m), -1);
	for (size_t i = 0; i < ELEMENTSOF(want); i++) {
		assert_int_equal(smclo_monitor_read(m, &d), 1);
		assert_true(d.has_event);
		assert_int_equal(d.event, want[i]);
		assert_string_equal(smclo_event_name(d.event), i == 0	? "draining"
							       : i == 1 ? "removing"
									: "deactivated");
	}
	assert_int_equal(d.state, SMCLO_STATE_INACTIVE);
	assert_int_equal(smclo_monitor_read(m, &d), 0);
	smclo_monitor_close(m);
	smcnl_close(nl);
}

static void test_shutdown(void **state)
{
	struct smclo_shutdown_result res;
	struct smcnl *nl;

	/* After the connections closed: drain, removal, PNET ID added and deleted again. */
	nl = open_step("smclo-shutdown");
	assert_int_equal(smclo_shutdown(nl, 5000, 10000, &res), 0);
	assert_true(res.was_active && res.pnet_added && res.removed && res.pnet_removed);
	assert_int_equal(res.last.state, SMCLO_STATE_INACTIVE);
	assert_int_equal(res.last.counters.dmbs, 0);
	smcnl_close(nl);

	nl = open_step("smclo-shutdown-inactive");
	assert_int_equal(smclo_shutdown(nl, 5000, 10000, &res), 0);
	assert_false(res.was_active || res.pnet_added || res.pnet_removed);
	assert_true(res.removed);
	smcnl_close(nl);

	/* An application keeps its aborted sockets: the removal cannot end, the PNET ID
	 * stays, the holders are reported. */
	nl = open_step("smclo-shutdown-timeout");
	assert_int_equal(smclo_shutdown(nl, 1000, 2000, &res), -ETIMEDOUT);
	assert_true(res.was_active && res.pnet_added);
	assert_false(res.removed || res.pnet_removed);
	assert_int_equal(res.last.state, SMCLO_STATE_DRAINING);
	assert_true(res.last.removing);
	assert_false(res.last.has_drain_remaining);
	assert_true(res.last.counters.dmbs > 0);
	assert_true(res.waited_ms >= 3000);
	smcnl_close(nl);

	/* Later: the device is gone, the PNET ID of the first attempt is deleted. */
	nl = open_step("smclo-shutdown-done");
	assert_int_equal(smclo_shutdown(nl, 1000, 20000, &res), 0);
	assert_true(res.removed && res.pnet_removed);
	smcnl_close(nl);

	nl = open_step("smclo-shutdown");
	assert_int_equal(smclo_shutdown(nl, 0, 10000, &res), -EINVAL);
	assert_int_equal(smclo_shutdown(nl, 600001, 10000, &res), -EINVAL);
	smcnl_close(nl);
}

static void test_names(void **state)
{
	assert_string_equal(smclo_state_name(SMCLO_STATE_DRAINING), "draining");
	assert_null(smclo_state_name(3));
	assert_string_equal(smclo_dmb_type_name(SMCLO_DMB_VIRTUAL), "virtual");
	assert_null(smclo_dmb_type_name(2));
	/* The names round-trip: the one reader of smcctl's, smc.yaml's and Set's words. */
	for (uint8_t t = 0; smclo_dmb_type_name(t); t++)
		assert_int_equal(smclo_dmb_type_from_name(smclo_dmb_type_name(t)), t);
	assert_int_equal(smclo_dmb_type_from_name("Physical"), -EINVAL);
	assert_int_equal(smclo_dmb_type_from_name(""), -EINVAL);
	assert_string_equal(smclo_event_name(SMCLO_EVENT_SETTINGS), "settings");
	assert_null(smclo_event_name(5));
}

/* The family is missing (module not loaded, or not installed): -EPROTONOSUPPORT, and the
 * message says what to do. */
static void test_missing(void **state)
{
	char *dir = tmpdir_new();
	struct smcnl *nl;
	struct smclo_device d;
	struct smclo_monitor *m;
	char buf[512];
	size_t n;
	uint8_t *b = read_whole(fixture_path("nosmc/genl-ctrl-SMC_GEN_NETLINK.bin"), &n);

	write_file(dir, "genl-ctrl-SMC_LO.bin", b, n);
	free(b);
	nl = replay_open_abs(dir);
	assert_false(smclo_module_loaded(nl));
	assert_int_equal(smclo_get(nl, &d), -EPROTONOSUPPORT);
	assert_int_equal(smclo_activate(nl, &d), -EPROTONOSUPPORT);
	assert_int_equal(smclo_monitor_open(nl, &m), -EPROTONOSUPPORT);
	smc_strerror(SMC_OP_LOOPBACK_ACTIVATE, -EPROTONOSUPPORT, NULL, buf, sizeof(buf));
	assert_non_null(strstr(buf, "the smc_lo module is not loaded: install smc-lo-dkms or "
				    "modprobe smc_lo"));
	smcnl_close(nl);
	tmpdir_remove(dir);
}

/* ---- the contract: a recorded GET reply, edited ---------------------------------------------- */

/* A GET reply built from scratch with libnl: the attributes of tb (NULL: left out). */
struct edit {
	const char *what;
	int drop;	  /* top-level attribute type to leave out, 0 none */
	int state;	  /* -1: the recorded value */
	int gid_len;	  /* 16 normally */
	int drop_setting; /* a settings attribute to leave out */
	uint8_t nocopy;
	uint32_t max_dmbs;
	int drop_counter;
	uint8_t cmd;	     /* 0: GET */
	uint32_t generation; /* 0: 1 */
};

/*
 * The module's u32 counters (netlink/uapi/smc_lo.h; kmod/smc_lo_genl.c sends the others,
 * totals from SMC_LO_C_REGISTRATIONS on, as u64): written down here, apart from the bits
 * of SMCLO_COUNTERS, so that test_counters_every_row() compares the two.
 */
static bool counter_is_u32(int c)
{
	return c == SMC_LO_C_DMBS || c == SMC_LO_C_ATTACHED || c == SMC_LO_C_LINK_GROUPS;
}

static size_t build_reply(const struct edit *e, uint8_t *out, size_t cap)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *nest;
	uint8_t gid[32] = { 1, 2, 3 };
	uint8_t state = e->state >= 0 ? (uint8_t)e->state : SMC_LO_STATE_ACTIVE;
	struct nlmsghdr *nlh;
	struct nlmsgerr ack = {};
	size_t len;

	assert_non_null(msg);
	assert_non_null(smcnl_genlmsg_put(msg, 1, 1, GENL_MIN_ID + 0x100, 0,
					  e->cmd ? e->cmd : SMC_LO_CMD_GET, 1));
#define PUT(type, expr)                            \
	do {                                       \
		if (e->drop != (type))             \
			assert_int_equal(expr, 0); \
	} while (0)
	PUT(SMC_LO_A_DEV_NAME, nla_put_string(msg, SMC_LO_A_DEV_NAME, "smclo"));
	PUT(SMC_LO_A_STATE, nla_put_u8(msg, SMC_LO_A_STATE, state));
	PUT(SMC_LO_A_PENDING, nla_put_u8(msg, SMC_LO_A_PENDING, 0));
	PUT(SMC_LO_A_GID, nla_put(msg, SMC_LO_A_GID, e->gid_len, gid));
	PUT(SMC_LO_A_FABRIC_ID, nla_put_u16(msg, SMC_LO_A_FABRIC_ID, 0xffff));
	PUT(SMC_LO_A_GENERATION,
	    nla_put_u32(msg, SMC_LO_A_GENERATION, e->generation ? e->generation : 1));
	for (int which = SMC_LO_A_SETTINGS; which <= SMC_LO_A_ACTIVE_SETTINGS; which++) {
		if (e->drop == which)
			continue;
		nest = nla_nest_start(msg, which);
		if (e->drop_setting != SMC_LO_S_DMB_TYPE)
			nla_put_u8(msg, SMC_LO_S_DMB_TYPE, 0);
		if (e->drop_setting != SMC_LO_S_NOCOPY)
			nla_put_u8(msg, SMC_LO_S_NOCOPY, e->nocopy);
		if (e->drop_setting != SMC_LO_S_MAX_DMBS)
			nla_put_u32(msg, SMC_LO_S_MAX_DMBS, e->max_dmbs);
		nla_nest_end(msg, nest);
	}
	if (e->drop != SMC_LO_A_COUNTERS) {
		nest = nla_nest_start(msg, SMC_LO_A_COUNTERS);
		for (int c = SMC_LO_C_DMBS; c <= SMC_LO_C_MAX; c++) {
			if (c == e->drop_counter)
				continue;
			if (counter_is_u32(c))
				nla_put_u32(msg, c, 1);
			else
				nla_put_u64(msg, c, 7);
		}
		nla_nest_end(msg, nest);
	}
	if (state == SMC_LO_STATE_DRAINING) {
		PUT(SMC_LO_A_DRAIN_TIMEOUT_MS, nla_put_u32(msg, SMC_LO_A_DRAIN_TIMEOUT_MS, 1000));
		PUT(SMC_LO_A_REMOVING, nla_put_u8(msg, SMC_LO_A_REMOVING, 0));
	}
#undef PUT
	nlh = nlmsg_hdr(msg);
	len = nlh->nlmsg_len;
	assert_true(len + NLMSG_HDRLEN + sizeof(ack) <= cap);
	memcpy(out, nlh, len);
	nlmsg_free(msg);
	/* the ACK */
	nlh = (struct nlmsghdr *)(out + NLMSG_ALIGN(len));
	nlh->nlmsg_len = NLMSG_HDRLEN + sizeof(ack);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	nlh->nlmsg_seq = 1;
	memcpy(NLMSG_DATA(nlh), &ack, sizeof(ack));
	return NLMSG_ALIGN(len) + nlh->nlmsg_len;
}

static int replay_get(const struct edit *e, struct smclo_device *d)
{
	static uint8_t buf[8192];
	char *dir = tmpdir_new();
	size_t n = build_reply(e, buf, sizeof(buf));
	struct smcnl *nl;
	int r;

	write_file(dir, "smclo-get.bin", buf, n);
	nl = replay_open_abs(dir);
	r = smclo_get(nl, d);
	smcnl_close(nl);
	tmpdir_remove(dir);
	return r;
}

static void test_contract(void **state)
{
	const struct edit good = { .state = -1, .gid_len = 16, .nocopy = 1, .max_dmbs = 100 };
	const struct {
		const char *what;
		struct edit e;
	} bad[] = {
		{ "no name", { .drop = SMC_LO_A_DEV_NAME } },
		{ "no state", { .drop = SMC_LO_A_STATE } },
		{ "no pending", { .drop = SMC_LO_A_PENDING } },
		{ "no settings", { .drop = SMC_LO_A_SETTINGS } },
		{ "no counters", { .drop = SMC_LO_A_COUNTERS } },
		{ "active without GID", { .drop = SMC_LO_A_GID } },
		{ "active without generation", { .drop = SMC_LO_A_GENERATION } },
		{ "active without active settings", { .drop = SMC_LO_A_ACTIVE_SETTINGS } },
		{ "state 3", { .state = 3 } },
		{ "GID of 15 bytes", { .gid_len = 15 } },
		{ "GID of 17 bytes", { .gid_len = 17 } },
		{ "nocopy 2", { .nocopy = 2 } },
		{ "max DMBs 0", { .max_dmbs = 0 } },
		{ "max DMBs 32769", { .max_dmbs = 32769 } },
		{ "no nocopy", { .drop_setting = SMC_LO_S_NOCOPY } },
		{ "no DMB gauge", { .drop_counter = SMC_LO_C_DMBS } },
		{ "draining without removing",
		  { .state = SMC_LO_STATE_DRAINING, .drop = SMC_LO_A_REMOVING } },
	};
	struct smclo_device d;

	assert_int_equal(replay_get(&good, &d), 0);
	assert_int_equal(d.state, SMCLO_STATE_ACTIVE);
	assert_int_equal(d.counters.dmbs, 1);
	assert_int_equal(d.counters.drain_rejects, 7);
	assert_string_equal(d.gid_hex, "01020300000000000000000000000000");
	assert_string_equal(d.gid_uuid, "01020300-0000-0000-0000-000000000000");
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct edit e = good;

		e.drop = bad[i].e.drop;
		e.drop_setting = bad[i].e.drop_setting;
		e.drop_counter = bad[i].e.drop_counter;
		if (bad[i].e.state)
			e.state = bad[i].e.state;
		if (bad[i].e.gid_len)
			e.gid_len = bad[i].e.gid_len;
		if (bad[i].e.nocopy)
			e.nocopy = bad[i].e.nocopy;
		if (bad[i].e.max_dmbs || streq(bad[i].what, "max DMBs 0"))
			e.max_dmbs = bad[i].e.max_dmbs;
		if (replay_get(&e, &d) != -EBADMSG)
			fail_msg("%s: not -EBADMSG", bad[i].what);
	}
	/* A missing total (an older module) reads as 0. */
	{
		struct edit e = good;

		e.drop_counter = SMC_LO_C_DRAIN_REJECTS;
		assert_int_equal(replay_get(&e, &d), 0);
		assert_int_equal(d.counters.drain_rejects, 0);
	}
}

/* The rows of SMCLO_COUNTERS, to check every counter the same way. */
static const struct counter_row {
	const char *field;
	int attr;
	int bits;
	bool gauge;
	size_t off;
} counter_rows[] = {
#define COUNTER_ROW(f, bits, attr, bus, kind, line, label)                        \
	{ #f, SMC_LO_C_##attr, bits, SMCLO_COUNTER_##kind == SMCLO_COUNTER_GAUGE, \
	  offsetof(struct smclo_counters, f) },
	SMCLO_COUNTERS(COUNTER_ROW)
#undef COUNTER_ROW
};

static uint64_t counter_value(const struct smclo_device *d, const struct counter_row *row)
{
	const char *p = (const char *)&d->counters + row->off;

	if (row->bits == 32)
		return *(const uint32_t *)(const void *)p;
	return *(const uint64_t *)(const void *)p;
}

/*
 * Every counter, from its row alone: each attribute of the module has one row, of the
 * module's width; the parser reads each into its own field (1 for a u32, 7 for a u64 in the
 * built reply); a reply without a gauge is -EBADMSG, one without a total (an older module)
 * reads as 0 and leaves the others alone.  A new row is checked here without an edit.
 */
static void test_counters_every_row(void **state)
{
	const struct edit good = { .state = -1, .gid_len = 16, .nocopy = 1, .max_dmbs = 100 };
	struct smclo_device d;

	assert_int_equal(ELEMENTSOF(counter_rows), SMC_LO_C_MAX - SMC_LO_C_DMBS + 1);
	assert_int_equal(replay_get(&good, &d), 0);
	for (size_t i = 0; i < ELEMENTSOF(counter_rows); i++) {
		const struct counter_row *row = &counter_rows[i];
		struct edit e = good;
		int r;

		for (size_t j = 0; j < i; j++)
			if (counter_rows[j].attr == row->attr)
				fail_msg("%s: attribute %d has two rows", row->field, row->attr);
		if ((row->bits == 32) != counter_is_u32(row->attr))
			fail_msg("%s: %d bits in SMCLO_COUNTERS, not the module's width",
				 row->field, row->bits);
		if (counter_value(&d, row) != (row->bits == 32 ? 1u : 7u))
			fail_msg("%s: parsed as %" PRIu64, row->field, counter_value(&d, row));

		e.drop_counter = row->attr;
		r = replay_get(&e, &d);
		if (row->gauge && r != -EBADMSG)
			fail_msg("%s: a reply without this gauge gave %d, not -EBADMSG", row->field,
				 r);
		if (!row->gauge) {
			if (r != 0 || counter_value(&d, row) != 0)
				fail_msg("%s: a reply without this total gave %d and %" PRIu64,
					 row->field, r, counter_value(&d, row));
			for (size_t j = 0; j < ELEMENTSOF(counter_rows); j++)
				if (j != i && counter_value(&d, &counter_rows[j]) !=
						      (counter_rows[j].bits == 32 ? 1u : 7u))
					fail_msg("%s: without it, %s reads %" PRIu64, row->field,
						 counter_rows[j].field,
						 counter_value(&d, &counter_rows[j]));
		}
		assert_int_equal(replay_get(&good, &d), 0);
	}
}

/* An NLMSG_ERROR answer with errno -e (0: an ACK). */
static size_t build_error(int e, uint8_t *out, size_t cap)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)out;
	struct nlmsgerr err = { .error = e };

	assert_true(NLMSG_HDRLEN + sizeof(err) <= cap);
	memset(out, 0, NLMSG_HDRLEN + sizeof(err));
	nlh->nlmsg_len = NLMSG_HDRLEN + sizeof(err);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	nlh->nlmsg_seq = 1;
	memcpy(NLMSG_DATA(nlh), &err, sizeof(err));
	return nlh->nlmsg_len;
}

/* A recorded CTRL_CMD_GETFAMILY answer with the family id replaced. */
static void write_family(const char *dir, const char *name, uint16_t id)
{
	size_t n;
	uint8_t *b = read_whole(fixture_path("7x-smclo/smclo-shutdown/genl-ctrl-SMC_LO.bin"), &n);
	struct nlmsghdr *nlh = (struct nlmsghdr *)b;
	struct nlattr *a;
	int rem;
	bool done = false;

	nla_for_each_attr(a, (struct nlattr *)((uint8_t *)nlmsg_data(nlh) + GENL_HDRLEN),
			  nlmsg_datalen(nlh) - GENL_HDRLEN,
			  rem) if (nla_type(a) == CTRL_ATTR_FAMILY_ID)
	{
		memcpy(nla_data(a), &id, sizeof(id));
		done = true;
	}
	assert_true(done);
	write_file(dir, name, b, n);
	free(b);
}

/*
 * smc_lo unloaded and loaded again: its family has a new id, the old one answers -ENOENT.
 * The request is sent again once with the new id; a monitor of the old id is stale.  With
 * the same id the -ENOENT is the command's own; with the family gone, -EPROTONOSUPPORT.
 */
static void test_family_reloaded(void **state)
{
	const struct edit good = { .state = -1, .gid_len = 16, .nocopy = 1, .max_dmbs = 100 };
	static uint8_t buf[8192];
	struct smclo_monitor *mon;
	struct smclo_device d;
	char *dir = tmpdir_new();
	struct smcnl *nl;
	size_t n;
	uint8_t *b;

	write_family(dir, "genl-ctrl-SMC_LO.bin", 0x20);
	write_family(dir, "genl-ctrl-SMC_LO-2.bin", 0x21);
	write_file(dir, "smclo-get.bin", buf, build_error(-ENOENT, buf, sizeof(buf)));
	write_file(dir, "smclo-get-2.bin", buf, build_reply(&good, buf, sizeof(buf)));
	nl = replay_open_abs(dir);
	assert_int_equal(smclo_monitor_open(nl, &mon), 0);
	assert_false(smclo_monitor_stale(mon));
	assert_int_equal(smclo_get(nl, &d), 0);
	assert_int_equal(d.state, SMCLO_STATE_ACTIVE);
	assert_int_equal(nl->family_id[SMCNL_FAM_SMCLO], 0x21);
	assert_true(smclo_monitor_stale(mon));
	smclo_monitor_close(mon);
	smcnl_close(nl);

	/* The same id again: the command's own -ENOENT, sent once. */
	write_family(dir, "genl-ctrl-SMC_LO-2.bin", 0x20);
	nl = replay_open_abs(dir);
	assert_int_equal(smclo_get(nl, &d), -ENOENT);
	assert_int_equal(nl->family_id[SMCNL_FAM_SMCLO], 0x20);
	smcnl_close(nl);

	/* Unloaded for good: what every other request says then. */
	b = read_whole(fixture_path("nosmc/genl-ctrl-SMC_GEN_NETLINK.bin"), &n);
	write_file(dir, "genl-ctrl-SMC_LO-2.bin", b, n);
	free(b);
	nl = replay_open_abs(dir);
	assert_int_equal(smclo_get(nl, &d), -EPROTONOSUPPORT);
	smcnl_close(nl);
	tmpdir_remove(dir);
}

/*
 * The "deactivated" notification is lost and someone activates the device again before
 * the next GET: generation 2 is not the device being removed, which is gone.  The drain
 * PNET ID is deleted (it would otherwise keep the new registration out of SMC-Dv2).
 */
static void test_shutdown_new_generation(void **state)
{
	const struct edit active = { .state = -1, .gid_len = 16, .nocopy = 1, .max_dmbs = 100 };
	struct edit draining = active, again = active;
	static uint8_t buf[8192];
	struct smclo_shutdown_result res;
	char *dir = tmpdir_new();
	struct smcnl *nl;

	draining.state = SMC_LO_STATE_DRAINING;
	draining.cmd = SMC_LO_CMD_DEACTIVATE;
	again.generation = 2;
	write_file(dir, "smclo-get.bin", buf, build_reply(&active, buf, sizeof(buf)));
	write_file(dir, "smclo-get-2.bin", buf, build_reply(&again, buf, sizeof(buf)));
	write_file(dir, "smclo-deactivate.bin", buf, build_reply(&draining, buf, sizeof(buf)));
	write_file(dir, "pnet-add.bin", buf, build_error(0, buf, sizeof(buf)));
	write_file(dir, "pnet-del.bin", buf, build_error(0, buf, sizeof(buf)));
	nl = replay_open_abs(dir);
	assert_int_equal(smclo_shutdown(nl, 5000, 10000, &res), 0);
	assert_true(res.was_active && res.removed && res.pnet_added && res.pnet_removed);
	assert_int_equal(res.last.state, SMCLO_STATE_ACTIVE);
	assert_int_equal(res.last.generation, 2);
	assert_true(res.waited_ms < 5000);
	smcnl_close(nl);
	tmpdir_remove(dir);
}

/* A recorded notification stream longer than the receive buffer (16 KiB) replays whole. */
static void test_notifications_long(void **state)
{
	struct smcnl *nl = open_step("smclo-shutdown");
	char *dir = tmpdir_new();
	struct smclo_monitor *m;
	struct smclo_device d;
	uint8_t *one, *many;
	size_t n, copies, i;
	char path[4096];
	int got = 0;

	snprintf(path, sizeof(path), "7x-smclo/smclo-shutdown/smclo-notify.bin");
	one = read_whole(fixture_path(path), &n);
	copies = 40000 / n + 1;
	many = malloc(n * copies);
	assert_non_null(many);
	for (i = 0; i < copies; i++)
		memcpy(many + i * n, one, n);
	write_file(dir, "smclo-notify.bin", many, n * copies);
	smcnl_close(nl);
	nl = replay_open_abs(dir);
	assert_int_equal(smclo_monitor_open(nl, &m), 0);
	while (smclo_monitor_read(m, &d) == 1)
		got++;
	assert_int_equal(got, 3 * copies);
	assert_int_equal(smclo_monitor_read(m, &d), 0);
	smclo_monitor_close(m);
	smcnl_close(nl);
	free(one);
	free(many);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_inactive),
		cmocka_unit_test(test_module_loaded),
		cmocka_unit_test(test_module_going),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_activate),
		cmocka_unit_test(test_traffic),
		cmocka_unit_test(test_both),
		cmocka_unit_test(test_notifications),
		cmocka_unit_test(test_shutdown),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_contract),
		cmocka_unit_test(test_counters_every_row),
		cmocka_unit_test(test_family_reloaded),
		cmocka_unit_test(test_shutdown_new_generation),
		cmocka_unit_test(test_notifications_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
