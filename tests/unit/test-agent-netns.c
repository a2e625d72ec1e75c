// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics of other network namespaces (smcd-agent/netns-sampler.c) on the fake kernel, whose
 * DIR/netns/NAME directories are the named namespaces (kernel-fake.c): which are sampled
 * (all, a list, none, at most stats.netns-max, never the agent's own twice, never one named
 * "host"), one handle per namespace kept while its name names it (a name made again is a new
 * namespace, a name gone closes it), a failed read left out and said (never read as zero)
 * while the others are read, and -ENOTRECOVERABLE (a thread that could not come back from a
 * namespace) stopping everything; a socket dump cut short counts nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/macro.h"
#include "smcd-agent/collector.h"
#include "smcd-agent/kernel.h"
#include "smcd-agent/netns-sampler.h"
#include "smcd-agent/objects.h"
#include "smcd-agent/stats-engine.h"

static char dir[] = "/tmp/test-agent-netns-XXXXXX";

static void put(const char *name, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "we");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void mkns(const char *name, uint64_t bytes)
{
	char p[1024], text[128];

	snprintf(p, sizeof(p), "%s/netns/%s", dir, name);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "netns/%s/stats", name);
	snprintf(text, sizeof(text), "smcd.tx.bytes %" PRIu64 "\nsmcd.client_v2 %" PRIu64 "\n",
		 bytes, bytes / 100);
	put(p, text);
}

static void run(const char *fmt, ...) _printf_(1, 2);
static void run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int n;

	n = snprintf(cmd, sizeof(cmd), "cd '%s' && ", dir);
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	char p[1024];

	if (!mkdtemp(dir))
		return -1;
	snprintf(p, sizeof(p), "%s/netns", dir);
	if (mkdir(p, 0755) < 0)
		return -1;
	put("stats", "smcd.tx.bytes 7\n");
	return 0;
}

static int teardown(void **state)
{
	run("cd / && rm -rf '%s'", dir);
	return 0;
}

static int reset(void **state)
{
	run("rm -rf netns && mkdir netns");
	return 0;
}

static uint64_t tx_bytes(const struct netns_entry *e)
{
	return e->sample.stats.smcd.tx_bytes;
}

static const struct netns_entry *find(const struct netns_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (streq(s->v[i].id.name, name))
			return &s->v[i];
	return NULL;
}

static struct kernel *fake(void)
{
	struct kernel *k = NULL;

	assert_int_equal(kernel_fake_new(dir, &k), 0);
	return k;
}

/* Every named one but the agent's own (a link to DIR, the fake's own namespace), by name. */
static void test_all(void **state)
{
	_cleanup_(kernel_freep) struct kernel *k = fake();
	struct netns_set s = {};

	mkns("b", 200);
	mkns("a", 100);
	run("ln -s .. netns/self");
	assert_int_equal(netns_set_configure(&s, true, NULL, 0, 32), 0);
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0].id.name, "a");
	assert_string_equal(s.v[1].id.name, "b");
	assert_int_equal(s.v[0].error, 0);
	assert_true(s.v[0].sample.ok);
	assert_int_equal(tx_bytes(&s.v[0]), 100);
	assert_int_equal(s.v[0].sample.stats.smcd.clnt_v2_succ, 1);
	assert_int_equal(tx_bytes(&s.v[1]), 200);
	assert_true(s.v[1].sample.has_sockets);
	assert_int_equal(s.left_out, 0);
	/* Two names of one namespace: sampled once, under the first. */
	run("ln -s b netns/c");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 2);
	assert_null(find(&s, "c"));
	netns_set_clear(&s);
}

/* A handle per namespace while its name names it: kept, replaced, closed. */
static void test_identity(void **state)
{
	_cleanup_(kernel_freep) struct kernel *k = fake();
	struct netns_set s = {};
	struct kernel_netns *a;

	mkns("a", 100);
	mkns("b", 200);
	assert_int_equal(netns_set_configure(&s, true, NULL, 0, 32), 0);
	assert_int_equal(netns_set_sample(&s, k), 0);
	a = find(&s, "a")->k;
	assert_non_null(a);
	/* The counters move: the same handle reads them. */
	put("netns/a/stats", "smcd.tx.bytes 150\n");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_ptr_equal(find(&s, "a")->k, a);
	assert_int_equal(tx_bytes(find(&s, "a")), 150);
	/* ip netns del a; ip netns add a: another namespace under the name, counting from 0
	 * (made before the old one goes, so that its inode cannot be the old one's). */
	mkns("a.new", 5);
	run("rm -rf netns/a && mv netns/a.new netns/a");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(tx_bytes(find(&s, "a")), 5);
	/* ip netns del b: gone from the set at the next sample. */
	run("rm -rf netns/b");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 1);
	assert_null(find(&s, "b"));
	netns_set_clear(&s);
}

/* A list, none, the limit, and the name of the agent's own label. */
static void test_choice(void **state)
{
	_cleanup_(kernel_freep) struct kernel *k = fake();
	struct netns_set s = {};
	char *names[] = { "c", "zz" };

	mkns("a", 1);
	mkns("b", 2);
	mkns("c", 3);
	assert_int_equal(netns_set_configure(&s, false, names, 2, 32), 0);
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.v[0].id.name, "c");
	assert_int_equal(s.left_out, 0);
	/* At most 2, the first by name; the third counted. */
	assert_int_equal(netns_set_configure(&s, true, NULL, 0, 2), 0);
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[1].id.name, "b");
	assert_int_equal(s.left_out, 1);
	assert_true(s.left_out_said);
	/* "host" is the agent's own label: never another namespace's. */
	mkns("host", 9);
	assert_int_equal(netns_set_configure(&s, true, NULL, 0, 32), 0);
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 3);
	assert_null(find(&s, "host"));
	assert_int_equal(s.left_out, 1);
	/* none: every handle closed. */
	assert_int_equal(netns_set_configure(&s, false, NULL, 0, 32), 0);
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.left_out, 0);
	netns_set_clear(&s);
}

/* A namespace that cannot be entered or read is left out, never zero; the others are read. */
static void test_failures(void **state)
{
	_cleanup_(kernel_freep) struct kernel *k = fake();
	struct netns_set s = {};

	mkns("a", 100);
	mkns("b", 200);
	put("netns/b/fail-open", "1\n"); /* EPERM */
	assert_int_equal(netns_set_configure(&s, true, NULL, 0, 32), 0);
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(find(&s, "a")->error, 0);
	assert_int_equal(find(&s, "b")->error, -EPERM);
	assert_null(find(&s, "b")->k);
	/* A stale file in /run/netns (no namespace: EINVAL) is told apart from a read's EINVAL. */
	put("netns/b/fail-open", "22\n");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(find(&s, "b")->error, -EMEDIUMTYPE);
	/* Entered later: read. */
	run("rm netns/b/fail-open");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(find(&s, "b")->error, 0);
	assert_int_equal(tx_bytes(find(&s, "b")), 200);
	/* A failed dump (ENOBUFS) of an open one. */
	put("netns/a/fail-stats", "105\n");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(find(&s, "a")->error, -ENOBUFS);
	assert_int_equal(find(&s, "b")->error, 0);
	run("rm netns/a/fail-stats");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(find(&s, "a")->error, 0);
	/* Without smc_diag's answer the counters stand, without socket gauges. */
	put("netns/a/sockets", "smcd 2\n");
	assert_int_equal(netns_set_sample(&s, k), 0);
	assert_int_equal(find(&s, "a")->sample.sockets[STATS_SOCK_SMCD], 2);
	netns_set_clear(&s);
}

/* ---- a kernel whose namespace cannot be left: the thread stays in it ------------------- */

/* The fake kernel, with its namespace ops replaced in place: its own reads (fake_stats and
 * the rest) expect the fake's own object, so the test hands them that, not a wrapper. */
static const struct kernel_ops *inner_ops;
/* The fake kernel behind a wrapper of forwarding ops (test_cut_socket_dump). */
static struct kernel *inner;

static int stuck_stats(struct kernel_netns *n, struct smc_stats *ret)
{
	return -ENOTRECOVERABLE;
}

static int stuck_fback(struct kernel_netns *n, struct smc_fback_stats *ret)
{
	fail_msg("read on after the thread could not come back");
	return 0;
}

static int stuck_sockets(struct kernel_netns *n, smc_socket_fn fn, void *userdata)
{
	fail_msg("read on after the thread could not come back");
	return 0;
}

static void stuck_free(struct kernel_netns *n)
{
	free(n);
}

static const struct kernel_netns_ops stuck_ns_ops = {
	.stats = stuck_stats,
	.fback_stats = stuck_fback,
	.sockets = stuck_sockets,
	.free = stuck_free,
};

static int stuck_open(struct kernel *k, const struct smc_netns *ns, struct kernel_netns **ret)
{
	struct kernel_netns *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	n->ops = &stuck_ns_ops;
	*ret = n;
	return 0;
}

static int stuck_list(struct kernel *k, struct smc_netns *self, struct smc_netns **ret, size_t *ret_n)
{
	return inner_ops->netns_list(k, self, ret, ret_n);
}

static void test_not_recoverable(void **state)
{
	struct kernel_ops ops;
	struct netns_set s = {};
	struct collector *c = NULL;
	struct kernel *k;

	k = fake();
	inner_ops = k->ops;
	ops = *k->ops;
	ops.netns_list = stuck_list;
	ops.netns_open = stuck_open;
	k->ops = &ops;
	mkns("a", 1);
	mkns("b", 2);
	assert_int_equal(netns_set_configure(&s, true, NULL, 0, 32), 0);
	/* The first namespace stops everything: b is not touched. */
	assert_int_equal(netns_set_sample(&s, k), -ENOTRECOVERABLE);
	netns_set_clear(&s);
	/* And the collector says so, for the manager to stop. */
	setenv("STATE_DIRECTORY", dir, 1);
	assert_int_equal(collector_new(10, &c), 0);
	assert_int_equal(collector_configure_netns(c, true, NULL, 0, 32), 0);
	assert_int_equal(collector_sample(c, k), -ENOTRECOVERABLE);
	collector_free(c);
	k->ops = inner_ops;
	kernel_free(k);
}

/* A socket dump that fails after two sockets were handed over (interrupted, out of memory). */
static int cut_dump(smc_socket_fn fn, void *userdata)
{
	struct smc_socket s = { .state = 1, .mode = 2 };

	for (int i = 0; i < 2; i++) {
		int r = fn(&s, userdata);

		if (r < 0)
			return r;
	}
	return -EINTR;
}

static int cut_sockets(struct kernel *k, smc_socket_fn fn, void *userdata)
{
	return cut_dump(fn, userdata);
}

/* The fake's reads, on the fake (its ops take their own struct). */
static int fwd_stats(struct kernel *k, struct smc_stats *ret)
{
	return inner->ops->stats(inner, ret);
}

static int fwd_fback(struct kernel *k, struct smc_fback_stats *ret)
{
	return inner->ops->fback_stats(inner, ret);
}

static int fwd_sockets(struct kernel *k, smc_socket_fn fn, void *userdata)
{
	return inner->ops->sockets(inner, fn, userdata);
}

static int fwd_list(struct kernel *k, struct smc_netns *ret_self, struct smc_netns **ret,
		    size_t *ret_n)
{
	return inner->ops->netns_list(inner, ret_self, ret, ret_n);
}

static int fwd_open(struct kernel *k, const struct smc_netns *ns, struct kernel_netns **ret)
{
	return inner->ops->netns_open(inner, ns, ret);
}

struct cut_ns {
	struct kernel_netns base;
	struct kernel_netns *inner;
};

static int cut_ns_stats(struct kernel_netns *n, struct smc_stats *ret)
{
	struct kernel_netns *i = ((struct cut_ns *)n)->inner;

	return i->ops->stats(i, ret);
}

static int cut_ns_fback(struct kernel_netns *n, struct smc_fback_stats *ret)
{
	struct kernel_netns *i = ((struct cut_ns *)n)->inner;

	return i->ops->fback_stats(i, ret);
}

static int cut_ns_sockets(struct kernel_netns *n, smc_socket_fn fn, void *userdata)
{
	return cut_dump(fn, userdata);
}

static void cut_ns_free(struct kernel_netns *n)
{
	kernel_netns_free(((struct cut_ns *)n)->inner);
	free(n);
}

static const struct kernel_netns_ops cut_ns_ops = {
	.stats = cut_ns_stats,
	.fback_stats = cut_ns_fback,
	.sockets = cut_ns_sockets,
	.free = cut_ns_free,
};

static int cut_open(struct kernel *k, const struct smc_netns *ns, struct kernel_netns **ret)
{
	struct cut_ns *c = calloc(1, sizeof(*c));
	int r;

	assert_non_null(c);
	r = inner->ops->netns_open(inner, ns, &c->inner);
	if (r < 0) {
		free(c);
		return r;
	}
	c->base.ops = &cut_ns_ops;
	*ret = &c->base;
	return 0;
}

/*
 * The sockets are counted as the dump is read (none kept): a dump that fails half way counts
 * nothing (the socket gauges are left out, never the part read), in the agent's namespace as
 * in another; the counters of the same sample stand.
 */
static void test_cut_socket_dump(void **state)
{
	struct kernel_ops ops;
	struct kernel k = { .ops = &ops };
	struct collector *c = NULL;
	const struct stats_sample *host;

	inner = fake();
	ops = (struct kernel_ops){ .stats = fwd_stats,
				   .fback_stats = fwd_fback,
				   .sockets = cut_sockets,
				   .netns_list = fwd_list,
				   .netns_open = cut_open };
	put("sockets", "smcd 4\nlisten 1\n");
	mkns("a", 100);
	put("netns/a/sockets", "smcd 6\n");
	setenv("STATE_DIRECTORY", dir, 1);
	assert_int_equal(collector_new(10, &c), 0);
	assert_int_equal(collector_configure_netns(c, true, NULL, 0, 32), 0);
	assert_true(collector_sample(c, &k) >= 0);
	host = &c->engine->last;
	assert_true(host->ok);
	assert_int_equal(host->stats.smcd.tx_bytes, 7);
	assert_false(host->has_sockets);
	assert_int_equal(host->sockets[STATS_SOCK_SMCD], 0);
	assert_int_equal(c->netns.n, 1);
	assert_int_equal(c->netns.v[0].error, 0);
	assert_int_equal(tx_bytes(&c->netns.v[0]), 100);
	assert_false(c->netns.v[0].sample.has_sockets);
	assert_int_equal(c->netns.v[0].sample.sockets[STATS_SOCK_SMCD], 0);

	/* Whole dumps (new handles: the namespaces dropped and taken again) count them all. */
	ops.sockets = fwd_sockets;
	ops.netns_open = fwd_open;
	assert_int_equal(collector_configure_netns(c, false, NULL, 0, 32), 0);
	assert_true(collector_sample(c, &k) >= 0);
	assert_int_equal(collector_configure_netns(c, true, NULL, 0, 32), 0);
	assert_true(collector_sample(c, &k) >= 0);
	host = &c->engine->last;
	assert_true(host->has_sockets);
	assert_int_equal(host->sockets[STATS_SOCK_SMCD], 4);
	assert_int_equal(host->sockets[STATS_SOCK_LISTEN], 1);
	assert_int_equal(c->netns.n, 1);
	assert_true(c->netns.v[0].sample.has_sockets);
	assert_int_equal(c->netns.v[0].sample.sockets[STATS_SOCK_SMCD], 6);
	collector_free(c);
	kernel_free(inner);
	run("rm sockets");
}

/* The textfile of a collector on the fake kernel: every namespace under its label. */
static void test_textfile(void **state)
{
	_cleanup_(kernel_freep) struct kernel *k = fake();
	_cleanup_(freep) char *text = NULL;
	struct collector *c = NULL;
	char path[1024];
	FILE *f;
	size_t len = 0;

	mkns("a", 100);
	mkns("b", 200);
	put("netns/b/fail-stats", "1\n");
	setenv("STATE_DIRECTORY", dir, 1);
	snprintf(path, sizeof(path), "%s/smc.prom", dir);
	assert_int_equal(collector_new(10, &c), 0);
	assert_int_equal(collector_configure(c, 10000000, 10, path),
			 COLLECTOR_CHANGED_PROMETHEUS | COLLECTOR_CHANGED_INTERVAL);
	assert_int_equal(collector_configure_netns(c, true, NULL, 0, 32), 0);
	assert_true(collector_sample(c, k) >= 0);
	assert_int_equal(collector_export(c, &(struct objects){}), 0);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_true(getdelim(&text, &len, '\0', f) > 0);
	fclose(f);
	assert_non_null(strstr(
		text, "\nsmc_bytes_total{netns=\"host\",technology=\"smcd\",direction=\"tx\"} 7\n"));
	assert_non_null(strstr(
		text, "\nsmc_bytes_total{netns=\"a\",technology=\"smcd\",direction=\"tx\"} 100\n"));
	assert_null(strstr(text, "netns=\"b\",")); /* left out, not 0 */
	assert_non_null(strstr(text, "\nsmc_netns_up{netns=\"b\"} 0\n"));
	assert_non_null(strstr(text, "\nsmc_netns_up{netns=\"a\"} 1\n"));
	assert_non_null(strstr(text, "\nsmc_netns_left_out 0\n"));
	collector_free(c);
}

/* A socket dump that fails on its own (the counters read): the socket gauges are left out
 * (never 0), in the agent's namespace and in another, the counters stand, the failure is
 * kept to be said once, and the next dump that works counts again. */
static void test_socket_dump_fails(void **state)
{
	_cleanup_(kernel_freep) struct kernel *k = fake();
	struct collector *c = NULL;
	const struct stats_sample *host;

	put("sockets", "smcd 4\n");
	mkns("a", 100);
	put("netns/a/sockets", "smcd 6\n");
	put("fail-sockets", "105\n"); /* ENOBUFS */
	put("netns/a/fail-sockets", "105\n");
	setenv("STATE_DIRECTORY", dir, 1);
	assert_int_equal(collector_new(10, &c), 0);
	assert_int_equal(collector_configure_netns(c, true, NULL, 0, 32), 0);
	assert_true(collector_sample(c, k) >= 0);
	host = &c->engine->last;
	assert_true(host->ok);
	assert_int_equal(host->stats.smcd.tx_bytes, 7);
	assert_false(host->has_sockets);
	assert_int_equal(c->sockets_error, -ENOBUFS);
	assert_int_equal(c->netns.n, 1);
	assert_int_equal(c->netns.v[0].error, 0);
	assert_int_equal(c->netns.v[0].sockets_error, -ENOBUFS);
	assert_false(c->netns.v[0].sample.has_sockets);
	assert_int_equal(tx_bytes(&c->netns.v[0]), 100);
	/* Dumped again: counted, and no error kept. */
	run("rm fail-sockets netns/a/fail-sockets");
	assert_true(collector_sample(c, k) >= 0);
	host = &c->engine->last;
	assert_true(host->has_sockets);
	assert_int_equal(host->sockets[STATS_SOCK_SMCD], 4);
	assert_int_equal(c->sockets_error, 0);
	assert_int_equal(c->netns.v[0].sockets_error, 0);
	assert_true(c->netns.v[0].sample.has_sockets);
	assert_int_equal(c->netns.v[0].sample.sockets[STATS_SOCK_SMCD], 6);
	collector_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_all, reset),
		cmocka_unit_test_setup(test_identity, reset),
		cmocka_unit_test_setup(test_choice, reset),
		cmocka_unit_test_setup(test_failures, reset),
		cmocka_unit_test_setup(test_not_recoverable, reset),
		cmocka_unit_test_setup(test_textfile, reset),
		cmocka_unit_test_setup(test_cut_socket_dump, reset),
		cmocka_unit_test_setup(test_socket_dump_fails, reset),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
