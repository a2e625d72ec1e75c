// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smc-runc's pure half (cli/smc-runc.h): runc's command line, and config.json with the
 * annotation and the hooks of smcctl oci-hook added.  The program is cli/smc-runc.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "cli/oci-hook.h"
#include "cli/smc-runc.h"
#include "common/macro.h"

/* ---- runc's command line ------------------------------------------------------------------ */

/* An option's name without its dashes ("-b", "--bundle=X": "b", "bundle"), its length in *n. */
static const char *opt_name(const char *arg, size_t *n)
{
	arg += arg[1] == '-' ? 2 : 1;
	*n = strcspn(arg, "=");
	return arg;
}

static bool name_in(const char *name, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && strncmp(name, *list, n) == 0)
			return true;
	return false;
}

/* runc 1.1's options that take a value, global and of create and run (the only commands
 * whose arguments are read here): Go's flag syntax, -x and --x alike, "=V" or the next. */
static const char *const global_valued[] = { "log", "log-format", "root", "criu", "rootless", NULL };
static const char *const create_valued[] = { "bundle",	     "b", "console-socket", "pid-file",
					     "preserve-fds", NULL };

int smc_runc_args_parse(int argc, char **argv, struct smc_runc_args *ret)
{
	int i = 1;

	*ret = (struct smc_runc_args){ .bundle = "." };
	if (i < argc && strncmp(argv[i], SMC_RUNC_RUNTIME_OPT, strlen(SMC_RUNC_RUNTIME_OPT)) == 0) {
		ret->runtime = argv[i] + strlen(SMC_RUNC_RUNTIME_OPT);
		if (!ret->runtime[0])
			return -EINVAL;
		i++;
	}
	ret->first = i;
	for (; i < argc; i++) {
		const char *name;
		size_t n;

		if (streq(argv[i], "--"))
			return 0; /* no command: runc says what it makes of that */
		if (argv[i][0] != '-' || !argv[i][1])
			break;
		name = opt_name(argv[i], &n);
		if (name_in(name, n, global_valued) && !name[n])
			i++;
	}
	if (i >= argc)
		return 0;
	ret->command = argv[i];
	ret->creates = streq(argv[i], "create") || streq(argv[i], "run");
	if (!ret->creates)
		return 0;
	/* urfave/cli (runc's) takes options after the container's id as well. */
	for (i++; i < argc && !streq(argv[i], "--"); i++) {
		const char *name;
		size_t n;

		if (argv[i][0] != '-' || !argv[i][1])
			continue;
		name = opt_name(argv[i], &n);
		if (!name_in(name, n, create_valued))
			continue;
		const char *value = name[n] ? name + n + 1 : i + 1 < argc ? argv[++i] : NULL;

		if (!value) {
			ret->creates = false; /* runc says what is missing */
			return 0;
		}
		if (name_in(name, n, (const char *const[]){ "bundle", "b", NULL }))
			ret->bundle = value[0] ? value : ".";
	}
	return 0;
}

/* ---- config.json -------------------------------------------------------------------------- */

/* o's member key of type type, created empty when missing; NULL with why on another type. */
static json_object *member(json_object *o, const char *key, json_type type, const char *where,
			   char *why, size_t len)
{
	json_object *v;

	if (json_object_object_get_ex(o, key, &v) && v && !json_object_is_type(v, json_type_null)) {
		if (json_object_is_type(v, type))
			return v;
		snprintf(why, len, "its %s%s is not %s", where, key,
			 type == json_type_object ? "an object" : "an array");
		return NULL;
	}
	v = type == json_type_object ? json_object_new_object() : json_object_new_array();
	if (!v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		snprintf(why, len, "out of memory");
		return NULL;
	}
	return v;
}

static bool str_is(json_object *o, const char *key, const char *want)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) &&
	       streq(json_object_get_string(v), want);
}

/* The hook is there already: the same path and the same three arguments. */
static bool hook_present(json_object *stage, const char *smcctl, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(stage); i++) {
		json_object *h = json_object_array_get_idx(stage, i), *args;

		if (!json_object_is_type(h, json_type_object) || !str_is(h, "path", smcctl) ||
		    !json_object_object_get_ex(h, "args", &args) ||
		    !json_object_is_type(args, json_type_array) ||
		    json_object_array_length(args) != 3)
			continue;
		if (streq(json_object_get_string(json_object_array_get_idx(args, 1)), "oci-hook") &&
		    streq(json_object_get_string(json_object_array_get_idx(args, 2)), name))
			return true;
	}
	return false;
}

/* {"path": SMCCTL, "args": ["smcctl", "oci-hook", NAME], "timeout": 10}: hooks.d's hook. */
static json_object *hook_new(const char *smcctl, const char *name)
{
	json_object *h = json_object_new_object(), *args = json_object_new_array();

	if (!h || !args || json_object_object_add(h, "path", json_object_new_string(smcctl)) < 0 ||
	    json_object_array_add(args, json_object_new_string("smcctl")) < 0 ||
	    json_object_array_add(args, json_object_new_string("oci-hook")) < 0 ||
	    json_object_array_add(args, json_object_new_string(name)) < 0 ||
	    json_object_object_add(h, "args", TAKE_PTR(args)) < 0 ||
	    json_object_object_add(h, "timeout", json_object_new_int(10)) < 0) {
		json_object_put(args);
		json_object_put(h);
		return NULL;
	}
	return h;
}

static int hook_add(json_object *hooks, const char *smcctl, const char *name, char *why, size_t len)
{
	json_object *stage = member(hooks, name, json_type_array, "hooks.", why, len), *h;

	if (!stage)
		return streq(why, "out of memory") ? -ENOMEM : -EINVAL;
	if (hook_present(stage, smcctl, name))
		return 0;
	h = hook_new(smcctl, name);
	if (!h || json_object_array_add(stage, h) < 0) {
		json_object_put(h);
		return -ENOMEM;
	}
	return 1;
}

/* The whole text is one JSON value: json-c stops at a NUL or after the value. */
static json_object *parse_whole(const char *text, size_t len, char *why, size_t why_len)
{
	json_tokener *tok = json_tokener_new();
	json_object *root = NULL;
	size_t end;

	if (!tok) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	if (memchr(text, '\0', len)) {
		snprintf(why, why_len, "it holds a NUL byte");
		goto out;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	/* The end of the text ends a value json-c waits on (a number, "null"): its NUL. */
	if (!root && json_tokener_get_error(tok) == json_tokener_continue)
		root = json_tokener_parse_ex(tok, "", 1);
	if (!root && json_tokener_get_error(tok) == json_tokener_success) {
		snprintf(why, why_len, "it is not a JSON object");
		goto out;
	}
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		snprintf(why, why_len, "it is not JSON (%s, at byte %zu)",
			 json_tokener_error_desc(json_tokener_get_error(tok)),
			 json_tokener_get_parse_end(tok));
		json_object_put(root);
		root = NULL;
		goto out;
	}
	end = json_tokener_get_parse_end(tok);
	end += strspn(text + end, " \t\r\n");
	if (end != len) {
		snprintf(why, why_len, "it has more than one JSON value (byte %zu on)", end);
		json_object_put(root);
		root = NULL;
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(why, why_len, "it is not a JSON object");
		json_object_put(root);
		root = NULL;
	}
out:
	json_tokener_free(tok);
	return root;
}

int smc_runc_config_edit(const char *text, size_t len, const char *smcctl, char **ret, char *why,
			 size_t why_len)
{
	json_object *root, *ann, *hooks, *v;
	const char *out;
	int r, changed = 0;

	*ret = NULL;
	if (len >= SMC_RUNC_CONFIG_MAX)
		return snprintf(why, why_len, "it has %zu bytes, more than %d", len,
				SMC_RUNC_CONFIG_MAX - 1),
		       -EFBIG;
	root = parse_whole(text, len, why, why_len);
	if (!root)
		return streq(why, "out of memory") ? -ENOMEM : -EINVAL;
	r = -EINVAL;
	ann = member(root, "annotations", json_type_object, "", why, why_len);
	hooks = ann ? member(root, "hooks", json_type_object, "", why, why_len) : NULL;
	if (!hooks)
		goto out;
	if (!str_is(ann, OCI_HOOK_ANNOTATION, OCI_HOOK_ANNOTATION_ON)) {
		v = json_object_new_string(OCI_HOOK_ANNOTATION_ON);
		if (!v || json_object_object_add(ann, OCI_HOOK_ANNOTATION, v) < 0) {
			json_object_put(v);
			r = -ENOMEM;
			goto out;
		}
		changed = 1;
	}
	r = hook_add(hooks, smcctl, "createRuntime", why, why_len);
	if (r < 0)
		goto out;
	changed |= r;
	r = hook_add(hooks, smcctl, "poststop", why, why_len);
	if (r < 0)
		goto out;
	changed |= r;
	r = 0;
	if (changed) {
		out = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE);
		*ret = out ? strdup(out) : NULL;
		r = *ret ? 1 : -ENOMEM;
	}
out:
	if (r == -ENOMEM)
		snprintf(why, why_len, "out of memory");
	json_object_put(root);
	return r;
}
