// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl config diff [FILE]: what applying FILE would change in the running kernel.
 *
 * The planners are the agent's (smcd-agent/plan.c runs reconcile.c's, policy-plan.c's and
 * the loopback reconciler), and the layering keeps smcd-agent/ out of cli/ (ARCHITECTURE.md):
 * a copy here would drift from what the agent really does.  So smcctl validates FILE with
 * the config library (that much is below both), then asks the running agent (PlanConfig,
 * which also plans the policies from the agent's BPF maps), or, with no agent on the bus,
 * runs "smcd-agent --plan FILE --json" (installed beside smcctl; SMCD_AGENT_BIN overrides),
 * and renders the one document either answers (common/plan-text.c).  FILE and its drop-ins,
 * FILE.d (FILE made absolute), are read here with the caller's rights and their texts sent
 * (PlanConfigWithDropIns: the agent reads nothing for a caller); smcd-agent --plan runs as
 * the caller and reads them itself; never the agent's own smc.yaml.d for another FILE.
 * Without FILE the plan is a Reload's: the running agent reads its own file (PlanConfig
 * with no path and no text), as a reload would, so that an agent running on the built-in
 * defaults (no smc.yaml) plans them; with no agent, smcctl plans /etc/smc/smc.yaml.
 *
 * Exit status (cli/smcctl.h's table): 0 nothing would change, 1 something would (as diff(1)),
 * 7 FILE is invalid (as for "config check"), 3 when the kernel could not be read for some
 * item (the plan is incomplete); 5 when no plan could be made because there is
 * no agent and no smcd-agent to run, 1 when the agent or smcd-agent --plan failed, 4 when
 * the agent refused the caller (PlanConfig is for root and admin-group).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/agent.h"
#include "cli/bus.h"
#include "common/bus-api.h"
#include "common/output.h"
#include "common/plan-text.h"

#ifndef SMCD_AGENT_BIN
#define SMCD_AGENT_BIN "/usr/local/sbin/smcd-agent"
#endif

extern char **environ;

static const char *agent_bin(void)
{
	const char *p = secure_getenv("SMCD_AGENT_BIN");

	return p && *p ? p : SMCD_AGENT_BIN;
}

/* Everything fd gives until EOF, NUL-terminated; NULL without memory. */
static char *read_all(int fd)
{
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > cap) {
			char *b = realloc(buf, cap = cap ? cap * 2 : 16384);

			if (!b)
				return NULL;
			buf = b;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return TAKE_PTR(buf);
}

/* smcd-agent --plan PATH --json; its document, or NULL with the reason said. */
static json_object *plan_standalone(struct smcctl *c, const char *path, int *ret_status)
{
	char *argv[] = { (char *)agent_bin(), (char *)"--plan", (char *)path, (char *)"--json", NULL };
	posix_spawn_file_actions_t fa;
	_cleanup_(freep) char *out = NULL;
	json_object *doc = NULL;
	int fds[2], r, st;
	pid_t pid;

	*ret_status = SMCCTL_EXIT_FAILURE;
	if (access(argv[0], X_OK) < 0) {
		*ret_status = smcctl_error(c, SMCCTL_EXIT_NO_AGENT,
					   "smcd-agent is not running and %s cannot be run (%s): the "
					   "plan is the agent's; install smcd-agent or start it "
					   "(systemctl start smcd-agent)",
					   argv[0], strerror(errno));
		return NULL;
	}
	if (pipe2(fds, O_CLOEXEC) < 0 || posix_spawn_file_actions_init(&fa) != 0) {
		smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot run %s: %s", argv[0], strerror(errno));
		return NULL;
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (r != 0) {
		close(fds[0]);
		smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot run %s: %s", argv[0], strerror(r));
		return NULL;
	}
	out = read_all(fds[0]);
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/* 0, 1 and 2 are plans; anything else said why on our stderr (which it shares). */
	if (!WIFEXITED(st) || WEXITSTATUS(st) > PLAN_EXIT_INVALID || !out ||
	    !(doc = json_tokener_parse(out))) {
		smcctl_error(c, SMCCTL_EXIT_FAILURE, "%s --plan %s made no plan", argv[0], path);
		return NULL;
	}
	return doc;
}

/*
 * PlanConfigWithDropIns(FILE, its text, its drop-ins' names and texts), all read here with
 * the caller's rights (the agent opens nothing of FILE's), or with cfg NULL PlanConfig("",
 * ""), the agent's own files; -ESRCH when no agent is on the bus (then plan_standalone()).
 */
static int plan_call(sd_bus *bus, const char *path, const struct config *cfg, sd_bus_error *e,
		     sd_bus_message **reply)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int r;

	if (!cfg)
		return sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER,
					  SMCD_BUS_MANAGER_PLAN_CONFIG, e, reply, "ss", "", "");
	r = sd_bus_message_new_method_call(bus, &m, SMCD_BUS_NAME, SMCD_BUS_PATH,
					   SMCD_BUS_IFACE_MANAGER,
					   SMCD_BUS_MANAGER_PLAN_CONFIG_WITH_DROPINS);
	if (r >= 0)
		r = sd_bus_message_append(m, "ss", path, cfg->text);
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "(ss)");
	for (size_t i = 0; r >= 0 && i < cfg->n_dropins; i++) {
		const char *slash = strrchr(cfg->dropins[i], '/');

		r = sd_bus_message_append(m, "(ss)", slash ? slash + 1 : cfg->dropins[i],
					  cfg->dropin_texts[i]);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r < 0)
		return r;
	return sd_bus_call(bus, m, 0, e, reply);
}

static int plan_agent(struct smcctl *c, const char *path, const struct config *cfg, json_object **ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	const char *json;
	int r;

	if (bus_open_quiet(&bus) < 0)
		return -ESRCH;
	r = plan_call(bus, path, cfg, &e, &reply);
	if (r < 0 && bus_agent_absent(&e))
		return -ESRCH;
	if (r < 0)
		return bus_failed(c, "cannot plan through smcd-agent", &e, r);
	if (sd_bus_message_read(reply, "s", &json) < 0 || !(*ret = json_tokener_parse(json)))
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "smcd-agent's plan did not parse");
	return SMCCTL_EXIT_OK;
}

static void diff_text(struct smcctl *c, json_object *doc)
{
	plan_text(c->out, doc, c->detail > 0);
}

/*
 * FILE as the planners get it: absolute, so that its drop-ins (FILE.d) are the same ones
 * for the agent (PlanConfig reads them from FILE's path, not from the caller's directory)
 * and for smcd-agent --plan.
 */
static char *absolute(const char *path)
{
	_cleanup_(freep) char *cwd = NULL;
	char *s = NULL;

	if (path[0] == '/')
		return strdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	return asprintf(&s, "%s/%s", cwd, path) < 0 ? NULL : s;
}

/* The plan of FILE (absolute): validated here with the caller's rights, then planned by
 * the agent, or by smcd-agent --plan when no agent is on the bus.  An exit status when no
 * document came. */
static int plan_file(struct smcctl *c, const char *path, json_object **ret)
{
	_cleanup_(config_freep) struct config *cfg = NULL;
	struct config_errors errors = {};
	int r, s;

	/* The file and its drop-ins FILE.d are read with the caller's rights; the agent gets
	 * their texts (FILE's path only names them). */
	r = config_load(path, &cfg, &errors);
	if (r == -ENOMEM) {
		config_errors_clear(&errors);
		return smcctl_oom(c);
	}
	if (r < 0)
		*ret = plan_invalid_json(path, (const char *const *)errors.lines, errors.n,
					 errors.truncated, "smcctl");
	config_errors_clear(&errors);
	if (r < 0)
		return *ret ? SMCCTL_EXIT_OK : smcctl_oom(c);
	s = plan_agent(c, path, cfg, ret);
	if (s == -ESRCH)
		*ret = plan_standalone(c, path, &s);
	return *ret ? SMCCTL_EXIT_OK : s;
}

int agent_config_diff(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;
	_cleanup_(freep) char *path = NULL;
	int s;

	/* The agent keeps the namespace it runs in: a plan for another one would be made up. */
	if (c->netns)
		return smcctl_usage(c, "config diff plans for smcd-agent's network namespace: "
				       "--netns does not apply");
	if (a->n_pos > 0) {
		path = absolute(a->pos[0]);
		if (!path)
			return smcctl_oom(c);
		s = plan_file(c, path, &doc);
	} else {
		/* What a Reload would apply: the running agent reads its own file (its
		 * ConfigPath) as a reload reads it, the built-in defaults included when it runs
		 * on them; with no agent, the default file. */
		s = plan_agent(c, "", NULL, &doc);
		if (s == -ESRCH)
			s = plan_file(c, CONFIG_DEFAULT_PATH, &doc);
	}
	if (!doc)
		return s;
	s = smcctl_emit(c, doc, diff_text);
	if (s)
		return s;
	switch (plan_exit_status(doc)) {
	case PLAN_EXIT_NONE:
		return SMCCTL_EXIT_OK;
	case PLAN_EXIT_CHANGES:
		return SMCCTL_EXIT_FAILURE;
	case PLAN_EXIT_INVALID:
		return SMCCTL_EXIT_INVALID_CONFIG;
	default:
		/* Items the planner could not read from the kernel: the plan is incomplete. */
		return SMCCTL_EXIT_UNAVAILABLE;
	}
}
