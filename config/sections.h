/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sections of smc.yaml with code of their own, for the key table (keys.c): each is
 * built on the toolkit (ytree.h) and the table's walker (keys.h) and fills in struct config
 * (config.h); none of the section files calls into another.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "config/config.h"
#include "config/keys.h"
#include "config/ytree.h"

/*
 * The rows of keys.c that are not plain scalars: their parsers (each reports its own
 * errors) and dumpers (whole lines, key included).
 */
/* sections.c */
int section_ueid(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
int ueid_entries(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void ueid_entries_dump(FILE *f, const struct config *c);
int hs_limitation_parse(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void hs_limitation_dump(FILE *f, const struct config *c);
int section_sysctl(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void sysctl_dump(FILE *f, const struct config *c);
int pnet_entries(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void pnet_entries_dump(FILE *f, const struct config *c);
int section_modules(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void modules_dump(FILE *f, const struct config *c);
void policies_dump(FILE *f, const struct config *c); /* policy.c */
/* The lists' built-in defaults (sysctl: and modules:), and their memory. */
int config_lists_defaults(struct config *c);
void config_lists_free(struct config *c);
int stats_netns_parse(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void stats_netns_dump(FILE *f, const struct config *c);

/* policies: (policy.c) */
int section_policies(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
/* After all sections: what policies: needs from the others. */
int config_policies_check(struct ctx *ctx);
/* The drop-ins (dropin.c), after the main file: only their policies:.  dir: PATH.d, for
 * the names of d->texts (read from disk only as d->dir). */
int config_dropins_load(struct ctx *ctx, const char *dir, const struct config_dropins *d);
/* read.c, for config.c and dropin.c: a file read as the main one is (-EBADFD: not a regular file,
 * of the kind *ret_kind names), that failure as an error line, and the revision's hash. */
int config_read_file(const char *path, char **ret, size_t *ret_len, const char **ret_kind);
/*
 * The same of an open fd (taken).  owned: the file must be the reader's own as well
 * (config_stat_owned()), else -EPERM with *ret_kind "file": the agent's own drop-ins, which
 * it reads as root and so only from files that root alone can change.
 */
int config_read_fd(int fd, bool owned, char **ret, size_t *ret_len, const char **ret_kind);
/* Owned by the reader (geteuid(): root for the agent) and not writable by group or others. */
bool config_stat_owned(const struct stat *st);
void config_read_error(struct config_errors *errors, const char *path, int r, const char *kind);
#define CONFIG_FNV_OFFSET 0xcbf29ce484222325ULL
uint64_t config_fnv1a64(uint64_t h, const char *s, size_t n);
/* loopback: (loopback.c) */
int section_loopback(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
/* After all sections: what loopback: needs from the others (reserved PNET IDs). */
int config_loopback_check(struct ctx *ctx);
/* auto: (section-auto.c): its lists and their dumps, and their memory. */
int auto_scope_cgroups(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void auto_scope_cgroups_dump(FILE *f, const struct config *c);
int auto_scope_units(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void auto_scope_units_dump(FILE *f, const struct config *c);
int auto_scope_netns(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void auto_scope_netns_dump(FILE *f, const struct config *c);
int auto_exclude_ports(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void auto_exclude_ports_dump(FILE *f, const struct config *c);
void config_auto_free(struct config *c);
int loopback_dmb_type(struct ctx *ctx, const struct ynode *k, const struct ynode *v);
void loopback_dmb_type_dump(FILE *f, const struct config *c);
