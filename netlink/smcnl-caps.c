// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What this kernel offers, probed the way a user of it would meet it.  Several probes load
 * modules on a modular kernel, which is intended (it is what using SMC does anyway):
 *   - resolving SMC_GEN_NETLINK / SMC_PNETID loads smc.ko (genl family alias; SMC_PNETID's
 *     alias sits on smc_diag.ko, which pulls smc in),
 *   - the smc_diag dump loads smc_diag.ko (net-pf-16-proto-4-type-43),
 *   - socket(AF_SMC) loads smc.ko (net-pf-43), EAFNOSUPPORT when there is no SMC,
 *   - socket(AF_INET, SOCK_STREAM, IPPROTO_SMC) loads it via net-pf-2-proto-256-type-1
 *     (6.11+), EPROTONOSUPPORT before 6.11 or without SMC.
 * When replaying, the two socket probes come from the recording too (socket.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "netlink/smcnl-internal.h"

static int probe_socket(int family, int protocol)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, protocol);

	if (fd < 0)
		return negative_errno();
	close(fd);
	return 0;
}

/*
 * socket(AF_SMC, SOCK_DGRAM) goes as far as smc_create(), which refuses every type but
 * SOCK_STREAM (ESOCKTNOSUPPORT) before it allocates anything, while the stream socket
 * creates a TCP socket besides (15 thousand guest instructions under TCG against 1.5,
 * bench/smcctl-vs-smctools).  ESOCKTNOSUPPORT: the family is there (after the same
 * autoload of net-pf-43) and the LSMs let this process create its sockets;
 * EAFNOSUPPORT: it is not there.  Any other answer (an LSM or seccomp rule about the
 * type) is left to the stream socket, whose answer is the one that counts.
 */
static int probe_af_smc(void)
{
	int fd = socket(AF_SMC, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) { /* not a kernel we know: judge by the stream socket */
		close(fd);
		return probe_socket(AF_SMC, 0);
	}
	if (errno == ESOCKTNOSUPPORT)
		return 0;
	if (errno == EAFNOSUPPORT)
		return -EAFNOSUPPORT;
	return probe_socket(AF_SMC, 0);
}

static int probe_ipproto_smc(void)
{
	return probe_socket(AF_INET, SMCNL_IPPROTO_SMC);
}

static void kernel_release(const struct smcnl *nl, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct utsname u;

	/* With a sysroot (tests, recordings) the release is part of the recorded tree. */
	if (nl->sysroot) {
		if (smcnl_path(nl, path, sizeof(path), "/proc/sys/kernel/osrelease") < 0 ||
		    smcnl_read_file(path, buf, len) < 0)
			buf[0] = '\0';
		return;
	}
	if (uname(&u) == 0)
		snprintf(buf, len, "%s", u.release);
	else
		buf[0] = '\0';
}

/* Fatal for the probe: only what is not "this feature is missing". */
static bool fatal(int r)
{
	return r == -ENOMEM || r == -ENODATA;
}

static int probe_genl(struct smcnl *nl, struct smc_caps *c)
{
	struct smc_sysinfo info;
	int r;

	/* Both families are asked for: in one system call (the kernel loads smc.ko once). */
	smcnl_family_prefetch(nl, (1u << SMCNL_FAM_SMC) | (1u << SMCNL_FAM_PNET));
	r = smcnl_family_resolve(nl, SMCNL_FAM_SMC);
	if (fatal(r))
		return r;
	c->smc_genl = r > 0;
	r = smcnl_family_resolve(nl, SMCNL_FAM_PNET);
	if (fatal(r))
		return r;
	c->pnet_genl = r > 0;
	if (!c->smc_genl)
		return 0;
	r = smc_sysinfo_get(nl, &info);
	if (fatal(r))
		return r;
	if (r == 0) {
		c->has_sysinfo = true;
		c->sysinfo = info;
		c->smc_ver = info.ver;
		c->smc_rel = info.rel;
		c->smcd_v2 = info.ism_v2;
		c->smcr_v2 = info.smcr_v2;
		/* Only s390 has a System EID; elsewhere the kernel reports an empty one. */
		c->seid_supported = info.has_seid && info.seid[0] != '\0';
	}
	return 0;
}

static bool have_loopback(const struct smcnl_dibs *dibs, size_t n, const struct smc_caps *c)
{
	for (size_t i = 0; i < n; i++)
		if (dibs[i].has_fabric_id && dibs[i].fabric_id == SMC_LOOPBACK_FABRIC)
			return true;
	if (c->dibs)
		return false;
	/*
	 * 6.10-6.17: loopback-ism is inside smc.ko and invisible.  Off s390 nothing else makes
	 * SMC "ISMv2 capable", so that flag means loopback-ism exists (it cannot be removed
	 * without unloading smc).  On s390 the flag may come from ISM hardware: unknown.
	 */
	return !ARCH_HAS_ISM && c->smcd_v2;
}

/* The DIBS class (c->dibs) and whether a loopback device is there (c->loopback). */
static void probe_dibs(struct smcnl *nl, struct smc_caps *c)
{
	_cleanup_(freep) struct smcnl_dibs *dibs = NULL;
	size_t n = 0;
	bool class;

	/* The listing says whether the class exists; only when it fails, stat() does. */
	if (smcnl_dibs_read(nl, SMCNL_DIBS_FABRIC, &dibs, &n, &class) < 0)
		class = smcnl_dibs_class_exists(nl);
	c->dibs = class;
	c->loopback = have_loopback(dibs, n, c);
}

int smc_caps_probe(struct smcnl *nl, struct smc_caps *ret)
{
	struct smc_caps c = {};
	int r;

	kernel_release(nl, c.kernel_release, sizeof(c.kernel_release));
	r = probe_genl(nl, &c);
	if (r < 0)
		return r;
	r = smcnl_diag_probe(nl);
	if (fatal(r))
		return r;
	c.smc_diag = r == 0;
	r = smcnl_probe_result(nl, "socket-af-smc", probe_af_smc);
	c.af_smc = r == 0;
	r = smcnl_probe_result(nl, "socket-ipproto-smc", probe_ipproto_smc);
	c.ipproto_smc = r == 0;
	/*
	 * The SMC family answered: smc is there (the lookup may itself have loaded it).  Else
	 * sysfs and the sysctls say: a built-in smc without parameters has no /sys/module/smc,
	 * and its sysctls (5.18+) always exist.
	 */
	c.smc_module = c.smc_genl || smcnl_path_exists(nl, "/sys/module/smc") ||
		       smcnl_path_exists(nl, "/proc/sys/net/smc");
	probe_dibs(nl, &c);
	*ret = c;
	return 0;
}
