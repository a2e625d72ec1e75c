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
 *   entries 173
 *   counter smcd.rx.bytes RAW TOTAL BASELINE
 *   reason server 0x03030008 RAW TOTAL BASELINE
 *   linkgroup smcd 00000100 FIRST_SEEN_USEC PEAK_CONNS
 *   device smcd lo SEEN_TOTAL SEEN_BASELINE
 *   end
 *
 * One file per agent, in its StateDirectory, mode 0600 (root only), written atomically.  Not
 * /tmp, not per user: smc-tools' per-UID /tmp cache was shared by every network namespace,
 * writable by anyone and broke on each layout change; keys by name are what keeps this one
 * readable across versions (a line of a kind or key this agent does not know is skipped).
 *
 * "entries N" and "end" frame the entries, so that a file cut anywhere (in a line, or at a
 * line's end) is damaged, not a shorter state: a partial one would give some counters a
 * baseline and others none.  A damaged file is refused as a whole.  Files of agents before
 * the frame have neither line; they are read as before (only a line cut short shows there).
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

static void put_counter(FILE *f, const char *key, const struct stats_counter *c, size_t *n)
{
	fprintf(f, "counter %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", key, c->raw, c->total,
		c->baseline);
	(*n)++;
}

/* Names go in a line with blanks as separators: one with a blank (never seen) is left out. */
static bool name_ok(const char *s)
{
	return s[0] && !strpbrk(s, " \t\n\r");
}

/* The entry lines, and how many. */
static char *entries_text(const struct stats_engine *e, size_t *ret_n)
{
	size_t n = 0, len = 0, rows;
	const struct stats_desc *t = stats_table(&rows);
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < rows; i++)
		if (t[i].kind == STATS_COUNTER)
			put_counter(f, t[i].key, &e->counters[i], &n);
	for (size_t i = 0; i < _STATS_AGENT_MAX; i++)
		put_counter(f, stats_agent_key(i), &e->agent[i], &n);
	for (size_t i = 0; i < e->n_reasons; i++) {
		const struct stats_reason *r = &e->reasons[i];

		fprintf(f, "reason %s 0x%08" PRIx32 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			r->server ? "server" : "client", r->code, r->c.raw, r->c.total,
			r->c.baseline);
		n++;
	}
	for (size_t i = 0; i < e->n_lgrs; i++) {
		fprintf(f, "linkgroup %s %08" PRIx32 " %" PRIu64 " %" PRIu32 "\n",
			e->lgrs[i].technology, e->lgrs[i].id, e->lgrs[i].first_seen_usec,
			e->lgrs[i].peak_conns);
		n++;
	}
	for (size_t i = 0; i < e->n_devices; i++) {
		if (!name_ok(e->devices[i].name))
			continue;
		fprintf(f, "device %s %s %" PRIu64 " %" PRIu64 "\n", e->devices[i].technology,
			e->devices[i].name, e->devices[i].seen.total, e->devices[i].seen.baseline);
		n++;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	*ret_n = n;
	return buf;
}

static char *state_text(const struct stats_engine *e, const char *boot_id)
{
	_cleanup_(freep) char *entries = NULL;
	char *text;
	size_t n;

	entries = entries_text(e, &n);
	if (!entries)
		return NULL;
	if (asprintf(&text,
		     "# smcd-agent statistics state (see smcd-agent(8)); the agent rewrites it\n"
		     "version %d\nboot_id %s\nreset_usec %" PRIu64 "\nentries %zu\n%send\n",
		     STATE_VERSION, boot_id, e->reset_real_usec, n, entries) < 0)
		return NULL;
	return text;
}

int stats_state_save(const struct stats_engine *e, const char *path, const char *boot_id,
		     int *ret_sync_error)
{
	_cleanup_(freep) char *text = state_text(e, boot_id);

	if (!text)
		return -ENOMEM;
	return textfile_write_atomic(path, text, strlen(text), 0600, ret_sync_error);
}

/* ------------------------------------------------------------------------------------- */
/* Load                                                                                   */

static void restore_counter(struct stats_counter *c, uint64_t raw, uint64_t total, uint64_t baseline)
{
	/* A baseline above the total is a damaged file: no reset then. */
	*c = (struct stats_counter){ .raw = raw,
				     .total = total,
				     .baseline = baseline <= total ? baseline : 0,
				     .last = total,
				     .prev = total };
}

static int load_counter(struct stats_engine *e, const char *line)
{
	char key[100];
	uint64_t raw, total, base;
	int i;

	if (sscanf(line, "counter %99s %" SCNu64 " %" SCNu64 " %" SCNu64, key, &raw, &total,
		   &base) != 4)
		return -EBADMSG;
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
		   &raw, &total, &base) != 5 ||
	    raw > UINT16_MAX)
		return -EBADMSG;
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
		   &peak) != 4)
		return -EBADMSG;
	if (!streq(tech, "smcd") && !streq(tech, "smcr"))
		return 0; /* a technology of a newer agent */
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
		return -EBADMSG;
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

	size_t w = strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_-");

	for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
		if (strncmp(line, kinds[i].word, strlen(kinds[i].word)) == 0)
			return kinds[i].load(e, line);
	/* Comments, and the kinds of a newer agent ("word ..."), are skipped; not garbage. */
	return line[0] == '#' || (w > 0 && line[w] == ' ') ? 0 : -EBADMSG;
}

/*
 * One line without its newline: 1, or 0 at the end of the file.  The agent ends every line
 * with one and writes none as long as the buffer: a line without (the file ends in it, or
 * it is longer) is damage.
 */
static int read_line(FILE *f, char *buf, size_t size)
{
	size_t n;

	if (!fgets(buf, (int)size, f))
		return ferror(f) ? -EIO : 0;
	n = strlen(buf); /* a NUL in the line ends it early: then it has no newline either */
	if (n == 0 || buf[n - 1] != '\n')
		return -EBADMSG;
	buf[n - 1] = '\0';
	return 1;
}

/*
 * The header: 1 when the entries apply to this boot, 0 when they do not (another boot, or a
 * format version this agent does not read), -EBADMSG when it is not a header.
 */
static int header(FILE *f, const char *boot_id, uint64_t *ret_reset)
{
	char line[256], boot[64] = "";
	int version = -1, r;

	*ret_reset = 0;
	while ((r = read_line(f, line, sizeof(line))) > 0) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "version %d", &version) == 1 ||
		    sscanf(line, "boot_id %63s", boot) == 1)
			continue;
		if (version != STATE_VERSION)
			return version < 0 ? -EBADMSG : 0; /* another version's header may differ */
		if (sscanf(line, "reset_usec %" SCNu64, ret_reset) != 1)
			return -EBADMSG;
		return boot_id[0] && streq(boot, boot_id);
	}
	/* The file ends, or a line is cut short, within the header. */
	if (version >= 0 && version != STATE_VERSION)
		return 0;
	return r < 0 ? r : -EBADMSG;
}

/*
 * The entries: "entries N" first, then exactly N lines and "end" as the last line; or, in
 * the file of an agent before that frame, every line to the end (at least one: those always
 * had counters).
 */
static int load_entries(struct stats_engine *e, FILE *f)
{
	char line[512];
	size_t want = 0, n = 0;
	bool framed = false, first = true;
	int r;

	while ((r = read_line(f, line, sizeof(line))) > 0) {
		if (first && sscanf(line, "entries %zu", &want) == 1) {
			framed = true;
			first = false;
			continue;
		}
		first = false;
		if (framed && streq(line, "end"))
			return n == want && read_line(f, line, sizeof(line)) == 0 ? 0 : -EBADMSG;
		r = load_line(e, line);
		if (r < 0)
			return r;
		n++;
	}
	if (r < 0)
		return r;
	return framed || n == 0 ? -EBADMSG : 0; /* framed: cut before its end line */
}

/* What a refused file may have loaded goes: the engine is as new. */
static void forget(struct stats_engine *e)
{
	memset(e->counters, 0, e->n_counters * sizeof(*e->counters));
	memset(e->agent, 0, sizeof(e->agent));
	free(e->reasons);
	e->reasons = NULL;
	e->n_reasons = e->n_reasons_raw = 0;
	free(e->lgrs);
	e->lgrs = NULL;
	e->n_lgrs = 0;
	free(e->devices);
	e->devices = NULL;
	e->n_devices = 0;
}

int stats_state_load(struct stats_engine *e, const char *path, const char *boot_id)
{
	_cleanup_(fclosep) FILE *f = fopen(path, "re");
	uint64_t reset;
	int r;

	if (!f)
		return errno == ENOENT ? 0 : negative_errno();
	r = header(f, boot_id, &reset);
	if (r <= 0)
		return r; /* another boot: the kernel started from 0, so does everything here */
	r = load_entries(e, f);
	if (r < 0) {
		forget(e);
		return r;
	}
	e->reset_real_usec = reset;
	e->have_raw = true;
	return 1;
}
