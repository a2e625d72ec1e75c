// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl policy [list]: smc.yaml's policies as smcd-agent applied them (org.smcd.Agent1.Policy
 * Policies and Hooks).  Policies are the agent's: without it there is nothing to list, and
 * the kernel has no view of them (they live in the agent's BPF maps).
 *
 * JSON:
 *   {"policies": [{"item", "kind", "target", "state", "message", "sockets", "source"}, ...],
 *    "kernel": {"select", "select_reason", "buffers", "buffers_reason", "exclude",
 *               "exclude_reason", "select_loaded", "exclude_loaded", "enrolled",
 *               "pinned", "pin_reason", "adopted", "run_sockets", "inherit_failures"}}
 *
 * smcctl policy flush: removes what the agent pinned under /sys/fs/bpf/smcd-agent (its
 * programs stay in force while it is stopped, as a network daemon's routes do), when the
 * agent is not running; JSON {"pin_dir", "removed"}.
 */
#include <errno.h>
#include <string.h>
#include <systemd/sd-bus.h>

#ifdef HAVE_BPF
#include "bpf/smcbpf.h"
#endif

#include "cli/agent.h"
#include "cli/bus.h"
#include "cli/verbs.h"
#include "cli/run.h"
#include "common/bus-api.h"
#include "common/output.h"

static const struct out_column policy_cols[] = {
	OUT_COL("kind", "KIND", OUT_STR),      OUT_COL("target", "TARGET", OUT_STR),
	OUT_COL("state", "STATE", OUT_STR),    OUT_COL("sockets", "SOCKETS", OUT_U64),
	OUT_COL("message", "DETAIL", OUT_STR), OUT_COL("source", "SOURCE", OUT_STR, .detail = 1),
};

static void kernel_line(struct smcctl *c, json_object *k, const char *key, const char *what)
{
	char reason_key[64];
	const char *reason;

	snprintf(reason_key, sizeof(reason_key), "%s_reason", key);
	reason = out_get_str(k, reason_key, "");
	fprintf(c->out, "  %-28s %s%s%s\n", what, out_get_bool(k, key, false) ? "yes" : "no",
		reason[0] ? ": " : "", reason);
}

void policy_list_text(struct smcctl *c, json_object *doc)
{
	json_object *rows = out_get(doc, "policies"), *k = out_get(doc, "kernel");

	if (!rows || json_object_array_length(rows) == 0)
		fputs("No policies (smc.yaml has no policies: entries).\n", c->out);
	else
		out_table(c->out, policy_cols, ELEMENTSOF(policy_cols), rows, c->detail, 0);
	if (!k)
		return;
	fputs("\nKernel:\n", c->out);
	kernel_line(c, k, "select", "switch sockets to SMC:");
	kernel_line(c, k, "buffers", "buffer sizes (smcctl run):");
	kernel_line(c, k, "exclude", "per-destination exclusion:");
	if (c->detail)
		fprintf(c->out, "  %-28s %" PRIu64 " (%" PRIu64 " sockets switched)\n",
			"enrolled by smcctl run:", out_get_u64(k, "enrolled", 0),
			out_get_u64(k, "run_sockets", 0));
}

static int read_policies(sd_bus_message *m, json_object *rows)
{
	const char *item, *kind, *target, *state, *message;
	uint64_t sockets;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "(ssssst)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read(m, "(ssssst)", &item, &kind, &target, &state, &message,
					&sockets)) > 0) {
		json_object *o = json_object_new_object();

		if (!o || json_append(rows, o) < 0)
			return -ENOMEM;
		if (json_add_str(o, "item", item) < 0 || json_add_str(o, "kind", kind) < 0 ||
		    json_add_str(o, "target", target) < 0 || json_add_str(o, "state", state) < 0 ||
		    json_add_str(o, "message", message) < 0 ||
		    json_add_u64(o, "sockets", sockets) < 0)
			return -ENOMEM;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

/* a{sv} of b, s, t into an object; "-" in keys becomes "_" (JSON keys of smcctl). */
static int read_hooks(sd_bus_message *m, json_object *obj)
{
	int r;

	r = sd_bus_message_enter_container(m, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		const char *key, *contents;
		char name[64];
		char type;
		union {
			int b;
			const char *s;
			uint64_t t;
		} v;

		if ((r = sd_bus_message_read(m, "s", &key)) < 0 ||
		    (r = sd_bus_message_peek_type(m, &type, &contents)) < 0 ||
		    (r = sd_bus_message_enter_container(m, 'v', contents)) < 0)
			return r;
		snprintf(name, sizeof(name), "%s", key);
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		if (streq(contents, "b") && sd_bus_message_read(m, "b", &v.b) > 0)
			r = json_add_bool(obj, name, v.b);
		else if (streq(contents, "s") && sd_bus_message_read(m, "s", &v.s) > 0)
			r = json_add_str(obj, name, v.s);
		else if (streq(contents, "t") && sd_bus_message_read(m, "t", &v.t) > 0)
			r = json_add_u64(obj, name, v.t);
		else
			r = sd_bus_message_skip(m, contents);
		if (r < 0 || (r = sd_bus_message_exit_container(m)) < 0 ||
		    (r = sd_bus_message_exit_container(m)) < 0)
			return r;
	}
	if (r < 0)
		return r;
	return sd_bus_message_exit_container(m);
}

/*
 * Sources (item -> FILE:LINE: smc.yaml or the drop-in of smcctl enable) into each row's
 * "source"; an agent from before the property gives none, which is no error.
 */
static void add_sources(sd_bus *bus, json_object *rows)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	const char *item, *where;

	if (sd_bus_get_property(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_POLICY,
				SMCD_BUS_POLICY_SOURCES, &e, &m, "a{ss}") < 0 ||
	    sd_bus_message_enter_container(m, 'a', "{ss}") < 0)
		return;
	while (sd_bus_message_read(m, "{ss}", &item, &where) > 0)
		for (size_t i = 0; i < json_object_array_length(rows); i++) {
			json_object *o = json_object_array_get_idx(rows, i);

			if (streq(out_get_str(o, "item", ""), item))
				(void)json_add_str(o, "source", where);
		}
}

static int get_property(struct smcctl *c, sd_bus *bus, const char *prop, sd_bus_message **ret)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = sd_bus_get_property(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_POLICY, prop, &e,
				ret, streq(prop, SMCD_BUS_POLICY_POLICIES) ? "a(ssssst)" : "a{sv}");
	if (r < 0)
		return bus_failed(c, "cannot read the policies, which smcd-agent applies", &e, r);
	return 0;
}

int policy_list(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *pol = NULL, *hooks = NULL;
	json_object *rows = json_object_new_array(), *kernel = json_object_new_object();
	int r, s;

	if (!doc || !rows || !kernel || json_add(doc, "policies", rows) < 0 ||
	    json_add(doc, "kernel", kernel) < 0)
		return smcctl_oom(c);
	r = bus_open_quiet(&bus);
	if (r < 0)
		return bus_open_failed(c, r);
	if ((s = get_property(c, bus, SMCD_BUS_POLICY_POLICIES, &pol)) ||
	    (s = get_property(c, bus, SMCD_BUS_POLICY_HOOKS, &hooks)))
		return s;
	r = read_policies(pol, rows);
	if (r >= 0)
		r = read_hooks(hooks, kernel);
	if (r >= 0)
		add_sources(bus, rows);
	if (r < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot read smcd-agent's answer: %s",
				    strerror(-r));
	return smcctl_emit(c, doc, policy_list_text);
}

/* ---- flush ------------------------------------------------------------------------------ */

#ifdef HAVE_BPF
static void flush_text(struct smcctl *c, json_object *doc)
{
	uint64_t n = out_get_u64(doc, "removed", 0);

	if (n == 0)
		fprintf(c->out, "Nothing was pinned in %s.\n", out_get_str(doc, "pin_dir", ""));
	else
		fprintf(c->out,
			"Removed %" PRIu64
			" pinned set%s of programs from %s: processes enrolled by smcctl run create TCP sockets again, policies and exclusions are off until smcd-agent starts.\n",
			n, n == 1 ? "" : "s", out_get_str(doc, "pin_dir", ""));
}

#endif

int policy_flush(struct smcctl *c, const struct verb_args *a)
{
#ifdef HAVE_BPF
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	char why[SMCBPF_WHY_LEN];
	unsigned n = 0;
	int r;

	(void)a;
	if (!doc)
		return smcctl_oom(c);
	r = bus_agent_running();
	if (r > 0)
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"smcd-agent is running and holds these programs: stop it first (systemctl stop smcd-agent), then flush");
	if (r < 0)
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"cannot tell whether smcd-agent is running (asking the system bus failed: %s); nothing was removed",
			strerror(-r));
	r = smcbpf_flush(SMCBPF_PIN_DIR, &n, why, sizeof(why));
	if (r == -EBUSY)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "%s", why);
	if (r == -EPERM || r == -EACCES)
		return smcctl_error(c, SMCCTL_EXIT_PERMISSION,
				    "removing smcd-agent's pinned programs needs root: %s", why);
	if (r < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "%s", why);
	if (json_add_str(doc, "pin_dir", SMCBPF_PIN_DIR) < 0 || json_add_u64(doc, "removed", n) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, flush_text);
#else
	(void)a;
	return smcctl_error(
		c, SMCCTL_EXIT_UNAVAILABLE,
		"smcctl was built without BPF support (configure --disable-bpf): nothing of it can be pinned");
#endif
}
