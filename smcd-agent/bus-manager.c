// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * org.smcd.Agent1.Manager on /org/smcd/Agent1.
 *
 * Who may change things: polkit, through bus_authorize() (bus-access.c: one action per kind
 * of change), or where polkit is not installed root or a member of admin-group (smc.yaml;
 * "smcd" by default).  Every method is flagged UNPRIVILEGED for sd-bus so that the agent's
 * own check decides: POLKIT marks those that ask polkit, ANYONE those that do not.
 * Reading the configuration's text (DescribeConfig, ConfigError) is no change: root or
 * admin-group only (bus_sender_is_admin()), with or without polkit.
 *
 * Runtime changes and the config: a mutating call is refused when it touches something
 * smc.yaml owns (a sysctl it sets, a UEID it lists or derives, the UEID/PNET table when
 * marked exclusive, a switch that is not `leave`).  Otherwise it is applied to the kernel as
 * a runtime change: not written to the file, lost at reboot or module reload, and left
 * alone by drift repair (the config does not own it).  Refusing instead of applying a change
 * that drift repair would silently revert seconds later keeps one source of truth, and the
 * error names the file line to edit.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "common/output.h"
#include "common/smc-caps-names.h"
#include "common/util.h"
#include "smcd-agent/assess-continuous.h"
#include "smcd-agent/bus-access.h"
#include "smcd-agent/bus-manager.h"
#include "smcd-agent/log.h"
#include "smcd-agent/loopback-reconcile.h"
#include "smcd-agent/manager.h"
#include "smcd-agent/plan.h"

/*
 * What the bus shows of smc.yaml's own text.
 *
 * The file's content reaches the bus in two places: DescribeConfig (the whole effective
 * configuration) and ConfigError (each error of a refused file quotes the key or value it
 * is about, and a refused file may hold anything: a secret pasted into the wrong file, a
 * path the operator keeps private).  Those go only to the callers who may change the
 * configuration through the bus anyway (root, admin-group: bus_sender_is_admin()); everyone
 * else keeps what they had before the file was written: its permissions say who may read
 * it (0644 as shipped: then they read it there).  A non-admin gets DescribeConfig refused
 * with AccessDenied, and ConfigError with the location of each error (FILE:LINE:COL, which
 * says where to look) but no message text.  The properties that report what the agent
 * does (DriftAction, Policies, PrometheusPath and so on) stay public, like a systemd
 * unit's settings: they are the agent's state, not the file's text.
 *
 * Properties are readable by anyone (the D-Bus policy allows Get and GetAll), so the
 * getter decides per reader: the full text only when the value goes into the method
 * return of the call being answered (Get, GetAll, GetManagedObjects) and that call's
 * sender is an admin.  Anything else (a signal, which goes to every listener, or a getter
 * run while answering someone else) gets the redacted text.  ConfigError's change signal
 * therefore carries only its name (EMITS_INVALIDATION), and each listener reads the value
 * with its own credentials.
 */
/* How much of an error line is its location: "FILE:LINE:COL:" or "FILE:", else nothing. */
static size_t location_length(const char *line, const char *path)
{
	size_t n = strlen(path), digits;

	if (strncmp(line, path, n) != 0 || line[n] != ':')
		return 0;
	for (int i = 0; i < 2; i++) {
		digits = strspn(line + n + 1, "0123456789");
		if (!digits || line[n + 1 + digits] != ':')
			return strlen(path) + 1;
		n += 1 + digits;
	}
	return n + 1;
}

/* Each line of text with only its location kept: "FILE:LINE:COL: (...)" (caller frees). */
static char *config_error_redact(const char *text, const char *path, const char *group)
{
	_cleanup_(freep) char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (const char *line = text, *nl;; line = nl + 1) {
		size_t keep = location_length(line, path);

		fprintf(f, "%s%.*s%s(the message is shown to root%s%s%s only: it may quote the file)",
			line == text ? "" : "\n", (int)keep, line, keep ? " " : "",
			group ? " and members of group '" : "", group ? group : "", group ? "'" : "");
		nl = strchr(line, '\n');
		if (!nl)
			break;
	}
	if (fclose(f) != 0)
		return NULL;
	return TAKE_PTR(buf);
}

/* The line of the file that owns an item, for error messages. */
static int owned_error(struct manager *m, sd_bus_error *error, struct config_mark mark,
		       const char *what)
{
	if (mark.line)
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_OWNED,
					 "%s is managed by %s:%u:%u; change it there and reload",
					 what, m->config->path, mark.line, mark.column);
	return sd_bus_error_setf(
		error, SMCD_BUS_ERROR_OWNED,
		"%s is managed by the configuration (built-in default of %s); set it in the file and reload",
		what, m->config->path);
}

static int kernel_error(sd_bus_error *error, enum smc_op op, int r, struct manager *m)
{
	char buf[256];

	return sd_bus_error_set(
		error, SMCD_BUS_ERROR_KERNEL,
		smc_strerror(op, r, m->kernel->ops->extack(m->kernel), buf, sizeof(buf)));
}

static void log_runtime_change(sd_bus_message *msg, const char *fmt, const char *arg)
{
	log_fields(LOG_NOTICE, 0, NULL, "Runtime change requested by %s: %s %s",
		   sd_bus_message_get_sender(msg) ? sd_bus_message_get_sender(msg) : "?", fmt, arg);
}

/* ------------------------------------------------------------------------------------- */
/* Properties                                                                             */

static int prop_version(sd_bus *bus, const char *path, const char *iface, const char *prop,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

static int prop_state(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "s", manager_state_to_string(m->state));
}

static int prop_config_path(sd_bus *bus, const char *path, const char *iface, const char *prop,
			    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "s", m->config_path);
}

static int prop_config_revision(sd_bus *bus, const char *path, const char *iface, const char *prop,
				sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	char buf[17];

	snprintf(buf, sizeof(buf), "%016" PRIx64, m->config->hash);
	return sd_bus_message_append(reply, "s", buf);
}

static int prop_config_error(sd_bus *bus, const char *path, const char *iface, const char *prop,
			     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_(freep) char *redacted = NULL;

	if (!m->config_error || bus_reader_is_admin(bus, reply, m))
		return sd_bus_message_append(reply, "s", m->config_error ? m->config_error : "");
	redacted = config_error_redact(m->config_error, m->config_path, m->config->admin_group);
	if (!redacted)
		return -ENOMEM;
	return sd_bus_message_append(reply, "s", redacted);
}

static int prop_config_loaded(sd_bus *bus, const char *path, const char *iface, const char *prop,
			      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "t", m->config_loaded_usec);
}

int bus_append_report(sd_bus_message *reply, const struct report *r)
{
	int k = sd_bus_message_open_container(reply, 'a', "(sss)");

	for (size_t i = 0; k >= 0 && i < r->n; i++)
		k = sd_bus_message_append(reply, "(sss)", r->items[i].name,
					  item_result_to_string(r->items[i].result),
					  r->items[i].message);
	if (k >= 0)
		k = sd_bus_message_close_container(reply);
	return k;
}

static int prop_last_reconcile(sd_bus *bus, const char *path, const char *iface, const char *prop,
			       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	int r;

	r = sd_bus_message_open_container(reply, 'r', "ta(sss)");
	if (r >= 0)
		r = sd_bus_message_append(reply, "t", m->report.timestamp);
	if (r >= 0)
		r = bus_append_report(reply, &m->report);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

static int prop_last_check(sd_bus *bus, const char *path, const char *iface, const char *prop,
			   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "t", m->last_check_usec);
}

static int prop_objects_stale(sd_bus *bus, const char *path, const char *iface, const char *prop,
			      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "b", (int)objects_stale(&m->objects));
}

static int prop_objects_read(sd_bus *bus, const char *path, const char *iface, const char *prop,
			     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "t", m->objects.read_real_usec);
}

static int prop_drift(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return bus_append_report(reply, &m->drift);
}

static int prop_drift_action(sd_bus *bus, const char *path, const char *iface, const char *prop,
			     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "s", drift_action_to_string(m->config->drift.action));
}

static int prop_drift_interval(sd_bus *bus, const char *path, const char *iface, const char *prop,
			       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "t", m->config->drift.interval_usec);
}

static int prop_drift_repairs(sd_bus *bus, const char *path, const char *iface, const char *prop,
			      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return sd_bus_message_append(reply, "t", m->drift_repairs);
}

/*
 * The dictionary's keys are common/smc-caps-names.c's, as smcctl info -j spells them (it was
 * "af-smc", "smc-genl" here): one spelling per capability on D-Bus and in JSON.
 */
int bus_append_capabilities(sd_bus_message *reply, const struct smc_caps *c)
{
	size_t n;
	const struct smc_cap_name *names = smc_caps_names(&n);
	int r;

	r = sd_bus_message_open_container(reply, 'a', "{sv}");
	if (r >= 0)
		r = sd_bus_message_append(reply, "{sv}", SMC_CAPS_KEY_KERNEL_RELEASE, "s",
					  c->kernel_release);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = sd_bus_message_append(reply, "{sv}", names[i].key, "b",
					  (int)smc_caps_value(c, &names[i]));
	if (r >= 0)
		r = sd_bus_message_append(reply, "{sv}", SMC_CAPS_KEY_SMC_VERSION, "y", c->smc_ver);
	if (r >= 0)
		r = sd_bus_message_append(reply, "{sv}", SMC_CAPS_KEY_SMC_RELEASE, "y", c->smc_rel);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

static int prop_capabilities(sd_bus *bus, const char *path, const char *iface, const char *prop,
			     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return bus_append_capabilities(reply, &m->caps);
}

/* ------------------------------------------------------------------------------------- */
/* Methods                                                                                */

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_(freep) char *why = NULL;
	bool refused = false;
	int r;

	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	r = manager_reload(m, &refused, &why);
	if (refused)
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_CONFIG_INVALID,
					 "Configuration refused, the running one stays:\n%s",
					 why ? why : "");
	/* Accepted, so the new configuration is the running one: only applying it failed. */
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return sd_bus_error_setf(
			error, SD_BUS_ERROR_FAILED,
			"Loaded %s (revision %016" PRIx64
			"), it is the running configuration, but applying it failed: %s (see LastReconcile; Reload or Reconcile tries again)",
			m->config_path, m->config->hash, strerror(-r));
	return sd_bus_reply_method_return(msg, NULL);
}

static int method_reconcile(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct manager *m = userdata;
	int r;

	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	r = manager_reconcile(m, RECONCILE_REQUEST);
	if (r < 0)
		return r;
	(void)manager_refresh_objects(m, NULL);
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = bus_append_report(reply, &m->report);
	if (r < 0)
		return r;
	return sd_bus_send(NULL, reply, NULL);
}

static int method_refresh(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	int emit, r = bus_rate_limit(msg, userdata, NULL, error);

	if (r < 0)
		return r;
	r = manager_refresh_objects(userdata, &emit);
	if (r == -ENOMEM || emit == -ENOMEM)
		return -ENOMEM;
	if (r < 0)
		return sd_bus_error_setf(
			error, SMCD_BUS_ERROR_KERNEL,
			"Cannot read the SMC devices and link groups: %s (the objects stay as they were)",
			strerror(-r));
	/* The kernel was read; only the bus did not take a signal (a full queue, say).
	 * Error.Kernel would tell the caller that the read failed and the objects are old. */
	if (emit < 0)
		return sd_bus_error_setf(
			error, SD_BUS_ERROR_FAILED,
			"Read the SMC devices and link groups, but could not send their change signals: %s (the objects are up to date)",
			strerror(-emit));
	return sd_bus_reply_method_return(msg, NULL);
}

static int method_describe_config(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_(freep) char *text = NULL;
	int r;

	/* The file's content: admins only (see bus_reader_is_admin()). */
	r = bus_check_admin(msg, m, "Showing the running configuration", error);
	if (r < 0)
		return r;
	text = config_dump(m->config);
	if (!text)
		return -ENOMEM;
	return sd_bus_reply_method_return(msg, "s", text);
}

/*
 * The dry run of a file's text (smcctl config diff FILE).  Read only, but admins only all
 * the same (bus_check_admin(), like DescribeConfig): the text names files the agent, as root,
 * would read (ueid.machine-id-file) and namespaces it would open.  An invalid text is an
 * answer, not an error: the document says so with the errors, as smcd-agent --plan does.
 *
 * An admin of SMC (admin-group) is not root, so nothing is read for the caller that the
 * caller could not read itself, and nothing the agent read is quoted to a caller who is
 * not root:
 *   PlanConfigWithDropIns(file, yaml, dropins)  the caller read everything with its own
 *       rights (smcctl config diff FILE): FILE's text and the texts of FILE.d/ *.yaml; the
 *       agent opens nothing under file, which only names them.
 *   PlanConfig("", "")  the dry run of a Reload: the agent's own file and drop-ins, read
 *       as a reload reads them (manager_config_read(): root's files only; a missing file
 *       is the built-in defaults while the agent runs on them, else refused).
 *   PlanConfig(file, yaml)  yaml with the agent's own drop-ins, for file "" or the agent's
 *       own ConfigPath only: any other file's drop-ins would be read as root, so that is
 *       refused, naming PlanConfigWithDropIns.
 * ueid.machine-id-file: see plan_machine_id().
 */
struct plan_request {
	const char *path, *text;
	struct config_dropin_text *dropins; /* PlanConfigWithDropIns */
	size_t n_dropins;
	bool with_dropins;
	bool agent_read; /* the agent read a file for it: its errors are redacted for non-root */
};

static int plan_read(struct manager *m, struct plan_request *q, struct config **ret,
		     struct config_errors *errors, sd_bus_error *error)
{
	bool builtin;

	if (!q->with_dropins && !q->path[0] && !q->text[0]) {
		q->agent_read = true;
		q->path = m->config_path;
		return manager_config_read(m->config_path, true, m->config_builtin, ret, &builtin,
					   errors);
	}
	if (!q->path[0])
		q->path = m->config_path;
	/* A relative path would be named as the agent's working directory's. */
	if (q->path[0] != '/')
		return sd_bus_error_setf(
			error, SD_BUS_ERROR_INVALID_ARGS,
			"'%s' is not an absolute path (expected FILE's absolute path)", q->path);
	if (q->with_dropins)
		return config_load_from(
			q->path, q->text, strlen(q->text),
			&(struct config_dropins){ .texts = q->dropins, .n_texts = q->n_dropins },
			ret, errors);
	if (!streq(q->path, m->config_path))
		return sd_bus_error_setf(
			error, SD_BUS_ERROR_INVALID_ARGS,
			"PlanConfig reads the drop-ins of the agent's own %s only, not of %s: send the texts of %s.d/*.yaml with %s (smcctl config diff FILE does)",
			m->config_path, q->path, q->path, SMCD_BUS_MANAGER_PLAN_CONFIG_WITH_DROPINS);
	/* The text is the caller's; the drop-ins are the agent's own, read as a reload does. */
	_cleanup_(freep) char *dir = config_dropin_dir(q->path);
	if (!dir)
		return -ENOMEM;
	q->agent_read = true;
	return config_load_from(q->path, q->text, strlen(q->text),
				&(struct config_dropins){ .dir = dir, .owned = true }, ret, errors);
}

/*
 * The errors for a caller who is not root: those of the caller's own text (path, when it
 * sent one) as they are, and those about a whole file (line 0: it cannot be read, is a
 * link, is not root's, which quote nothing of it); every other one with only its
 * location, since it is about a file the agent read as root and may quote it (a line of
 * any file a link pointed at).
 */
static int plan_errors_redact(struct config_errors *errors, const struct plan_request *q,
			      bool caller_text)
{
	for (size_t i = 0; i < errors->n; i++) {
		const char *line = errors->lines[i], *yaml = strstr(line, CONFIG_DROPIN_SUFFIX ":");
		_cleanup_(freep) char *file = NULL;
		char *redacted = NULL;
		size_t keep;

		if (errors->marks[i].line == 0 || (caller_text && location_length(line, q->path)))
			continue;
		/* The main file's, or a drop-in's: "DIR/NAME.yaml:LINE:COL: ...". */
		keep = location_length(line, q->path);
		if (!keep && yaml) {
			file = strndup(line, (size_t)(yaml - line) + strlen(CONFIG_DROPIN_SUFFIX));
			if (!file)
				return -ENOMEM;
			keep = location_length(line, file);
		}
		if (asprintf(&redacted,
			     "%.*s%s(the message is shown to root only: it is about a file the agent read, and may quote it; \"smcctl config check\" shows it to whoever may read that file)",
			     (int)keep, line, keep ? " " : "") < 0)
			return -ENOMEM;
		free(errors->lines[i]);
		errors->lines[i] = redacted;
	}
	return 0;
}

/*
 * Whether the plan may read c's ueid.machine-id-file to plan the derived UEID: for root,
 * and for anyone the one the running configuration names (root's own choice, read at
 * every reconciliation: its UEID is in the kernel for all to see).  Any other would be
 * read as root for a caller who may not be able to read it: its digits would come back in
 * the planned UEID, and its existence and shape in the message.  So for that caller the
 * derivation is turned off in this plan's copy of the config and the plan says the UEID is
 * derived from FILE when applied, not read now (config_plan_ueid_unread()).
 *
 * Decided against: smcctl reading the file with the caller's rights and sending it (or
 * the UEID): the agent would plan a value it cannot check, PlanConfig would need another
 * argument, and the derivation (common/ueid-derive.c) would run on both sides of the bus.
 * True: read it.
 */
static bool plan_machine_id(sd_bus_message *msg, struct manager *m, struct config *c)
{
	if (!c->ueid.auto_derive || bus_sender_is_root(msg) ||
	    streq_ptr(c->ueid.machine_id_file, m->config->ueid.machine_id_file))
		return true;
	c->ueid.auto_derive = false;
	return false;
}

/* PlanConfigWithDropIns' a(ss): pointers into msg. */
static int plan_read_dropins(sd_bus_message *msg, struct plan_request *q, sd_bus_error *error)
{
	const char *name, *text;
	int r;

	r = sd_bus_message_enter_container(msg, 'a', "(ss)");
	while (r >= 0 && (r = sd_bus_message_read(msg, "(ss)", &name, &text)) > 0) {
		struct config_dropin_text *v;

		if (q->n_dropins >= CONFIG_DROPIN_TEXTS_MAX)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "More than %d drop-ins: a plan takes at most %d",
						 CONFIG_DROPIN_TEXTS_MAX, CONFIG_DROPIN_TEXTS_MAX);
		v = realloc(q->dropins, (q->n_dropins + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		q->dropins = v;
		v[q->n_dropins++] = (struct config_dropin_text){ .name = name, .text = text };
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(msg);
	return r;
}

static int plan_config(sd_bus_message *msg, struct manager *m, bool with_dropins, sd_bus_error *error)
{
	_cleanup_(config_freep) struct config *c = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct plan_request q = { .with_dropins = with_dropins };
	struct config_errors errors = {};
	int r;

	r = bus_check_admin(msg, m, "Planning a configuration", error);
	if (r < 0)
		return r;
	r = sd_bus_message_read(msg, "ss", &q.path, &q.text);
	if (r >= 0 && with_dropins)
		r = plan_read_dropins(msg, &q, error);
	if (r >= 0 && !sd_bus_error_is_set(error))
		r = plan_read(m, &q, &c, &errors, error);
	free(q.dropins);
	if (r == -ENOMEM || sd_bus_error_is_set(error)) {
		config_errors_clear(&errors);
		return r;
	}
	if (r < 0 && q.agent_read && !bus_sender_is_root(msg) &&
	    plan_errors_redact(&errors, &q, q.text[0] != '\0') < 0)
		r = -ENOMEM;
	if (r < 0 && r != -ENOMEM)
		doc = config_plan_invalid_json(q.path, &errors, PLAN_PLANNER_AGENT);
	config_errors_clear(&errors);
	if (r == -ENOMEM)
		return r;
	if (r >= 0) {
		bool read_id = plan_machine_id(msg, m, c);

		r = config_plan_json(m->kernel, m->policy, c, PLAN_PLANNER_AGENT, &doc);
		if (r < 0 && r != -ENOMEM)
			return sd_bus_error_setf(error, SMCD_BUS_ERROR_KERNEL, "Cannot plan %s: %s",
						 q.path, strerror(-r));
		if (r >= 0 && !read_id)
			r = config_plan_ueid_unread(doc, c->ueid.machine_id_file);
		if (r < 0)
			return r;
	}
	if (!doc)
		return -ENOMEM;
	return sd_bus_reply_method_return(
		msg, "s", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
}

static int method_plan_config(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return plan_config(msg, userdata, false, error);
}

static int method_plan_config_with_dropins(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return plan_config(msg, userdata, true, error);
}

/*
 * EnableUnit(s unit, s cgroup) -> (s file, b changed, a(sss) results) and DisableUnit(s unit)
 * -> (s file, b changed, a(sss) results): smcctl enable/disable (unit-dropin.c).  The caller
 * resolves the unit to its cgroup (systemd's ControlGroup, or its slice): the agent has no
 * business with systemd's bus and the cgroup is all a policy needs.  file is the drop-in
 * written or removed or, when nothing changed, the file that lists the cgroup (enable) or
 * "" (disable of a unit not enabled); results are the reconciliation's, as Reconcile's.
 */
int bus_unit_error(int r, const char *why, sd_bus_error *error)
{
	switch (r) {
	case 0:
	case 1:
		return 0;
	case -EINVAL:
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s", why ? why : "");
	case -EEXIST:
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_OWNED, "%s", why ? why : "");
	case MANAGER_UNIT_REFUSED:
		return sd_bus_error_setf(error, SMCD_BUS_ERROR_CONFIG_INVALID,
					 "Configuration refused, nothing changed:\n%s",
					 why ? why : "");
	case MANAGER_UNIT_APPLY_FAILED:
		/* The file changed and is in force: no "nothing changed" error name. */
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s", why ? why : "");
	case -ENOMEM:
		return r;
	default:
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "%s",
					 why ? why : strerror(r < 0 ? -r : EIO));
	}
}

static int unit_reply(sd_bus_message *msg, struct manager *m, int r, const char *path,
		      const char *why, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	struct report none = {};
	bool changed = r == 0;
	int k;

	k = bus_unit_error(r, why, error);
	if (k < 0)
		return k;
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_append(reply, "sb", path ? path : "", changed);
	if (r >= 0)
		r = bus_append_report(reply, changed ? &m->report : &none);
	if (r < 0)
		return r;
	return sd_bus_send(NULL, reply, NULL);
}

/* Checked before polkit is asked (bus-access.c: nothing is done before the answer). */
static int unit_argument(const char *unit, const char *cgroup, sd_bus_error *error)
{
	char name[CONFIG_UNIT_NAME_MAX + 1];
	const char *why = NULL;

	if (config_unit_name(unit, name, &why) < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "'%s' is not a unit name: %s", unit, why);
	why = cgroup ? config_cgroup_path_problem(cgroup) : NULL;
	if (why)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "'%s' is not a valid cgroup path: %s", cgroup, why);
	return 0;
}

static int method_enable_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_(freep) char *path = NULL, *why = NULL;
	const char *unit, *cgroup;
	int r;

	r = sd_bus_message_read(msg, "ss", &unit, &cgroup);
	if (r < 0)
		return r;
	r = unit_argument(unit, cgroup, error);
	if (r < 0)
		return r;
	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	r = manager_enable_unit(m, unit, cgroup, &path, &why);
	return unit_reply(msg, m, r, path, why, error);
}

static int method_disable_unit(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	_cleanup_(freep) char *path = NULL, *why = NULL;
	const char *unit;
	int r;

	r = sd_bus_message_read(msg, "s", &unit);
	if (r < 0)
		return r;
	r = unit_argument(unit, NULL, error);
	if (r < 0)
		return r;
	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	r = manager_disable_unit(m, unit, &path, &why);
	return unit_reply(msg, m, r, path, why, error);
}

/* ------------------------------------------------------------------------------------- */
/* The kernel's tables: UEIDs and PNET IDs behind one set of methods (Add, Remove, Flush)  */

enum table_op {
	TABLE_ADD,
	TABLE_REMOVE,
	TABLE_FLUSH,
	_TABLE_OP_MAX,
};

/* One method's argument: the key (a UEID, a PNET ID), and the whole entry a PNET Add has. */
struct table_entry {
	char key[SMC_EID_LEN + 1];
	struct smc_pnet_entry pnet;
};

/* What the configuration says of a table. */
struct table_config {
	bool exclusive;		 /* its .exclusive: nobody else's entries */
	bool wants;		 /* it lists (or derives) entries: a flush would remove them */
	struct config_mark mark; /* the section's line */
};

struct kernel_table {
	/* Read and check the method's arguments (Add, Remove), before polkit is asked. */
	int (*argument)(sd_bus_message *msg, enum table_op op, struct table_entry *e,
			sd_bus_error *error);
	void (*config)(const struct config *c, struct table_config *ret);
	/* Whether the configuration lists (or derives) this key: its line in *ret. */
	bool (*owns)(struct manager *m, const char *key, struct config_mark *ret);
	int (*apply)(struct kernel *k, enum table_op op, const struct table_entry *e);
	bool add_checks_owner; /* an Add of a key the configuration owns is refused too */
	/* The refusals: Add to an exclusive table, a change of an owned key, a Flush. */
	const char *exclusive_what, *owned_what, *wanted_what;
	/* The journal's words and the kernel's operation, per table_op. */
	const char *change[_TABLE_OP_MAX];
	enum smc_op op[_TABLE_OP_MAX];
};

static int table_owned(struct manager *m, const struct kernel_table *t, enum table_op op,
		       const struct table_entry *e, sd_bus_error *error)
{
	struct table_config c;
	struct config_mark mark;

	t->config(m->config, &c);
	switch (op) {
	case TABLE_ADD:
		if (c.exclusive)
			return owned_error(m, error, c.mark, t->exclusive_what);
		if (t->add_checks_owner && t->owns(m, e->key, &mark))
			return owned_error(m, error, mark, t->owned_what);
		return 0;
	case TABLE_REMOVE:
		if (t->owns(m, e->key, &mark))
			return owned_error(m, error, mark, t->owned_what);
		return 0;
	default:
		if (c.exclusive || c.wants)
			return owned_error(m, error, c.mark, t->wanted_what);
		return 0;
	}
}

/* Every method of every table: arguments, polkit, the configuration, the kernel. */
static int table_method(sd_bus_message *msg, struct manager *m, const struct kernel_table *t,
			enum table_op op, sd_bus_error *error)
{
	struct table_entry e = {};
	int r;

	if (op != TABLE_FLUSH) {
		r = t->argument(msg, op, &e, error);
		if (r < 0)
			return r;
	}
	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	r = table_owned(m, t, op, &e, error);
	if (r < 0)
		return r;
	log_runtime_change(msg, t->change[op], e.key);
	r = t->apply(m->kernel, op, &e);
	if (r < 0)
		return kernel_error(error, t->op[op], r, m);
	return sd_bus_reply_method_return(msg, NULL);
}

static bool ueid_owned(struct manager *m, const char *ueid, struct config_mark *ret)
{
	char derived[SMC_EID_LEN + 1], err[160];

	for (size_t i = 0; i < m->config->ueid.n_entries; i++)
		if (streq(m->config->ueid.entries[i].ueid, ueid)) {
			*ret = m->config->ueid.entries[i].mark;
			return true;
		}
	if (m->config->ueid.auto_derive &&
	    ueid_auto_derive(m->config->ueid.machine_id_file, m->config->ueid.derivation, derived,
			     NULL, err, sizeof(err)) == 0 &&
	    streq(derived, ueid)) {
		*ret = (struct config_mark){};
		return true;
	}
	return false;
}

static int ueid_argument(sd_bus_message *msg, enum table_op op, struct table_entry *e,
			 sd_bus_error *error)
{
	const char *ueid, *reason = NULL;
	int r;

	r = sd_bus_message_read(msg, "s", &ueid);
	if (r < 0)
		return r;
	if (smc_ueid_validate(ueid, e->key, &reason) < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid UEID '%s': %s",
					 ueid, reason ? reason : "rejected");
	strstrip_trailing(e->key);
	return 0;
}

static void ueid_config(const struct config *c, struct table_config *ret)
{
	*ret = (struct table_config){
		.exclusive = c->ueid.exclusive,
		.wants = c->ueid.auto_derive || c->ueid.n_entries,
		.mark = c->ueid.mark,
	};
}

static int ueid_apply(struct kernel *k, enum table_op op, const struct table_entry *e)
{
	switch (op) {
	case TABLE_ADD:
		return k->ops->ueid_add(k, e->key);
	case TABLE_REMOVE:
		return k->ops->ueid_del(k, e->key);
	default:
		return k->ops->ueid_flush(k);
	}
}

static const struct kernel_table ueid_table = {
	.argument = ueid_argument,
	.config = ueid_config,
	.owns = ueid_owned,
	.apply = ueid_apply,
	.exclusive_what = "The UEID table (ueid.exclusive: true)",
	.owned_what = "This UEID",
	.wanted_what = "The UEID table (it holds UEIDs the configuration wants)",
	.change = { "add UEID", "remove UEID", "flush UEIDs" },
	.op = { SMC_OP_UEID_ADD, SMC_OP_UEID_DEL, SMC_OP_UEID_FLUSH },
};

static bool pnetid_owned(struct manager *m, const char *pnetid, struct config_mark *ret)
{
	if (config_loopback_owns_pnetid(m->config, pnetid, ret))
		return true;
	for (size_t i = 0; i < m->config->pnet.n_entries; i++)
		if (streq(m->config->pnet.entries[i].pnetid, pnetid)) {
			*ret = m->config->pnet.entries[i].mark;
			return true;
		}
	return false;
}

static int pnetid_argument(const char *s, char ret[SMC_PNETID_LEN + 1], sd_bus_error *error)
{
	const char *reason = NULL;

	if (smc_pnetid_validate(s, ret, &reason) < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Invalid PNET ID '%s': %s", s, reason ? reason : "rejected");
	return 0;
}

/* AddPnet's (pnetid, ethernet, device, port), RemovePnet's pnetid. */
static int pnet_argument(sd_bus_message *msg, enum table_op op, struct table_entry *e,
			 sd_bus_error *error)
{
	struct smc_pnet_entry *p = &e->pnet;
	const char *pnetid, *eth = "", *ib = "";
	uint8_t port = 0;
	int r;

	if (op == TABLE_ADD)
		r = sd_bus_message_read(msg, "sssy", &pnetid, &eth, &ib, &port);
	else
		r = sd_bus_message_read(msg, "s", &pnetid);
	if (r < 0)
		return r;
	r = pnetid_argument(pnetid, p->pnetid, error);
	if (r < 0)
		return r;
	snprintf(e->key, sizeof(e->key), "%s", p->pnetid);
	if (op != TABLE_ADD)
		return 0;
	if (!!eth[0] == !!ib[0] || strlen(eth) >= sizeof(p->eth_name) ||
	    strlen(ib) >= sizeof(p->ib_name) || (ib[0] && port > 2) || (eth[0] && port))
		return sd_bus_error_set(
			error, SD_BUS_ERROR_INVALID_ARGS,
			"Give exactly one of an Ethernet device, or an RDMA/DIBS device with port 0 (meaning 1), 1 or 2");
	snprintf(p->eth_name, sizeof(p->eth_name), "%s", eth);
	snprintf(p->ib_name, sizeof(p->ib_name), "%s", ib);
	p->ib_port = ib[0] ? (port ? port : 1) : 0;
	return 0;
}

static void pnet_config(const struct config *c, struct table_config *ret)
{
	*ret = (struct table_config){
		.exclusive = c->pnet.exclusive,
		.wants = c->pnet.n_entries > 0,
		.mark = c->pnet.mark,
	};
}

static int pnet_apply(struct kernel *k, enum table_op op, const struct table_entry *e)
{
	switch (op) {
	case TABLE_ADD:
		return k->ops->pnet_add(k, &e->pnet);
	case TABLE_REMOVE:
		return k->ops->pnet_del(k, e->key);
	default:
		return k->ops->pnet_flush(k);
	}
}

static const struct kernel_table pnet_table = {
	.argument = pnet_argument,
	.config = pnet_config,
	.owns = pnetid_owned,
	.apply = pnet_apply,
	.add_checks_owner = true,
	.exclusive_what = "The PNET table (pnet.exclusive: true)",
	.owned_what = "This PNET ID",
	.wanted_what = "The PNET table (it holds entries the configuration wants)",
	.change = { "add PNET entry", "remove PNET ID", "flush PNET table" },
	.op = { SMC_OP_PNET_ADD, SMC_OP_PNET_DEL, SMC_OP_PNET_FLUSH },
};

static int method_add_ueid(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return table_method(msg, userdata, &ueid_table, TABLE_ADD, error);
}

static int method_remove_ueid(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return table_method(msg, userdata, &ueid_table, TABLE_REMOVE, error);
}

static int method_flush_ueid(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return table_method(msg, userdata, &ueid_table, TABLE_FLUSH, error);
}

static int method_add_pnet(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return table_method(msg, userdata, &pnet_table, TABLE_ADD, error);
}

static int method_remove_pnet(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return table_method(msg, userdata, &pnet_table, TABLE_REMOVE, error);
}

static int method_flush_pnet(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return table_method(msg, userdata, &pnet_table, TABLE_FLUSH, error);
}

static int method_set_sysctl(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;
	const struct smc_sysctl_desc *d;
	const struct config_sysctl *owned;
	const char *name, *value;
	char expected[160], text[96];
	int64_t v;
	int r;

	r = sd_bus_message_read(msg, "ss", &name, &value);
	if (r < 0)
		return r;
	d = smc_sysctl_find(name);
	if (!d || streq(name, "limit_smc_hs"))
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 d ? "Use SetHandshakeLimitation for limit_smc_hs"
					   : "Unknown sysctl '%s'",
					 name);
	r = sysctl_parse_value(d, value, &v, expected, sizeof(expected));
	if (r < 0) {
		char hint[64] = "";

		if (r == -EINVAL && d->unit == SMC_UNIT_BYTES)
			size_hint(value, hint, sizeof(hint));
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Invalid value '%s' for %s (expected %s)%s", value, name,
					 expected, hint);
	}
	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	owned = config_find_sysctl(m->config, name);
	if (owned) {
		char what[80];

		snprintf(what, sizeof(what), "net.smc.%s", name);
		return owned_error(m, error, owned->mark, what);
	}
	if (d->unit == SMC_UNIT_STRING)
		snprintf(text, sizeof(text), "%s", value);
	else
		snprintf(text, sizeof(text), "%" PRId64, v);
	log_runtime_change(msg, name, text);
	r = m->kernel->ops->sysctl_set(m->kernel, name, text);
	if (r < 0)
		return kernel_error(error, SMC_OP_SYSCTL_SET, r, m);
	return sd_bus_reply_method_return(msg, NULL);
}

static int set_switch(sd_bus_message *msg, struct manager *m, sd_bus_error *error,
		      enum config_switch owned, struct config_mark mark, const char *what,
		      int (*set)(struct kernel *, bool), enum smc_op op)
{
	int enable, r;

	r = sd_bus_message_read(msg, "b", &enable);
	if (r < 0)
		return r;
	r = bus_authorize(msg, m, error);
	if (r != 0)
		return r;
	if (owned != CONFIG_LEAVE)
		return owned_error(m, error, mark, what);
	log_runtime_change(msg, what, enable ? "on" : "off");
	r = set(m->kernel, enable);
	if (r < 0)
		return kernel_error(error, op, r, m);
	return sd_bus_reply_method_return(msg, NULL);
}

static int method_set_hs(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return set_switch(msg, m, error, m->config->hs_limitation, m->config->hs_limitation_mark,
			  "The handshake limitation", m->kernel->ops->hs_set,
			  SMC_OP_HS_LIMITATION_SET);
}

static int method_set_seid(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct manager *m = userdata;

	return set_switch(msg, m, error, m->config->seid, m->config->seid_mark, "The SEID",
			  m->kernel->ops->seid_set, SMC_OP_SEID_ENABLE);
}

#define RO SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_VERSION, "s", prop_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_STATE, "s", prop_state, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_CONFIG_PATH, "s", prop_config_path, 0,
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_CONFIG_REVISION, "s", prop_config_revision, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_CONFIG_LOADED_USEC, "t", prop_config_loaded, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_CONFIG_ERROR, "s", prop_config_error, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_LAST_RECONCILE, "(ta(sss))", prop_last_reconcile, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_LAST_CHECK_USEC, "t", prop_last_check, 0, 0),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_DRIFT, "a(sss)", prop_drift, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_DRIFT_ACTION, "s", prop_drift_action, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_DRIFT_INTERVAL_USEC, "t", prop_drift_interval, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_DRIFT_REPAIRS, "t", prop_drift_repairs, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_CAPABILITIES, "a{sv}", prop_capabilities, 0, RO),
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_OBJECTS_STALE, "b", prop_objects_stale, 0, RO),
	/* Every poll moves it: no signal each interval (as LastCheckUSec). */
	SD_BUS_PROPERTY(SMCD_BUS_MANAGER_OBJECTS_READ_USEC, "t", prop_objects_read, 0, 0),
	SD_BUS_METHOD(SMCD_BUS_MANAGER_RELOAD, NULL, NULL, method_reload, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_RECONCILE, SD_BUS_NO_ARGS,
				SD_BUS_RESULT("a(sss)", results), method_reconcile, POLKIT),
	SD_BUS_METHOD(SMCD_BUS_MANAGER_REFRESH, NULL, NULL, method_refresh, ANYONE),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_DESCRIBE_CONFIG, SD_BUS_NO_ARGS,
				SD_BUS_RESULT("s", yaml), method_describe_config, ANYONE),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_PLAN_CONFIG, SD_BUS_ARGS("s", file, "s", yaml),
				SD_BUS_RESULT("s", plan), method_plan_config, ANYONE),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_PLAN_CONFIG_WITH_DROPINS,
				SD_BUS_ARGS("s", file, "s", yaml, "a(ss)", dropins),
				SD_BUS_RESULT("s", plan), method_plan_config_with_dropins, ANYONE),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_ADD_UEID, SD_BUS_ARGS("s", ueid), SD_BUS_NO_RESULT,
				method_add_ueid, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_REMOVE_UEID, SD_BUS_ARGS("s", ueid),
				SD_BUS_NO_RESULT, method_remove_ueid, POLKIT),
	SD_BUS_METHOD(SMCD_BUS_MANAGER_FLUSH_UEID, NULL, NULL, method_flush_ueid, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_SET_SYSCTL, SD_BUS_ARGS("s", name, "s", value),
				SD_BUS_NO_RESULT, method_set_sysctl, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_SET_HANDSHAKE_LIMITATION, SD_BUS_ARGS("b", enable),
				SD_BUS_NO_RESULT, method_set_hs, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_SET_SEID, SD_BUS_ARGS("b", enable),
				SD_BUS_NO_RESULT, method_set_seid, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_ADD_PNET,
				SD_BUS_ARGS("s", pnetid, "s", ethernet, "s", device, "y", port),
				SD_BUS_NO_RESULT, method_add_pnet, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_REMOVE_PNET, SD_BUS_ARGS("s", pnetid),
				SD_BUS_NO_RESULT, method_remove_pnet, POLKIT),
	SD_BUS_METHOD(SMCD_BUS_MANAGER_FLUSH_PNET, NULL, NULL, method_flush_pnet, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_ENABLE_UNIT, SD_BUS_ARGS("s", unit, "s", cgroup),
				SD_BUS_RESULT("s", file, "b", changed, "a(sss)", results),
				method_enable_unit, POLKIT),
	SD_BUS_METHOD_WITH_ARGS(SMCD_BUS_MANAGER_DISABLE_UNIT, SD_BUS_ARGS("s", unit),
				SD_BUS_RESULT("s", file, "b", changed, "a(sss)", results),
				method_disable_unit, POLKIT),
	SD_BUS_VTABLE_END,
};

int bus_register_all(struct manager *m)
{
	int r;

	r = sd_bus_add_object_vtable(m->bus, NULL, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER,
				     manager_vtable, m);
	if (r >= 0)
		r = sd_bus_add_object_manager(m->bus, NULL, SMCD_BUS_PATH);
	if (r >= 0)
		r = bus_objects_register(m);
	if (r >= 0)
		r = bus_stats_register(m);
	if (r >= 0)
		r = bus_policy_register(m);
	if (r >= 0)
		r = bus_loopback_register(m);
	if (r >= 0)
		r = bus_assess_register(m);
	if (r >= 0)
		r = bus_autopilot_register(m);
	if (r >= 0)
		r = bus_polkit_register(m);
	return r;
}

int bus_setup(struct manager *m)
{
	int r;

	/* sd_bus_open_system() honours DBUS_SYSTEM_BUS_ADDRESS (tests use a private bus). */
	r = sd_bus_open_system(&m->bus);
	if (r < 0)
		return log_error_errno(r, "Cannot connect to the system bus: %m");
	r = bus_register_all(m);
	if (r < 0)
		return log_error_errno(r, "Cannot register the D-Bus objects: %m");
	/* Losing the bus ends the event loop with EXIT_FAILURE: systemd restarts us (the way
	 * systemd's own daemons handle a dbus restart). */
	r = sd_bus_set_exit_on_disconnect(m->bus, true);
	if (r >= 0)
		r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0)
		return log_error_errno(r, "Cannot attach the bus to the event loop: %m");
	r = sd_bus_request_name(m->bus, m->bus_name, 0);
	if (r < 0)
		return log_error_errno(
			r,
			"Cannot own the bus name %s (another agent running, or the D-Bus policy is not installed?): %m",
			m->bus_name);
	return 0;
}
