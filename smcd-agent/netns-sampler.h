/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The statistics of other network namespaces (netns.c): which named namespaces of /run/netns
 * are sampled besides the agent's own (stats.netns, stats.netns-max), one kernel handle per
 * namespace while its name names it, and the last read of each.  The collector calls it at
 * every sample; prometheus.c writes what it holds with a netns label.
 *
 * The agent's own namespace is the engine's (stats.h: totals, baseline, persisted); these
 * are the kernel's counters as they are, read again at every sample and kept nowhere else.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netlink/smcnl.h"
#include "smcd-agent/stats-engine.h"

struct kernel;
struct kernel_netns;

/* The label of the agent's own namespace; a namespace with this name is left out. */
#define NETNS_HOST_LABEL "host"

struct netns_entry {
	struct smc_netns id;	    /* name (the label) and identity */
	struct kernel_netns *k;	    /* open while the name names this namespace */
	int error;		    /* the last read failed (sample left out): why; else 0 */
	int sockets_error;	    /* its last socket dump failed (gauges left out): why */
	struct stats_sample sample; /* the last read (when error is 0) */
};

struct netns_set {
	/* stats.netns, stats.netns-max */
	bool all;
	char **names; /* when !all: these only (none: 0 names) */
	size_t n_names;
	uint32_t max;
	/* The namespaces sampled, sorted by name. */
	struct netns_entry *v;
	size_t n;
	size_t left_out; /* named ones not sampled: over max, or named "host" */
	bool left_out_said;
	int list_error;
};

/* The configuration (start and reload); names are copied.  -ENOMEM. */
int netns_set_configure(struct netns_set *s, bool all, char *const *names, size_t n_names,
			uint32_t max);
/*
 * List the named namespaces, drop the handles of those gone (or whose name names another
 * namespace now), open the new ones and read each.  A namespace that cannot be entered or
 * read has its error set and no sample; the others are read all the same.  0, -ENOMEM, or
 * -ENOTRECOVERABLE: the thread could not come back from a namespace, and the agent must
 * stop.
 */
int netns_set_sample(struct netns_set *s, struct kernel *k);
/* Close every handle and forget the configuration. */
void netns_set_clear(struct netns_set *s);
