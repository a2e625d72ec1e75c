/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl internals: the object/verb table, the per-run context, and the helpers every
 * handler uses to fail and to print.
 *
 * A handler fetches model structs from libsmcnl, builds ONE json-c document from them and
 * hands it to smcctl_emit() together with its text renderer; the text renderer reads only
 * that document.  Handlers return a process exit status (SMCCTL_EXIT_*).
 */
#pragma once

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "common/macro.h"
#include "netlink/smcnl.h"

/*
 * Exit statuses: ONE table for every verb, printed by "smcctl --help" (smcctl_help()) and
 * documented in smcctl(8) EXIT STATUS (tests/integration/man-coverage.test holds that;
 * tests/integration/smcctl-exit-codes.test runs the verbs into each situation).
 *
 * Why these and not fewer: a script (or a newcomer) must tell apart what it fixes in
 * different places.  1 is "the answer is no", as for test(1), grep(1) and systemctl
 * is-active: a check that failed, "status" of an agent that is not running as configured
 * (degraded, starting: systemctl is-system-running is non-zero for those too), "config
 * diff" when something would change (diff(1)).  2 is the command line; 3 the kernel
 * (a module, a kernel option); 4 rights (sudo, the admin group); 5 the agent (systemctl
 * start smcd-agent, or the feature in smc.yaml); 6 the system bus itself (dbus).  7 is an
 * invalid smc.yaml for "config check", "config diff" and "config show" alike: not 1,
 * because "config diff" answers "something would change" with 1 (as diff(1) does) and a
 * script applying a change must not take a broken file for a pending change; not 2, because
 * the command line was right and the file is what to fix.
 */
enum {
	SMCCTL_EXIT_OK = 0,
	SMCCTL_EXIT_FAILURE = 1,	/* the answer is no, a check failed, or the operation did */
	SMCCTL_EXIT_USAGE = 2,		/* bad command line; nothing was sent to the kernel */
	SMCCTL_EXIT_UNAVAILABLE = 3,	/* SMC (or the interface needed) is not in this kernel */
	SMCCTL_EXIT_PERMISSION = 4,	/* the kernel or the agent refused: CAP_NET_ADMIN, root */
	SMCCTL_EXIT_NO_AGENT = 5,	/* smcd-agent is not running, or its feature is off */
	SMCCTL_EXIT_NO_BUS = 6,		/* no system bus to reach smcd-agent on */
	SMCCTL_EXIT_INVALID_CONFIG = 7, /* the configuration file is not valid; nothing applied */
};

#define VERB_OPTS_MAX 8

/*
 * What an option's argument is.  A number's range, default and unit live in the table only:
 * the parser checks them (parse_verb_args(), before the verb runs) and every help text and
 * smcctl(8) states them from there (smcctl_object_help(); tests/unit/test-cli-verbs.c
 * compares the page).  The syntax is config/units.h's, as in smc.yaml.
 */
enum verb_opt_type {
	VERB_OPT_TEXT = 0, /* the verb reads it */
	VERB_OPT_COUNT,	   /* a whole number (parse_count) */
	VERB_OPT_SECONDS,  /* "30", "30s", "2m", "1h" (parse_seconds) */
};

/* An option of one verb.  Global options (-j -p -d -n) are accepted after any verb too. */
struct verb_opt {
	const char *name; /* long name, without "--" */
	char short_name;  /* 0: long only */
	const char *arg;  /* argument name for help, NULL for a flag */
	const char *help;
	enum verb_opt_type type;
	int64_t min, max; /* a number's range */
	int64_t def;	  /* the default when not given; none when outside min..max */
	const char *unit; /* "seconds", "checks": in help and messages; NULL for none */
	const char *why;  /* NULL, or why the range is what it is (said on a refusal) */
};

/* The default of p, or -1 when it has none. */
static inline int64_t verb_opt_default(const struct verb_opt *p)
{
	return p->type != VERB_OPT_TEXT && p->def >= p->min && p->def <= p->max ? p->def : -1;
}

/* "1 to 30 seconds, default 10": p's range, unit and (with_default) default, for help,
 * messages and the test that holds smcctl(8) to the table. */
void verb_opt_range(const struct verb_opt *p, bool with_default, char *buf, size_t len);

struct verb_args {
	int n_pos;
	char **pos;			/* positional arguments after the verb */
	const char *opt[VERB_OPTS_MAX]; /* by index into verb->opts: NULL unset, "" for flags */
	/* A number's value, checked against its range, or its default (-1: none) when unset. */
	int64_t num[VERB_OPTS_MAX];
};

struct smcctl;

enum {
	VERB_DEFAULT = 1 << 0, /* run when the object is given without a verb */
	VERB_ADMIN = 1 << 1,   /* changes kernel state: needs CAP_NET_ADMIN (or root) */
	/*
	 * The arguments are a command line (smcctl run): options stop at the first word that
	 * is not one, and when this verb is the default, a first word that is no verb name
	 * starts the command ("smcctl run sockperf sr" as well as "smcctl run exec -- ...").
	 */
	VERB_COMMAND = 1 << 2,
	/*
	 * When this verb is the default, a first word that is no verb name is its first
	 * argument ("smcctl check HOST PORT"); options may still come anywhere.
	 */
	VERB_ARGS = 1 << 3,
	/*
	 * Its text can be longer than a screen: on a terminal it goes through a pager
	 * (cli/pager.c).  Never for a verb that follows, waits, runs a command or may ask.
	 */
	VERB_PAGER = 1 << 4,
};

/*
 * An example of a verb: a command line as typed, which parses (smcctl_parse()), and what
 * it does in a line.  "smcctl OBJECT help" prints them; smcctl(8) EXAMPLES holds the same
 * (tests/unit/test-cli-verbs.c checks both).
 */
struct verb_example {
	const char *line; /* "smcctl config check /tmp/smc.yaml" */
	const char *what; /* "validate a new file before installing it" */
};

/*
 * A verb's handler.  One no other file calls is declared twice by this type, never by a
 * header: "verb_fn NAME;" in cli/table.c above its row, and in its object's file above its
 * definition, so that the compiler holds both to this one signature.  A handler that other
 * files or tests call keeps its prototype in the object's header (verbs.h, agent.h, ...).
 */
typedef int verb_fn(struct smcctl *c, const struct verb_args *a);

struct verb {
	const char *name;
	const char *alias;    /* accepted as well (smc-tools' word), e.g. "show" for "list" */
	const char *synopsis; /* what follows the verb, for help; NULL for nothing */
	const char *help;     /* one line */
	unsigned flags;
	unsigned min_args, max_args;
	const struct verb_opt *opts;	     /* terminated by a NULL name; NULL for none */
	const struct verb_example *examples; /* at least one, terminated by a NULL line */
	verb_fn *run;
};

struct object {
	const char *name;
	const char *help;	  /* one line */
	const struct verb *verbs; /* terminated by a NULL name */
	/*
	 * A verb people will look for that is deliberately not here (smc-tools has it), and
	 * why: "smcctl OBJECT ABSENT" is a usage error that says so instead of "unknown".
	 */
	const char *absent;
	const char *absent_why;
	/* What "smcctl OBJECT help" adds at the end, e.g. what its exit status means. */
	const char *note;
};

/* The one table: objects in help order, each with its verbs (cli/table.c). */
extern const struct object smcctl_objects[];

/*
 * Find a word among names: an exact match wins; otherwise a unique prefix.  Returns the
 * index, -ENOENT when nothing matches, or -ENOTUNIQ when several names start with the word
 * (then candidates holds them, blank-separated).  dup[i], if given, maps an alias to the
 * index of the entry it stands for, so an alias and its entry are not "ambiguous".
 */
int word_lookup(const char *word, const char *const *names, const size_t *dup, size_t n,
		char *candidates, size_t len);

/* The longest word word_nearest() compares (cli/smcctl-words.c). */
#define WORD_MAX 32
/*
 * ": did you mean 'status' or 'stats'?": the names nearest a mistyped word, an edit or two
 * away ("stauts", "lnkgroup"), each after prefix ("--" for options); "" when none is that
 * near.  For the usage error.  Returns buf.
 */
const char *word_nearest(const char *word, const char *const *names, size_t n, const char *prefix,
			 char *buf, size_t len);

const struct object *object_find(const char *name);
const struct verb *verb_find(const struct object *o, const char *name);
const struct verb *object_default_verb(const struct object *o);

/* The global options (-j -d -n -h -V and long-only ones), for the parser and completion. */
/* --json, --pretty, --details, --netns, --help, --version, --no-pager, --no-legend and the
 * terminator (cli/table.c).  A long-only one has a getopt code above any verb option's. */
enum { SMCCTL_OPT_PRETTY = 1024, SMCCTL_OPT_NO_PAGER, SMCCTL_OPT_NO_LEGEND };
#define SMCCTL_N_GLOBAL_OPTIONS 9
extern const struct option smcctl_global_options[SMCCTL_N_GLOBAL_OPTIONS];

/*
 * "smcctl __complete WORD...": shell completion candidates from the table (cli/complete.c,
 * used by completion/smcctl).  argv holds the words after "smcctl" up to the cursor.
 */
#define SMCCTL_COMPLETE_WORD "__complete"
int smcctl_complete(struct smcctl *c, int argc, char **argv);

/* Help texts, generated from the table. */
void smcctl_help(FILE *f);
void smcctl_object_help(FILE *f, const struct object *o);

struct smcctl {
	FILE *out;
	FILE *err;
	/*
	 * For a verb that runs others in process (support-bundle): smcctl_run() and the
	 * table's lookup, handed down by the dispatcher so that no handler names the table
	 * whose rows name the handlers (tests/integration/architecture-calls.test).
	 */
	int (*run_nested)(int argc, char **argv, const struct smcnl_options *nl_opts, FILE *out,
			  FILE *err);
	const struct object *(*find_object)(const char *name);
	bool json;
	bool pretty;
	bool no_legend; /* --no-legend: tables without header, no legend (out_style_set()) */
	unsigned detail;
	bool no_pager; /* --no-pager */
	const char *netns;
	struct smcnl_options nl_opts;
	struct smcnl *nl; /* opened on first use by smcctl_nl() */
	unsigned view;	  /* handler-specific text options (e.g. stats --all) */
	const struct object *object;
	const struct verb *verb;
	/*
	 * For -j's answer on failure (smcctl_run()): whether a document was printed (an answer,
	 * even a "no", is not an error), and the first error line with its next step.
	 */
	bool answered;
	char error[512];
	char hint[128];
	pid_t pager_pid;		/* cli/pager.c: running, our stdout (and stderr) into it */
	int pager_stdout, pager_stderr; /* the terminal's, while the pager runs; -1 */
};

/*
 * The pager (cli/pager.c): open sends stdout (and stderr on the same terminal) through
 * one when c->out is stdout on a terminal and neither --no-pager nor -j says otherwise;
 * close ends the text and waits for it.  Both do nothing when there is none.
 */
void smcctl_pager_open(struct smcctl *c);
void smcctl_pager_close(struct smcctl *c);
/*
 * The pager's command line from $SMCCTL_PAGER and $PAGER (NULL: unset): NULL for less,
 * else more; *ret_off when none is wanted ("cat", empty).  secure: privileges granted by
 * another user, when only less (with LESSSECURE=1) is run.
 */
const char *smcctl_pager_command(const char *smcctl_pager, const char *pager, bool secure,
				 bool *ret_off);

/*
 * Run one command line (argv[0] is the program name).  Returns the exit status.  Output
 * goes to out and err.  nl_opts is the test seam: the golden tests pass a replay folder;
 * the installed binary passes NULL and always talks to the real kernel (see smcctl.c).
 */
int smcctl_run(int argc, char **argv, const struct smcnl_options *nl_opts, FILE *out, FILE *err);

/*
 * Parse one command line as smcctl_run() does and run nothing (no netns entered, no
 * kernel, no bus): 0 and *ret_verb the verb it names, or the usage error's status with
 * its line on err.  For the test that every example in the table parses.
 */
int smcctl_parse(int argc, char **argv, FILE *out, FILE *err, const struct verb **ret_verb);

/* The library handle, opened on first use.  On failure prints the error line. */
int smcctl_nl(struct smcctl *c, struct smcnl **ret);

/*
 * Print a library failure as one line, "smcctl: <what>: <why and what to do>", and return
 * the exit status that fits the errno.  what is a printf format.
 */
int smcctl_fail(struct smcctl *c, enum smc_op op, int err, const char *what, ...) _printf_(4, 5);
/* Any other failure: one line, returns status. */
int smcctl_error(struct smcctl *c, int status, const char *fmt, ...) _printf_(3, 4);
/* A usage error: one line naming the problem, then where to get help; returns 2. */
int smcctl_usage(struct smcctl *c, const char *fmt, ...) _printf_(2, 3);
/* An informational line on stderr ("smcctl: ..."), e.g. a side effect worth knowing. */
void smcctl_note(struct smcctl *c, const char *fmt, ...) _printf_(2, 3);

typedef void (*smcctl_text_fn)(struct smcctl *c, json_object *doc);

/*
 * Print the answer: the document itself with -j, else text rendered from it.  Takes no
 * reference.  Returns an exit status (a failed write is a failure).
 */
int smcctl_emit(struct smcctl *c, json_object *doc, smcctl_text_fn text);

/* Flush what a handler wrote itself (through a sink): an exit status, as smcctl_emit(). */
int smcctl_flush(struct smcctl *c);
/* Flush the output, an answer or not (help); a failed write is an error, but for a pager
 * the user quit. */
int smcctl_output_flush(struct smcctl *c);

/* Shorthand for json_object_new_object() failures inside handlers. */
/*
 * The soname of the first library smcctl could not load on demand (cli/dl.c sets it), or
 * NULL.  Its calls then fail as out of memory would: smcctl_oom() says the library instead.
 */
extern const char *smcctl_lib_missing;
int smcctl_oom(struct smcctl *c);

/*
 * A verb that runs until stopped (assess, check --listen): SIGINT and SIGTERM set
 * smcctl_interrupted instead of ending smcctl, so that its loop ends at the next turn and
 * reports what it has.  ret_old (NULL: not kept) takes the two actions they replace.
 */
extern volatile sig_atomic_t smcctl_interrupted;
void smcctl_interrupt_catch(struct sigaction ret_old[2]);
void smcctl_interrupt_restore(const struct sigaction old[2]);
