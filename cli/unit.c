// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl enable UNIT / smcctl disable UNIT: one systemd unit's cgroup into smc.yaml's
 * policies: or out of it, so that switching one service to SMC is one command.
 *
 * The choice is kept in the unit's drop-in of smc.yaml (config/dropin.h: why drop-ins),
 * written by the agent (EnableUnit, DisableUnit: it applies the change as Reload does, or
 * refuses it and puts the directory back) or, with no agent on the bus, by smcctl itself,
 * which then says that the agent applies it when it starts.
 *
 * UNIT to cgroup: systemd's ControlGroup of the unit (LoadUnit: a unit not running is
 * loaded, not started); a unit that is not running has none, and then its place follows
 * from its Slice as systemd names cgroups (a-b.slice is /a.slice/a-b.slice, so a unit of
 * it is /a.slice/a-b.slice/UNIT).  A unit systemd does not know is an error, and so is a
 * host without systemd on the bus: --cgroup PATH names the cgroup instead (then systemd is
 * not asked at all, and the name only names the drop-in).
 *
 * JSON: {"action": "enable"|"disable", "unit", "cgroup" (enable), "file", "changed",
 *        "agent" (applied by smcd-agent), "results": [{"item", "result", "message"}]}
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "cli/bus.h"
#include "cli/verbs.h"
#include "common/bus-api.h"
#include "common/output.h"
#include "common/util.h"
#include "config/config.h"

/* ---- systemd ---------------------------------------------------------------------------- */

/* a-b.slice: /a.slice/a-b.slice as systemd nests slices ("-.slice", the root: ""). */
int unit_slice_path(const char *slice, char *buf, size_t len)
{
	size_t n = strlen(slice), base = n - strlen(".slice"), at = 0;

	buf[0] = '\0';
	if (streq(slice, "-.slice"))
		return 0;
	if (n <= strlen(".slice") || !streq(slice + base, ".slice") || slice[0] == '-' ||
	    slice[base - 1] == '-' || strstr(slice, "--"))
		return -EINVAL; /* systemd refuses such slice names */
	for (size_t i = 1; i <= base; i++) {
		int k;

		if (i < base && slice[i] != '-')
			continue;
		k = snprintf(buf + at, len - at, "/%.*s.slice", (int)i, slice);
		if (k < 0 || (size_t)k >= len - at)
			return -ENAMETOOLONG;
		at += (size_t)k;
	}
	return 0;
}

static int get_string(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_error *e, char *buf, size_t len)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *s;
	int r;

	r = sd_bus_get_property(bus, SYSTEMD_SERVICE, path, iface, prop, e, &reply, "s");
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "s", &s);
	if (r < 0)
		return r;
	if (strlen(s) >= len)
		return -ENAMETOOLONG;
	snprintf(buf, len, "%s", s);
	return 0;
}

/* systemd1.Service for a.service, and so on. */
static void type_interface(const char *unit, char *buf, size_t len)
{
	const char *type = strrchr(unit, '.') + 1;

	snprintf(buf, len, SYSTEMD_IFACE_PREFIX "%c%s", toupper((unsigned char)type[0]), type + 1);
}

/* LoadUnit did not answer: systemd not running (not on this bus), or it said no. */
static int systemd_failed(struct smcctl *c, const char *unit, const sd_bus_error *e, int r)
{
	if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"cannot ask systemd for the cgroup of %s: systemd is not running on the system bus (no %s): give the cgroup with --cgroup PATH, e.g. smcctl enable %s --cgroup /system.slice/%s",
			unit, SYSTEMD_SERVICE, unit, unit);
	if (sd_bus_error_has_name(e, SYSTEMD_ERROR_NO_SUCH_UNIT))
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"no such unit: systemd knows no %s (systemctl list-unit-files; for a cgroup systemd does not manage, give --cgroup PATH)",
			unit);
	if (sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED))
		return smcctl_error(
			c, SMCCTL_EXIT_PERMISSION,
			"cannot ask systemd for the cgroup of %s: systemd refused (access denied): give the cgroup with --cgroup PATH",
			unit);
	/* Anything else is systemd's own answer, in its words, named as such. */
	return smcctl_error(
		c, SMCCTL_EXIT_FAILURE,
		"cannot ask systemd for the cgroup of %s: systemd answered %s%s%s: give the cgroup with --cgroup PATH",
		unit, e->name ? e->name : strerror(-r), e->message ? ": " : "",
		e->message ? e->message : "");
}

static int resolve_unit(struct smcctl *c, const char *unit, char *ret, size_t len)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	char iface[64], state[64], slice[CONFIG_UNIT_NAME_MAX + 1], parent[4096];
	const char *path;
	bool is_slice = strlen(unit) > 6 && streq(unit + strlen(unit) - 6, ".slice");
	int r;

	r = bus_open_quiet(&bus);
	if (r < 0)
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"cannot ask systemd for the cgroup of %s: there is no system bus to ask it on (%s): give the cgroup with --cgroup PATH, e.g. smcctl enable %s --cgroup /system.slice/%s",
			unit, strerror(-r), unit, unit);
	r = sd_bus_call_method(bus, SYSTEMD_SERVICE, SYSTEMD_PATH, SYSTEMD_IFACE_MANAGER,
			       SYSTEMD_LOAD_UNIT, &e, &reply, "s", unit);
	if (r >= 0)
		r = sd_bus_message_read(reply, "o", &path);
	if (r < 0)
		return systemd_failed(c, unit, &e, r);
	type_interface(unit, iface, sizeof(iface));
	r = get_string(bus, path, SYSTEMD_IFACE_UNIT, SYSTEMD_UNIT_LOAD_STATE, &e, state,
		       sizeof(state));
	if (r >= 0 && streq(state, "not-found"))
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"no such unit: systemd knows no %s (systemctl list-unit-files; for a cgroup systemd does not manage, give --cgroup PATH)",
			unit);
	if (r >= 0)
		r = get_string(bus, path, iface, SYSTEMD_UNIT_CONTROL_GROUP, &e, ret, len);
	if (r >= 0 && !ret[0]) {
		/* Not running: where systemd will put it. */
		if (is_slice)
			r = unit_slice_path(unit, ret, len);
		else if ((r = get_string(bus, path, iface, SYSTEMD_UNIT_SLICE, &e, slice,
					 sizeof(slice))) >= 0 &&
			 (r = unit_slice_path(slice[0] ? slice : "-.slice", parent, sizeof(parent))) >=
				 0 &&
			 (size_t)snprintf(ret, len, "%s/%s", parent, unit) >= len)
			r = -ENAMETOOLONG;
	}
	if (r < 0)
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"cannot read the cgroup of %s from systemd: %s (give --cgroup PATH)", unit,
			e.message ? e.message : strerror(-r));
	return 0;
}

/* ---- output ----------------------------------------------------------------------------- */

/*
 * The item of the unit's own policy when the agent could not put it in force (failed, or
 * the kernel lacks what it needs: unsupported), else NULL.  Then enable answers "no"
 * (status 1), though the drop-in stays: it is the configuration the operator asked for,
 * and the agent puts it in force at its next reconcile once the kernel can (a reboot into
 * another kernel, a module loaded); removing it would make that one more step to remember.
 */
static json_object *own_policy_not_in_force(json_object *doc)
{
	json_object *results = out_get(doc, "results");
	char mine[4200];

	if (!out_get_str(doc, "cgroup", NULL))
		return NULL;
	snprintf(mine, sizeof(mine), "policy:cgroup:%s", out_get_str(doc, "cgroup", ""));
	for (size_t i = 0; results && i < json_object_array_length(results); i++) {
		json_object *o = json_object_array_get_idx(results, i);
		const char *result = out_get_str(o, "result", "");

		if (streq(out_get_str(o, "item", ""), mine) &&
		    (streq(result, "failed") || streq(result, "unsupported")))
			return o;
	}
	return NULL;
}

static void unit_text(struct smcctl *c, json_object *doc)
{
	json_object *not_in_force = own_policy_not_in_force(doc);
	bool enable = streq(out_get_str(doc, "action", ""), "enable");
	bool changed = out_get_bool(doc, "changed", false), agent = out_get_bool(doc, "agent", false);
	const char *unit = out_get_str(doc, "unit", ""), *file = out_get_str(doc, "file", "");
	json_object *results = out_get(doc, "results");

	if (!changed && enable)
		fprintf(c->out, "%s is already enabled: %s lists its cgroup %s.\n", unit, file,
			out_get_str(doc, "cgroup", ""));
	else if (!changed)
		fprintf(c->out, "%s is not enabled: nothing to remove.\n", unit);
	else if (agent)
		fprintf(c->out, "%s %s: %s %s; smcd-agent applied it.\n",
			enable ? "Enabled" : "Disabled", unit, enable ? "wrote" : "removed", file);
	else
		fprintf(c->out,
			"smcd-agent is not running: %s %s; it takes effect when smcd-agent starts.\n",
			enable ? "wrote" : "removed", file);
	if (not_in_force)
		fprintf(c->out,
			"New sockets of cgroup %s are NOT switched to SMC: the policy is %s.\n",
			out_get_str(doc, "cgroup", ""), out_get_str(not_in_force, "result", ""));
	else if (changed && enable)
		fprintf(c->out, "New sockets of cgroup %s %s switched to SMC.\n",
			out_get_str(doc, "cgroup", ""), agent ? "are" : "will be");
	for (size_t i = 0; results && i < json_object_array_length(results); i++) {
		json_object *o = json_object_array_get_idx(results, i);
		const char *item = out_get_str(o, "item", ""), *result = out_get_str(o, "result", "");

		/* The policies, and whatever did not work. */
		if (strncmp(item, "policy:", 7) != 0 && streq(result, "unchanged"))
			continue;
		if (strncmp(item, "policy:", 7) != 0 && !streq(result, "failed"))
			continue;
		fprintf(c->out, "  %-40s %s%s%s\n", item, result,
			out_get_str(o, "message", "")[0] ? ": " : "", out_get_str(o, "message", ""));
	}
	if (not_in_force) {
		if (changed)
			fprintf(c->out, "%s stays: ", file);
		fprintf(c->out, "smcd-agent puts the policy in force as soon as the kernel can (it "
				"tries again at every reconcile; smcctl policy shows its state)");
		if (changed)
			fprintf(c->out, ". smcctl disable %s removes it", unit);
		fputs(".\n", c->out);
	}
}

/*
 * Already enabled, nothing reconciled: the policy's state as the agent has it (Policies),
 * appended to results when it is not in force, so that enabling again does not answer yes
 * where the first enable answered no.  Nothing is added when the state cannot be read (the
 * change itself is answered; smcctl policy says more).
 */
static int add_policy_state(json_object *results, const char *cgroup)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	const char *item, *kind, *target, *state, *message;
	uint64_t sockets;
	char mine[4200];
	int r;

	snprintf(mine, sizeof(mine), "policy:cgroup:%s", cgroup);
	if (bus_open_quiet(&bus) < 0 ||
	    sd_bus_get_property(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_POLICY,
				SMCD_BUS_POLICY_POLICIES, NULL, &reply, "a(ssssst)") < 0 ||
	    sd_bus_message_enter_container(reply, 'a', "(ssssst)") < 0)
		return 0;
	while ((r = sd_bus_message_read(reply, "(ssssst)", &item, &kind, &target, &state, &message,
					&sockets)) > 0) {
		json_object *o;

		if (!streq(item, mine) || (!streq(state, "unsupported") && !streq(state, "failed")))
			continue;
		o = json_object_new_object();
		if (!o || json_append(results, o) < 0 || json_add_str(o, "item", item) < 0 ||
		    json_add_str(o, "result", state) < 0 || json_add_str(o, "message", message) < 0)
			return -ENOMEM;
		return 0;
	}
	return 0;
}

static int unit_emit(struct smcctl *c, const char *action, const char *unit, const char *cgroup,
		     const char *file, bool changed, bool agent, sd_bus_message *reply)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	json_object *results = json_object_new_array();
	const char *item, *result, *message;
	int r, s;

	if (!doc || !results || json_add(doc, "results", results) < 0 ||
	    json_add_str(doc, "action", action) < 0 || json_add_str(doc, "unit", unit) < 0 ||
	    (cgroup && json_add_str(doc, "cgroup", cgroup) < 0) ||
	    json_add_str(doc, "file", file) < 0 || json_add_bool(doc, "changed", changed) < 0 ||
	    json_add_bool(doc, "agent", agent) < 0)
		return smcctl_oom(c);
	r = reply ? sd_bus_message_enter_container(reply, 'a', "(sss)") : 0;
	while (reply && r >= 0 &&
	       (r = sd_bus_message_read(reply, "(sss)", &item, &result, &message)) > 0) {
		json_object *o = json_object_new_object();

		if (!o || json_append(results, o) < 0 || json_add_str(o, "item", item) < 0 ||
		    json_add_str(o, "result", result) < 0 || json_add_str(o, "message", message) < 0)
			return smcctl_oom(c);
	}
	if (r < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot read smcd-agent's answer: %s",
				    strerror(-r));
	if (agent && !changed && cgroup && add_policy_state(results, cgroup) < 0)
		return smcctl_oom(c);
	s = smcctl_emit(c, doc, unit_text);
	/* The change is made, but does not work (the item says why): the answer is "no". */
	return s ? s : own_policy_not_in_force(doc) ? SMCCTL_EXIT_FAILURE : SMCCTL_EXIT_OK;
}

/* ---- through the agent ------------------------------------------------------------------ */

/* -ESRCH: no agent, go direct; else an exit status (the answer printed). */
static int through_agent(struct smcctl *c, const char *action, const char *unit, const char *cgroup)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	char what[CONFIG_UNIT_NAME_MAX + 32];
	const char *file;
	int changed = 0, s, r;

	snprintf(what, sizeof(what), "cannot %s %s", action, unit);
	if (cgroup)
		s = bus_forward(c, what, SMCD_BUS_IFACE_MANAGER, 0, &reply,
				SMCD_BUS_MANAGER_ENABLE_UNIT, "ss", unit, cgroup);
	else
		s = bus_forward(c, what, SMCD_BUS_IFACE_MANAGER, 0, &reply,
				SMCD_BUS_MANAGER_DISABLE_UNIT, "s", unit);
	if (s == -ESRCH) {
		/* No agent, or one from before EnableUnit: that one would not see the file. */
		r = bus_agent_running();
		if (r > 0)
			return smcctl_error(
				c, SMCCTL_EXIT_UNAVAILABLE,
				"%s: the running smcd-agent is older than this smcctl (no %s): restart it",
				what,
				cgroup ? SMCD_BUS_MANAGER_ENABLE_UNIT
				       : SMCD_BUS_MANAGER_DISABLE_UNIT);
		return -ESRCH;
	}
	if (s != SMCCTL_EXIT_OK)
		return s;
	r = sd_bus_message_read(reply, "sb", &file, &changed);
	if (r < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot read smcd-agent's answer: %s",
				    strerror(-r));
	return unit_emit(c, action, unit, cgroup, file, changed, true, reply);
}

/* ---- without an agent ------------------------------------------------------------------- */

static const char *config_path(const char *given)
{
	return given ? given : CONFIG_DEFAULT_PATH;
}

/* The configuration as the agent would load it, or NULL with its errors printed. */
static struct config *load_config(struct smcctl *c, const char *path)
{
	_cleanup_(freep) char *dir = config_dropin_dir(path);
	struct config_errors errors = {};
	struct config *cfg = NULL;
	int r;

	if (!dir)
		return NULL;
	r = config_load(path, &cfg, &errors);
	if (r == -ENOENT) {
		config_errors_clear(&errors);
		r = config_load_text(path, "", 0, dir, &cfg, &errors);
	}
	for (size_t i = 0; r < 0 && i < errors.n; i++)
		fprintf(c->err, "%s\n", errors.lines[i]);
	config_errors_clear(&errors);
	return r < 0 ? NULL : cfg;
}

static int write_error(struct smcctl *c, const char *what, const char *path, int r)
{
	if (r == -EACCES || r == -EPERM || r == -EROFS)
		return smcctl_error(
			c, SMCCTL_EXIT_PERMISSION,
			"cannot %s %s: %s (smcd-agent is not running, so smcctl writes the drop-in itself: run it as root)",
			what, path, strerror(-r));
	return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot %s %s: %s", what, path, strerror(-r));
}

static int enable_direct(struct smcctl *c, const struct verb_args *a, const char *unit,
			 const char *cgroup)
{
	const char *main_path = config_path(a->opt[UNIT_OPT_CONFIG]);
	_cleanup_(freep) char *path = config_unit_dropin_path(main_path, unit);
	_cleanup_(freep) char *text = config_unit_dropin_text(unit, cgroup);
	_cleanup_(freep) char *dir = config_dropin_dir(main_path), *old = NULL;
	_cleanup_(config_freep) struct config *cfg = NULL;
	int r, sync_error = 0;

	if (!path || !text || !dir)
		return smcctl_oom(c);
	cfg = load_config(c, main_path);
	if (!cfg)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "%s is not valid: fix it first (smcctl config check)", main_path);
	for (size_t i = 0; i < cfg->policies.n_cgroups; i++)
		if (streq(cfg->policies.cgroups[i].path, cgroup))
			return unit_emit(c, "enable", unit, cgroup,
					 cfg->policies.cgroups[i].file ? cfg->policies.cgroups[i].file
								       : main_path,
					 false, false, NULL);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return write_error(c, "create", dir, -errno);
	/* The unit's drop-in as it was (another cgroup, say), to put back if refused. */
	r = textfile_read_small(path, 64 * 1024, &old);
	if (r < 0)
		return write_error(c, "read", path, r);
	r = textfile_write_atomic(path, text, strlen(text), 0644, &sync_error);
	if (r < 0)
		return write_error(c, "write", path, r);
	/* Written (what follows reads it), only perhaps not across a crash: said, no failure. */
	if (r == TEXTFILE_NOT_DURABLE)
		fprintf(c->err,
			"smcctl: wrote %s, but cannot sync its directory: %s (a crash may undo it)\n",
			path, strerror(-sync_error));
	config_free(TAKE_PTR(cfg));
	cfg = load_config(c, main_path);
	if (!cfg) {
		if (old)
			(void)textfile_write_atomic(path, old, strlen(old), 0644, NULL);
		else
			(void)unlink(path);
		return smcctl_error(c, SMCCTL_EXIT_FAILURE,
				    "the configuration with %s is not valid: %s", path,
				    old ? "put its old text back" : "removed it again");
	}
	return unit_emit(c, "enable", unit, cgroup, path, true, false, NULL);
}

static int disable_direct(struct smcctl *c, const struct verb_args *a, const char *unit)
{
	const char *main_path = config_path(a->opt[DISABLE_OPT_CONFIG]);
	_cleanup_(freep) char *path = config_unit_dropin_path(main_path, unit);
	_cleanup_(config_freep) struct config *cfg = NULL;
	const struct config_policy_target *t;

	if (!path)
		return smcctl_oom(c);
	if (unlink(path) == 0)
		return unit_emit(c, "disable", unit, NULL, path, true, false, NULL);
	if (errno != ENOENT)
		return write_error(c, "remove", path, -errno);
	cfg = load_config(c, main_path);
	if (!cfg)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "%s is not valid: fix it first",
				    main_path);
	t = config_unit_cgroup_find(cfg, unit, NULL);
	if (t)
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"cannot disable %s: it is not enabled by a drop-in of smcctl enable: its cgroup %s is listed in %s, line %u; remove it there",
			unit, t->path, t->file ? t->file : main_path, t->line);
	return unit_emit(c, "disable", unit, NULL, "", false, false, NULL);
}

/* ---- the verbs -------------------------------------------------------------------------- */

static int unit_verb_argument(struct smcctl *c, const char *arg, char unit[CONFIG_UNIT_NAME_MAX + 1])
{
	const char *why = NULL;

	if (c->netns)
		return smcctl_usage(c, "a unit's policy is not per network namespace: no --netns");
	if (config_unit_name(arg, unit, &why) < 0)
		return smcctl_usage(c, "'%s' is not a unit name: %s", arg, why);
	return 0;
}

verb_fn unit_enable;
int unit_enable(struct smcctl *c, const struct verb_args *a)
{
	char unit[CONFIG_UNIT_NAME_MAX + 1], cgroup[4096];
	const char *given = a->opt[UNIT_OPT_CGROUP], *why;
	int s;

	if ((s = unit_verb_argument(c, a->pos[0], unit)))
		return s;
	if (given) {
		why = config_cgroup_path_problem(given);
		if (why)
			return smcctl_usage(c, "--cgroup '%s' is not a valid cgroup path: %s",
					    given, why);
		snprintf(cgroup, sizeof(cgroup), "%s", given);
	} else if ((s = resolve_unit(c, unit, cgroup, sizeof(cgroup))))
		return s;
	s = through_agent(c, "enable", unit, cgroup);
	return s == -ESRCH ? enable_direct(c, a, unit, cgroup) : s;
}

verb_fn unit_disable;
int unit_disable(struct smcctl *c, const struct verb_args *a)
{
	char unit[CONFIG_UNIT_NAME_MAX + 1];
	int s;

	if ((s = unit_verb_argument(c, a->pos[0], unit)))
		return s;
	s = through_agent(c, "disable", unit, NULL);
	return s == -ESRCH ? disable_direct(c, a, unit) : s;
}
