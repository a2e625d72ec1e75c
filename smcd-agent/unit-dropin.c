// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * EnableUnit and DisableUnit (smcctl enable/disable): a unit's cgroup into policies: or out
 * of it, persisted as the unit's drop-in of smc.yaml (config/dropin.h says why drop-ins),
 * then applied exactly as Reload applies an edited smc.yaml.
 *
 * Nothing is applied in part: when the configuration with the new drop-in (or without the
 * removed one) is refused, the drop-in directory is put back as it was, the running
 * configuration stays, and ConfigError is what it was before (the refusal was about a
 * state that no longer exists on disk); the caller gets the errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bus-api.h"
#include "common/macro.h"
#include "common/util.h"
#include "config/config.h"
#include "smcd-agent/log.h"
#include "smcd-agent/manager.h"

#define DROPIN_MAX_BYTES (64 * 1024)

/* A drop-in replaced, but perhaps not across a crash: said, and no failure (the change is
 * made: treating it as "not written" would put back or report what is not so). */
static int written(const char *path, int r, int sync_error)
{
	if (r == TEXTFILE_NOT_DURABLE) {
		log_warning("Wrote %s, but cannot sync its directory: %s (a crash may undo it)",
			    path, strerror(-sync_error));
		return 0;
	}
	return r;
}

/* The drop-in as it was: old's text, or no file. */
static int put_back(const char *path, const char *old)
{
	int sync_error = 0, r;

	if (old)
		return written(path, textfile_write_atomic(path, old, strlen(old), 0644, &sync_error),
			       sync_error);
	r = textfile_unlink(path);
	return r == -ENOENT ? 0 : r;
}

static int dropin_why_set(char **ret_why, const char *fmt, ...) _printf_(2, 3);
static int dropin_why_set(char **ret_why, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(ret_why, fmt, ap);
	va_end(ap);
	if (r < 0)
		*ret_why = NULL;
	return 0;
}

/*
 * Reload with the drop-in directory changed; on refusal put old back and keep ConfigError
 * as it was.  MANAGER_UNIT_REFUSED (refused, *ret_why the errors), or what manager_reload()
 * returns.  A refusal has its own value, never an errno: a configuration that was accepted
 * and then failed to apply may fail with any errno (-EBADMSG from netlink among them), and
 * must not read as "refused, nothing changed".  Only a refusal puts the file back: an error
 * applying an accepted configuration leaves the new file in force as the running
 * configuration, so putting the file back would make disk and agent disagree.
 */
static int reload_or_put_back(struct manager *m, const char *path, const char *old, char **ret_why)
{
	_cleanup_(freep) char *prev_error = NULL, *why = NULL;
	bool refused = false;
	int r, k;

	if (m->config_error) {
		prev_error = strdup(m->config_error);
		if (!prev_error)
			return -ENOMEM;
	}
	r = manager_reload(m, &refused, &why);
	if (!refused)
		return r;
	k = put_back(path, old);
	free(m->config_error);
	m->config_error = TAKE_PTR(prev_error);
	manager_announce(m, SMCD_BUS_MANAGER_CONFIG_ERROR, NULL);
	if (k < 0) {
		log_error("Cannot put %s back as it was: %s", path, strerror(-k));
		dropin_why_set(ret_why, "%s\n(and %s could not be put back as it was: %s)",
			       why ? why : "", path, strerror(-k));
	} else
		*ret_why = TAKE_PTR(why);
	return MANAGER_UNIT_REFUSED;
}

int manager_enable_unit(struct manager *m, const char *unit, const char *cgroup, char **ret_path,
			char **ret_why)
{
	_cleanup_(freep) char *path = NULL, *text = NULL, *old = NULL, *dir = NULL;
	const struct config_policy_target *have;
	char name[CONFIG_UNIT_NAME_MAX + 1];
	const char *why = NULL;
	int r, sync_error = 0;

	*ret_path = *ret_why = NULL;
	if (config_unit_name(unit, name, &why) < 0)
		return dropin_why_set(ret_why, "'%s' is not a unit name: %s", unit, why), -EINVAL;
	why = config_cgroup_path_problem(cgroup);
	if (why)
		return dropin_why_set(ret_why, "'%s' is not a valid cgroup path: %s", cgroup, why),
		       -EINVAL;
	path = config_unit_dropin_path(m->config_path, name);
	text = config_unit_dropin_text(name, cgroup);
	if (!path || !text)
		return -ENOMEM;
	r = textfile_read_small(path, DROPIN_MAX_BYTES, &old);
	if (r < 0)
		return dropin_why_set(ret_why, "cannot read %s: %s", path, strerror(-r)), r;
	/* Already in force: the same drop-in, or the cgroup from smc.yaml or another file. */
	for (size_t i = 0; i < m->config->policies.n_cgroups; i++) {
		have = &m->config->policies.cgroups[i];
		/* Ours, but the file was removed by hand since: write it again. */
		if (!streq(have->path, cgroup) || (!old && have->file && streq(have->file, path)))
			continue;
		*ret_path = strdup(have->file ? have->file : m->config->path);
		return *ret_path ? 1 : -ENOMEM;
	}
	/* FILE.d may not exist yet (a host without smc.yaml, say: the built-in defaults and
	 * the drop-ins apply there too).  Created as smcctl does without an agent. */
	dir = config_dropin_dir(m->config_path);
	if (!dir)
		return -ENOMEM;
	if (mkdir(dir, 0755) == 0)
		(void)chmod(dir, 0755); /* whatever the umask */
	else if (errno != EEXIST) {
		r = negative_errno();
		return dropin_why_set(
			       ret_why,
			       "cannot create %s: %s (smcd-agent's unit has ReadWritePaths=-%s: create the directory, mode 0755, and restart smcd-agent)",
			       dir, strerror(-r), dir),
		       r;
	}
	r = textfile_write_atomic(path, text, strlen(text), 0644, &sync_error);
	r = written(path, r, sync_error);
	if (r < 0)
		return (textfile_untrusted()
				? dropin_why_set(ret_why, "cannot write %s: %s", path,
						 textfile_untrusted())
				: dropin_why_set(
					  ret_why,
					  "cannot write %s: %s (the directory must exist and be writable for smcd-agent: its unit has ReadWritePaths=-%s.d)",
					  path, strerror(-r), m->config_path)),
		       r;
	log_info("Wrote %s: %s (cgroup %s) gets SMC", path, name, cgroup);
	r = reload_or_put_back(m, path, old, ret_why);
	if (r == MANAGER_UNIT_REFUSED || r == -ENOMEM)
		return r;
	*ret_path = TAKE_PTR(path);
	if (r < 0)
		return dropin_why_set(
			       ret_why,
			       "wrote %s and it is the running configuration, but applying it failed: %s (see LastReconcile; smcctl config reload tries again)",
			       *ret_path, strerror(-r)),
		       MANAGER_UNIT_APPLY_FAILED;
	return 0;
}

int manager_disable_unit(struct manager *m, const char *unit, char **ret_path, char **ret_why)
{
	_cleanup_(freep) char *path = NULL, *old = NULL;
	const struct config_policy_target *t;
	char name[CONFIG_UNIT_NAME_MAX + 1];
	const char *why = NULL;
	int r;

	*ret_path = *ret_why = NULL;
	if (config_unit_name(unit, name, &why) < 0)
		return dropin_why_set(ret_why, "'%s' is not a unit name: %s", unit, why), -EINVAL;
	path = config_unit_dropin_path(m->config_path, name);
	if (!path)
		return -ENOMEM;
	r = textfile_read_small(path, DROPIN_MAX_BYTES, &old);
	if (r < 0)
		return dropin_why_set(ret_why, "cannot read %s: %s", path, strerror(-r)), r;
	if (!old) {
		/* Not ours to remove: a line of smc.yaml or of another drop-in. */
		t = config_unit_cgroup_find(m->config, name, NULL);
		if (!t)
			return 1;
		return dropin_why_set(
			       ret_why,
			       "%s is not enabled by a drop-in of smcctl enable: its cgroup %s is listed in %s, line %u; remove it there (then reload)",
			       name, t->path, t->file ? t->file : m->config->path, t->line),
		       -EEXIST;
	}
	r = textfile_unlink(path);
	if (r < 0)
		return dropin_why_set(ret_why, "cannot remove %s: %s", path,
				      textfile_untrusted() ? textfile_untrusted() : strerror(-r)),
		       r;
	log_info("Removed %s: %s no longer gets SMC from it", path, name);
	r = reload_or_put_back(m, path, old, ret_why);
	if (r == MANAGER_UNIT_REFUSED || r == -ENOMEM)
		return r;
	*ret_path = TAKE_PTR(path);
	if (r < 0)
		return dropin_why_set(
			       ret_why,
			       "removed %s and the configuration without it is the running one, but applying it failed: %s (see LastReconcile; smcctl config reload tries again)",
			       *ret_path, strerror(-r)),
		       MANAGER_UNIT_APPLY_FAILED;
	return 0;
}
