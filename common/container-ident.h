/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Which container a cgroup is (common/container-ident.c): podman's, docker's and CRI-O's
 * cgroup forms recognised in the path, the name, image and pod read from the runtime's own state
 * on disk, read-only and as untrusted data.  smcctl socket -p, smcctl assess and the
 * agent's fallback attribution name a container so instead of its systemd scope
 * ("podman:smc-srv" for "libpod-<64 hex>.scope").  Nothing found, or nothing the caller
 * may read: 0, and the caller names the scope as before; never an error.
 */
#include <stdbool.h>
#include <stddef.h>

#define CONTAINER_ID_LEN 64
#define CONTAINER_SHORT_ID_LEN 12
/* The most of a name or image kept (raw; a longer one is cut). */
#define CONTAINER_NAME_LEN 256
/* The most of a state file read: podman's containers.json lists every container. */
#define CONTAINER_STATE_MAX (4u << 20)

struct container_ident {
	const char *runtime;	       /* "podman", "docker", "cri-o"; NULL: not a container */
	char id[CONTAINER_ID_LEN + 1]; /* from the cgroup path, 64 hex */
	/* podman: the pod's short id (its cgroup slice); cri-o: the Kubernetes pod's name;
	 * "" none.  Raw (cri-o's from its state): every output sanitises it. */
	char pod[CONTAINER_NAME_LEN];
	char name[CONTAINER_NAME_LEN];	/* raw, from the runtime's state */
	char image[CONTAINER_NAME_LEN]; /* raw, as the container was created from */
};

/*
 * The container of a cgroup v2 path by its form alone (pure): runtime, id and pod of ret
 * filled, true; false when the path is no container's.
 */
bool container_cgroup_parse(const char *cgroup, struct container_ident *ret);

/*
 * Where the runtimes' state lives: "" (the default) for the host's /var/lib; a test passes
 * a tree of its own (smcctl's sysroot).  Forgets what was cached.
 */
void container_ident_set_root(const char *root);

/*
 * The container of cgroup with its name and image from the runtime's state: 1, ret filled;
 * 0 when cgroup is no container's or its state was missing, unreadable, not root's (or
 * the caller's), writable by others, a symlink, too large or not the runtime's JSON.  Each
 * state file is read once per process while it stays the same file (inode, size, mtime, ctime).
 */
int container_ident_of(const char *cgroup, struct container_ident *ret);

/* "RUNTIME:NAME" ("podman:smc-srv", "cri-o:web"), raw: every output sanitises it.  Length written. */
size_t container_label(const struct container_ident *c, char *buf, size_t len);

/* Free the cache (at exit, so that leak checkers see none; tests between trees). */
void container_ident_forget(void);
