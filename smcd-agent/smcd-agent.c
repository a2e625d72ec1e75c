// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcd-agent: keeps the kernel's SMC configuration as /etc/smc/smc.yaml says and serves it
 * on the system bus as org.smcd.Agent1.  See smcd-agent(8).
 *
 * Built twice: as the daemon, and with SMCD_FAKE_KERNEL as tests/integration/smcd-agent-fake,
 * which takes --fake-kernel DIR (kernel-fake.c) for host tests that need a kernel with SMC.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>
#include <systemd/sd-daemon.h>

#include "common/macro.h"
#include "common/output.h"
#include "common/plan-text.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/plan.h"
#include "smcd-agent/policy-engine.h"

static const char *arg_config = CONFIG_DEFAULT_PATH;
static bool arg_config_named; /* -c FILE or --check-config FILE, not the default */
static bool arg_check_config;
static bool arg_dump_config;
static bool arg_plan;
static bool arg_json;
#ifdef SMCD_FAKE_KERNEL
static const char *arg_fake_kernel;
#endif

static void help(void)
{
	printf("Usage: smcd-agent [OPTIONS]\n"
	       "       smcd-agent --check-config [FILE]\n"
	       "       smcd-agent --plan [FILE] [--json]\n\n"
	       "Keep the kernel's SMC configuration as FILE says and serve it on D-Bus.\n\n"
	       "  -c, --config=FILE     configuration file (default %s)\n"
	       "      --check-config    validate the configuration and exit (0 valid, 1 not)\n"
	       "      --dump-config     print the effective configuration, defaults included\n"
	       "      --plan            print what applying FILE would change, change nothing\n"
	       "                        (exit 0 nothing, 1 something, 2 invalid, 3 cannot plan)\n"
	       "  -j, --json            --plan: the plan as JSON\n"
	       "  -h, --help            show this help\n"
	       "      --version         show the version\n",
	       CONFIG_DEFAULT_PATH);
}

enum {
	ARG_VERSION = 0x100,
	ARG_CHECK_CONFIG,
	ARG_DUMP_CONFIG,
	ARG_FAKE_KERNEL,
	ARG_PLAN,
};

static int parse_argv(int argc, char *argv[])
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
		{ "dump-config", no_argument, NULL, ARG_DUMP_CONFIG },
		{ "plan", no_argument, NULL, ARG_PLAN },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
#ifdef SMCD_FAKE_KERNEL
		{ "fake-kernel", required_argument, NULL, ARG_FAKE_KERNEL },
#endif
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:hj", options, NULL)) >= 0) {
		switch (c) {
		case 'c':
			arg_config = optarg;
			arg_config_named = true;
			break;
		case ARG_CHECK_CONFIG:
			arg_check_config = true;
			break;
		case ARG_DUMP_CONFIG:
			arg_dump_config = true;
			break;
		case ARG_PLAN:
			arg_plan = true;
			break;
		case 'j':
			arg_json = true;
			break;
		case 'h':
			help();
			return 0;
		case ARG_VERSION:
			printf("smcd-agent %s\n", PACKAGE_VERSION);
			return 0;
#ifdef SMCD_FAKE_KERNEL
		case ARG_FAKE_KERNEL:
			arg_fake_kernel = optarg;
			break;
#endif
		default:
			return -EINVAL;
		}
	}
	/* "--check-config FILE" reads naturally; FILE is the one positional argument. */
	if (optind < argc && (arg_check_config || arg_dump_config || arg_plan)) {
		arg_config = argv[optind++];
		arg_config_named = true;
	}
	if (optind < argc) {
		fprintf(stderr, "smcd-agent: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -EINVAL;
	}
	if (arg_json && !arg_plan) {
		fprintf(stderr, "smcd-agent: --json goes with --plan (see --help)\n");
		return -EINVAL;
	}
	return 1;
}

/* --check-config / --dump-config: validate, print, no kernel and no bus. */
static int check_config(void)
{
	_cleanup_(config_freep) struct config *c = NULL;
	struct config_errors errors = {};
	bool defaults = false;
	int r;

	/* No file at the default path is what the agent runs on (manager_config_read()); a
	 * FILE named that does not exist is an error. */
	if (arg_config_named)
		r = config_load(arg_config, &c, &errors);
	else
		r = config_load_or_defaults(arg_config, &c, &defaults, &errors);
	for (size_t i = 0; i < errors.n; i++)
		fprintf(stderr, "%s\n", errors.lines[i]);
	if (errors.truncated)
		fprintf(stderr, "(more errors not shown)\n");
	config_errors_clear(&errors);
	if (r < 0)
		return EXIT_FAILURE;
	if (arg_dump_config) {
		_cleanup_(freep) char *text = config_dump(c);

		if (!text)
			return EXIT_FAILURE;
		fputs(text, stdout);
	} else if (defaults)
		printf("no %s: smcd-agent runs on the built-in defaults (with any drop-ins): valid (revision %016" PRIx64
		       ")\n",
		       arg_config, c->hash);
	else
		printf("%s: valid (revision %016" PRIx64 ")\n", arg_config, c->hash);
	return EXIT_SUCCESS;
}

static int open_kernel(struct kernel **ret)
{
#ifdef SMCD_FAKE_KERNEL
	if (!arg_fake_kernel) {
		fprintf(stderr, "smcd-agent-fake: --fake-kernel DIR is required\n");
		return -EINVAL;
	}
	return kernel_fake_new(arg_fake_kernel, ret);
#else
	return kernel_smcnl_new(NULL, ret);
#endif
}

/*
 * --plan: the dry run without a daemon (smcctl config diff runs it when no agent is on the
 * bus).  No manager, no bus, no policy engine: the planners of plan.c on the kernel, read
 * only.  A missing file is invalid, as a reload refuses it (manager.c's load()).
 */
static int plan(void)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(kernel_freep) struct kernel *k = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct config_errors errors = {};
	int r;

	r = config_load(arg_config, &c, &errors);
	if (r == -ENOMEM)
		return PLAN_EXIT_UNPLANNED;
	if (r < 0)
		doc = config_plan_invalid_json(arg_config, &errors, PLAN_PLANNER_STANDALONE);
	config_errors_clear(&errors);
	if (r >= 0) {
		r = open_kernel(&k);
		if (r < 0) {
			fprintf(stderr, "smcd-agent: cannot open the kernel interface: %s\n",
				strerror(-r));
			return PLAN_EXIT_UNPLANNED;
		}
		r = config_plan_json(k, NULL, c, PLAN_PLANNER_STANDALONE, &doc);
		if (r < 0) {
			fprintf(stderr, "smcd-agent: cannot plan %s: %s\n", arg_config, strerror(-r));
			return PLAN_EXIT_UNPLANNED;
		}
	}
	if (!doc)
		return PLAN_EXIT_UNPLANNED;
	if (arg_json)
		out_json(stdout, doc, false);
	else
		plan_text(stdout, doc, true);
	if (fflush(stdout) != 0)
		return PLAN_EXIT_UNPLANNED;
	return plan_exit_status(doc);
}

int main(int argc, char *argv[])
{
	_cleanup_(manager_freep) struct manager *m = NULL;
	struct kernel *k = NULL;
	int r;

	log_setup();
	r = parse_argv(argc, argv);
	if (r <= 0)
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	if (arg_check_config || arg_dump_config)
		return check_config();
	if (arg_plan)
		return plan();

	r = open_kernel(&k);
	if (r < 0) {
		log_error_errno(r, "Cannot open the kernel interface: %m");
		return EXIT_FAILURE;
	}
	r = manager_new(arg_config, k, &m);
	if (r < 0) {
		kernel_free(k);
		log_error_errno(r, "Cannot set up the daemon: %m");
		return EXIT_FAILURE;
	}
#ifdef SMCD_FAKE_KERNEL
	policy_engine_no_kernel(m->policy, "the fake-kernel test agent never loads BPF programs");
	m->fallback_no_kernel = "the fake-kernel test agent never loads BPF programs";
#endif
	r = manager_load_config(m);
	if (r < 0) {
		(void)sd_notifyf(0, "STATUS=Invalid configuration %s, see the journal\nERRNO=%d",
				 arg_config, -r);
		return EX_CONFIG;
	}
	/* The statistics before the bus, the bus before the first reconcile. */
	r = manager_prepare(m);
	if (r >= 0)
		r = bus_setup(m);
	if (r >= 0)
		r = manager_start(m);
	if (r < 0) {
		(void)sd_notifyf(0, "STATUS=Failed to start: %s\nERRNO=%d", strerror(-r), -r);
		return EXIT_FAILURE;
	}
	r = manager_run(m);
	if (r < 0) {
		log_error_errno(r, "Event loop failed: %m");
		return EXIT_FAILURE;
	}
	if (r > 0) {
		/* Only sd-bus ends the loop with a non-zero code: the bus connection was lost. */
		log_error("Lost the connection to the system bus, exiting");
		return EXIT_FAILURE;
	}
	log_info("Stopped");
	return EXIT_SUCCESS;
}
