// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl status, smcctl config check|show|reload: the agent's view, over D-Bus
 * (org.smcd.Agent1, see smcd-agent(8)).  "config check" needs no agent: it runs the
 * agent's own loader (config/libsmcconfig) on the file, so both say the same.
 *
 * The answer is built as one json-c document like every other verb; D-Bus values are
 * converted by type (strings, numbers, booleans; structs become arrays, a{sv} objects),
 * then the two structured properties get named keys.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#include "cli/agent.h"
#include "cli/bus.h"
#include "cli/verbs.h"
#include "common/bus-api.h"
#include "common/output.h"
#include "common/smc-caps-names.h"
#include "config/units.h"

/* [[item, result, message], ...] -> [{"item":, "result":, "message":}, ...] */
static json_object *items_json(json_object *arr)
{
	json_object *out = json_object_new_array();
	size_t n = arr ? json_object_array_length(arr) : 0;

	for (size_t i = 0; out && i < n; i++) {
		json_object *t = json_object_array_get_idx(arr, i), *o = json_object_new_object();
		int r = 0;

		if (!o) {
			json_object_put(out);
			return NULL;
		}
		r |= json_add_str(o, "item", json_object_get_string(json_object_array_get_idx(t, 0)));
		r |= json_add_str(o, "result",
				  json_object_get_string(json_object_array_get_idx(t, 1)));
		r |= json_add_str(o, "message",
				  json_object_get_string(json_object_array_get_idx(t, 2)));
		if (r < 0 || json_append(out, o) < 0) {
			json_object_put(out);
			return NULL;
		}
	}
	return out;
}

/* ---------------------------------------------------------------------------------- */
/* status                                                                              */

json_object *agent_status_json(json_object *p)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	json_object *cfg = json_object_new_object(), *rec = json_object_new_object();
	json_object *drift = json_object_new_object(),
		    *last = out_get(p, SMCD_BUS_MANAGER_LAST_RECONCILE);
	const char *err = out_get_str(p, SMCD_BUS_MANAGER_CONFIG_ERROR, "");
	int r = 0;

	if (!doc || !cfg || !rec || !drift) {
		json_object_put(cfg);
		json_object_put(rec);
		json_object_put(drift);
		return NULL;
	}
	r |= json_add_str(doc, "state", out_get_str(p, SMCD_BUS_MANAGER_STATE, NULL));
	r |= json_add_str(doc, "version", out_get_str(p, SMCD_BUS_MANAGER_VERSION, NULL));
	r |= json_add_str(cfg, "path", out_get_str(p, SMCD_BUS_MANAGER_CONFIG_PATH, NULL));
	r |= json_add_str(cfg, "revision", out_get_str(p, SMCD_BUS_MANAGER_CONFIG_REVISION, NULL));
	r |= json_add_u64(cfg, "loaded_usec", out_get_u64(p, SMCD_BUS_MANAGER_CONFIG_LOADED_USEC, 0));
	r |= *err ? json_add_str(cfg, "error", err) : json_add_null(cfg, "error");
	r |= json_add(doc, "config", cfg);
	r |= json_add_u64(rec, "time_usec",
			  last ? json_object_get_uint64(json_object_array_get_idx(last, 0)) : 0);
	r |= json_add(rec, "items", items_json(last ? json_object_array_get_idx(last, 1) : NULL));
	r |= json_add(doc, "last_reconcile", rec);
	r |= json_add_u64(doc, "last_check_usec",
			  out_get_u64(p, SMCD_BUS_MANAGER_LAST_CHECK_USEC, 0));
	r |= json_add_str(drift, "action", out_get_str(p, SMCD_BUS_MANAGER_DRIFT_ACTION, NULL));
	r |= json_add_u64(drift, "interval_usec",
			  out_get_u64(p, SMCD_BUS_MANAGER_DRIFT_INTERVAL_USEC, 0));
	r |= json_add_u64(drift, "repairs", out_get_u64(p, SMCD_BUS_MANAGER_DRIFT_REPAIRS, 0));
	r |= json_add(drift, "items", items_json(out_get(p, SMCD_BUS_MANAGER_DRIFT)));
	r |= json_add(doc, "drift", drift);
	r |= json_add(doc, "capabilities",
		      json_object_get(out_get(p, SMCD_BUS_MANAGER_CAPABILITIES)));
	return r < 0 ? NULL : TAKE_PTR(doc);
}

const char *agent_fmt_time(uint64_t usec, char *buf, size_t len)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (!usec || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		return "-";
	return buf;
}

static void caps_line(json_object *caps, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	json_object_object_foreach(caps, key, val) {
		if (json_object_get_type(val) == json_type_boolean && json_object_get_boolean(val))
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? " " : "",
					      key);
		if (o >= len)
			break;
	}
	if (!buf[0])
		snprintf(buf, len, "none (no SMC in this kernel)");
}

static const struct out_column item_cols[] = {
	OUT_COL("item", "Item", OUT_STR),
	OUT_COL("result", "Result", OUT_STR),
	OUT_COL("message", "Message", OUT_STR),
};

void agent_status_text(struct smcctl *c, json_object *doc)
{
	json_object *items = out_get(doc, "last_reconcile.items");
	json_object *drift = out_get(doc, "drift.items");
	char t1[64], t2[64], caps[512];

	fprintf(c->out, "Agent:          smcd-agent %s, %s\n", out_get_str(doc, "version", "-"),
		out_get_str(doc, "state", "-"));
	fprintf(c->out, "Config:         %s (revision %s, loaded %s)\n",
		out_get_str(doc, "config.path", "-"), out_get_str(doc, "config.revision", "-"),
		agent_fmt_time(out_get_u64(doc, "config.loaded_usec", 0), t1, sizeof(t1)));
	if (out_get_str(doc, "config.error", NULL)) {
		const char *e = out_get_str(doc, "config.error", "");

		/* One error per line, aligned under the first. */
		fputs("Refused reload: ", c->out);
		for (const char *nl; (nl = strchr(e, '\n')); e = nl + 1)
			fprintf(c->out, "%.*s\n                ", (int)(nl - e), e);
		fprintf(c->out, "%s\n", e);
	}
	fprintf(c->out,
		"Drift:          %s every %" PRIu64 "s; %" PRIu64 " repaired since start; %zu now\n",
		out_get_str(doc, "drift.action", "-"),
		out_get_u64(doc, "drift.interval_usec", 0) / 1000000,
		out_get_u64(doc, "drift.repairs", 0),
		drift ? json_object_array_length(drift) : (size_t)0);
	caps_line(out_get(doc, "capabilities"), caps, sizeof(caps));
	fprintf(c->out, "Kernel:         %s: %s\n",
		out_get_str(doc, "capabilities." SMC_CAPS_KEY_KERNEL_RELEASE, "-"), caps);
	fprintf(c->out, "Last reconcile: %s (checked %s)\n",
		agent_fmt_time(out_get_u64(doc, "last_reconcile.time_usec", 0), t1, sizeof(t1)),
		agent_fmt_time(out_get_u64(doc, "last_check_usec", 0), t2, sizeof(t2)));
	if (out_get(doc, "fallback_attribution")) {
		if (out_get_bool(doc, "fallback_attribution.available", false))
			fputs("Attribution:    every fallback to TCP, with its unit and process "
			      "(smc:smc_switch_to_fallback)\n",
			      c->out);
		else
			fprintf(c->out, "Attribution:    unavailable: %s\n",
				out_get_str(doc, "fallback_attribution.error", "-"));
	}
	if (items && json_object_array_length(items))
		out_table(c->out, item_cols, ELEMENTSOF(item_cols), items, c->detail, 2);
	if (drift && json_object_array_length(drift)) {
		fprintf(c->out, "Drifted (not repaired, drift action is report):\n");
		out_table(c->out, item_cols, ELEMENTSOF(item_cols), drift, c->detail, 2);
	}
}

/*
 * Whether the agent attributes fallbacks (Statistics.FallbackAttributionError: "" when it
 * does): "fallback_attribution": {"available", "error"}.  Left out when the agent does not
 * say (an older one).
 */
static void add_attribution(sd_bus *bus, json_object *doc)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	json_object *o;
	const char *why;

	if (sd_bus_get_property(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_STATS,
				SMCD_BUS_STATS_FALLBACK_ATTRIBUTION_ERROR, &e, &reply, "s") < 0 ||
	    sd_bus_message_read(reply, "s", &why) < 0 || !(o = json_object_new_object()))
		return;
	json_add_bool(o, "available", !*why);
	if (*why)
		json_add_str(o, "error", why);
	else
		json_add_null(o, "error");
	json_add(doc, "fallback_attribution", o);
}

/*
 * "status" answers "is the agent doing its job?", as systemctl is-system-running does:
 * 0 only when running; unavailable is the kernel's lack of SMC (3); degraded, starting,
 * stopping or a state this smcctl does not know are "no" (1).
 */
static int agent_state_status(const char *state)
{
	if (streq_ptr(state, "running"))
		return SMCCTL_EXIT_OK;
	if (streq_ptr(state, "unavailable"))
		return SMCCTL_EXIT_UNAVAILABLE;
	return SMCCTL_EXIT_FAILURE;
}

int agent_status(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *props = NULL, *doc = NULL;
	int s;

	if ((s = bus_open(c, &bus)) ||
	    (s = bus_get_all(c, bus, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER, &props)))
		return s;
	doc = agent_status_json(props);
	if (!doc)
		return smcctl_oom(c);
	add_attribution(bus, doc);
	s = smcctl_emit(c, doc, agent_status_text);
	return s ? s : agent_state_status(out_get_str(doc, "state", NULL));
}

/* ---------------------------------------------------------------------------------- */
/* config                                                                              */

json_object *config_check_json(const char *path, const struct config *cfg,
			       const struct config_errors *errors)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	json_object *arr = json_object_new_array();
	char rev[17];
	int r = 0;

	if (!doc || !arr) {
		json_object_put(arr);
		return NULL;
	}
	for (size_t i = 0; i < errors->n; i++)
		r |= json_append_str(arr, errors->lines[i]);
	snprintf(rev, sizeof(rev), "%016" PRIx64, cfg ? cfg->hash : 0);
	r |= json_add_str(doc, "file", path);
	r |= json_add_bool(doc, "valid", cfg != NULL);
	r |= cfg ? json_add_str(doc, "revision", rev) : json_add_null(doc, "revision");
	r |= json_add(doc, "errors", arr);
	return r < 0 ? NULL : TAKE_PTR(doc);
}

void config_check_text(struct smcctl *c, json_object *doc)
{
	json_object *errors = out_get(doc, "errors");

	if (out_get_bool(doc, "valid", false) && !out_get_bool(doc, "exists", true)) {
		fprintf(c->out,
			"no %s: smcd-agent runs on the built-in defaults (with any drop-ins): valid (revision %s)\n",
			out_get_str(doc, "file", "-"), out_get_str(doc, "revision", "-"));
		return;
	}
	if (out_get_bool(doc, "valid", false)) {
		fprintf(c->out, "%s: valid (revision %s)\n", out_get_str(doc, "file", "-"),
			out_get_str(doc, "revision", "-"));
		return;
	}
	for (size_t i = 0; errors && i < json_object_array_length(errors); i++)
		fprintf(c->out, "%s\n", json_object_get_string(json_object_array_get_idx(errors, i)));
}

int agent_config_check(struct smcctl *c, const struct verb_args *a)
{
	const char *path = a->n_pos > 0 ? a->pos[0] : CONFIG_DEFAULT_PATH;
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct config_errors errors = {};
	struct config *cfg = NULL;
	bool defaults = false;
	int r, s;

	/* No file at the default path is what the agent runs on: the defaults, valid.  A FILE
	 * named here that does not exist is an error. */
	if (a->n_pos > 0)
		r = config_load(path, &cfg, &errors);
	else
		r = config_load_or_defaults(path, &cfg, &defaults, &errors);
	if (r == -ENOMEM)
		return smcctl_oom(c);
	doc = config_check_json(path, cfg, &errors);
	if (doc && json_add_bool(doc, "exists", !defaults && r != -ENOENT) < 0)
		json_object_put(TAKE_PTR(doc));
	config_free(cfg);
	config_errors_clear(&errors);
	if (!doc)
		return smcctl_oom(c);
	s = smcctl_emit(c, doc, config_check_text);
	return s ? s : r < 0 ? SMCCTL_EXIT_INVALID_CONFIG : SMCCTL_EXIT_OK;
}

void config_show_text(struct smcctl *c, json_object *doc)
{
	if (!out_get_bool(doc, "from_agent", false))
		fprintf(c->out, "# smcd-agent is not running: %s as the agent would read it\n",
			out_get_str(doc, "file", "-"));
	fputs(out_get_str(doc, "yaml", ""), c->out);
}

/*
 * The running agent's effective configuration; without an agent, the file's (defaults
 * included), saying so.
 */
int agent_config_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	_cleanup_(freep) char *local = NULL;
	const char *yaml = NULL;
	bool from_agent = false;
	int r = -ENOTCONN;

	if (!doc)
		return smcctl_oom(c);
	if (bus_open_quiet(&bus) >= 0)
		r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER,
				       SMCD_BUS_MANAGER_DESCRIBE_CONFIG, &e, &reply, NULL);
	if (r >= 0 && sd_bus_message_read(reply, "s", &yaml) >= 0)
		from_agent = true;
	else if (r < 0 && !bus_agent_absent(&e) && r != -ENOTCONN && r != -ENOENT)
		return bus_failed(c, "cannot ask smcd-agent", &e, r);
	else {
		struct config_errors errors = {};
		struct config *cfg = NULL;
		bool defaults;

		/* As the agent starts without the file: defaults and drop-ins. */
		r = config_load_or_defaults(CONFIG_DEFAULT_PATH, &cfg, &defaults, &errors);
		for (size_t i = 0; r < 0 && i < errors.n; i++)
			fprintf(c->err, "%s\n", errors.lines[i]);
		config_errors_clear(&errors);
		if (r < 0)
			return smcctl_error(c, SMCCTL_EXIT_INVALID_CONFIG, "%s is not valid",
					    CONFIG_DEFAULT_PATH);
		yaml = local = config_dump(cfg);
		config_free(cfg);
		if (!local)
			return smcctl_oom(c);
	}
	if (json_add_bool(doc, "from_agent", from_agent) < 0 ||
	    json_add_str(doc, "file", CONFIG_DEFAULT_PATH) < 0 || json_add_str(doc, "yaml", yaml) < 0)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, config_show_text);
}

int agent_config_reload(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *props = NULL, *doc = NULL;
	int r, s;

	if ((s = bus_open(c, &bus)))
		return s;
	r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER,
			       SMCD_BUS_MANAGER_RELOAD, &e, NULL, NULL);
	if (r < 0)
		return bus_failed(c, "reload refused", &e, r);
	if ((s = bus_get_all(c, bus, SMCD_BUS_PATH, SMCD_BUS_IFACE_MANAGER, &props)))
		return s;
	doc = agent_status_json(props);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, agent_status_text);
}

/* The answer of a forwarded change: the direct verbs' document; the agent does not say
 * whether anything changed. */
static int forwarded(struct smcctl *c, int s, const char *action, const char *key, const char *value)
{
	_cleanup_(json_object_putp) json_object *doc = NULL;

	if (s != SMCCTL_EXIT_OK)
		return s;
	doc = action_json(action, key, value, CHANGED_UNKNOWN);
	if (!doc)
		return smcctl_oom(c);
	return smcctl_emit(c, doc, action_text);
}

#define FORWARD_OR_DIRECT(direct, action, key, value, what, ...)                             \
	({                                                                                   \
		int _s = bus_forward(c, what, SMCD_BUS_IFACE_MANAGER, 0, NULL, __VA_ARGS__); \
		_s == -ESRCH ? direct(c, a) : forwarded(c, _s, action, key, value);          \
	})

int agent_ueid_add(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(ueid_add, "add", "ueid", a->pos[0], "cannot add the UEID",
				 SMCD_BUS_MANAGER_ADD_UEID, "s", a->pos[0]);
}

int agent_ueid_del(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(ueid_del, "del", "ueid", a->pos[0], "cannot remove the UEID",
				 SMCD_BUS_MANAGER_REMOVE_UEID, "s", a->pos[0]);
}

int agent_ueid_flush(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(ueid_flush, "flush", NULL, NULL, "cannot flush the UEIDs",
				 SMCD_BUS_MANAGER_FLUSH_UEID, NULL);
}

int agent_seid_enable(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(seid_enable, "enable", NULL, NULL, "cannot enable the SEID",
				 SMCD_BUS_MANAGER_SET_SEID, "b", 1);
}

int agent_seid_disable(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(seid_disable, "disable", NULL, NULL, "cannot disable the SEID",
				 SMCD_BUS_MANAGER_SET_SEID, "b", 0);
}

int agent_hslimit_enable(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(hslimit_enable, "enable", NULL, NULL,
				 "cannot enable the handshake limitation",
				 SMCD_BUS_MANAGER_SET_HANDSHAKE_LIMITATION, "b", 1);
}

int agent_hslimit_disable(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(hslimit_disable, "disable", NULL, NULL,
				 "cannot disable the handshake limitation",
				 SMCD_BUS_MANAGER_SET_HANDSHAKE_LIMITATION, "b", 0);
}

int agent_pnet_add(struct smcctl *c, const struct verb_args *a)
{
	const char *eth = a->opt[PNET_ADD_OPT_ETH], *ib = a->opt[PNET_ADD_OPT_IB];
	const char *port = a->opt[PNET_ADD_OPT_PORT];
	uint8_t ib_port = (uint8_t)a->num[PNET_ADD_OPT_PORT]; /* the parser checked it */

	/* Malformed options: the direct verb's usage errors, nothing sent anywhere. */
	if (!eth == !ib || (eth && port))
		return pnet_add(c, a);
	return FORWARD_OR_DIRECT(pnet_add, "add", "pnetid", a->pos[0], "cannot add the PNET entry",
				 SMCD_BUS_MANAGER_ADD_PNET, "sssy", a->pos[0], eth ? eth : "",
				 ib ? ib : "", port ? ib_port : (uint8_t)0);
}

int agent_pnet_del(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(pnet_del, "del", "pnetid", a->pos[0], "cannot remove the PNET ID",
				 SMCD_BUS_MANAGER_REMOVE_PNET, "s", a->pos[0]);
}

int agent_pnet_flush(struct smcctl *c, const struct verb_args *a)
{
	return FORWARD_OR_DIRECT(pnet_flush, "flush", NULL, NULL, "cannot flush the PNET table",
				 SMCD_BUS_MANAGER_FLUSH_PNET, NULL);
}

int agent_sysctl_set(struct smcctl *c, const struct verb_args *a)
{
	const char *name = a->pos[0];

	if (strncmp(name, "net.smc.", 8) == 0)
		name += 8;
	/* One kernel flag, one agent method: see handshake-limitation in smc.yaml(5). */
	if (streq(name, "limit_smc_hs")) {
		bool on;

		if (parse_bool(a->pos[1], &on) < 0)
			return sysctl_set(c, a); /* which says what it takes */
		return FORWARD_OR_DIRECT(sysctl_set, "set", "name", name,
					 "cannot set the handshake limitation",
					 SMCD_BUS_MANAGER_SET_HANDSHAKE_LIMITATION, "b", (int)on);
	}
	return FORWARD_OR_DIRECT(sysctl_set, "set", "name", name, "cannot set the sysctl",
				 SMCD_BUS_MANAGER_SET_SYSCTL, "ss", name, a->pos[1]);
}
