// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One line for a user per (operation, errno): what went wrong and, where an operator can
 * act, what to do.  Errnos are the kernel's own (socket.c keeps them) or this library's
 * conventions (smcnl.h).  The kernel's extended-ack text is appended when it adds
 * something; -ERANGE from UEID_ADD is told apart by it ("table full" has no extack,
 * "too long" fails the netlink policy with "Attribute failed policy validation").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netlink/smcnl-internal.h"

#define ANY_OP _SMC_OP_MAX

static const char *const op_what[_SMC_OP_MAX] = {
	[SMC_OP_QUERY] = "reading SMC information",
	[SMC_OP_UEID_ADD] = "adding the UEID",
	[SMC_OP_UEID_DEL] = "removing the UEID",
	[SMC_OP_UEID_FLUSH] = "flushing the UEID table",
	[SMC_OP_SEID_ENABLE] = "enabling the System EID",
	[SMC_OP_SEID_DISABLE] = "disabling the System EID",
	[SMC_OP_HS_LIMITATION_SET] = "setting the handshake limitation",
	[SMC_OP_PNET_ADD] = "adding the PNET table entry",
	[SMC_OP_PNET_DEL] = "removing the PNET table entry",
	[SMC_OP_PNET_FLUSH] = "flushing the PNET table",
	[SMC_OP_SYSCTL_SET] = "setting the sysctl",
	[SMC_OP_SOCKET_DIAG] = "listing SMC sockets",
	[SMC_OP_LOOPBACK_QUERY] = "reading the smc_lo loopback device",
	[SMC_OP_LOOPBACK_ACTIVATE] = "activating the smc_lo loopback device",
	[SMC_OP_LOOPBACK_DEACTIVATE] = "deactivating the smc_lo loopback device",
	[SMC_OP_LOOPBACK_SET] = "changing a setting of the smc_lo loopback device",
};

/*
 * The SMC_LO family is missing: the module is not loaded and the kernel could not load it
 * (not installed, or a kernel without DIBS), or the caller is outside the initial network
 * namespace, where the host-wide family is invisible.
 */
#define SMCLO_MISSING                                                                        \
	"the smc_lo module is not loaded: install smc-lo-dkms or modprobe smc_lo (it needs " \
	"Linux 6.18 or later with DIBS, and is only visible in the initial network namespace)"

#define UEID_RULES "1-32 characters A-Z, 0-9, '.' or '-', beginning with a letter or digit"
#define SEID_S390                                                                            \
	"the System EID exists only on s390 (IBM Z): on this architecture configure a UEID " \
	"instead (smcctl ueid derive --apply)"
#define S390_SEID_BACK                                                                        \
	"the last UEID was removed and the kernel re-enabled the System EID (s390): nothing " \
	"to do"

static const struct smcnl_errmsg messages[] = {
	/* Operation-specific first; ANY_OP entries are the fallbacks. */
	{ SMC_OP_UEID_ADD, EINVAL, "the kernel rejected the UEID as invalid: " UEID_RULES },
	{ SMC_OP_UEID_ADD, ERANGE,
	  "the kernel's UEID table is full (it holds at most 4 UEIDs): "
	  "remove one with 'smcctl ueid del UEID'" },
	{ SMC_OP_UEID_ADD, EEXIST, "this UEID is already configured" },
	{ SMC_OP_UEID_DEL, EINVAL, "the kernel rejected the UEID as invalid: " UEID_RULES },
	{ SMC_OP_UEID_DEL, ENOENT, "this UEID is not configured (see 'smcctl ueid list')" },
	{ SMC_OP_UEID_DEL, EAGAIN, S390_SEID_BACK },
	{ SMC_OP_UEID_FLUSH, EAGAIN, S390_SEID_BACK },
	{ SMC_OP_SEID_ENABLE, EOPNOTSUPP, SEID_S390 },
	{ SMC_OP_SEID_DISABLE, EOPNOTSUPP, SEID_S390 },
	{ SMC_OP_SEID_DISABLE, ENOENT,
	  "the System EID cannot be disabled while no UEID is "
	  "configured: add one first (smcctl ueid add UEID)" },
	{ SMC_OP_HS_LIMITATION_SET, EOPNOTSUPP,
	  "this kernel has no SMC handshake limitation "
	  "(it is too old)" },
	{ SMC_OP_PNET_ADD, EEXIST,
	  "the PNET table already has an entry for this device, or the "
	  "device has a PNET ID of its own (hardware); outside the initial network namespace "
	  "only Ethernet entries can be added" },
	{ SMC_OP_PNET_ADD, EINVAL,
	  "the kernel rejected the PNET entry: the PNET ID must be 1-16 "
	  "letters and digits, the IB port 1 or 2, and RDMA/SMC-D device entries are only "
	  "possible in the initial network namespace" },
	{ SMC_OP_PNET_DEL, ENOENT,
	  "no PNET table entry has this PNET ID (see 'smcctl pnet "
	  "list')" },
	{ SMC_OP_PNET_DEL, EINVAL, "the kernel rejected the PNET ID: 1-16 letters and digits" },
	{ SMC_OP_SYSCTL_SET, EINVAL,
	  "the kernel rejected the value: not a number, or outside "
	  "the sysctl's range (see 'smcctl sysctl show')" },
	{ SMC_OP_SYSCTL_SET, ENOENT,
	  "this kernel has no such net.smc sysctl (too old, or the smc "
	  "module is not loaded)" },
	{ SMC_OP_SYSCTL_SET, EPERM,
	  "permission denied: net.smc sysctls are writable by root of "
	  "the network namespace's owner only" },
	{ SMC_OP_SYSCTL_SET, EACCES,
	  "permission denied: net.smc sysctls are writable by root of "
	  "the network namespace's owner only" },
	{ SMC_OP_SYSCTL_SET, EBUSY,
	  "the kernel could not take a reference on that handshake "
	  "control BPF program (hs_ctrl): is it being unloaded?" },
	{ SMC_OP_SOCKET_DIAG, EPROTONOSUPPORT,
	  "SMC socket diagnostics are not available in this "
	  "kernel: the smc_diag module is missing or could not be loaded (CONFIG_SMC_DIAG)" },
	{ SMC_OP_LOOPBACK_QUERY, EPROTONOSUPPORT, SMCLO_MISSING },
	{ SMC_OP_LOOPBACK_ACTIVATE, EPROTONOSUPPORT, SMCLO_MISSING },
	{ SMC_OP_LOOPBACK_DEACTIVATE, EPROTONOSUPPORT, SMCLO_MISSING },
	{ SMC_OP_LOOPBACK_SET, EPROTONOSUPPORT, SMCLO_MISSING },
	{ SMC_OP_LOOPBACK_ACTIVATE, EBUSY,
	  "the previous device is still being removed: "
	  "applications still hold connections on it (see 'smcctl device show smclo'); try "
	  "again when it is inactive" },
	{ SMC_OP_LOOPBACK_DEACTIVATE, EBUSY, "an activation is in progress: try again" },
	{ SMC_OP_LOOPBACK_DEACTIVATE, ETIMEDOUT,
	  "the device is still being removed after the "
	  "wait: applications still hold connections on it (see 'smcctl device show smclo'); "
	  "it stays out of new connections and goes away when they are closed" },
	{ SMC_OP_LOOPBACK_SET, EOPNOTSUPP,
	  "the module refuses virtually contiguous DMBs, "
	  "because they corrupt memory with SMC-D (see smc-lo(4)): use dmb-type physical" },
	{ SMC_OP_LOOPBACK_SET, EINVAL,
	  "the module rejected the setting: dmb-type physical, "
	  "nocopy on or off, max-dmbs 1 to 32768" },
	{ SMC_OP_LOOPBACK_SET, ERANGE,
	  "the module rejected the setting: dmb-type physical, "
	  "nocopy on or off, max-dmbs 1 to 32768" },
	{ SMC_OP_QUERY, EOPNOTSUPP,
	  "this kernel does not know this SMC request (it is too old "
	  "for it)" },
	{ SMC_OP_QUERY, ENOENT,
	  "not found (the smc module is not loaded, or this kernel is too "
	  "old for it)" },
	{ ANY_OP, EPROTONOSUPPORT,
	  "SMC is not available in this kernel: the smc module is "
	  "missing or could not be loaded (it needs CONFIG_SMC, and since 6.18 CONFIG_DIBS)" },
	{ ANY_OP, EPERM,
	  "permission denied: this needs CAP_NET_ADMIN in the initial user "
	  "namespace (root on the host; root in a container is not enough)" },
	{ ANY_OP, EACCES, "permission denied: this needs root (CAP_NET_ADMIN)" },
	{ ANY_OP, EBADMSG,
	  "the kernel's reply could not be understood (a kernel this program "
	  "does not know?): please report it" },
	{ ANY_OP, ENODATA, "no recorded kernel reply for this request (replay mode)" },
	{ ANY_OP, ENOMEM, "out of memory" },
	{ ANY_OP, ENOBUFS,
	  "the kernel dropped part of its reply (receive buffer overrun): try "
	  "again" },
	{ ANY_OP, EAGAIN, "the kernel's data changed while it was read: try again" },
	{ ANY_OP, EOPNOTSUPP, "this kernel does not support the request (it is too old for it)" },
};

const struct smcnl_errmsg *smcnl_errmsg_table(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(messages);
	return messages;
}

static const char *lookup(enum smc_op op, int err)
{
	for (size_t i = 0; i < ELEMENTSOF(messages); i++)
		if ((int)messages[i].op == (int)op && messages[i].err == err)
			return messages[i].text;
	for (size_t i = 0; i < ELEMENTSOF(messages); i++)
		if (messages[i].op == ANY_OP && messages[i].err == err)
			return messages[i].text;
	return NULL;
}

const char *smc_strerror(enum smc_op op, int err, const char *extack, char *buf, size_t len)
{
	const char *text;
	bool policy = extack && strstr(extack, "policy");

	if (!buf || len == 0)
		return "";
	if (err < 0)
		err = -err;
	if ((unsigned)op >= _SMC_OP_MAX)
		op = SMC_OP_QUERY;
	if (err == 0) {
		snprintf(buf, len, "success");
		return buf;
	}
	if (op == SMC_OP_UEID_ADD && err == ERANGE && policy)
		text = "the UEID is longer than the kernel allows (at most 32 characters)";
	else
		text = lookup(op, err);
	if (!text) {
		/* Unmapped: say what was being done and the system's words for the errno. */
		snprintf(buf, len, "%s failed: %s", op_what[op], strerror(err));
	} else {
		snprintf(buf, len, "%s", text);
	}
	/* The kernel's own reason, when it gave one beyond a policy failure we explained. */
	if (extack && *extack && !(policy && op == SMC_OP_UEID_ADD && err == ERANGE)) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " (kernel: %s)", extack);
	}
	return buf;
}
