// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl: command line parsing, help, and dispatch through the object/verb table; what a
 * handler answers with (messages, exit statuses, output) is smcctl-answer.c.
 *
 * Nothing here opens the library before a handler asks for it, so "help", "--help" and
 * "--version" work on a kernel without SMC (smc-tools needs the SMC module even to print
 * its help).
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>

#include "cli/smcctl.h"
#include "common/output.h"
#include "config/units.h"

#define GLOBAL_SHORTOPTS "jdn:hV"
#define OBJECTS_MAX 32
#define VERBS_MAX 16

/* ---------------------------------------------------------------------------------- */
/* The table                                                                           */

static size_t n_objects(void)
{
	size_t n = 0;

	while (smcctl_objects[n].name)
		n++;
	return n;
}

static size_t n_verbs(const struct object *o)
{
	size_t n = 0;

	while (o->verbs[n].name)
		n++;
	return n;
}

/* "help" is a word like the objects, so "smcctl h" is ambiguous with "hs-limit". */
#define HELP_WORD "help"

/* Returns the object, NULL for "help", or sets *ret_status on a usage error. */
static const struct object *lookup_object(struct smcctl *c, const char *word, bool *ret_help,
					  int *ret_status)
{
	size_t n = n_objects();
	const char *names[OBJECTS_MAX + 1];
	char cand[512];
	int i;

	assert(n <= OBJECTS_MAX);
	for (size_t k = 0; k < n; k++)
		names[k] = smcctl_objects[k].name;
	names[n] = HELP_WORD;
	i = word_lookup(word, names, NULL, n + 1, cand, sizeof(cand));
	*ret_help = false;
	if (i == -ENOTUNIQ) {
		*ret_status = smcctl_usage(c, "ambiguous object '%s': could be %s", word, cand);
		return NULL;
	}
	if (i < 0) {
		char near[128];

		*ret_status = smcctl_usage(c, "unknown object '%s'%s", word,
					   word_nearest(word, names, n + 1, "", near, sizeof(near)));
		return NULL;
	}
	if ((size_t)i == n) {
		*ret_help = true;
		return NULL;
	}
	return &smcctl_objects[i];
}

static const struct verb *lookup_verb(struct smcctl *c, const struct object *o, const char *word,
				      bool *ret_help, int *ret_status)
{
	size_t n = n_verbs(o), m = 0;
	const char *names[2 * VERBS_MAX + 1];
	size_t dup[2 * VERBS_MAX + 1];
	char cand[512];
	int i;

	assert(n <= VERBS_MAX);
	for (size_t k = 0; k < n; k++) {
		names[m] = o->verbs[k].name;
		dup[m++] = k;
		if (o->verbs[k].alias) {
			names[m] = o->verbs[k].alias;
			dup[m++] = k;
		}
	}
	names[m] = HELP_WORD;
	dup[m++] = n;
	i = word_lookup(word, names, dup, m, cand, sizeof(cand));
	*ret_help = false;
	if (i == -ENOTUNIQ) {
		*ret_status = smcctl_usage(c, "ambiguous verb '%s' for '%s': could be %s", word,
					   o->name, cand);
		return NULL;
	}
	if (i < 0 && o->absent && streq(word, o->absent)) {
		*ret_status = smcctl_usage(c, "there is no '%s %s': %s", o->name, o->absent,
					   o->absent_why);
		return NULL;
	}
	if (i < 0) {
		char near[128];

		*ret_status = smcctl_usage(c, "unknown verb '%s' for '%s'%s", word, o->name,
					   word_nearest(word, names, m, "", near, sizeof(near)));
		return NULL;
	}
	if ((size_t)i == n) {
		*ret_help = true;
		return NULL;
	}
	return &o->verbs[i];
}

/* ---------------------------------------------------------------------------------- */
/* Help                                                                                */

void verb_opt_range(const struct verb_opt *p, bool with_default, char *buf, size_t len)
{
	int64_t def = with_default ? verb_opt_default(p) : -1;
	int k;

	k = snprintf(buf, len, "%" PRId64 " to %" PRId64 "%s%s", p->min, p->max, p->unit ? " " : "",
		     p->unit ? p->unit : "");
	if (def >= 0 && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, ", default %" PRId64, def);
}

static void verb_usage_line(char *buf, size_t len, const struct object *o, const struct verb *v)
{
	snprintf(buf, len, "%s %s%s%s%s%s", o->name, (v->flags & VERB_DEFAULT) ? "[" : "", v->name,
		 (v->flags & VERB_DEFAULT) ? "]" : "", v->synopsis ? " " : "",
		 v->synopsis ? v->synopsis : "");
}

#define HELP_COLUMN 30

static void print_verbs(FILE *f, const struct object *o)
{
	for (const struct verb *v = o->verbs; v->name; v++) {
		char line[256];

		verb_usage_line(line, sizeof(line), o, v);
		/* 80 columns: 2 + 30 + 2 + at most 46 (a test holds the help texts to that). */
		if (strlen(line) > HELP_COLUMN)
			fprintf(f, "  %s\n  %-*s  %s%s\n", line, HELP_COLUMN, "", v->help,
				(v->flags & VERB_ADMIN) ? " (*)" : "");
		else
			fprintf(f, "  %-*s  %s%s\n", HELP_COLUMN, line, v->help,
				(v->flags & VERB_ADMIN) ? " (*)" : "");
	}
}

static void print_global_options(FILE *f)
{
	fputs("Options (before the object or after the verb):\n"
	      "  -j, --json[=MODE]   print one JSON document (schema in smcctl(8)); MODE\n"
	      "                      short (one line, as -j), pretty (indented) or off\n"
	      "      --pretty        the same as --json=pretty\n"
	      "  -d, --details       more details; -dd for even more\n"
	      "  -n, --netns NAME    run in network namespace NAME (/run/netns/NAME or a path)\n"
	      "      --no-legend     tables without their header, no legend below them\n"
	      "  -h, --help          this help\n"
	      "  -V, --version       print the version\n"
	      "      --no-pager      never page the text ($SMCCTL_PAGER, $PAGER, less)\n",
	      f);
}

/* cli/smcctl.h's table, by status, for --help (its comment says why these). */
static const char *const exit_help[] = {
	[SMCCTL_EXIT_OK] = "success",
	[SMCCTL_EXIT_FAILURE] = "the answer is no (a check failed, degraded) or it failed",
	[SMCCTL_EXIT_USAGE] = "usage error: nothing was done",
	[SMCCTL_EXIT_UNAVAILABLE] = "SMC (or the interface needed) is not in this kernel",
	[SMCCTL_EXIT_PERMISSION] = "permission denied (CAP_NET_ADMIN, root, admin group)",
	[SMCCTL_EXIT_NO_AGENT] = "smcd-agent is not running, or its feature is off",
	[SMCCTL_EXIT_NO_BUS] = "no system bus (is dbus running?)",
	[SMCCTL_EXIT_INVALID_CONFIG] = "the configuration file is not valid",
};

void smcctl_help(FILE *f)
{
	fputs("Usage: smcctl [OPTIONS] OBJECT [VERB] [ARGS]\n"
	      "       smcctl help | OBJECT help\n"
	      "Query and configure SMC (shared memory communications) in the Linux kernel.\n\n",
	      f);
	print_global_options(f);
	fputs("\nObjects and verbs ([VERB] is the default; words may be abbreviated when\n"
	      "unambiguous; (*) needs CAP_NET_ADMIN):\n",
	      f);
	for (size_t i = 0; smcctl_objects[i].name; i++)
		print_verbs(f, &smcctl_objects[i]);
	fputs("\nExit status (every verb; see smcctl(8)):\n", f);
	for (size_t i = 0; i < ELEMENTSOF(exit_help); i++)
		fprintf(f, "  %zu  %s\n", i, exit_help[i]);
}

void smcctl_object_help(FILE *f, const struct object *o)
{
	fprintf(f, "smcctl %s: %s\n\nUsage:\n", o->name, o->help);
	print_verbs(f, o);
	for (const struct verb *v = o->verbs; v->name; v++) {
		if (!v->opts || !v->opts[0].name)
			continue;
		fprintf(f, "\nOptions of '%s %s':\n", o->name, v->name);
		for (const struct verb_opt *p = v->opts; p->name; p++) {
			char spec[64];

			snprintf(spec, sizeof(spec), "%s%c%s--%s%s%s", p->short_name ? "-" : "",
				 p->short_name ? p->short_name : ' ', p->short_name ? ", " : "  ",
				 p->name, p->arg ? " " : "", p->arg ? p->arg : "");
			fprintf(f, "  %-28s  %s", p->short_name ? spec : spec + 1, p->help);
			if (p->type != VERB_OPT_TEXT) {
				char range[96];

				verb_opt_range(p, true, range, sizeof(range));
				fprintf(f, " (%s)", range);
			}
			fputc('\n', f);
		}
	}
	if (o->absent)
		fprintf(f, "\nThere is no '%s %s': %s.\n", o->name, o->absent, o->absent_why);
	fputs("\nExamples:\n", f);
	for (const struct verb *v = o->verbs; v->name; v++)
		for (const struct verb_example *e = v->examples; e && e->line; e++)
			fprintf(f, "  %s\n      %s\n", e->line, e->what);
	if (o->note)
		fprintf(f, "\n%s\n", o->note);
	fputs("\n(*) needs CAP_NET_ADMIN.  Global options: see 'smcctl help'.\n", f);
}

/* Help of smcctl (o NULL) or of an object, through the pager as a long text. */
static void show_help(struct smcctl *c, const struct object *o)
{
	smcctl_pager_open(c);
	if (o)
		smcctl_object_help(c->out, o);
	else
		smcctl_help(c->out);
}

/* ---------------------------------------------------------------------------------- */
/* Parsing                                                                             */

/*
 * --json=MODE as systemd's tools take it: pretty (indented, what -p prints), short (one
 * line, what -j prints) or off (text, undoing an earlier -j in an alias).  -j and --json
 * alone are short.
 */
static int json_option(struct smcctl *c, const char *arg)
{
	if (!arg || streq(arg, "short")) {
		c->json = true;
		c->pretty = false;
	} else if (streq(arg, "pretty")) {
		c->json = c->pretty = true;
	} else if (streq(arg, "off")) {
		c->json = c->pretty = false;
	} else {
		return smcctl_usage(c, "invalid --json=%s: pretty, short or off", arg);
	}
	return 0;
}

/* A global option (its getopt code); 0, or a usage error's status. */
static int global_option(struct smcctl *c, int ch, const char *arg)
{
	switch (ch) {
	case 'j':
		return json_option(c, arg);
	case SMCCTL_OPT_PRETTY:
		c->json = c->pretty = true;
		return 0;
	case SMCCTL_OPT_NO_PAGER:
		c->no_pager = true;
		return 0;
	case 'd':
		c->detail++;
		return 0;
	case 'n':
		c->netns = arg;
		return 0;
	case SMCCTL_OPT_NO_LEGEND:
		c->no_legend = true;
		return 0;
	default:
		return 0;
	}
}

/*
 * getopt's own messages are off (opterr = 0) so every error has our one-line form.  For a
 * long option getopt has already stepped past it; for a short one optopt names it.
 */
static int bad_option(struct smcctl *c, const struct verb *v, char **argv, int ch)
{
	const char *prev = optind > 0 ? argv[optind - 1] : "";
	bool is_long = strncmp(prev, "--", 2) == 0;
	const char *names[VERB_OPTS_MAX + SMCCTL_N_GLOBAL_OPTIONS];
	char word[WORD_MAX + 1], near[128] = "";
	size_t n = 0;

	if (ch == ':') {
		if (is_long)
			return smcctl_usage(c, "option '%s' needs an argument", prev);
		return smcctl_usage(c, "option '-%c' needs an argument", optopt);
	}
	if (optopt > 0 && optopt < 256)
		return smcctl_usage(c, "unknown option '-%c'", optopt);
	/* "--jsno" or "--jsno=x": the nearest of this verb's long options and the global ones */
	word[0] = '\0';
	if (is_long)
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(prev + 2, "="), prev + 2);
	for (const struct verb_opt *p = v ? v->opts : NULL; p && p->name; p++)
		names[n++] = p->name;
	for (const struct option *o = smcctl_global_options; o->name; o++)
		names[n++] = o->name;
	if (word[0] && word_nearest(word, names, n, "--", near, sizeof(near))[0])
		return smcctl_usage(c, "unknown option '%s'%s", prev, near);
	return smcctl_usage(c, "unknown or ambiguous option '%s'", prev);
}

/* The numbers among a verb's options, checked against the table's range; defaults filled
 * in.  A usage error names the range (and why it is that, where the table says). */
static int verb_opt_numbers(struct smcctl *c, const struct verb *v, struct verb_args *a)
{
	size_t k = 0;

	for (const struct verb_opt *p = v->opts; p && p->name; p++, k++) {
		const char *arg = a->opt[k];
		char range[96];
		int64_t n;
		int r;

		if (p->type == VERB_OPT_TEXT)
			continue;
		a->num[k] = verb_opt_default(p);
		if (!arg)
			continue;
		/* No blank either side: "80 " is no more a number here than " 80" is (the
		 * parsers take a blank before a unit, which an option's value has no use for). */
		if (!*arg || isspace((unsigned char)arg[0]) ||
		    isspace((unsigned char)arg[strlen(arg) - 1]))
			r = -EINVAL;
		else
			r = p->type == VERB_OPT_SECONDS ? parse_seconds(arg, &n)
							: parse_count(arg, &n);
		if (r >= 0 && n >= p->min && n <= p->max) {
			a->num[k] = n;
			continue;
		}
		verb_opt_range(p, false, range, sizeof(range));
		return smcctl_usage(c, "invalid --%s '%s': %s%s%s%s", p->name, arg, range,
				    p->type == VERB_OPT_SECONDS ? " (N, Ns, Nm or Nh)" : "",
				    p->why ? "; " : "", p->why ? p->why : "");
	}
	return 0;
}

/* Options and positional arguments of one verb, global options accepted as well. */
static int parse_verb_args(struct smcctl *c, const struct verb *v, int argc, char **argv,
			   struct verb_args *a)
{
	struct option longopts[VERB_OPTS_MAX + ELEMENTSOF(smcctl_global_options)];
	char shortopts[3 * VERB_OPTS_MAX + sizeof(GLOBAL_SHORTOPTS) + 3] = ":" GLOBAL_SHORTOPTS;
	size_t n = 0, s;
	int status;

	/* "+": a command line's own options are its own (see VERB_COMMAND). */
	if (v->flags & VERB_COMMAND)
		memcpy(shortopts, "+:" GLOBAL_SHORTOPTS, sizeof("+:" GLOBAL_SHORTOPTS));
	s = strlen(shortopts);
	int ch;

	memset(a, 0, sizeof(*a));
	for (const struct verb_opt *p = v->opts; p && p->name; p++, n++) {
		/* Long-only options get codes above the char range: 256 + index. */
		longopts[n] = (struct option){ p->name, p->arg ? required_argument : no_argument,
					       NULL, p->short_name ? p->short_name : 256 + (int)n };
		if (p->short_name) {
			shortopts[s++] = p->short_name;
			if (p->arg)
				shortopts[s++] = ':';
		}
	}
	shortopts[s] = '\0';
	/* No verb option takes a global letter (cli/table.c, one letter one meaning). */
	memcpy(&longopts[n], smcctl_global_options, sizeof(smcctl_global_options));

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		size_t k = 0;

		if (ch == '?' || ch == ':')
			return bad_option(c, v, argv, ch);
		if (ch == 'h') {
			show_help(c, c->object);
			return -1;
		}
		if (ch == 'V')
			return smcctl_usage(c, "--version is an option of smcctl, not of a verb");
		for (const struct verb_opt *p = v->opts; p && p->name; p++, k++)
			if (ch == (p->short_name ? p->short_name : 256 + (int)k)) {
				a->opt[k] = p->arg ? optarg : "";
				break;
			}
		if ((!v->opts || !v->opts[k].name) && (status = global_option(c, ch, optarg)))
			return status;
	}
	status = verb_opt_numbers(c, v, a);
	if (status)
		return status;
	a->n_pos = argc - optind;
	a->pos = argv + optind;
	if ((unsigned)a->n_pos < v->min_args)
		return smcctl_usage(c, "'%s %s' needs %s", c->object->name, v->name,
				    v->synopsis ? v->synopsis : "arguments");
	if ((unsigned)a->n_pos > v->max_args)
		return smcctl_usage(c, "unexpected argument '%s' for '%s %s'", a->pos[v->max_args],
				    c->object->name, v->name);
	return 0;
}

/*
 * -n NAME: enter the named network namespace before the first socket is opened.  Stats,
 * PNET table, sysctls and sockets are per netns; link groups, devices and UEIDs are global
 * (the kernel's scope, documented in smcctl(8)).  Cheap enough to offer: it is what
 * "ip netns exec NAME" does for network sockets and /proc/sys/net (we need no sysfs view
 * of the namespace: /sys/class/dibs is global).
 */
static int enter_netns(struct smcctl *c)
{
	char path[PATH_MAX];
	_cleanup_(closep) int fd = -1;

	if (!c->netns)
		return 0;
	if (strchr(c->netns, '/'))
		snprintf(path, sizeof(path), "%s", c->netns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", c->netns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "cannot open network namespace '%s': %s%s", c->netns,
				    strerror(errno), errno == ENOENT ? " (see 'ip netns list')" : "");
	if (setns(fd, CLONE_NEWNET) < 0)
		return smcctl_error(c, errno == EPERM ? SMCCTL_EXIT_PERMISSION : SMCCTL_EXIT_FAILURE,
				    "cannot enter network namespace '%s': %s%s", c->netns,
				    strerror(errno), errno == EPERM ? " (needs CAP_SYS_ADMIN)" : "");
	return 0;
}

static void print_version(struct smcctl *c)
{
	fprintf(c->out, "smcctl (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
}

/*
 * The command line up to the verb's arguments: 0 with c->verb and a set, -1 when help
 * was printed (exit 0), or an exit status.
 */
static int smcctl_parse_argv(struct smcctl *c, int argc, char **argv, struct verb_args *a)
{
	const struct verb *v = NULL;
	bool help = false;
	int ch, status = SMCCTL_EXIT_OK;

	/* Global options stop at the object ("+"), so verbs may own their own letters. */
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:" GLOBAL_SHORTOPTS, smcctl_global_options, NULL)) !=
	       -1) {
		if (ch == '?' || ch == ':')
			return bad_option(c, NULL, argv, ch);
		if (ch == 'h') {
			show_help(c, NULL);
			return -1;
		}
		if (ch == 'V') {
			print_version(c);
			return -1;
		}
		status = global_option(c, ch, optarg);
		if (status)
			return status;
	}
	argv += optind;
	argc -= optind;
	if (argc == 0)
		return smcctl_usage(c, "missing OBJECT");

	c->object = lookup_object(c, argv[0], &help, &status);
	if (help) {
		/* "smcctl help OBJECT" is "smcctl OBJECT help". */
		if (argc > 1) {
			const struct object *o = lookup_object(c, argv[1], &help, &status);

			if (!o && !help)
				return status;
			if (o) {
				show_help(c, o);
				return -1;
			}
		}
		show_help(c, NULL);
		return -1;
	}
	if (!c->object)
		return status;

	/* The verb: the next word, unless there is none or it is an option, or the default
	 * verb takes a command line or arguments and the word is not a verb (VERB_COMMAND,
	 * VERB_ARGS). */
	v = object_default_verb(c->object);
	/* "help" stays the help word, as for every object ("smcctl run -- help" runs help). */
	if (argc > 1 && argv[1][0] != '-' && v && (v->flags & (VERB_COMMAND | VERB_ARGS)) &&
	    !verb_find(c->object, argv[1]) && !streq(argv[1], HELP_WORD)) {
		/* argv[1] starts the command: getopt starts there and stops at once. */
	} else if (argc > 1 && argv[1][0] != '-') {
		v = lookup_verb(c, c->object, argv[1], &help, &status);
		if (help) {
			show_help(c, c->object);
			return -1;
		}
		if (!v)
			return status;
		argv++;
		argc--;
	} else {
		v = object_default_verb(c->object);
		if (!v)
			return smcctl_usage(c, "'%s' needs a verb", c->object->name);
	}
	c->verb = v;

	/* argv[0] is now the verb (or the object): getopt starts after it; -1: --help. */
	return parse_verb_args(c, v, argc, argv, a);
}

static int smcctl_dispatch(struct smcctl *c, int argc, char **argv)
{
	struct verb_args a;
	unsigned style;
	int status;

	/* Shell completion (cli/complete.c): a hidden word, before any option. */
	if (argc > 1 && streq(argv[1], SMCCTL_COMPLETE_WORD))
		return smcctl_complete(c, argc - 2, argv + 2);
	status = smcctl_parse_argv(c, argc, argv, &a);
	if (status < 0)
		return smcctl_output_flush(c); /* help was printed */
	if (status)
		return status;
	status = enter_netns(c);
	if (status)
		return status;
	if (c->verb->flags & VERB_PAGER)
		smcctl_pager_open(c);
	/*
	 * The text's style: colour only for a terminal that wants it (systemd's rule, decided
	 * by common/output.c at the first table with a coloured column).  Put back after the
	 * verb: support-bundle runs smcctl_run() inside one.
	 */
	style = out_style_set((c->no_legend ? OUT_STYLE_NO_LEGEND : 0) | OUT_STYLE_COLOR_AUTO);
	status = c->verb->run(c, &a);
	out_style_set(style);
	return status;
}

int smcctl_parse(int argc, char **argv, FILE *out, FILE *err, const struct verb **ret_verb)
{
	struct smcctl c = {
		.out = out,
		.err = err,
	};
	struct verb_args a;
	int status = smcctl_parse_argv(&c, argc, argv, &a);

	fflush(err);
	smcctl_pager_close(&c);
	*ret_verb = status == 0 ? c.verb : NULL;
	return status < 0 ? SMCCTL_EXIT_OK : status;
}

/*
 * -j's answer when a verb failed without one: {"error": {"message", "hint", "exit_status"}},
 * the same message as the line on stderr, so a script reading stdout is never left with
 * nothing (config reload printed nothing).  A verb that answered and then said "no" (check,
 * status degraded, config check's {"valid": false}) answered: a no is not an error.  One
 * place for every verb, as the exit statuses are one table.
 */
static void json_error(struct smcctl *c, int status)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	json_object *e = json_object_new_object();
	int r;

	if (!doc || !e) {
		json_object_put(e);
		return; /* json-c itself may be what is missing (smcctl_oom()) */
	}
	r = json_add(doc, "error", e);
	r |= json_add_str(e, "message", c->error[0] ? c->error : "failed");
	if (c->hint[0])
		r |= json_add_str(e, "hint", c->hint);
	r |= json_add_i64(e, "exit_status", status);
	if (r >= 0)
		out_json(c->out, doc, c->pretty);
}

int smcctl_run(int argc, char **argv, const struct smcnl_options *nl_opts, FILE *out, FILE *err)
{
	struct smcctl c = {
		.out = out,
		.err = err,
		.run_nested = smcctl_run,
		.find_object = object_find,
	};
	int status;

	if (nl_opts)
		c.nl_opts = *nl_opts;
	status = smcctl_dispatch(&c, argc, argv);
	if (status != SMCCTL_EXIT_OK && c.json && !c.answered)
		json_error(&c, status);
	if (c.nl)
		smcnl_close(c.nl);
	fflush(out);
	fflush(err);
	smcctl_pager_close(&c);
	return status;
}
