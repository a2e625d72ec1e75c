// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fault injection at our own kernel boundary (struct kernel_ops): a reconcile on the fake
 * kernel with every one of its kernel calls failing once, in turn, with each of ENOBUFS,
 * EINTR, EBUSY and EPERM.  Each time: the reconcile reports at least one item failed, with
 * a reason; every item it calls applied or unchanged is in the desired state in the kernel;
 * and the next reconcile, without the fault, retries and ends in exactly the state of a
 * reconcile that never failed.  A kernel error must never read as "nothing there" (an
 * absent UEID, a module not loaded, an empty table) and be "repaired" into a wrong state.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/collector.h"
#include "smcd-agent/manager.h"
#include "tests/unit/golden.h"

static char dir[] = "/tmp/test-agent-faults-XXXXXX";
static char cfg_path[512];

/* ---- a kernel whose call number fail_at fails with fail_err ----------------------------- */

static struct kernel *inner;
static unsigned calls, fail_at;
static int fail_err;
static char failed_op[64];

static unsigned last_caps_call; /* the number of the last caps call made */
static unsigned smclo_gets;	/* smclo_get calls made */
static const char *fail_op;	/* or: the next call of this op fails (once) */

static bool fault(const char *op)
{
	if (++calls, streq(op, "caps"))
		last_caps_call = calls;
	if (streq(op, "smclo_get"))
		smclo_gets++;
	if (fail_op && streq(op, fail_op))
		fail_op = NULL;
	else if (calls != fail_at)
		return false;
	snprintf(failed_op, sizeof(failed_op), "%s", op);
	return true;
}

#define FWD(name, params, args)               \
	static int w_##name params            \
	{                                     \
		if (fault(#name))             \
			return -fail_err;     \
		return inner->ops->name args; \
	}

FWD(caps, (struct kernel * k, struct smc_caps *ret), (inner, ret))
FWD(module_loaded, (struct kernel * k, const char *name), (inner, name))
FWD(module_load, (struct kernel * k, const char *name, char *msg, size_t len),
    (inner, name, msg, len))
FWD(ueid_list, (struct kernel * k, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1], size_t *n),
    (inner, ret, n))
FWD(ueid_add, (struct kernel * k, const char *u), (inner, u))
FWD(ueid_del, (struct kernel * k, const char *u), (inner, u))
FWD(ueid_flush, (struct kernel * k), (inner))
FWD(seid_get, (struct kernel * k, struct smc_seid *ret), (inner, ret))
FWD(seid_set, (struct kernel * k, bool e), (inner, e))
FWD(hs_get, (struct kernel * k, bool *ret), (inner, ret))
FWD(hs_set, (struct kernel * k, bool e), (inner, e))
FWD(sysctl_get, (struct kernel * k, const char *n, char *b, size_t l), (inner, n, b, l))
FWD(sysctl_set, (struct kernel * k, const char *n, const char *v), (inner, n, v))
FWD(pnet_list, (struct kernel * k, struct smc_pnet_entry **ret, size_t *n), (inner, ret, n))
FWD(pnet_add, (struct kernel * k, const struct smc_pnet_entry *e), (inner, e))
FWD(pnet_del, (struct kernel * k, const char *p), (inner, p))
FWD(pnet_flush, (struct kernel * k), (inner))
FWD(smcd_devices, (struct kernel * k, struct smcd_device **ret, size_t *n), (inner, ret, n))
FWD(smcr_devices, (struct kernel * k, struct smcr_device **ret, size_t *n), (inner, ret, n))
FWD(smcd_linkgroups, (struct kernel * k, struct smcd_linkgroup **ret, size_t *n), (inner, ret, n))
FWD(smcr_linkgroups, (struct kernel * k, struct smcr_linkgroup **ret, size_t *n), (inner, ret, n))
FWD(stats, (struct kernel * k, struct smc_stats *ret), (inner, ret))
FWD(fback_stats, (struct kernel * k, struct smc_fback_stats *ret), (inner, ret))
FWD(sockets, (struct kernel * k, smc_socket_fn fn, void *userdata), (inner, fn, userdata))
FWD(smclo_get, (struct kernel * k, struct smclo_device *ret), (inner, ret))
FWD(smclo_activate, (struct kernel * k, struct smclo_device *ret, bool *c), (inner, ret, c))
FWD(smclo_shutdown, (struct kernel * k, uint32_t d, uint32_t r, struct smclo_shutdown_result *res),
    (inner, d, r, res))
FWD(smclo_set, (struct kernel * k, const struct smclo_set_request *q, struct smclo_device *ret),
    (inner, q, ret))
FWD(smclo_monitor, (struct kernel * k, struct smclo_monitor **ret), (inner, ret))

static const char *w_extack(struct kernel *k)
{
	return inner->ops->extack(inner);
}

static void w_free(struct kernel *k)
{
	kernel_free(inner);
	inner = NULL;
}

static const struct kernel_ops faulty_ops = {
	.caps = w_caps,
	.module_loaded = w_module_loaded,
	.module_load = w_module_load,
	.ueid_list = w_ueid_list,
	.ueid_add = w_ueid_add,
	.ueid_del = w_ueid_del,
	.ueid_flush = w_ueid_flush,
	.seid_get = w_seid_get,
	.seid_set = w_seid_set,
	.hs_get = w_hs_get,
	.hs_set = w_hs_set,
	.sysctl_get = w_sysctl_get,
	.sysctl_set = w_sysctl_set,
	.pnet_list = w_pnet_list,
	.pnet_add = w_pnet_add,
	.pnet_del = w_pnet_del,
	.pnet_flush = w_pnet_flush,
	.smcd_devices = w_smcd_devices,
	.smcr_devices = w_smcr_devices,
	.smcd_linkgroups = w_smcd_linkgroups,
	.smcr_linkgroups = w_smcr_linkgroups,
	.stats = w_stats,
	.fback_stats = w_fback_stats,
	.sockets = w_sockets,
	.extack = w_extack,
	.smclo_get = w_smclo_get,
	.smclo_activate = w_smclo_activate,
	.smclo_shutdown = w_smclo_shutdown,
	.smclo_set = w_smclo_set,
	.smclo_monitor = w_smclo_monitor,
	.free = w_free,
};

static struct kernel faulty = { .ops = &faulty_ops };

/* ---- the fake kernel's state ------------------------------------------------------------ */

static void sh(const char *cmds)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "cd '%s' && %s", dir, cmds);
	assert_int_equal(system(cmd), 0);
}

/* A host before the agent: SMC loaded, a foreign UEID and PNET entry, 64 KiB buffers,
 * smc_lo loadable. */
static void fake_reset(void)
{
	sh("rm -rf k && mkdir -p k/modules k/modules-available k/sysctl && touch k/modules/smc "
	   "k/modules-available/smc_diag k/modules-available/smc_lo && echo SMC-OLD >k/ueid && echo 'OLDNET eth eth9' >k/pnet "
	   "&& echo 0 >k/hs_limitation && echo 65536 >k/sysctl/wmem && echo 65536 >k/sysctl/rmem "
	   "&& echo 0 >k/sysctl/autocorking_size");
}

/* The kernel's state as one text: every file of the fake kernel, its lines sorted (the UEID
 * and PNET tables are sets; a retried add lands after the others), without smclo's
 * activation counters and generation (a retried setting re-activates the device). */
static char *state(void)
{
	char cmd[1024], *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len), *p;
	int ch;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s/k' && find . -type f | sort | while read f; do echo \"== $f\"; case $f in ./smclo/counters) ;; ./smclo/state) cut -d' ' -f1 \"$f\";; *) sort \"$f\";; esac; done",
		 dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((ch = fgetc(p)) != EOF)
		fputc(ch, out);
	assert_int_equal(pclose(p), 0);
	fclose(out);
	return buf;
}

static struct manager *agent(void)
{
	struct manager *m = NULL;
	char kdir[600];

	snprintf(kdir, sizeof(kdir), "%s/k", dir);
	assert_int_equal(kernel_fake_new(kdir, &inner), 0);
	assert_int_equal(manager_new(cfg_path, &faulty, &m), 0);
	assert_int_equal(manager_load_config(m), 0);
	return m;
}

static int setup(void **state_)
{
	char text[1024];

	if (!mkdtemp(dir))
		return -1;
	snprintf(cfg_path, sizeof(cfg_path), "%s/smc.yaml", dir);
	test_write_file(dir, "machine-id", "0123456789abcdef0123456789abcdef\n");
	snprintf(text, sizeof(text),
		 "ueid: {machine-id-file: %s/machine-id, entries: [SMC-EXTRA], exclusive: true}\n"
		 "handshake-limitation: true\n"
		 "sysctl: {wmem: 1MiB, rmem: 1MiB, autocorking_size: 64KiB}\n"
		 "pnet: {exclusive: true, entries: [{pnetid: NET1, eth: eth0}]}\n"
		 "modules: [smc, smc_diag]\n"
		 "stats: {prometheus: {enabled: false}}\n"
		 "loopback: {active: true, max-dmbs: 100}\n",
		 dir);
	test_write_file(dir, "smc.yaml", text);
	return 0;
}

static int teardown(void **state_)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static bool report_same(const struct report *a, const struct report *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (!streq(a->items[i].name, b->items[i].name) ||
		    a->items[i].result != b->items[i].result)
			return false;
	return true;
}

static void test_every_call_fails_once(void **state_)
{
	static const int errs[] = { ENOBUFS, EINTR, EBUSY, EPERM };
	_cleanup_(freep) char *want = NULL;
	struct manager *m;
	struct report want_report = {};
	enum manager_state want_state;
	unsigned n_calls;

	/* The reference: a reconcile that never fails, and how many kernel calls it makes. */
	fake_reset();
	calls = 0;
	fail_at = 0;
	m = agent();
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	n_calls = calls;
	want = state();
	want_state = m->state;
	want_report = m->report;
	m->report = (struct report){};
	manager_free(m);
	assert_true(n_calls >= 10);
	printf("# a reconcile makes %u kernel calls; each fails once, with each of 4 errnos\n",
	       n_calls);

	for (size_t e = 0; e < ELEMENTSOF(errs); e++)
		for (unsigned i = 1; i <= n_calls; i++) {
			_cleanup_(freep) char *got = NULL;
			bool any_failed = false;

			fake_reset();
			calls = 0;
			fail_at = i;
			fail_err = errs[e];
			failed_op[0] = '\0';
			m = agent();
			(void)manager_reconcile(m, RECONCILE_START);
			if (!failed_op[0]) { /* this run made fewer calls: nothing failed */
				manager_free(m);
				continue;
			}
			for (size_t j = 0; j < m->report.n; j++) {
				const struct item_report *ir = &m->report.items[j];

				if (ir->result == ITEM_FAILED) {
					any_failed = true;
					if (!ir->message[0])
						fail_msg("call %u (%s) failing with %s: %s failed without a reason",
							 i, failed_op, strerror(errs[e]), ir->name);
				}
			}
			/* A failed call outside the items (the capability probe, the refresh of
			 * the objects) must leave the report as a run without faults has it; a
			 * call of an item must fail it.  test_caps_kept: the probe keeps what it
			 * knew. */
			if (!any_failed && !report_same(&m->report, &want_report))
				fail_msg("call %u (%s) failing with %s: no item failed, and the report differs from a run without faults",
					 i, failed_op, strerror(errs[e]));
			/* The next reconcile retries and ends where the unfailed one did. */
			fail_at = 0;
			(void)manager_reconcile(m, RECONCILE_PERIODIC);
			for (size_t j = 0; j < m->report.n; j++)
				if (m->report.items[j].result == ITEM_FAILED)
					fail_msg("call %u (%s) failing with %s: %s still failed at the retry: %s",
						 i, failed_op, strerror(errs[e]),
						 m->report.items[j].name, m->report.items[j].message);
			got = state();
			if (m->state != want_state)
				fail_msg("call %u (%s) failing with %s: state %s after the retry, not %s",
					 i, failed_op, strerror(errs[e]),
					 manager_state_to_string(m->state),
					 manager_state_to_string(want_state));
			if (!streq(got, want))
				fail_msg("call %u (%s) failing with %s: the kernel ends as\n%s\ninstead of\n%s",
					 i, failed_op, strerror(errs[e]), got, want);
			manager_free(m);
		}
	report_clear(&want_report);
}

/* With capabilities known, a failing probe changes none of them (no false event), nor the
 * state: a busy kernel is not one without SMC. */
static void test_caps_kept(void **state_)
{
	static const int errs[] = { ENOBUFS, EINTR, EBUSY, EPERM };
	struct manager *m;

	fake_reset();
	calls = 0;
	fail_at = 0;
	m = agent();
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	for (size_t e = 0; e < ELEMENTSOF(errs); e++) {
		struct smc_caps before = m->caps;
		enum manager_state st = m->state;

		unsigned probe;

		/* The manager's own probe (update_caps()) is the reconcile's last caps call;
		 * the observation's earlier one is followed by it, which would hide a loss. */
		calls = 0;
		fail_at = 0;
		(void)manager_reconcile(m, RECONCILE_PERIODIC);
		probe = last_caps_call;
		assert_true(probe > 0);
		calls = 0;
		fail_at = probe;
		fail_err = errs[e];
		failed_op[0] = '\0';
		(void)manager_reconcile(m, RECONCILE_PERIODIC);
		assert_string_equal(failed_op, "caps");
		assert_memory_equal(&before, &m->caps, sizeof(before));
		assert_int_equal(st, m->state);
		/* The same for a refresh of the objects, which probes first. */
		calls = 0;
		fail_at = 1;
		failed_op[0] = '\0';
		(void)manager_refresh_objects(m, NULL);
		assert_string_equal(failed_op, "caps");
		assert_memory_equal(&before, &m->caps, sizeof(before));
	}
	manager_free(m);
}

/* smc_lo's object comes from its own family: a failed device or link-group dump must not
 * keep the refresh from reading it (it was skipped: the object stayed stale). */
static void test_loopback_refreshed_when_a_dump_fails(void **state_)
{
	static const char *const dumps[] = { "smcd_devices", "smcr_devices", "smcd_linkgroups",
					     "smcr_linkgroups" };
	const char *skipped = NULL;
	struct manager *m;

	fake_reset();
	calls = 0;
	fail_at = 0;
	m = agent();
	assert_int_equal(manager_reconcile(m, RECONCILE_START), 0);
	for (size_t i = 0; i < ELEMENTSOF(dumps) && !skipped; i++) {
		unsigned before = smclo_gets;

		fail_op = dumps[i];
		fail_err = EBUSY;
		failed_op[0] = '\0';
		assert_int_equal(manager_refresh_objects_only(m, NULL), -EBUSY);
		assert_string_equal(failed_op, dumps[i]);
		if (smclo_gets == before)
			skipped = dumps[i];
	}
	fail_op = NULL;
	manager_free(m);
	if (skipped)
		fail_msg("%s failing kept the refresh from reading smc_lo", skipped);
}

/* A bus that takes no signal: the objects are read and updated all the same, and that is
 * no kernel error (Refresh answered Error.Kernel for it). */
static void test_signal_failure_is_no_read_failure(void **state_)
{
	struct manager *m;
	sd_bus *b = NULL;
	int p[2], emit = 1;

	fake_reset();
	sh("echo lo >k/smcd-devices && echo 'a01 2 lo' >k/smcd-linkgroups");
	calls = 0;
	fail_at = 0;
	m = agent();
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p), 0);
	assert_int_equal(sd_bus_new(&b), 0);
	assert_int_equal(sd_bus_set_fd(b, p[0], p[0]), 0);
	assert_int_equal(sd_bus_start(b), 0);
	close(p[1]);
	sd_bus_close(b);
	m->bus = b;
	assert_int_equal(manager_refresh_objects(m, &emit), 0);
	assert_int_equal(emit, -ENOTCONN);
	assert_int_equal(m->objects.n_devices, 1);
	assert_int_equal(m->objects.n_linkgroups, 1);
	/* And a failed read is the read's error, with no signal error. */
	sh(": >k/smcd-linkgroups");
	fail_op = "smcd_linkgroups";
	fail_err = EBUSY;
	assert_int_equal(manager_refresh_objects(m, &emit), -EBUSY);
	assert_int_equal(emit, 0);
	assert_int_equal(m->objects.n_linkgroups, 1);
	fail_op = NULL;
	manager_free(m);
}

/* ---- a failed read keeps the objects, marked stale ---------------------------------------- */

/* A private connection: the agent's end and a peer that sees every signal it sends. */
static void bus_pair(sd_bus **ret_agent, sd_bus **ret_peer)
{
	sd_bus *a = NULL, *b = NULL;
	sd_id128_t id;
	int p[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p), 0);
	assert_int_equal(sd_id128_randomize(&id), 0);
	assert_int_equal(sd_bus_new(&b), 0);
	assert_int_equal(sd_bus_set_fd(b, p[1], p[1]), 0);
	assert_int_equal(sd_bus_set_server(b, 1, id), 0);
	assert_int_equal(sd_bus_set_anonymous(b, 1), 0);
	assert_int_equal(sd_bus_start(b), 0);
	assert_int_equal(sd_bus_new(&a), 0);
	assert_int_equal(sd_bus_set_fd(a, p[0], p[0]), 0);
	assert_int_equal(sd_bus_set_anonymous(a, 1), 0);
	assert_int_equal(sd_bus_start(a), 0);
	/* The authentication, one step at a time on each side. */
	for (int i = 0; i < 100 && sd_bus_is_ready(a) <= 0; i++) {
		(void)sd_bus_process(a, NULL);
		(void)sd_bus_process(b, NULL);
	}
	assert_true(sd_bus_is_ready(a) > 0);
	*ret_agent = a;
	*ret_peer = b;
}

struct signals {
	unsigned added, removed;
	unsigned stale_changed; /* PropertiesChanged of the Manager naming ObjectsStale */
};

/* How often PropertiesChanged names a property (a value or an invalidation). */
static unsigned changed_names(sd_bus_message *msg, const char *want)
{
	const char *name;
	unsigned n = 0;

	assert_true(sd_bus_message_enter_container(msg, 'a', "{sv}") >= 0);
	while (sd_bus_message_enter_container(msg, 'e', "sv") > 0) {
		assert_true(sd_bus_message_read(msg, "s", &name) >= 0);
		n += streq(name, want);
		assert_true(sd_bus_message_skip(msg, "v") >= 0);
		assert_true(sd_bus_message_exit_container(msg) >= 0);
	}
	assert_true(sd_bus_message_exit_container(msg) >= 0);
	assert_true(sd_bus_message_enter_container(msg, 'a', "s") >= 0);
	while (sd_bus_message_read(msg, "s", &name) > 0)
		n += streq(name, want);
	return n;
}

/* What the agent sent since the last call. */
static struct signals take_signals(sd_bus *agent, sd_bus *peer)
{
	struct signals s = {};

	assert_true(sd_bus_flush(agent) >= 0);
	for (;;) {
		sd_bus_message *msg = NULL;
		const char *iface;

		if (sd_bus_process(peer, &msg) <= 0) {
			if (sd_bus_wait(peer, 100000) <= 0)
				break;
			continue;
		}
		if (!msg)
			continue;
		if (sd_bus_message_is_signal(msg, DBUS_IFACE_OBJECT_MANAGER, DBUS_INTERFACES_ADDED))
			s.added++;
		else if (sd_bus_message_is_signal(msg, DBUS_IFACE_OBJECT_MANAGER,
						  DBUS_INTERFACES_REMOVED))
			s.removed++;
		else if (sd_bus_message_is_signal(msg, DBUS_IFACE_PROPERTIES,
						  DBUS_PROPERTIES_CHANGED) &&
			 sd_bus_message_read(msg, "s", &iface) >= 0 &&
			 streq(iface, SMCD_BUS_IFACE_MANAGER))
			s.stale_changed += changed_names(msg, SMCD_BUS_MANAGER_OBJECTS_STALE);
		sd_bus_message_unref(msg);
	}
	return s;
}

static char *prom_text(void)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/smc.prom", dir);
	return golden_read_file(path);
}

/*
 * The read of the devices or link groups failing (busy, interrupted dump) changes nothing
 * anyone sees but the stale mark: no InterfacesRemoved or InterfacesAdded, the same
 * objects, no link group counted as removed, its Prometheus series still written; the next
 * good read clears the mark, again without a false removal or addition.
 */
static void test_failed_read_marks_stale(void **state_)
{
	static const struct {
		const char *op;
		int err;
	} faults[] = { { "smcd_linkgroups", EBUSY },
		       { "smcd_devices", EINTR },
		       { "smcr_linkgroups", ENOBUFS } };
	char path[600], text[1024];
	struct manager *m = NULL;
	sd_bus *a, *b;
	struct signals sig;
	const struct obj_device *devs;
	uint64_t read_usec;

	fake_reset();
	sh("echo lo >k/smcd-devices && echo 'a01 2 lo' >k/smcd-linkgroups");
	calls = 0;
	fail_at = 0;
	snprintf(path, sizeof(path), "%s/stale.yaml", dir);
	snprintf(text, sizeof(text), "stats: {prometheus: {enabled: true, path: %s/smc.prom}}\n",
		 dir);
	test_write_file(dir, "stale.yaml", text);
	setenv("STATE_DIRECTORY", dir, 1);
	snprintf(text, sizeof(text), "%s/k", dir);
	assert_int_equal(kernel_fake_new(text, &inner), 0);
	assert_int_equal(manager_new(path, &faulty, &m), 0);
	assert_int_equal(manager_load_config(m), 0);
	assert_int_equal(collector_new(10, &m->collector), 0);
	(void)collector_configure(m->collector, m->config->stats.interval_usec, 10,
				  m->config->stats.prometheus_path);
	bus_pair(&a, &b);
	m->bus = a;
	assert_true(bus_register_all(m) >= 0);

	/* A good read: the objects appear (the signals are seen at all). */
	assert_int_equal(manager_poll(m, MANAGER_POLL_OBJECTS | MANAGER_POLL_STATS, NULL), 0);
	sig = take_signals(a, b);
	assert_int_equal(sig.added, 2);
	assert_int_equal(sig.stale_changed, 0);
	assert_false(objects_stale(&m->objects));
	assert_true(m->objects.read_real_usec > 0);
	_cleanup_(freep) char *good = prom_text();
	assert_non_null(strstr(good, "\nsmc_agent_objects_stale 0\n"));
	assert_non_null(strstr(good, "\nsmc_linkgroup_connections{"));
	devs = m->objects.devices;
	read_usec = m->objects.read_real_usec;

	for (size_t i = 0; i < ELEMENTSOF(faults); i++) {
		_cleanup_(freep) char *prom = NULL;

		fail_op = faults[i].op;
		fail_err = faults[i].err;
		assert_int_equal(manager_poll(m, MANAGER_POLL_OBJECTS | MANAGER_POLL_STATS, NULL),
				 -faults[i].err);
		sig = take_signals(a, b);
		assert_int_equal(sig.added, 0);
		assert_int_equal(sig.removed, 0);
		/* Once, when it became stale; not again while it stays. */
		assert_int_equal(sig.stale_changed, i == 0);
		assert_true(objects_stale(&m->objects));
		assert_int_equal(m->objects.error, -faults[i].err);
		assert_ptr_equal(m->objects.devices, devs);
		assert_int_equal(m->objects.n_devices, 1);
		assert_int_equal(m->objects.n_linkgroups, 1);
		assert_int_equal(m->objects.read_real_usec, read_usec);
		assert_int_equal(m->collector->engine->agent[STATS_LGR_REMOVED_SMCD].total, 0);
		prom = prom_text();
		assert_non_null(strstr(prom, "\nsmc_agent_objects_stale 1\n"));
		assert_non_null(strstr(prom, "\nsmc_linkgroup_connections{"));
	}

	/* Good again: the mark goes, nothing was removed or is added again. */
	fail_op = NULL;
	assert_int_equal(manager_poll(m, MANAGER_POLL_OBJECTS | MANAGER_POLL_STATS, NULL), 0);
	sig = take_signals(a, b);
	assert_int_equal(sig.added, 0);
	assert_int_equal(sig.removed, 0);
	assert_int_equal(sig.stale_changed, 1);
	assert_false(objects_stale(&m->objects));
	assert_true(m->objects.read_real_usec >= read_usec);
	assert_int_equal(m->objects.n_linkgroups, 1);
	assert_int_equal(m->collector->engine->agent[STATS_LGR_SEEN_SMCD].total, 1);
	assert_int_equal(m->collector->engine->agent[STATS_LGR_REMOVED_SMCD].total, 0);
	_cleanup_(freep) char *again = prom_text();
	assert_non_null(strstr(again, "\nsmc_agent_objects_stale 0\n"));
	assert_non_null(strstr(again, "\nsmc_linkgroup_connections{"));

	/* A kernel without SMC is no failed read: it has no objects (and they are not stale). */
	fail_op = "smcd_linkgroups";
	fail_err = EOPNOTSUPP;
	assert_int_equal(manager_poll(m, MANAGER_POLL_OBJECTS, NULL), 0);
	sig = take_signals(a, b);
	assert_int_equal(sig.removed, 1);
	assert_false(objects_stale(&m->objects));
	assert_int_equal(m->objects.n_linkgroups, 0);
	fail_op = NULL;
	m->bus = NULL;
	manager_free(m);
	sd_bus_flush_close_unref(a);
	sd_bus_flush_close_unref(b);
	unsetenv("STATE_DIRECTORY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_call_fails_once),
		cmocka_unit_test(test_caps_kept),
		cmocka_unit_test(test_loopback_refreshed_when_a_dump_fails),
		cmocka_unit_test(test_signal_failure_is_no_read_failure),
		cmocka_unit_test(test_failed_read_marks_stale),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
