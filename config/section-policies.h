/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smc.yaml "policies:": which programs get SMC without being changed, and which servers
 * never get offered it.  See smc.yaml(5), POLICIES.
 *
 *   policies:
 *     cgroups: [/system.slice/nginx.service, /machine.slice]   # and every cgroup below
 *     netns: [/run/netns/blue, blue]                           # NAME = /run/netns/NAME
 *     exclude:
 *       - 192.0.2.0/24
 *       - {port: 5432}
 *       - {address: "2001:db8::/32", port: 443}
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct config_mark;

/* cgroups + netns entries share the BPF rule indexes (SMCBPF_MAX_RULES); exclusions too. */
#define CONFIG_POLICY_MAX_RULES 64
#define CONFIG_POLICY_MAX_EXCLUDE 64
/* cgroup_mkdir reports paths in a 256-byte buffer (SMCBPF_CGROUP_PATH_MAX). */
#define CONFIG_POLICY_CGROUP_PATH_MAX 255

struct config_policy_target {
	char *path;    /* cgroups: relative to the cgroup2 root ("/a/b"); netns: absolute */
	unsigned line; /* where it was written */
	unsigned column;
	const char *file; /* the drop-in it came from (the config's dropins[]), NULL: smc.yaml */
};

struct config_policy_exclude {
	int family;	   /* 0: any (a port-only entry), AF_INET or AF_INET6 */
	uint8_t addr[16];  /* network order, host bits zero; IPv4 in the first 4 bytes */
	uint8_t prefixlen; /* 0..32 or 0..128 */
	uint16_t port;	   /* 0: any */
	char text[80];	   /* "192.0.2.0/24", "*:5432", "[2001:db8::]/32:443", "10.0.0.1:80" */
	unsigned line;
	unsigned column;
	const char *file; /* as for targets */
};

struct config_policies {
	struct config_policy_target *cgroups;
	size_t n_cgroups;
	struct config_policy_target *netns;
	size_t n_netns;
	struct config_policy_exclude *exclude;
	size_t n_exclude;
	unsigned line; /* of "policies:", 0 when absent */
};

/*
 * A policies.netns entry (and auto.scope.netns's): NULL when s names a network namespace,
 * its path then in buf (len bytes, PATH_MAX is enough): NAME is /run/netns/NAME, anything
 * else an absolute path such as /proc/PID/ns/net; else what is wrong with s.  Whether the
 * namespace exists is not asked: it may be created later.
 */
const char *config_netns_path_problem(const char *s, char *buf, size_t len);

void config_policies_clear(struct config_policies *p);
/* The section as YAML; with entries of drop-ins each with its FILE:LINE (main_path names
 * smc.yaml's). */
void config_policies_dump(FILE *f, const struct config_policies *p, const char *main_path);
size_t config_policies_count(const struct config_policies *p);

/* Exported for tests: parse an exclude address ("192.0.2.0/24", "::1"); 0 or -EINVAL with a
 * reason, -ERANGE for host bits set (expected then names the network). */
int policy_parse_prefix(const char *s, struct config_policy_exclude *ret, char *expected, size_t len);
void policy_exclude_text(struct config_policy_exclude *e);
