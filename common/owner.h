/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * Who holds a socket: the processes whose file descriptors point at a socket inode (what
 * `ss -p` finds by walking /proc/PID/fd), their command and their cgroup, and the systemd
 * unit that cgroup belongs to.  Plain libc on procfs; no kernel call of ours.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sock_proc {
	uint64_t inode; /* the socket's inode (smc_diag's diag_inode) */
	pid_t pid;
	int fd;	       /* the lowest descriptor of that process for the socket */
	char comm[17]; /* /proc/PID/comm, at most 16 bytes */
	char *cgroup;  /* the unified (v2) cgroup path, "/system.slice/x.service"; NULL: unknown */
};

struct sock_owners {
	struct sock_proc *procs; /* sorted by inode, then pid */
	size_t n;
	/* Processes whose descriptors could not be read (another user's, without root):
	 * a socket without owners may belong to one of them. */
	size_t unreadable;
};

/*
 * Find the holders of the n socket inodes (any order; duplicates allowed) under the procfs
 * mounted at proc ("/proc"; a test passes a tree of its own).  A process that ends while it
 * is read is skipped.  Returns 0 or a negative errno (ENOMEM; proc not readable at all).
 */
int sock_owners_scan(const char *proc, const uint64_t *inodes, size_t n, struct sock_owners *o);
/* The holders of one inode: *first and the count (0: none found). */
size_t sock_owners_of(const struct sock_owners *o, uint64_t inode, const struct sock_proc **first);
void sock_owners_done(struct sock_owners *o);

/*
 * The systemd units of a cgroup path as sd_pid_get_unit() and sd_pid_get_user_unit() name
 * them: the first component below the slices that is a unit ("/system.slice/nginx.service"
 * -> "nginx.service"); under a user manager ("user@1000.service") also the user unit below
 * it ("app.slice/foo.scope" -> "foo.scope").  Either is "" when there is none ("/smc-on",
 * "/docker/ID" with the cgroupfs driver).
 */
void cgroup_units(const char *cgroup, char *unit, size_t unit_len, char *user_unit,
		  size_t user_unit_len);
