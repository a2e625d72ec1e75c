// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * INTERIM: a minimal stand-in for libsmcnl (netlink/smcnl.h) so that the agent builds and its
 * tests run before the netlink branch lands on main.  It implements the pure parts of the
 * contract the agent uses (sysctl table, UEID/PNET ID validation, smc_strerror), the sysctl
 * files, and a capability probe; every netlink request answers -EPROTONOSUPPORT, which is
 * what the real library answers on a host without SMC (the only kind of host this stand-in
 * can be used on: the VM tests need the real library).
 *
 * Every definition is weak and this is a library of its own, linked after
 * netlink/libsmcnl.la: the linker takes a symbol from here only when the real library
 * lacks it, so the merge that brings libsmcnl onto main switches the agent over by
 * itself.  Delete this file (and smcd-agent/libsmcnl-interim.la) after that merge.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/macro.h"
#include "netlink/smcnl.h"

#define _weak_ __attribute__((weak))

struct smcnl {
	char *sysroot;
};

_weak_ int smcnl_open(const struct smcnl_options *opts, struct smcnl **ret)
{
	struct smcnl *nl = calloc(1, sizeof(*nl));

	if (!nl)
		return -ENOMEM;
	if (opts && opts->sysroot && !(nl->sysroot = strdup(opts->sysroot))) {
		free(nl);
		return -ENOMEM;
	}
	*ret = nl;
	return 0;
}

_weak_ void smcnl_close(struct smcnl *nl)
{
	if (!nl)
		return;
	free(nl->sysroot);
	free(nl);
}

_weak_ const char *smcnl_extack(const struct smcnl *nl)
{
	return NULL;
}

_weak_ const char *smc_strerror(enum smc_op op, int err, const char *extack, char *buf, size_t len)
{
	if (err == -EPROTONOSUPPORT)
		snprintf(buf, len, "SMC is not available in this kernel");
	else if (err == -EPERM)
		snprintf(buf, len, "permission denied (CAP_NET_ADMIN is needed)");
	else if (op == SMC_OP_UEID_ADD && err == -ERANGE)
		snprintf(buf, len, "the kernel's UEID table is full (it holds at most 4 UEIDs)");
	else
		snprintf(buf, len, "%s%s%s", strerror(err < 0 ? -err : err), extack ? ": " : "",
			 extack ? extack : "");
	return buf;
}

static const char *const buf_type_names[] = { "physical", "virtual", "mixed", NULL };

static const struct smc_sysctl_desc sysctl_table[] = {
	{ "autocorking_size", SMC_UNIT_BYTES, 0, UINT32_MAX, 65536, "5.18", NULL,
	  "maximum bytes corked per send (0 disables autocorking)" },
	{ "smcr_buf_type", SMC_UNIT_ENUM, 0, 2, 0, "6.0", buf_type_names,
	  "SMC-R buffer type for new link groups" },
	{ "smcr_testlink_time", SMC_UNIT_SECONDS, 0, INT32_MAX / 1000, 30, "6.1", NULL,
	  "TEST_LINK interval after the last activity (0 disables)" },
	{ "wmem", SMC_UNIT_BYTES, 16384, INT32_MAX / 2, 65536, "6.1", NULL,
	  "initial send buffer size" },
	{ "rmem", SMC_UNIT_BYTES, 16384, INT32_MAX / 2, 65536, "6.1", NULL,
	  "initial receive buffer (RMB/DMB) size" },
	{ "smcr_max_links_per_lgr", SMC_UNIT_COUNT, 1, 2, 2, "6.8", NULL,
	  "preferred maximum links per SMC-R link group" },
	{ "smcr_max_conns_per_lgr", SMC_UNIT_COUNT, 16, 255, 255, "6.8", NULL,
	  "connections per SMC-R link group" },
	{ "limit_smc_hs", SMC_UNIT_BOOL, 0, 1, 0, "6.12", NULL,
	  "fall back to TCP when the handshake queue is congested" },
	{ "smcr_max_send_wr", SMC_UNIT_COUNT, 2, 2048, 16, "6.19", NULL,
	  "work requests per SMC-R send queue" },
	{ "smcr_max_recv_wr", SMC_UNIT_COUNT, 2, 2048, 48, "6.19", NULL,
	  "work requests per SMC-R receive queue" },
	{ "hs_ctrl", SMC_UNIT_STRING, 0, 15, 0, "6.19", NULL,
	  "name of the smc_hs_ctrl BPF struct_ops in use" },
};

_weak_ const struct smc_sysctl_desc *smc_sysctl_table(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(sysctl_table);
	return sysctl_table;
}

_weak_ const struct smc_sysctl_desc *smc_sysctl_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(sysctl_table); i++)
		if (streq(sysctl_table[i].name, name))
			return &sysctl_table[i];
	return NULL;
}

static void sysctl_path(struct smcnl *nl, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/proc/sys/net/smc/%s", nl->sysroot ? nl->sysroot : "", name);
}

_weak_ int smc_sysctl_get(struct smcnl *nl, const char *name, char *buf, size_t len)
{
	char path[512];
	_cleanup_(fclosep) FILE *f = NULL;

	sysctl_path(nl, name, path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return negative_errno();
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

_weak_ int smc_sysctl_get_int(struct smcnl *nl, const char *name, int64_t *ret)
{
	char buf[64], *end;
	int r = smc_sysctl_get(nl, name, buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	*ret = strtoll(buf, &end, 10);
	if (errno || end == buf)
		return -EBADMSG;
	return 0;
}

_weak_ int smc_sysctl_set(struct smcnl *nl, const char *name, const char *value)
{
	char path[512];
	_cleanup_(closep) int fd = -1;
	size_t n = strlen(value);

	sysctl_path(nl, name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return negative_errno();
	if (write(fd, value, n) != (ssize_t)n)
		return negative_errno();
	return 0;
}

_weak_ int smc_sysctl_list_present(struct smcnl *nl, char ***ret_names, size_t *ret_n)
{
	return -EOPNOTSUPP;
}

_weak_ int smc_ueid_validate(const char *ueid, char ret_padded[SMC_EID_LEN + 1], const char **ret_reason)
{
	size_t n = strlen(ueid);

	while (n > 0 && ueid[n - 1] == ' ')
		n--;
	if (n == 0) {
		*ret_reason = "a UEID must not be empty";
		return -EINVAL;
	}
	if (n > SMC_EID_LEN) {
		*ret_reason = "a UEID has at most 32 characters";
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)ueid[i];

		if (islower(c)) {
			*ret_reason = "lowercase letters are not allowed";
			return -EINVAL;
		}
		if (!(isalnum(c) || (i > 0 && (c == '.' || c == '-')))) {
			*ret_reason = i == 0 ? "a UEID must start with an upper-case letter or a digit"
					     : "only upper-case letters, digits, '.' and '-' are allowed";
			return -EINVAL;
		}
		if (c == '.' && i > 0 && ueid[i - 1] == '.') {
			*ret_reason = "consecutive dots are not allowed";
			return -EINVAL;
		}
	}
	snprintf(ret_padded, SMC_EID_LEN + 1, "%-*.*s", SMC_EID_LEN, (int)n, ueid);
	return 0;
}

_weak_ int smc_pnetid_validate(const char *pnetid, char ret_norm[SMC_PNETID_LEN + 1],
			const char **ret_reason)
{
	size_t b = 0, n = strlen(pnetid);

	while (b < n && isspace((unsigned char)pnetid[b]))
		b++;
	while (n > b && isspace((unsigned char)pnetid[n - 1]))
		n--;
	if (n == b || n - b > SMC_PNETID_LEN) {
		*ret_reason = "a PNET ID has 1 to 16 letters or digits";
		return -EINVAL;
	}
	for (size_t i = b; i < n; i++) {
		if (!isalnum((unsigned char)pnetid[i])) {
			*ret_reason = "a PNET ID has only letters and digits";
			return -EINVAL;
		}
		ret_norm[i - b] = (char)toupper((unsigned char)pnetid[i]);
	}
	ret_norm[n - b] = '\0';
	return 0;
}

#define NO_SMC return -EPROTONOSUPPORT

_weak_ int smc_sysinfo_get(struct smcnl *nl, struct smc_sysinfo *ret) { NO_SMC; }
_weak_ int smc_ueid_list(struct smcnl *nl, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1], size_t *ret_n) { NO_SMC; }
_weak_ int smc_ueid_add(struct smcnl *nl, const char *ueid) { NO_SMC; }
_weak_ int smc_ueid_del(struct smcnl *nl, const char *ueid) { NO_SMC; }
_weak_ int smc_ueid_flush(struct smcnl *nl) { NO_SMC; }
_weak_ int smc_seid_get(struct smcnl *nl, struct smc_seid *ret) { NO_SMC; }
_weak_ int smc_seid_set(struct smcnl *nl, bool enable) { NO_SMC; }
_weak_ int smc_hs_limitation_get(struct smcnl *nl, bool *ret) { NO_SMC; }
_weak_ int smc_hs_limitation_set(struct smcnl *nl, bool enable) { NO_SMC; }
_weak_ int smc_pnet_list(struct smcnl *nl, const char *pnetid, struct smc_pnet_entry **ret,
		  size_t *ret_n) { NO_SMC; }
_weak_ int smc_pnet_add(struct smcnl *nl, const struct smc_pnet_entry *e) { NO_SMC; }
_weak_ int smc_pnet_del(struct smcnl *nl, const char *pnetid) { NO_SMC; }
_weak_ int smc_pnet_flush(struct smcnl *nl) { NO_SMC; }
_weak_ int smcd_device_list(struct smcnl *nl, struct smcd_device **ret, size_t *ret_n) { NO_SMC; }
_weak_ int smcr_device_list(struct smcnl *nl, struct smcr_device **ret, size_t *ret_n) { NO_SMC; }
_weak_ int smcd_linkgroup_list(struct smcnl *nl, struct smcd_linkgroup **ret, size_t *ret_n) { NO_SMC; }
_weak_ int smcr_linkgroup_list(struct smcnl *nl, bool with_links, struct smcr_linkgroup **ret,
			size_t *ret_n) { NO_SMC; }

_weak_ void smcr_linkgroup_list_free(struct smcr_linkgroup *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].links);
	free(v);
}

_weak_ void smcd_gid_format(uint64_t gid, uint64_t ext_gid, char ret[33])
{
	snprintf(ret, 33, "%016llx%016llx", (unsigned long long)gid, (unsigned long long)ext_gid);
}

_weak_ int smc_caps_probe(struct smcnl *nl, struct smc_caps *ret)
{
	struct utsname u;
	char path[512];

	memset(ret, 0, sizeof(*ret));
	if (uname(&u) == 0)
		snprintf(ret->kernel_release, sizeof(ret->kernel_release), "%s", u.release);
	snprintf(path, sizeof(path), "%s/sys/module/smc", nl->sysroot ? nl->sysroot : "");
	ret->smc_module = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), "%s/sys/class/dibs", nl->sysroot ? nl->sysroot : "");
	ret->dibs = access(path, F_OK) == 0;
	return 0;
}

_weak_ const char *smc_lgr_type_name(uint8_t type)
{
	static const char *const n[] = { "NONE", "SINGLE", "SYM", "ASYMP", "ASYML" };
	return type < ELEMENTSOF(n) ? n[type] : NULL;
}

_weak_ const char *smc_lgr_role_name(uint8_t role)
{
	return role == 0 ? "CLNT" : role == 1 ? "SERV" : NULL;
}

_weak_ const char *smc_os_name(uint8_t os)
{
	static const char *const n[] = { NULL, "ZOS", "LINUX", "AIX" };
	return os < ELEMENTSOF(n) ? n[os] : NULL;
}

_weak_ const char *smc_buf_type_name(uint8_t t)
{
	return t < 3 ? buf_type_names[t] : NULL;
}
