// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The continuous assessment (assess.h).  One window after the other, each
 * assess.interval long, timed from the start of observation (CLOCK_MONOTONIC, so a
 * clock change does not cut a window short).  While it is on the agent wakes once a
 * second to read the ring buffer (4 MiB, about 20,000 closed connections: a host closing
 * more per second loses some, counted as dropped), and once per window for its end; off,
 * it costs nothing.  A window's host facts (network namespaces, their addresses, RDMA
 * interfaces) are read once, at its first batch: a namespace created later in the window
 * is known from the next one.
 *
 * What a window says about a connection open at its end is its shape so far: bytes and
 * sends since it opened (or since the observation began), its lifetime a lower bound.
 * So a long-lived connection is in every window it is open in, with its whole history.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "common/assess-rules.h"
#include "common/bus-api.h"
#include "common/clock.h"
#include "common/macro.h"
#include "common/output.h"
#include "smcd-agent/assess-continuous.h"
#include "smcd-agent/autopilot.h"
#include "smcd-agent/bus-snapshot.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"

#ifdef HAVE_BPF
#include "bpf/smcbpf.h"
#endif

#define READ_USEC USEC_PER_SEC
#define BATCH 1024

struct assess_agent {
	struct manager *m;
	uint64_t interval_usec;
	uint32_t applications;
	int err;
	char why[512];
#ifdef HAVE_BPF
	struct smcbpf_assess *bpf;
#endif
	sd_event_source *read_timer, *window_timer;
	uint64_t observe_start_ns; /* the programs were attached (CLOCK_MONOTONIC) */
	uint64_t window_start_ns, window_end_ns;
	uint64_t window_start_real_usec;
	uint64_t dropped_base; /* the programs' dropped counter when the window began */
	struct assess_thresholds th;
	struct assess_conn *batch; /* BATCH records */
	size_t n_batch;
	struct assess_sum *sum;
	struct assess_host *host; /* this window's, from its first batch on */
	bool failed; /* the window lost records (memory, a read): said in its document */
	/* The last window. */
	char *doc;
	struct assess_gauges gauges;
	bool has_gauges;
	uint64_t windows, end_real_usec, dropped;
	double seconds;
};

/* org.smcd.Agent1.Assessment's properties changed (bus-assess.c serves them). */
static void announce(struct manager *m)
{
	(void)bus_snapshot_emit_changed(m->bus, SMCD_BUS_PATH, SMCD_BUS_IFACE_ASSESSMENT,
					(const char *const[]){
						SMCD_BUS_ASSESS_AVAILABLE,
						SMCD_BUS_ASSESS_ERROR,
						SMCD_BUS_ASSESS_INTERVAL_USEC,
						SMCD_BUS_ASSESS_WINDOWS,
						SMCD_BUS_ASSESS_WINDOW_END_USEC,
						NULL,
					});
}

bool assess_enabled(const struct manager *m)
{
	return m->assess != NULL;
}

const char *assess_error(const struct manager *m)
{
	return m->assess && m->assess->err ? m->assess->why : NULL;
}

uint64_t assess_windows(const struct manager *m)
{
	return m->assess ? m->assess->windows : 0;
}

uint64_t assess_window_end_usec(const struct manager *m)
{
	return m->assess ? m->assess->end_real_usec : 0;
}

const char *assess_document(const struct manager *m)
{
	return m->assess ? m->assess->doc : NULL;
}

const struct assess_gauges *assess_gauges(const struct manager *m)
{
	return m->assess && m->assess->has_gauges ? &m->assess->gauges : NULL;
}

void assess_window_facts(const struct manager *m, double *ret_seconds, uint64_t *ret_dropped)
{
	*ret_seconds = m->assess ? m->assess->seconds : 0;
	*ret_dropped = m->assess ? m->assess->dropped : 0;
}

#ifdef HAVE_BPF
/* Classify the batch with this window's host facts, add it up, drop the records. */
static void flush(struct assess_agent *a)
{
	int r;

	if (!a->n_batch)
		return;
	if (!a->sum) { /* out of memory when the window began: it is said in its document */
		a->failed = true;
		a->n_batch = 0;
		return;
	}
	if (!a->host) {
		r = assess_host_scan(&a->host);
		if (r < 0 && r != -ENOMEM) {
			/* In another network namespace than our own: nothing may go on here. */
			log_error_errno(r, "Assessment: cannot return to the agent's network "
					   "namespace: %m; stopping");
			(void)sd_event_exit(a->m->event, EXIT_FAILURE);
			a->n_batch = 0;
			return;
		}
	}
	assess_cgroup_names(a->batch, a->n_batch);
	if (a->host) {
		r = assess_host_fill(a->host, a->batch, a->n_batch);
		if (r < 0) {
			log_error_errno(r, "Assessment: cannot return to the agent's network "
					   "namespace: %m; stopping");
			(void)sd_event_exit(a->m->event, EXIT_FAILURE);
			a->n_batch = 0;
			return;
		}
	} else
		a->failed = true; /* out of memory: peers are judged by their address only */
	assess_classify_all(a->batch, a->n_batch, &a->th);
	autopilot_batch(a->m, a->batch, a->n_batch);
	if (assess_sum_add(a->sum, a->batch, a->n_batch, &a->th) < 0)
		a->failed = true;
	a->n_batch = 0;
}

static void assess_agent_rec_add(const struct smcbpf_assess_rec *r, void *arg)
{
	struct assess_agent *a = arg;

	if (a->n_batch == BATCH)
		flush(a);
	assess_conn_from_bpf(&a->batch[a->n_batch++], r, a->observe_start_ns, a->window_end_ns);
}

/*
 * Read what closed since the last read.  The ring cannot fail short of a broken map; if it
 * does, the window says it misses connections and the journal says why, once a window.
 */
static void read_ring(struct assess_agent *a)
{
	int r = smcbpf_assess_consume(a->bpf);

	if (r >= 0 || r == -EINTR)
		return;
	if (!a->failed)
		log_warning_errno(r, "Assessment: cannot read the ring buffer of closed "
				     "connections: %m; this window misses some");
	a->failed = true;
}

static int on_read(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct assess_agent *a = userdata;

	read_ring(a);
	(void)sd_event_source_set_time(s, usec + READ_USEC);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static const char *const coverage =
	"connections that closed during the window and those open at its end (their bytes and "
	"sends since they opened, or since the agent began observing; the lifetime of an open "
	"one is a lower bound)";

/* The window ends: what it adds up to becomes the last window; the next one begins. */
static void window_end(struct assess_agent *a)
{
	struct assess_meta meta = { .method = "bpf",
				    .coverage = coverage,
				    .scope = "all network namespaces" };
	_cleanup_(json_object_putp) json_object *doc = NULL;
	uint64_t dropped = smcbpf_assess_dropped(a->bpf);
	uint64_t end_usec = now_usec(CLOCK_REALTIME);
	struct assess_gauges g;
	json_object *w;
	char *text;
	int r;

	a->window_end_ns = now_nsec(CLOCK_MONOTONIC);
	read_ring(a);
	r = smcbpf_assess_snapshot(a->bpf, assess_agent_rec_add, a);
	if (r < 0) {
		log_warning_errno(r, "Assessment: cannot read the open connections: %m");
		a->failed = true;
	}
	flush(a);
	meta.duration_s = (double)(a->window_end_ns - a->window_start_ns) / 1e9;
	autopilot_window_end(a->m, a->windows + 1, meta.duration_s);
	meta.dropped = dropped - a->dropped_base;
	if (a->failed)
		meta.method_reason = "some connections of this window are missing: the agent ran "
				     "out of memory or could not read the connections (see the "
				     "journal)";
	doc = assess_sum_json(a->sum, &a->th, &meta);
	w = json_object_new_object();
	if (!doc || !w || assess_sum_gauges(a->sum, a->applications, &g) < 0) {
		json_object_put(w);
		log_warning("Assessment: out of memory at the end of a window; it is lost");
	} else {
		json_object_object_add(w, "number", json_object_new_uint64(a->windows + 1));
		json_object_object_add(w, "start_usec",
				       json_object_new_uint64(a->window_start_real_usec));
		json_object_object_add(w, "end_usec", json_object_new_uint64(end_usec));
		json_object_object_add(w, "interval_usec", json_object_new_uint64(a->interval_usec));
		json_object_object_add(doc, "window", w);
		text = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
		if (!text) {
			assess_gauges_done(&g);
			log_warning("Assessment: out of memory at the end of a window; it is lost");
		} else {
			free(a->doc);
			a->doc = text;
			if (a->has_gauges)
				assess_gauges_done(&a->gauges);
			a->gauges = g;
			a->has_gauges = true;
			a->windows++;
			a->end_real_usec = end_usec;
			a->seconds = meta.duration_s;
			a->dropped = meta.dropped;
			log_fields(LOG_INFO, 0, NULL,
				   "Assessment window %" PRIu64 ": %" PRIu64
				   " connection ends (%.0f s); smcctl assess --agent shows it",
				   a->windows, assess_sum_ends(a->sum), meta.duration_s);
		}
	}
	a->sum = assess_sum_free(a->sum);
	a->host = assess_host_free(a->host);
	a->failed = false;
	a->sum = assess_sum_new(ASSESS_APPLICATIONS_MAX);
	if (!a->sum)
		a->failed = true;
	a->window_start_ns = a->window_end_ns;
	a->window_start_real_usec = end_usec;
	a->dropped_base = dropped;
	announce(a->m);
}

static int on_window(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct assess_agent *a = userdata;

	if (!a->sum) {
		/* The window had no sum (out of memory): what it saw is lost, and it says so. */
		a->sum = assess_sum_new(ASSESS_APPLICATIONS_MAX);
		a->failed = true;
	}
	if (a->sum)
		window_end(a);
	/* From the scheduled end, not from now: windows stay back to back. */
	(void)sd_event_source_set_time(s, usec + a->interval_usec);
	return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int start_bpf(struct assess_agent *a)
{
	uint64_t now;
	int r;

	r = smcbpf_assess_open(assess_agent_rec_add, a, &a->bpf, a->why, sizeof(a->why));
	if (r < 0)
		return r;
	r = sd_event_now(a->m->event, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(a->m->event, &a->read_timer, CLOCK_MONOTONIC, now + READ_USEC,
				      USEC_PER_SEC / 10, on_read, a);
	if (r >= 0)
		r = sd_event_add_time(a->m->event, &a->window_timer, CLOCK_MONOTONIC,
				      now + a->interval_usec, USEC_PER_SEC / 10, on_window, a);
	if (r < 0) {
		snprintf(a->why, sizeof(a->why), "cannot set up its timers: %s", strerror(-r));
		return r;
	}
	a->observe_start_ns = a->window_start_ns = now_nsec(CLOCK_MONOTONIC);
	a->window_start_real_usec = now_usec(CLOCK_REALTIME);
	return 0;
}
#endif

static void agent_free(struct assess_agent *a)
{
	if (!a)
		return;
	sd_event_source_disable_unref(a->read_timer);
	sd_event_source_disable_unref(a->window_timer);
#ifdef HAVE_BPF
	/* Everything the kernel holds for the assessment ends here: programs detach, maps go. */
	smcbpf_assess_free(a->bpf);
#endif
	assess_sum_free(a->sum);
	assess_host_free(a->host);
	if (a->has_gauges)
		assess_gauges_done(&a->gauges);
	free(a->batch);
	free(a->doc);
	free(a);
}

void assess_stop(struct manager *m)
{
	agent_free(m->assess);
	m->assess = NULL;
}

void assess_configure(struct manager *m)
{
	const struct config *c = m->config;
	struct assess_agent *a = m->assess;

	if (a && a->interval_usec == config_assess_window_usec(m->config)) {
		a->applications = c->assess.applications; /* from the next window on */
		return;
	}
	/* Off, or a new window length: the windows start over (a half window of the old
	 * length would be neither). */
	assess_stop(m);
	if (!config_assess_window_usec(m->config)) {
		announce(m);
		return;
	}
	a = calloc(1, sizeof(*a));
	if (!a || !(a->batch = calloc(BATCH, sizeof(*a->batch))) ||
	    !(a->sum = assess_sum_new(ASSESS_APPLICATIONS_MAX))) {
		agent_free(a);
		log_warning("Assessment: out of memory; it stays off");
		return;
	}
	a->m = m;
	a->interval_usec = config_assess_window_usec(m->config);
	a->applications = c->assess.applications;
	assess_thresholds_default(&a->th);
	m->assess = a;
	if (m->fallback_no_kernel) {
		a->err = -ENOTSUP;
		snprintf(a->why, sizeof(a->why), "%s", m->fallback_no_kernel);
	} else {
#ifdef HAVE_BPF
		a->err = start_bpf(a);
		if (a->err < 0) {
			smcbpf_assess_free(a->bpf);
			a->bpf = NULL;
			sd_event_source_disable_unref(a->read_timer);
			sd_event_source_disable_unref(a->window_timer);
			a->read_timer = a->window_timer = NULL;
		}
#else
		a->err = -ENOTSUP;
		snprintf(a->why, sizeof(a->why),
			 "smcd-agent was built without BPF support (configure --disable-bpf)");
#endif
	}
	if (a->err < 0)
		log_warning("Assessment is unavailable: %s", a->why);
	else
		log_info("Assessment: observing TCP connections in windows of %" PRIu64 " s",
			 (uint64_t)(a->interval_usec / USEC_PER_SEC));
	announce(m);
}
