// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "smcctl __complete WORD...": the candidates for shell completion, computed from THE table
 * (cli/table.c) and the global options of smcctl.c, so completion can never offer a word
 * that the parser would refuse, nor miss one it accepts.  The bash, zsh and fish scripts
 * (completion/smcctl, completion/_smcctl, completion/smcctl.fish) call it.
 *
 * Why a hidden verb and not a completion script generated at build time: the script then
 * knows nothing about the table, verbs added later (by any branch) are completed without a
 * second edit, and the parsing rules (abbreviations, options taking an argument, global
 * options after the verb, the default verb) live in one place.  The word starts with two
 * underscores, is not in the table, not in the help and not in the man page's synopsis; it
 * prints candidates and never talks to the kernel.
 *
 * Input: the words of the command line after "smcctl" up to the cursor; the last one is the
 * word being completed (may be empty).  Output: one line per candidate, already filtered by
 * that word's prefix, then possibly one directive line starting with "@" for what only the
 * shell can enumerate:
 *   @files       file names            @interfaces  network interfaces
 *   @devices     SMC-D (DIBS) and RDMA devices, and network interfaces
 *   @rdma        SMC-D (DIBS) and RDMA devices
 *   @netns       names in /run/netns   @commands    program names
 *   @command-args N   the words from number N on (0: the word after "smcctl") are a
 *                command line of its own (smcctl run): complete it as such
 *   @default     the shell's default completion (an argument whose kind is unknown here)
 * Exit status 0, also when there is nothing to offer.
 */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli/smcctl.h"

/* What the words before the cursor say. */
struct comp_state {
	const struct object *object; /* NULL: still at the global options / object word */
	bool help;		     /* "smcctl help": the next word is an object */
	const struct verb *verb;     /* NULL: the verb word is next (or was an option) */
	unsigned n_pos;		     /* positional arguments after the verb */
	bool dashdash;		     /* "--" seen: everything after it is positional */
	int command;		     /* VERB_COMMAND: index of the command's first word, or -1 */
	const char *want_arg;	     /* the previous word is an option wanting this argument */
	const struct verb_opt *want_opt; /* that option, when it is the verb's */
};

static void offer(FILE *out, const char *cur, const char *word)
{
	if (word && strncmp(word, cur, strlen(cur)) == 0)
		fprintf(out, "%s\n", word);
}

static void offer_long(FILE *out, const char *cur, const char *name)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "--%s", name);
	offer(out, cur, buf);
}

static void offer_short(FILE *out, const char *cur, char ch)
{
	char buf[3] = { '-', ch, 0 };

	if (ch)
		offer(out, cur, buf);
}

static void offer_global_options(FILE *out, const char *cur)
{
	for (const struct option *o = smcctl_global_options; o->name; o++) {
		offer_long(out, cur, o->name);
		if (o->val > 0 && o->val < 128) /* not a long-only one's code */
			offer_short(out, cur, (char)o->val);
	}
}

static void offer_verb_options(FILE *out, const char *cur, const struct verb *v)
{
	for (const struct verb_opt *p = v ? v->opts : NULL; p && p->name; p++) {
		offer_long(out, cur, p->name);
		offer_short(out, cur, p->short_name);
	}
}

/*
 * Global option of this word: the name of the argument it still wants (the long name in
 * upper case, "NETNS" for --netns), "" for a flag or an argument in the same word; NULL if
 * it is none of them.
 */
static const char *complete_global_option(const char *w)
{
	static char meta[64];

	for (const struct option *o = smcctl_global_options; o->name; o++) {
		size_t l = strlen(o->name);
		bool in_word;

		if (w[1] == '-' && strncmp(w + 2, o->name, l) == 0 &&
		    (w[2 + l] == 0 || w[2 + l] == '='))
			in_word = w[2 + l] == '=';
		else if (o->val && w[1] == o->val && w[1] != '-')
			in_word = w[2] != 0;
		else
			continue;
		/* An optional argument comes after "=" only (--json=pretty). */
		if (o->has_arg != required_argument || in_word)
			return "";
		snprintf(meta, sizeof(meta), "%s", o->name);
		for (char *p = meta; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		return meta;
	}
	return NULL;
}

/*
 * An option of verb v: its argument name, "" for a flag (or "--x=value"); NULL if none.
 * *ret_opt gets the verb's option (NULL for a global one).
 */
static const char *verb_option(const struct verb *v, const char *w, const struct verb_opt **ret_opt)
{
	*ret_opt = NULL;
	for (const struct verb_opt *p = v ? v->opts : NULL; p && p->name; p++) {
		size_t l = strlen(p->name);

		*ret_opt = p;
		if (w[1] == '-' && strncmp(w + 2, p->name, l) == 0 &&
		    (w[2 + l] == 0 || w[2 + l] == '='))
			return p->arg && w[2 + l] == 0 ? p->arg : "";
		if (p->short_name && w[1] == p->short_name)
			return p->arg && w[2] == 0 ? p->arg : "";
	}
	*ret_opt = NULL;
	return complete_global_option(w);
}

/*
 * A number option's argument: its default, from the table the parser takes it from (an
 * argument such as "1|2" lists its values itself).
 */
static void offer_default(FILE *out, const char *cur, const struct verb_opt *p)
{
	char def[24];

	if (!p || verb_opt_default(p) < 0 || strchr(p->arg, '|'))
		return;
	snprintf(def, sizeof(def), "%" PRId64, verb_opt_default(p));
	offer(out, cur, def);
}

/* The object for a typed word: exact or unique prefix, as the parser takes it. */
static const struct object *find_object(const char *w, bool *help)
{
	const struct object *found = NULL;
	size_t l = strlen(w);
	int n = 0;

	*help = false;
	if (l == 0)
		return NULL;
	for (const struct object *o = smcctl_objects; o->name; o++) {
		if (streq(o->name, w))
			return o;
		if (strncmp(o->name, w, l) == 0)
			found = o, n++;
	}
	if (strncmp("help", w, l) == 0) {
		if (streq("help", w) || n == 0) {
			*help = true;
			return NULL;
		}
		n++;
	}
	return n == 1 ? found : NULL;
}

static const struct verb *find_verb(const struct object *o, const char *w)
{
	const struct verb *found = NULL;
	size_t l = strlen(w);

	if (l == 0)
		return NULL;
	for (const struct verb *v = o->verbs; v->name; v++) {
		if (streq(v->name, w) || streq_ptr(v->alias, w))
			return v;
		if (strncmp(v->name, w, l) == 0 || (v->alias && strncmp(v->alias, w, l) == 0)) {
			if (found && found != v)
				return NULL;
			found = v;
		}
	}
	return found;
}

/*
 * The metavariable of positional argument number pos (0-based) in the synopsis of verb v,
 * such as "PNETID --eth IFACE | --ib DEV [--port 1|2]" or "NAME VALUE" or "[ID|all]":
 * options, the arguments of those that take one (per the verb's option table), brackets
 * and "|" between options are skipped.  A last token ending in "..." repeats.  Copies it
 * into buf; false if there is none.
 */
static bool synopsis_positional(const struct verb *v, unsigned pos, char *buf, size_t len)
{
	char tok[128], last[128] = "";
	bool skip_next = false, repeat = false;
	unsigned k = 0;

	for (const char *s = v->synopsis ? v->synopsis : ""; *s;) {
		size_t n = 0;

		while (*s == ' ')
			s++;
		while (*s && *s != ' ' && n + 1 < sizeof(tok))
			if (*s == '[' || *s == ']')
				s++;
			else
				tok[n++] = *s++;
		tok[n] = 0;
		if (n == 0 || streq(tok, "|"))
			continue;
		if (tok[0] == '-') {
			/* "--eth IFACE": the next token is the option's argument */
			const struct verb_opt *p;
			const char *arg = tok[1] ? verb_option(v, tok, &p) : NULL;

			skip_next = arg && arg[0];
			continue;
		}
		if (skip_next) {
			skip_next = false;
			continue;
		}
		repeat = n > 3 && streq(tok + n - 3, "...");
		if (repeat)
			tok[n - 3] = 0;
		snprintf(last, sizeof(last), "%s", tok);
		if (k++ == pos) {
			snprintf(buf, len, "%s", tok);
			return true;
		}
	}
	if (repeat && last[0]) {
		snprintf(buf, len, "%s", last);
		return true;
	}
	return false;
}

/*
 * Candidates for an argument described by a metavariable such as "FILE", "ID|all" or
 * "1|2": lower-case and numeric alternatives are literal words; upper-case ones name a
 * kind of value.  obj disambiguates NAME (a sysctl, a device).
 */
static void offer_metavar(FILE *out, const char *cur, const char *obj, const char *metavar)
{
	char buf[128], *save = NULL;
	const char *directive = NULL;

	snprintf(buf, sizeof(buf), "%s", metavar);
	for (char *alt = strtok_r(buf, "|", &save); alt; alt = strtok_r(NULL, "|", &save)) {
		bool upper = alt[0] >= 'A' && alt[0] <= 'Z';

		if (!upper) {
			offer(out, cur, alt);
		} else if (streq(alt, "FILE")) {
			directive = "@files";
		} else if (streq(alt, "IFACE")) {
			directive = "@interfaces";
		} else if (streq(alt, "DEV")) {
			directive = "@rdma";
		} else if (streq(alt, "NETNS")) {
			directive = "@netns";
		} else if (streq(alt, "COMMAND") || streq(alt, "PROGRAM")) {
			directive = "@commands";
		} else if (streq(alt, "NAME") && obj && streq(obj, "sysctl")) {
			size_t n;
			const struct smc_sysctl_desc *t = smc_sysctl_table(&n);

			for (size_t i = 0; i < n; i++)
				offer(out, cur, t[i].name);
		} else if (streq(alt, "PATH") && obj && streq(obj, "assess")) {
			directive = "@cgroups";
		} else if (streq(alt, "NAME") && obj && streq(obj, "device")) {
			directive = "@devices";
		} else if (streq(alt, "UNIT") && obj && streq(obj, "disable")) {
			directive = "@enabled-units"; /* the drop-ins of enable */
		} else if (streq(alt, "UNIT")) {
			directive = "@units";
		} else if (streq(alt, "ARG") || streq(alt, "ARGS")) {
			directive = "@default";
		}
		/* Anything else (UEID, PNETID, ID, VALUE, ...) has no candidates. */
	}
	if (directive)
		fprintf(out, "%s\n", directive);
}

int smcctl_complete(struct smcctl *c, int argc, char **argv)
{
	struct comp_state st = { .command = -1 };
	const char *cur = argc > 0 ? argv[argc - 1] : "";
	FILE *out = c->out;
	char meta[128];

	/* Walk the complete words before the cursor the way run() parses them. */
	for (int i = 0; i + 1 < argc; i++) {
		const char *w = argv[i];
		const char *arg;

		if (st.want_arg) {
			st.want_arg = NULL; /* this word was the option's argument */
			continue;
		}
		if (st.help)
			return 0; /* "help OBJECT" takes nothing more */
		if (!st.object) {
			if (w[0] == '-') {
				arg = complete_global_option(w);
				st.want_arg = arg && arg[0] ? arg : NULL;
				continue;
			}
			st.object = find_object(w, &st.help);
			if (!st.object && !st.help)
				return 0; /* unknown or ambiguous: the command would fail */
			continue;
		}
		if (!st.verb) {
			const struct verb *d = object_default_verb(st.object);

			if (w[0] != '-') {
				st.verb = find_verb(st.object, w);
				if (st.verb)
					continue;
				/* a command verb's command, or a default verb's arguments
				 * (VERB_ARGS: "enable nginx"), may come without the verb */
				if (!d || !(d->flags & (VERB_COMMAND | VERB_ARGS)) ||
				    streq(w, "help"))
					return 0; /* "help", or unknown or ambiguous */
			}
			st.verb = d;
		}
		if (st.verb && (st.verb->flags & VERB_COMMAND) &&
		    ((w[0] != '-' && !st.dashdash) || st.dashdash) && !streq(w, "--")) {
			st.command = i; /* the rest is the command's */
			break;
		}
		if (!st.dashdash && streq(w, "--")) {
			st.dashdash = true;
		} else if (!st.dashdash && w[0] == '-' && w[1]) {
			arg = verb_option(st.verb, w, &st.want_opt);
			st.want_arg = arg && arg[0] ? arg : NULL;
		} else {
			st.n_pos++;
		}
	}

	if (st.command >= 0) {
		fprintf(out, "@command-args %d\n", st.command);
	} else if (st.want_arg) {
		offer_default(out, cur, st.want_opt);
		offer_metavar(out, cur, st.object ? st.object->name : NULL, st.want_arg);
	} else if (st.help) {
		for (const struct object *o = smcctl_objects; o->name; o++)
			offer(out, cur, o->name);
	} else if (!st.object) {
		if (cur[0] == '-') {
			offer_global_options(out, cur);
		} else {
			for (const struct object *o = smcctl_objects; o->name; o++)
				offer(out, cur, o->name);
			offer(out, cur, "help");
		}
	} else if (!st.verb) {
		if (cur[0] == '-') {
			offer_verb_options(out, cur, object_default_verb(st.object));
			offer_global_options(out, cur);
		} else {
			const struct verb *d = object_default_verb(st.object);

			for (const struct verb *v = st.object->verbs; v->name; v++)
				offer(out, cur, v->name);
			offer(out, cur, "help");
			if (d && (d->flags & VERB_COMMAND))
				fprintf(out, "@commands\n");
			else if (d && (d->flags & VERB_ARGS) &&
				 synopsis_positional(d, 0, meta, sizeof(meta)))
				offer_metavar(out, cur, st.object->name, meta);
		}
	} else if (cur[0] == '-' && !st.dashdash) {
		offer_verb_options(out, cur, st.verb);
		offer_global_options(out, cur);
	} else if (st.n_pos < st.verb->max_args || st.dashdash) {
		if (synopsis_positional(st.verb, st.n_pos, meta, sizeof(meta)))
			offer_metavar(out, cur, st.object->name, meta);
	}
	return fflush(out) == 0 ? SMCCTL_EXIT_OK : SMCCTL_EXIT_FAILURE;
}
