// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics of other network namespaces (netns.h).
 *
 * The kernel keeps the SMC counters (GET_STATS, GET_FBACK_STATS) and answers the smc_diag
 * dump per network namespace, for the namespace the netlink socket was created in: a
 * container in its own namespace is invisible to the agent's sockets.  So the agent keeps a
 * handle per named namespace (kernel.h: netns_open(), whose sockets are created inside it)
 * and reads it at every sample.  A namespace is known by its identity (device and inode of
 * its nsfs file), not its name: a name removed and added again is a new namespace, whose
 * counters start at 0, and gets a new handle; a name that disappears closes its handle (an
 * open handle would keep the deleted namespace alive).  The agent's own namespace is never
 * sampled twice, whatever its name; of two names for one namespace the first (by name) is
 * sampled.
 *
 * At most max namespaces are sampled, the first by name; the others are counted
 * (smc_netns_left_out) and said once in the journal, as is a namespace named "host", the
 * label of the agent's own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "smcd-agent/kernel.h"
#include "smcd-agent/log.h"
#include "smcd-agent/netns-sampler.h"

static void names_clear(struct netns_set *s)
{
	for (size_t i = 0; i < s->n_names; i++)
		free(s->names[i]);
	free(s->names);
	s->names = NULL;
	s->n_names = 0;
}

static void entries_clear(struct netns_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		kernel_netns_free(s->v[i].k);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

void netns_set_clear(struct netns_set *s)
{
	entries_clear(s);
	names_clear(s);
	*s = (struct netns_set){};
}

int netns_set_configure(struct netns_set *s, bool all, char *const *names, size_t n_names,
			uint32_t max)
{
	char **v = n_names ? calloc(n_names, sizeof(*v)) : NULL;

	if (n_names && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n_names; i++) {
		v[i] = strdup(names[i]);
		if (!v[i]) {
			while (i > 0)
				free(v[--i]);
			free(v);
			return -ENOMEM;
		}
	}
	names_clear(s);
	s->names = v;
	s->n_names = n_names;
	s->all = all;
	s->max = max;
	return 0;
}

static bool same_ns(const struct smc_netns *a, const struct smc_netns *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

static bool netns_wanted(const struct netns_set *s, const char *name)
{
	if (s->all)
		return true;
	for (size_t i = 0; i < s->n_names; i++)
		if (streq(s->names[i], name))
			return true;
	return false;
}

/*
 * Which of the listed namespaces (sorted by name) are sampled: in place, returns how many;
 * the others that were wanted are counted in *ret_left_out.
 */
static size_t choose(const struct netns_set *s, const struct smc_netns *self, struct smc_netns *v,
		     size_t n, size_t *ret_left_out)
{
	size_t o = 0, left_out = 0;

	for (size_t i = 0; i < n; i++) {
		bool dup = same_ns(&v[i], self);

		for (size_t j = 0; j < o && !dup; j++)
			dup = same_ns(&v[i], &v[j]);
		if (dup || !netns_wanted(s, v[i].name))
			continue;
		if (streq(v[i].name, NETNS_HOST_LABEL) || o >= s->max) {
			left_out++;
			continue;
		}
		v[o++] = v[i];
	}
	*ret_left_out = left_out;
	return o;
}

static void say_left_out(struct netns_set *s, size_t left_out)
{
	if (left_out && !s->left_out_said)
		log_warning(
			"%zu named network namespace%s not sampled (over stats.netns-max, %u, or named \"%s\", the label of the agent's own): see smc_netns_left_out",
			left_out, left_out == 1 ? " is" : "s are", s->max, NETNS_HOST_LABEL);
	s->left_out_said = left_out > 0;
	s->left_out = left_out;
}

/* The new set: entries of the same name and identity kept (handle and all), others new. */
static int netns_reconcile(struct netns_set *s, const struct smc_netns *want, size_t n)
{
	struct netns_entry *v = n ? calloc(n, sizeof(*v)) : NULL;

	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i].id = want[i];
		for (size_t j = 0; j < s->n; j++)
			if (s->v[j].id.name[0] && streq(s->v[j].id.name, want[i].name) &&
			    same_ns(&s->v[j].id, &want[i])) {
				v[i] = s->v[j];
				s->v[j].k = NULL;
				s->v[j].id.name[0] = '\0'; /* taken */
				break;
			}
	}
	entries_clear(s);
	s->v = v;
	s->n = n;
	return 0;
}

static void say_error(const struct netns_entry *e, int was, int r)
{
	if (r == was)
		return;
	if (r == 0)
		log_info("The SMC statistics of network namespace %s can be read again", e->id.name);
	else if (r == -ENOENT || r == -ESTALE)
		/* Deleted (or replaced) between the listing and the read: gone at the next. */
		log_debug("Network namespace %s is gone: %s", e->id.name, strerror(-r));
	else if (r == -EMEDIUMTYPE)
		/* entry_read(): the file in /run/netns is no namespace. */
		log_warning(
			"/run/netns/%s is not a network namespace (a stale file left by an ip netns add that failed): its series are left out (smc_netns_up 0); remove it with: ip netns delete %s",
			e->id.name, e->id.name);
	else
		log_warning(
			"Cannot read the SMC statistics of network namespace %s: %s; its series are left out (smc_netns_up 0) until a read succeeds",
			e->id.name, strerror(-r));
}

static void netns_say_sockets_error(struct netns_entry *e, int r)
{
	bool failed = r < 0 && r != -EPROTONOSUPPORT;

	if (failed && r != e->sockets_error)
		log_warning(
			"Cannot dump the SMC sockets of network namespace %s: %s; its smc_sockets and smc_fallback_sockets are left out until a dump succeeds",
			e->id.name, strerror(-r));
	else if (!failed && e->sockets_error < 0)
		log_info("The SMC sockets of network namespace %s can be dumped again", e->id.name);
	e->sockets_error = failed ? r : 0;
}

/* Counters and fallback reasons, then the sockets (without smc_diag the counters stand). */
static int entry_read(struct kernel *k, struct netns_entry *e)
{
	struct stats_sample s = {};
	int r;

	if (!e->k) {
		r = k->ops->netns_open(k, &e->id, &e->k);
		if (r < 0) {
			e->k = NULL;
			/* smcnl_open_netns()'s -EINVAL: the file is no network namespace (told
			 * apart from a read's -EINVAL, for say_error()). */
			return r == -EINVAL ? -EMEDIUMTYPE : r;
		}
	}
	r = e->k->ops->stats(e->k, &s.stats);
	if (r >= 0)
		r = e->k->ops->fback_stats(e->k, &s.fback);
	if (r < 0)
		return r;
	s.ok = true;
	stats_sample_sockets_begin(&s);
	r = e->k->ops->sockets(e->k, stats_sample_count_socket, &s);
	if (r == -ENOTRECOVERABLE)
		return r;
	/* The counters stand; a failed dump leaves the socket gauges out, never "no sockets",
	 * and the journal says so once (without smc_diag, -EPROTONOSUPPORT, info says why). */
	netns_say_sockets_error(e, r);
	stats_sample_sockets_end(&s, r);
	e->sample = s;
	return 0;
}

int netns_set_sample(struct netns_set *s, struct kernel *k)
{
	_cleanup_(freep) struct smc_netns *v = NULL;
	struct smc_netns self;
	size_t n = 0, left_out = 0;
	int r;

	if ((!s->all && !s->n_names) || !k->ops->netns_list) {
		entries_clear(s);
		say_left_out(s, 0);
		return 0;
	}
	r = k->ops->netns_list(k, &self, &v, &n);
	if (r < 0) {
		/* Not "no namespaces": the ones known stay, unread, and say so. */
		if (r != s->list_error)
			log_warning_errno(
				r,
				"Cannot list the network namespaces in /run/netns: %m; their SMC statistics are left out until it works");
		s->list_error = r;
		for (size_t i = 0; i < s->n; i++)
			s->v[i].error = r;
		return r == -ENOMEM ? r : 0;
	}
	if (s->list_error)
		log_info("The network namespaces in /run/netns can be listed again");
	s->list_error = 0;
	n = choose(s, &self, v, n, &left_out);
	say_left_out(s, left_out);
	r = netns_reconcile(s, v, n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->n; i++) {
		struct netns_entry *e = &s->v[i];
		int was = e->error;

		r = entry_read(k, e);
		if (r == -ENOTRECOVERABLE)
			return r;
		say_error(e, was, r < 0 ? r : 0);
		e->error = r < 0 ? r : 0;
	}
	return 0;
}
