/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drop-ins of smc.yaml: the files FILE.d/NAME.yaml beside it (/etc/smc/smc.yaml.d/), read
 * after FILE in the byte order of their names (strcmp, not the locale's collation), each
 * holding only policies:, whose cgroups, netns and exclude entries follow the file's own;
 * an entry that an earlier file already has is merged into it (policy.c).  Any other key
 * is an error of that file, which makes the whole configuration invalid, as any error of
 * smc.yaml does: what is applied never depends on a file that was refused in part.
 *
 * Why drop-ins and only policies: "smcctl enable UNIT" must persist a choice without
 * rewriting the operator's smc.yaml (a YAML rewrite loses its comments and order, and a
 * config-management tool would fight it), so each unit gets a file of its own that
 * "smcctl disable" deletes (the way of systemd's *.d/ and sysctl.d).  A policy entry only
 * adds: two files can never disagree about it.  Scalars and the UEID/PNET tables can, so
 * they stay in one file.
 *
 * The unit drop-ins: 50-unit-UNIT.yaml, written atomically by the agent's EnableUnit or,
 * with no agent running, by smcctl; their text is config_unit_dropin_text()'s.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/util.h"

struct config;
struct config_policy_target;

#define CONFIG_DROPIN_SUFFIX ".yaml"
#define CONFIG_UNIT_DROPIN_PREFIX "50-unit-"
/* systemd's UNIT_NAME_MAX. */
#define CONFIG_UNIT_NAME_MAX 255
/*
 * The longest unit name (with its type suffix) whose drop-in fits a file name (NAME_MAX,
 * 255): 50-unit-UNIT.yaml, and the temporary it is written through (common/util.h), whose
 * name is longer.  234: systemd allows longer names, which smcctl enable refuses.
 */
#define CONFIG_UNIT_DROPIN_NAME_MAX                           \
	(255 - (int)(sizeof(CONFIG_UNIT_DROPIN_PREFIX) - 1) - \
	 (int)(sizeof(CONFIG_DROPIN_SUFFIX) - 1) - TEXTFILE_TEMP_NAME_EXTRA)

/* "PATH.d" (caller frees; NULL: out of memory). */
char *config_dropin_dir(const char *config_path);
/*
 * NAME as systemd names the unit, into ret: NAME.service when NAME has no unit type
 * suffix (as systemctl does).  -EINVAL (with *ret_why) for a name systemd would refuse or
 * a unit type without processes (target, timer, path, device, automount), or one longer
 * than CONFIG_UNIT_DROPIN_NAME_MAX (its drop-in would not fit a file name); units with a
 * cgroup are services, scopes, slices, sockets, mounts and swaps.
 */
int config_unit_name(const char *name, char ret[CONFIG_UNIT_NAME_MAX + 1], const char **ret_why);
/* CONFIG_PATH.d/50-unit-UNIT.yaml (caller frees). */
char *config_unit_dropin_path(const char *config_path, const char *unit);
/* The drop-in's text: policies.cgroups with CGROUP (caller frees). */
char *config_unit_dropin_text(const char *unit, const char *cgroup);
/* NULL when s is a valid policies.cgroups entry, else what is wrong with it. */
const char *config_cgroup_path_problem(const char *s);
/*
 * The policies.cgroups entry that names UNIT (its last component is UNIT) and does not come
 * from the file skip (NULL: skip none), or NULL: what "smcctl disable" tells the operator
 * to edit by hand.
 */
const struct config_policy_target *config_unit_cgroup_find(const struct config *c, const char *unit,
							   const char *skip);
