// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The statistics state file: what the agent cannot read again from the kernel after a
 * restart.  That is the reset baseline, the link-group and epoch counts, the u16 wraps of
 * the fallback reasons, and the raw values they were computed from (with those a restarted
 * agent continues exactly: total + (kernel now - raw then)).
 *
 *   # smcd-agent statistics state (see smcd-agent(8)); the agent rewrites it
 *   version 1
 *   boot_id 3a0c...
 *   reset_usec 1718000000000000
 *   counter smcd.rx.bytes RAW TOTAL BASELINE
 *   reason server 0x03030008 RAW TOTAL BASELINE
 *   linkgroup smcd 00000100 FIRST_SEEN_USEC PEAK_CONNS
 *   device smcd lo SEEN_TOTAL SEEN_BASELINE
 *
 * One file per agent, in its StateDirectory, mode 0600 (root only), written atomically.  Not
 * /tmp, not per user: smc-tools' per-UID /tmp cache was shared by every network namespace,
 * writable by anyone and broke on each layout change; keys by name are what keeps this one
 * readable across versions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "smcd-agent/stats.h"

#define STATE_VERSION 1

void stats_boot_id(char ret[40])
{
	_cleanup_(fclosep) FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	ret[0] = '\0';
	if (!f || !fgets(ret, 40, f))
		ret[0] = '\0';
	ret[strcspn(ret, "\n")] = '\0';
}

static void put_counter(FILE *f, const char *key, const struct stats_counter *c)
{
	fprintf(f, "counter %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", key, c->raw, c->total,
		c->baseline);
}

/* Names go in a line with blanks as separators: one with a blank (never seen) is left out. */
static bool name_ok(const char *s)
{
	return s[0] && !strpbrk(s, " \t\n\r");
}

static char *state_text(const struct stats_engine *e, const char *boot_id)
{
	size_t n, len = 0;
	const struct stats_desc *t = stats_table(&n);
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "# smcd-agent statistics state (see smcd-agent(8)); the agent rewrites it\n");
	fprintf(f, "version %d\nboot_id %s\nreset_usec %" PRIu64 "\n", STATE_VERSION, boot_id,
		e->reset_real_usec);
	for (size_t i = 0; i < n; i++)
		if (t[i].kind == STATS_COUNTER)
			put_counter(f, t[i].key, &e->counters[i]);
	for (size_t i = 0; i < _STATS_AGENT_MAX; i++)
		put_counter(f, stats_agent_key(i), &e->agent[i]);
	for (size_t i = 0; i < e->n_reasons; i++) {
		const struct stats_reason *r = &e->reasons[i];

		fprintf(f, "reason %s 0x%08" PRIx32 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			r->server ? "server" : "client", r->code, r->c.raw, r->c.total, r->c.baseline);
	}
	for (size_t i = 0; i < e->n_lgrs; i++)
		fprintf(f, "linkgroup %s %08" PRIx32 " %" PRIu64 " %" PRIu32 "\n",
			e->lgrs[i].technology, e->lgrs[i].id, e->lgrs[i].first_seen_usec,
			e->lgrs[i].peak_conns);
	for (size_t i = 0; i < e->n_devices; i++)
		if (name_ok(e->devices[i].name))
			fprintf(f, "device %s %s %" PRIu64 " %" PRIu64 "\n", e->devices[i].technology,
				e->devices[i].name, e->devices[i].seen.total,
				e->devices[i].seen.baseline);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int stats_state_save(const struct stats_engine *e, const char *path, const char *boot_id)
{
	_cleanup_(freep) char *text = state_text(e, boot_id);

	if (!text)
		return -ENOMEM;
	return textfile_write_atomic(path, text, strlen(text), 0600);
}

/* ------------------------------------------------------------------------------------- */
/* Load                                                                                   */

static void restore_counter(struct stats_counter *c, uint64_t raw, uint64_t total,
			    uint64_t baseline)
{
	/* A baseline above the total is a damaged file: no reset then. */
	*c = (struct stats_counter){ .raw = raw, .total = total,
				     .baseline = baseline <= total ? baseline : 0,
				     .last = total, .prev = total };
}

static int load_counter(struct stats_engine *e, const char *line)
{
	char key[100];
	uint64_t raw, total, base;
	int i;

	if (sscanf(line, "counter %99s %" SCNu64 " %" SCNu64 " %" SCNu64, key, &raw, &total,
		   &base) != 4)
		return 0;
	i = stats_table_find(key);
	if (i >= 0) {
		restore_counter(&e->counters[i], raw, total, base);
		return 0;
	}
	for (size_t a = 0; a < _STATS_AGENT_MAX; a++)
		if (streq(key, stats_agent_key(a)))
			restore_counter(&e->agent[a], raw, total, base);
	return 0;
}

static int load_reason(struct stats_engine *e, const char *line)
{
	char side[16];
	uint32_t code;
	uint64_t raw, total, base;
	struct stats_reason *v;

	if (sscanf(line, "reason %15s %" SCNx32 " %" SCNu64 " %" SCNu64 " %" SCNu64, side, &code,
		   &raw, &total, &base) != 5 || raw > UINT16_MAX)
		return 0;
	v = realloc(e->reasons, (e->n_reasons + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->reasons = v;
	v = &e->reasons[e->n_reasons++];
	memset(v, 0, sizeof(*v));
	v->server = streq(side, "server");
	v->code = code;
	restore_counter(&v->c, raw, total, base);
	/* Slots only fill while the kernel runs: a reason with a raw count is itemised (one
	 * whose u16 wrapped to exactly 0 is not counted, which can only hide an epoch). */
	e->n_reasons_raw += raw > 0;
	return 0;
}

static int load_lgr(struct stats_engine *e, const char *line)
{
	char tech[8];
	uint32_t id, peak;
	uint64_t first;
	struct stats_lgr *v;

	if (sscanf(line, "linkgroup %7s %" SCNx32 " %" SCNu64 " %" SCNu32, tech, &id, &first,
		   &peak) != 4 || (!streq(tech, "smcd") && !streq(tech, "smcr")))
		return 0;
	v = realloc(e->lgrs, (e->n_lgrs + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->lgrs = v;
	v = &e->lgrs[e->n_lgrs++];
	memset(v, 0, sizeof(*v));
	snprintf(v->technology, sizeof(v->technology), "%s", tech);
	v->id = id;
	v->first_seen_usec = first;
	v->peak_conns = peak;
	return 0;
}

static int load_device(struct stats_engine *e, const char *line)
{
	char tech[8], name[SMC_IB_NAME_LEN + 1];
	uint64_t total, base;
	struct stats_device *v;

	if (sscanf(line, "device %7s %64s %" SCNu64 " %" SCNu64, tech, name, &total, &base) != 4)
		return 0;
	v = realloc(e->devices, (e->n_devices + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->devices = v;
	v = &e->devices[e->n_devices++];
	memset(v, 0, sizeof(*v));
	snprintf(v->technology, sizeof(v->technology), "%s", tech);
	snprintf(v->name, sizeof(v->name), "%s", name);
	restore_counter(&v->seen, 0, total, base);
	return 0;
}

static int load_line(struct stats_engine *e, const char *line)
{
	static const struct {
		const char *word;
		int (*load)(struct stats_engine *e, const char *line);
	} kinds[] = {
		{ "counter ", load_counter },
		{ "reason ", load_reason },
		{ "linkgroup ", load_lgr },
		{ "device ", load_device },
	};

	for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
		if (strncmp(line, kinds[i].word, strlen(kinds[i].word)) == 0)
			return kinds[i].load(e, line);
	return 0; /* comments, and lines of a newer agent */
}

/* The header: version and boot; 1 when the rest applies to this boot. */
static int header(FILE *f, const char *boot_id, uint64_t *ret_reset)
{
	char line[256], boot[64] = "";
	int version = -1;

	*ret_reset = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "version %d", &version) == 1 ||
		    sscanf(line, "boot_id %63s", boot) == 1)
			continue;
		if (sscanf(line, "reset_usec %" SCNu64, ret_reset) == 1)
			break;
		return 0;
	}
	return version == STATE_VERSION && boot_id[0] && streq(boot, boot_id);
}

int stats_state_load(struct stats_engine *e, const char *path, const char *boot_id)
{
	_cleanup_(fclosep) FILE *f = fopen(path, "re");
	char line[512];
	uint64_t reset;
	int r;

	if (!f)
		return errno == ENOENT ? 0 : negative_errno();
	r = header(f, boot_id, &reset);
	if (r <= 0)
		return r; /* another boot: the kernel started from 0, so does everything here */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		r = load_line(e, line);
		if (r < 0)
			return r;
	}
	e->reset_real_usec = reset;
	e->have_raw = true;
	return 1;
}
