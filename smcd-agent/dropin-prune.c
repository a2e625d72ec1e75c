// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The drop-ins of containers stopped while the agent could not hear their OCI hook's
 * poststop, removed at start and reload (dropin-prune.h; manager.c calls it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/util.h"
#include "config/config.h"
#include "smcd-agent/dropin-prune.h"
#include "smcd-agent/log.h"

#define DROPIN_MAX_BYTES (64 * 1024)

/* PREFIX-ID.scope with ID 64 lowercase hex digits: how podman (libpod-), docker (docker-),
 * CRI-O (crio-) and containerd (cri-containerd-) name a container's scope. */
static bool container_scope(const char *unit)
{
	size_t n = strlen(unit), s = sizeof(".scope") - 1;

	if (n < 1 + 1 + 64 + s || !streq(unit + n - s, ".scope") || unit[n - s - 65] != '-')
		return false;
	for (size_t i = n - s - 64; i < n - s; i++)
		if (!strchr("0123456789abcdef", unit[i]))
			return false;
	return true;
}

/*
 * The OCI hook (smcctl oci-hook createRuntime) enrolls a container through EnableUnit, and
 * its poststop removes the drop-in through DisableUnit; when the agent is down at poststop,
 * the drop-in would stay for good.  A drop-in is dropped here when
 *   - it is the drop-in EnableUnit writes, by its name, for a container's scope (the name
 *     runtimes give it: container_scope()), byte for byte as EnableUnit wrote it (one
 *     edited by hand is the administrator's, and stays), listing that scope's own cgroup;
 *   - and that cgroup does not exist below cgroup_root.
 * This cannot race a starting container: the runtime creates the container's cgroup
 * before it runs the createRuntime hooks, and the hook checks the container's process is in
 * it before it asks the agent.  A container started again under the same id (podman
 * restart, docker start) gets its scope created again and is enrolled again by that same
 * hook.  So an entry whose cgroup is missing is one whose container is stopped now,
 * exactly what its poststop would have removed.
 */
int dropin_prune_containers(const struct config *c, const char *config_path, const char *cgroup_root)
{
	_cleanup_(freep) char *dir = config_dropin_dir(config_path);
	size_t dir_len, pre = sizeof(CONFIG_UNIT_DROPIN_PREFIX) - 1,
			suf = sizeof(CONFIG_DROPIN_SUFFIX) - 1;
	int removed = 0;

	if (!dir)
		return -ENOMEM;
	dir_len = strlen(dir);
	for (size_t i = 0; i < c->policies.n_cgroups; i++) {
		const struct config_policy_target *t = &c->policies.cgroups[i];
		_cleanup_(freep) char *text = NULL, *want = NULL, *cg = NULL;
		char unit[CONFIG_UNIT_NAME_MAX + 1];
		const char *name, *last;
		size_t n;
		int r;

		/* DIR/50-unit-UNIT.yaml */
		if (!t->file || strncmp(t->file, dir, dir_len) != 0 || t->file[dir_len] != '/')
			continue;
		name = t->file + dir_len + 1;
		n = strlen(name);
		if (strchr(name, '/') || n <= pre + suf ||
		    strncmp(name, CONFIG_UNIT_DROPIN_PREFIX, pre) != 0 ||
		    !streq(name + n - suf, CONFIG_DROPIN_SUFFIX) || n - pre - suf >= sizeof(unit))
			continue;
		snprintf(unit, sizeof(unit), "%.*s", (int)(n - pre - suf), name + pre);
		last = strrchr(t->path, '/');
		if (!container_scope(unit) || !last || !streq(last + 1, unit))
			continue;
		want = config_unit_dropin_text(unit, t->path);
		if (!want || asprintf(&cg, "%s%s", cgroup_root, t->path) < 0)
			return -ENOMEM;
		if (access(cg, F_OK) == 0 || errno != ENOENT)
			continue; /* there, or not known to be gone */
		r = textfile_read_small(t->file, DROPIN_MAX_BYTES, &text);
		if (r < 0 || !text || !streq(text, want))
			continue;
		r = textfile_unlink(t->file);
		if (r < 0 && r != -ENOENT) {
			log_warning("Cannot remove %s, whose container is gone (no cgroup %s): %s",
				    t->file, t->path,
				    textfile_untrusted() ? textfile_untrusted() : strerror(-r));
			continue;
		}
		log_info("Removed %s: its container is gone (no cgroup %s), and its poststop hook did not reach the agent",
			 t->file, t->path);
		removed++;
	}
	return removed;
}
