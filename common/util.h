/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Write all of p, across short writes and EINTR; 0 or -errno. */
int fd_write_all(int fd, const char *p, size_t len);
/* s is one or more digits 0-9 and nothing else (a pid's name in /proc). */
bool str_all_digits(const char *s);
/* Remove trailing whitespace in place; returns s. */
char *strstrip_trailing(char *s);

/*
 * Replace path with data so that a reader sees the old file or the new one, never a part:
 * a temporary ".NAME.XXXXXX" in the same directory, fsync, fchmod(mode), rename, fsync of
 * the directory.  The agent (textfile, state file, drop-ins) and smcctl (drop-ins) write
 * through it.  0: replaced, durably.  TEXTFILE_NOT_DURABLE: replaced (every reader sees
 * the new data from now on), but the directory's fsync failed, so the rename may not
 * survive a crash; *ret_sync_error (when not NULL) is that -errno.  Negative errno: path was
 * not replaced, it is as it was (the temporary file is removed).
 */
#define TEXTFILE_NOT_DURABLE 1
/*
 * The one rule for a file or directory of ours: owned by the caller's euid (or by root,
 * when root_too) and writable by neither group nor others.  The agent's drop-ins, its BPF
 * pin directory and the textfile's directory are trusted only so.
 */
bool stat_is_ours(const struct stat *st, bool root_too);
int textfile_write_atomic(const char *path, const char *data, size_t len, unsigned mode,
			  int *ret_sync_error);
/*
 * The same replacement without durability: no fsync of the file nor of the directory, so 0
 * or negative errno.  For a file rewritten at every interval and made again after a crash
 * (the Prometheus textfile): a reader still sees the old file or the new one, never a part
 * (rename(2) is atomic whatever reaches the disk when), and each write is a new file with
 * its own mtime.  What a crash may leave is the old or an empty file, until the next write.
 */
int textfile_replace(const char *path, const char *data, size_t len, unsigned mode);
/*
 * Both write only into a directory textfile_dir_open() trusts (no symlink on the way, owned
 * by root or the euid, writable by no one else): else -EPERM, and textfile_untrusted() says
 * what is wrong and what to do (NULL after any other outcome).
 */
int textfile_dir_open(const char *dir);
const char *textfile_untrusted(void);
/* path removed, through the same trusted directory: 0 or -errno (-ENOENT: there was none). */
int textfile_unlink(const char *path);
/* What the temporary's name adds to the file's: "." before, ".XXXXXX" after. */
#define TEXTFILE_TEMP_NAME_EXTRA 8

/*
 * The whole text of a small file, NUL-terminated: 0 with *ret NULL when it does not exist,
 * -EFBIG when it has max bytes or more, else negative errno.  For drop-ins, whose old text
 * is put back when a change is refused.
 */
int textfile_read_small(const char *path, size_t max, char **ret);
/* All of fd up to its end, NUL-terminated, into *ret (its length in *ret_len when not NULL):
 * -EFBIG when it has max bytes or more, else 0 or negative errno.  The one bounded read of
 * a small text (a drop-in, an OCI state on stdin, a bundle's config.json). */
int fd_read_small(int fd, size_t max, char **ret, size_t *ret_len);

/* The cgroup id (the kernfs id the kernel's BPF helpers report, the cookie of cgroup
 * sockets) of a cgroup2 directory: 0 or -errno (-ENOTDIR). */
int cgroup_id_of(const char *dir, uint64_t *ret);
