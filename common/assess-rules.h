/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Will SMC pay off here?  The pure half of `smcctl assess` (cli/assess.c collects): TCP
 * connection records in, per connection a class with its reason, per application and in
 * total the share of connections and bytes in each class with the expected direction of
 * the effect, and an smc.yaml fragment out.  No kernel, no /proc: the collector fills in
 * what it found about the host (is the peer a local address, which interface the route
 * leaves through, does it have an RDMA device), so the unit test can feed synthetic
 * records (tests/unit/test-common-assess.c) and the agent can run the same rules later.
 *
 * The thresholds and why they are where they are: smcctl(8), ASSESS.
 */
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

/* The kernel's SMC statistics buckets: <=8K 16K 32K 64K 128K 256K 512K 1024K >1024K. */
#define ASSESS_BUCKETS 9
#define ASSESS_COMM_LEN 16
#define ASSESS_CGROUP_LEN 256
/* A container's label, "podman:NAME" (common/container-ident.h), cut beyond. */
#define ASSESS_CONTAINER_LEN 128
#define ASSESS_WHY_LEN 256
#define ASSESS_IFNAME_LEN 16
#define ASSESS_RDMA_LEN 65 /* an RDMA device name */
#define ASSESS_PNETID_LEN 17
#define ASSESS_NETNS_LEN 64

/* Index of a send of len bytes: fls((len - 1) >> 13) capped at 8, as net/smc/smc_stats.h. */
unsigned assess_bucket(uint64_t len);
/* Upper bound of a bucket in bytes (the last one: 2 MiB, "more than 1 MiB"). */
uint64_t assess_bucket_size(unsigned bucket);

/* Can SMC carry the connection at all? */
enum assess_reach {
	ASSESS_REACH_SMCD, /* both ends on this host: SMC-D (loopback), across netns too */
	ASSESS_REACH_SMCR, /* the route leaves through an interface SMC-R has an RDMA port for */
	ASSESS_REACH_NONE, /* neither: SMC falls back to TCP */
	_ASSESS_REACH_MAX,
};

enum assess_class {
	ASSESS_WELL_SUITED,  /* SMC can carry it and its shape pays for the handshake */
	ASSESS_NOT_SUITED,   /* SMC can carry it, but it is short-lived or tiny */
	ASSESS_NOT_SERVABLE, /* SMC cannot carry it (reach none) */
	ASSESS_FAILED,	     /* never established (refused, timed out), peer on SMC's reach */
	_ASSESS_CLASS_MAX,
};

/* Stable names (JSON, the textfile): "smcd", "smcr", "none"; "well_suited", ... */
const char *assess_reach_name(enum assess_reach r);
const char *assess_class_name(enum assess_class c);

/* One end of a TCP connection as the collector saw it. */
struct assess_conn {
	uint64_t id; /* the collector's key (socket address or cookie): unique per record */
	uint64_t netns_cookie;
	uint32_t netns_inum;
	int family;		      /* AF_INET or AF_INET6 */
	struct in6_addr laddr, raddr; /* AF_INET: the address in s6_addr32[0] */
	uint16_t lport, rport;
	bool passive;	      /* the accepted end (the server's) */
	bool established;     /* reached ESTABLISHED */
	bool open;	      /* still open when the observation ended */
	bool before;	      /* open already when it started (first seen sending/receiving) */
	uint64_t lifetime_ns; /* from SYN to CLOSE; open: until the end (a lower bound) */
	uint64_t bytes_sent, bytes_received;
	uint64_t sends;		       /* sendmsg calls */
	uint64_t hist[ASSESS_BUCKETS]; /* sendmsg sizes */
	uint32_t pid;		       /* 0: unknown */
	char comm[ASSESS_COMM_LEN];
	uint64_t cgroup_id;
	char cgroup[ASSESS_CGROUP_LEN]; /* cgroup v2 path, "" unknown */
	/* its container as RUNTIME:NAME ("podman:smc-srv"), raw; "" none or not known */
	char container[ASSESS_CONTAINER_LEN];
	/* What the collector found out about the host (assess_host_fill(), assess-host.c). */
	bool peer_local;		   /* raddr is an address of this host (any netns) */
	char peer_netns[ASSESS_NETNS_LEN]; /* where, "" this one or unknown */
	char egress[ASSESS_IFNAME_LEN];	   /* interface of the route to the peer, "" unknown */
	/* SMC-R's choice of RDMA port for that interface, in its netns (smcr_reach_list()) */
	bool egress_rdma;		/* SMC-R can leave through it: rdma_dev, rdma_port */
	char rdma_dev[ASSESS_RDMA_LEN]; /* "" none */
	uint8_t rdma_port;
	char egress_lower[ASSESS_IFNAME_LEN]; /* the device below it SMC looks at, "" itself */
	bool egress_lower_elsewhere;	      /* that device is in another netns: not looked at */
	char pnetid[ASSESS_PNETID_LEN];	      /* its PNET ID, "" none */
	int rdma_err;			      /* -errno: could not be told (rdma_dev "") */
	/* Set by assess_classify(). */
	enum assess_reach reach;
	enum assess_class cls;
	char why[ASSESS_WHY_LEN];
	int pair; /* index of the other end's record when both were seen, else -1 */
	bool smc; /* SMC carried it (bytes_* then include what SMC moved); false: TCP or unknown */
};

struct assess_thresholds {
	uint64_t short_ns;   /* closed connections living less are "short-lived" */
	uint64_t tiny_bytes; /* moving less (both directions) ... */
	uint64_t tiny_sends; /* ... in fewer sends than this is "tiny" */
	unsigned major_pct;  /* an application's verdict needs this share of connections */
};
/* 100 ms, 64 KiB, 16 sends, 50 %. */
void assess_thresholds_default(struct assess_thresholds *t);

/* Reach, class and reason of one record. */
void assess_classify(struct assess_conn *c, const struct assess_thresholds *t);

/* Mark the two ends of connections both seen on this host (pair fields), then classify all. */
void assess_classify_all(struct assess_conn *v, size_t n, const struct assess_thresholds *t);

struct assess_meta {
	const char *method;	   /* "bpf" or "sock_diag" */
	const char *method_reason; /* why not bpf, or NULL */
	const char *coverage;	   /* what was observed, one sentence */
	double duration_s;
	const char *scope; /* "this network namespace", "all network namespaces", ... */
	uint64_t dropped;  /* records lost (ring buffer full, table full) */
};

/*
 * The whole answer: {method, method_reason, coverage, duration_usec, scope, dropped,
 * thresholds, total, applications[], connections[], fragment}.  The records must have
 * been classified.  NULL: out of memory.
 */
json_object *assess_report_json(const struct assess_conn *v, size_t n,
				const struct assess_thresholds *t, const struct assess_meta *m);

/*
 * The smc.yaml fragment alone (malloc'd text, NULL: out of memory): policies.cgroups for
 * the applications likely faster, policies.exclude for servers whose connections are mostly
 * not suited, sysctl wmem/rmem from the send sizes of the well-suited connections.  Comment
 * lines say what was left out and why.
 */
char *assess_fragment(const struct assess_conn *v, size_t n, const struct assess_thresholds *t);

/* Buffer size for sends of these sizes: 2 x the 90th percentile, power of 2, 64 KiB..1 MiB. */
uint64_t assess_buffer_size(const uint64_t hist[ASSESS_BUCKETS]);

/*
 * The same in pieces, for an observation that does not keep every record: the agent's
 * continuous assessment (smcd-agent/assess-continuous.c) adds a window's records a batch at a time,
 * classified (assess_classify_all() over the batch), and frees them.  Two ends of one
 * connection that fall into two batches are not paired: they count as two connections.
 * max_apps bounds the applications (0: no bound); those beyond are summed into one named
 * ASSESS_OTHER.  NULL: out of memory.
 */
#define ASSESS_OTHER "other"
struct assess_sum;
struct assess_sum *assess_sum_new(size_t max_apps);
/* -ENOMEM: the sum is unusable (its documents are NULL). */
int assess_sum_add(struct assess_sum *s, const struct assess_conn *v, size_t n,
		   const struct assess_thresholds *t);
/* Records added so far. */
uint64_t assess_sum_ends(const struct assess_sum *s);
/* The report document as assess_report_json() makes it, without connections[]. */
json_object *assess_sum_json(const struct assess_sum *s, const struct assess_thresholds *t,
			     const struct assess_meta *m);
char *assess_sum_fragment(const struct assess_sum *s, const struct assess_thresholds *t);
struct assess_sum *assess_sum_free(struct assess_sum *s);

/*
 * For the Prometheus textfile: the totals by class and by reach, and the top applications
 * by bytes with their verdict; the others (and the sum's own ASSESS_OTHER) are summed into
 * one named ASSESS_OTHER, without a verdict.  At most top + 1 applications: the label
 * values stay bounded.
 */
struct assess_app_gauge {
	char name[ASSESS_CGROUP_LEN];
	uint64_t conns[_ASSESS_CLASS_MAX], bytes[_ASSESS_CLASS_MAX];
	const char *verdict; /* NULL: ASSESS_OTHER */
};
struct assess_gauges {
	uint64_t conns[_ASSESS_CLASS_MAX], bytes[_ASSESS_CLASS_MAX];
	uint64_t reach[_ASSESS_REACH_MAX];
	struct assess_app_gauge *apps; /* malloc'd */
	size_t n_apps;
};
int assess_sum_gauges(const struct assess_sum *s, size_t top, struct assess_gauges *ret);
void assess_gauges_done(struct assess_gauges *g);
/* "likely-faster", "likely-slower", "no-change", "mixed": the verdicts gauges name. */
extern const char *const assess_verdict_names[];
extern const size_t assess_n_verdicts;

/* ---- the host (assess-host.c): what the collector finds out for the rules ------------ */

struct assess_host;
/*
 * Note every network namespace this process can enter (this one, /run/netns, those of
 * processes: entering another's needs CAP_SYS_ADMIN and CAP_SYS_PTRACE) with its addresses.
 * -ENOMEM, or -errno when the return to this process's own namespace failed.
 */
int assess_host_scan(struct assess_host **ret);
size_t assess_host_netns(const struct assess_host *h);
/*
 * Fill in netns_inum, peer_local, peer_netns, egress and what SMC-R would use there (the
 * routes and RDMA ports in the record's own namespace, asked from inside it).  -errno when the
 * return to this process's own namespace failed: the caller must stop.
 */
int assess_host_fill(struct assess_host *h, struct assess_conn *v, size_t n);
struct assess_host *assess_host_free(struct assess_host *h);
/*
 * The cgroup v2 path of each record's cgroup_id: one walk of /sys/fs/cgroup; and the
 * container of that cgroup, when its runtime's state names it (common/container-ident.c).
 */
void assess_cgroup_names(struct assess_conn *v, size_t n);
/*
 * A record of bpf/smc_assess as the rules take it: lifetime from start_ns (when the
 * observation began: for those open before it) to end_ns (its end: for those still open),
 * CLOCK_MONOTONIC as bpf_ktime_get_ns().
 */
struct smcbpf_assess_rec;
void assess_conn_from_bpf(struct assess_conn *c, const struct smcbpf_assess_rec *r,
			  uint64_t start_ns, uint64_t end_ns);
/* This process's network namespace cookie (SO_NETNS_COOKIE, Linux 5.14); 0: unknown. */
uint64_t assess_netns_cookie(void);

/* Text of a report document (smcctl's renderer; shared so the agent's later view agrees). */
void assess_report_text(FILE *f, json_object *doc, unsigned detail);
