/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stopped container's drop-in (smcctl oci-hook's EnableUnit) removed when its poststop
 * could not reach the agent: dropin-prune.c says which drop-ins and why that is safe.
 */
#pragma once

struct config;

/*
 * The drop-ins EnableUnit wrote for containers' scopes whose cgroup below cgroup_root no
 * longer exists, removed: the number removed, or -ENOMEM.  manager.c calls it at start and
 * at every reload with the kernel's cgroup_root, so a container stopped while the agent
 * was down leaves nothing behind.
 */
int dropin_prune_containers(const struct config *c, const char *config_path, const char *cgroup_root);
