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
 *
 * The file is data from disk, not trusted (issue 35: 200,000 duplicate reason lines once
 * started the agent at 884 MB, over its MemoryMax): at most STATE_SIZE_MAX bytes of a
 * regular file, each kind of entry at most as many as the agent can have, no entry twice,
 * no count above STATE_COUNT_MAX, no time later than STATE_FUTURE_SLACK_USEC past the
 * clock.  Anything else is damage: refused whole, and the agent sets the file aside
 * (collector.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/clock.h"
#include "common/macro.h"
#include "smcd-agent/stats-engine.h"

#define STATE_VERSION 1
/* What the agent can hold: 2 x 36 kernel slots, reason codes of every epoch; devices. */
#define STATE_REASONS_MAX 1024
#define STATE_DEVICES_MAX 1024
#define STATE_LGRS_MAX 65536
/* Every entry at its longest (about 80 bytes a line) and twice that: 8 MiB. */
#define STATE_SIZE_MAX (8U << 20)
/* 2^62: 100 Gbit/s for 11 years in bytes.  Higher is damage; sums saturate anyway. */
#define STATE_COUNT_MAX (1ULL << 62)
/* A clock stepped back within one boot (the file is only read in the boot that wrote it). */
#define STATE_FUTURE_SLACK_USEC (24ULL * 3600 * 1000000)

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

struct load {
	struct stats_engine *e;
	bool *seen;	      /* counters by row, then the agent's own (_STATS_AGENT_MAX) */
	uint64_t latest_usec; /* the latest time a file may hold (CLOCK_REALTIME + slack) */
	const char *why;      /* what is wrong, for the journal */
};

static int damaged(struct load *l, const char *why)
{
	l->why = why;
	return -EBADMSG;
}

static bool counts_ok(uint64_t raw, uint64_t total, uint64_t baseline)
{
	return raw <= STATE_COUNT_MAX && total <= STATE_COUNT_MAX && baseline <= STATE_COUNT_MAX;
}

static void restore_counter(struct stats_counter *c, uint64_t raw, uint64_t total, uint64_t baseline)
{
	/* A baseline above the total is a damaged file: no reset then. */
	*c = (struct stats_counter){ .raw = raw,
				     .total = total,
				     .baseline = baseline <= total ? baseline : 0,
				     .last = total,
				     .prev = total };
}

static int load_counter(struct load *l, const char *line)
{
	struct stats_engine *e = l->e;
	char key[100];
	uint64_t raw, total, base;
	size_t slot = SIZE_MAX;
	struct stats_counter *c = NULL;
	int i;

	if (sscanf(line, "counter %99s %" SCNu64 " %" SCNu64 " %" SCNu64, key, &raw, &total,
		   &base) != 4)
		return damaged(l, "a counter line does not parse");
	i = stats_table_find(key);
	if (i >= 0) {
		slot = (size_t)i;
		c = &e->counters[i];
	}
	for (size_t a = 0; !c && a < _STATS_AGENT_MAX; a++)
		if (streq(key, stats_agent_key(a))) {
			slot = e->n_counters + a;
			c = &e->agent[a];
		}
	if (!c)
		return 0; /* a counter of another agent */
	if (!counts_ok(raw, total, base))
		return damaged(l, "a counter is larger than any count can be");
	if (l->seen[slot])
		return damaged(l, "a counter is listed twice");
	l->seen[slot] = true;
	restore_counter(c, raw, total, base);
	return 0;
}

static int load_reason(struct load *l, const char *line)
{
	struct stats_engine *e = l->e;
	char side[16];
	uint32_t code;
	uint64_t raw, total, base;
	struct stats_reason *v;

	if (sscanf(line, "reason %15s %" SCNx32 " %" SCNu64 " %" SCNu64 " %" SCNu64, side, &code,
		   &raw, &total, &base) != 5 ||
	    raw > UINT16_MAX)
		return damaged(l, "a reason line does not parse");
	if (!counts_ok(raw, total, base))
		return damaged(l, "a reason's count is larger than any count can be");
	for (size_t i = 0; i < e->n_reasons; i++)
		if (e->reasons[i].server == streq(side, "server") && e->reasons[i].code == code)
			return damaged(l, "a fallback reason is listed twice");
	if (e->n_reasons >= STATE_REASONS_MAX)
		return damaged(l, "more fallback reasons than the kernel has");
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

static int load_lgr(struct load *l, const char *line)
{
	struct stats_engine *e = l->e;
	char tech[8];
	uint32_t id, peak;
	uint64_t first;
	struct stats_lgr *v;

	if (sscanf(line, "linkgroup %7s %" SCNx32 " %" SCNu64 " %" SCNu32, tech, &id, &first,
		   &peak) != 4)
		return damaged(l, "a linkgroup line does not parse");
	if (!streq(tech, "smcd") && !streq(tech, "smcr"))
		return 0; /* a technology of a newer agent */
	if (first > l->latest_usec)
		return damaged(l, "a link group was first seen in the future");
	if (stats_engine_lgr(e, tech, id))
		return damaged(l, "a link group is listed twice");
	if (e->n_lgrs >= STATE_LGRS_MAX)
		return damaged(l, "more link groups than the agent keeps");
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

static int load_device(struct load *l, const char *line)
{
	struct stats_engine *e = l->e;
	char tech[8], name[SMC_IB_NAME_LEN + 1];
	uint64_t total, base;
	struct stats_device *v;

	if (sscanf(line, "device %7s %64s %" SCNu64 " %" SCNu64, tech, name, &total, &base) != 4)
		return damaged(l, "a device line does not parse");
	if (!counts_ok(0, total, base))
		return damaged(l, "a device's count is larger than any count can be");
	for (size_t i = 0; i < e->n_devices; i++)
		if (streq(e->devices[i].technology, tech) && streq(e->devices[i].name, name))
			return damaged(l, "a device is listed twice");
	if (e->n_devices >= STATE_DEVICES_MAX)
		return damaged(l, "more devices than the agent keeps");
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

static int load_line(struct load *l, const char *line)
{
	static const struct {
		const char *word;
		int (*load)(struct load *l, const char *line);
	} kinds[] = {
		{ "counter ", load_counter },
		{ "reason ", load_reason },
		{ "linkgroup ", load_lgr },
		{ "device ", load_device },
	};

	size_t w = strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_-");

	for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
		if (strncmp(line, kinds[i].word, strlen(kinds[i].word)) == 0)
			return kinds[i].load(l, line);
	/* Comments, and the kinds of a newer agent ("word ..."), are skipped; not garbage. */
	return line[0] == '#' || (w > 0 && line[w] == ' ') ? 0 : damaged(l, "a line is garbage");
}

/*
 * One line without its newline: 1, or 0 at the end of the file.  The agent ends every line
 * with one and writes none as long as the buffer: a line without (the file ends in it, or
 * it is longer) is damage.
 */
static int stats_state_read_line(struct load *l, FILE *f, char *buf, size_t size)
{
	size_t n;

	if (!fgets(buf, (int)size, f))
		return ferror(f) ? -EIO : 0;
	n = strlen(buf); /* a NUL in the line ends it early: then it has no newline either */
	if (n == 0 || buf[n - 1] != '\n')
		return damaged(l, "a line is cut short, too long or holds a NUL");
	buf[n - 1] = '\0';
	return 1;
}

/*
 * The header: 1 when the entries apply to this boot, 0 when they do not (another boot, or a
 * format version this agent does not read), -EBADMSG when it is not a header.
 */
static int stats_state_header(struct load *l, FILE *f, const char *boot_id, uint64_t *ret_reset)
{
	char line[256], boot[64] = "";
	int version = -1, r;

	*ret_reset = 0;
	while ((r = stats_state_read_line(l, f, line, sizeof(line))) > 0) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "version %d", &version) == 1 ||
		    sscanf(line, "boot_id %63s", boot) == 1)
			continue;
		if (version != STATE_VERSION)
			return version < 0 ? damaged(l, "it has no version line")
					   : 0; /* another version's header may differ */
		if (sscanf(line, "reset_usec %" SCNu64, ret_reset) != 1)
			return damaged(l, "it has no reset_usec line");
		if (!boot_id[0] || !streq(boot, boot_id))
			return 0;
		if (*ret_reset > l->latest_usec)
			return damaged(l, "its reset time is in the future");
		return 1;
	}
	/* The file ends, or a line is cut short, within the header. */
	if (version >= 0 && version != STATE_VERSION)
		return 0;
	return r < 0 ? r : damaged(l, "it ends within its header");
}

/*
 * The entries: "entries N" first, then exactly N lines and "end" as the last line; or, in
 * the file of an agent before that frame, every line to the end (at least one: those always
 * had counters).
 */
static int load_entries(struct load *l, FILE *f)
{
	char line[512];
	size_t want = 0, n = 0;
	bool framed = false, first = true;
	int r;

	while ((r = stats_state_read_line(l, f, line, sizeof(line))) > 0) {
		if (first && sscanf(line, "entries %zu", &want) == 1) {
			framed = true;
			first = false;
			continue;
		}
		first = false;
		if (framed && streq(line, "end")) {
			if (n != want)
				return damaged(l, "it holds another number of entries than it says");
			return stats_state_read_line(l, f, line, sizeof(line)) == 0
				       ? 0
				       : damaged(l, "lines follow its end line");
		}
		r = load_line(l, line);
		if (r < 0)
			return r;
		n++;
	}
	if (r < 0)
		return r;
	return framed || n == 0 ? damaged(l, "it is cut before its end line") : 0;
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

/* A regular file of at most STATE_SIZE_MAX bytes (O_NONBLOCK: a FIFO put there is refused,
 * not waited on), never through a symlink. */
static int open_state(struct load *l, const char *path, FILE **ret)
{
	_cleanup_(closep) int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return errno == ENOENT	? 0
		       : errno == ELOOP ? damaged(l, "it is a symlink")
					: negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode))
		return damaged(l, "it is not a regular file");
	if (st.st_size > STATE_SIZE_MAX)
		return damaged(l, "it is larger than 8 MiB, more than the agent ever writes");
	*ret = fdopen(fd, "re");
	if (!*ret)
		return negative_errno();
	TAKE_FD(fd);
	return 1;
}

int stats_state_load(struct stats_engine *e, const char *path, const char *boot_id,
		     const char **ret_why)
{
	_cleanup_(fclosep) FILE *f = NULL;
	_cleanup_(freep) bool *seen = calloc(e->n_counters + _STATS_AGENT_MAX, sizeof(*seen));
	struct load l = { .e = e, .seen = seen };
	uint64_t reset;
	int r;

	if (ret_why)
		*ret_why = NULL;
	if (!seen)
		return -ENOMEM;
	l.latest_usec = now_usec(CLOCK_REALTIME) + STATE_FUTURE_SLACK_USEC;
	r = open_state(&l, path, &f);
	if (r > 0)
		r = stats_state_header(&l, f, boot_id, &reset);
	if (r > 0) { /* else no file, or another boot: the kernel started from 0, so do we */
		r = load_entries(&l, f);
		if (r == 0) {
			e->reset_real_usec = reset;
			e->have_raw = true;
			return 1;
		}
	}
	if (r < 0) {
		forget(e);
		if (ret_why)
			*ret_why = l.why;
	}
	return r;
}

int stats_state_set_aside(const char *path, char **ret_path)
{
	_cleanup_(freep) char *aside = NULL;

	if (asprintf(&aside, "%s.broken", path) < 0)
		return -ENOMEM;
	if (rename(path, aside) < 0)
		return negative_errno();
	*ret_path = TAKE_PTR(aside);
	return 0;
}
