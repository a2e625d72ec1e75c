/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smcctl oci-hook: what the hook makes of a container, from the OCI state the runtime
 * writes on its stdin and the bundle's config.json (pure, for tests/unit/test-cli-oci-hook.c),
 * and the checks that need the running system (oci_container_check()).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The annotation a container opts in with, and its one value that does. */
#define OCI_HOOK_ANNOTATION "org.smcd.smc"
#define OCI_HOOK_ANNOTATION_ON "true"

/* Its options' indexes in cli/table.c. */
enum { OCI_HOOK_OPT_TIMEOUT };

#define OCI_ID_MAX 128
#define OCI_PATH_MAX 256 /* a cgroup path of smc.yaml is at most 255 characters */

enum oci_netns {
	OCI_NETNS_OWN,	/* a new network namespace of its own */
	OCI_NETNS_HOST, /* none in config.json: the runtime's, the host's */
	OCI_NETNS_PATH, /* joins the namespace at netns_path (a pod's, another container's) */
};

struct oci_container {
	char id[OCI_ID_MAX + 1];
	char bundle[4096];
	pid_t pid;     /* 0 when the state has none (poststop) */
	bool opted_in; /* OCI_HOOK_ANNOTATION is OCI_HOOK_ANNOTATION_ON */
	enum oci_netns netns;
	char netns_path[4096];
	char unit[OCI_PATH_MAX]; /* its systemd scope, e.g. libpod-ID.scope */
	char cgroup[OCI_PATH_MAX];
};

/*
 * The state (id, pid, bundle, annotations) into ret; 0, or -EINVAL with *ret_why saying
 * what is wrong with it.
 */
int oci_state_parse(const char *text, struct oci_container *ret, const char **ret_why);

/*
 * config.json's cgroupsPath and network namespace (and its annotations, when the state had
 * none) into c; 0, or -EINVAL with what is wrong in why.  Only systemd's form of
 * cgroupsPath ("SLICE:PREFIX:NAME", the scope PREFIX-NAME.scope) is taken, and only a scope
 * named after the container's id: the hook reaches that container's own cgroup, never a
 * slice or another's scope.
 */
int oci_config_parse(const char *text, struct oci_container *c, char *why, size_t len);

/*
 * What the running system says: the network namespace is not the host's (the one the
 * hook runs in, the runtime's), and the process (when the state names one) is in the
 * cgroup config.json names.  0, or -EPERM (refused) or -errno with why.
 */
int oci_container_check(const struct oci_container *c, char *why, size_t len);
