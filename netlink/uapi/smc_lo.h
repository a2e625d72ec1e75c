/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * smc_lo: a controllable SMC-D loopback device (DIBS) and its generic netlink family.
 *
 * This header is the one contract between the kernel module (kmod/) and user space
 * (netlink/smcnl-smclo.c, smcctl, smcd-agent).  It is included by both; keep it free of kernel-
 * or libc-only types.  Numbering is ABI: append, never renumber or reuse.
 *
 * Family
 *   name "SMC_LO" (SMC_LO_GENL_NAME), version 1, no user header, strict attribute
 *   validation for every command, not netns-aware (only visible in the initial network
 *   namespace, because the device it controls is host-global), autoloads the module
 *   (MODULE_ALIAS_GENL_FAMILY).  Commands that change anything need CAP_NET_ADMIN in the
 *   initial user namespace (GENL_ADMIN_PERM).
 *
 * Multicast group "state" (SMC_LO_MCGRP_STATE): one SMC_LO_CMD_NOTIFY message per state
 * or settings change, with the same attributes as a SMC_LO_CMD_GET reply plus
 * SMC_LO_A_EVENT.
 *
 * Device lifecycle
 *   inactive --ACTIVATE--> active --DEACTIVATE--> draining --(removed)--> inactive
 *   While draining the device refuses new SMC-D connections (query_remote_gid fails, so
 *   they fall back to TCP), waits up to the drain timeout for its link groups to go away,
 *   then unregisters from DIBS, which terminates what is left: connections still open get
 *   ECONNABORTED and the removal completes only when their applications close them.
 *   SMC_LO_A_REMOVING says the removal has started; the counters say what still holds the
 *   device (DMBs, attachments, link groups).
 *
 * Settings
 *   DMB type, nocopy and max DMBs are read by SMC once per device, so they are stored by
 *   SMC_LO_CMD_SET and take effect on the next activation; the reply's SMC_LO_A_APPLY says
 *   whether something is pending.
 *
 * Virtually contiguous DMBs (SMC_LO_DMB_VIRT) are refused with EOPNOTSUPP: SMC-D computes
 * virt_to_page() of the DMB address and hands that single page to splice(), which is
 * invalid for vmalloc memory (see man/smc-lo.4 and tests/vm/guest/kmod-vdmb-proof.sh).
 */
#ifndef _UAPI_SMC_LO_H
#define _UAPI_SMC_LO_H

#define SMC_LO_GENL_NAME	"SMC_LO"
#define SMC_LO_GENL_VERSION	1
#define SMC_LO_MCGRP_STATE	"state"

/* Default DIBS device name; the module parameter "devname" can change it. */
#define SMC_LO_DEFAULT_DEVNAME	"smclo"

/*
 * Limits enforced by the kernel's attribute policies.  max_dmbs sizes, at each activation,
 * SMC's connection table of the device (8 bytes per DMB: 256 KiB at the maximum, one
 * kmalloc), DIBS's client table (1 byte per DMB) and the module's index bitmap; two DMBs per
 * loopback connection, so 32768 is 16,384 connections (bench/README.md runs 10,000).
 */
#define SMC_LO_MAX_DMBS_MIN		1
#define SMC_LO_MAX_DMBS_MAX		32768
#define SMC_LO_MAX_DMBS_DEFAULT		5000
#define SMC_LO_DRAIN_TIMEOUT_MAX_MS	600000
#define SMC_LO_DRAIN_TIMEOUT_DEFAULT_MS	10000
#define SMC_LO_GID_LEN			16

/**
 * enum smc_lo_cmd - generic netlink commands of the SMC_LO family
 * @SMC_LO_CMD_UNSPEC: unused
 * @SMC_LO_CMD_GET: the device's state, settings and counters.  Do and dump (a dump has
 *	exactly one message).  No request attributes.
 * @SMC_LO_CMD_ACTIVATE: register a new DIBS device with the configured settings.  Admin.
 *	Returns once the device is registered; the reply is a GET reply.  EBUSY while a
 *	previous device is still draining; no-op if already active.
 * @SMC_LO_CMD_DEACTIVATE: start draining the device.  Admin.  Optional
 *	%SMC_LO_A_DRAIN_TIMEOUT_MS.  The reply (a GET reply) comes at once; the removal
 *	completes asynchronously and is announced on the "state" group.  Repeating the
 *	command while draining can shorten the remaining wait.  No-op if inactive.
 * @SMC_LO_CMD_SET: store settings for the next activation.  Admin.  Request: the nest
 *	%SMC_LO_A_SETTINGS with one or more %SMC_LO_S_* attributes.  Reply: a GET reply plus
 *	%SMC_LO_A_APPLY.
 * @SMC_LO_CMD_NOTIFY: multicast only (group "state"): a GET reply plus %SMC_LO_A_EVENT.
 * @__SMC_LO_CMD_MAX: internal
 * @SMC_LO_CMD_MAX: highest command number
 */
enum smc_lo_cmd {
	SMC_LO_CMD_UNSPEC,
	SMC_LO_CMD_GET,
	SMC_LO_CMD_ACTIVATE,
	SMC_LO_CMD_DEACTIVATE,
	SMC_LO_CMD_SET,
	SMC_LO_CMD_NOTIFY,

	__SMC_LO_CMD_MAX,
	SMC_LO_CMD_MAX = __SMC_LO_CMD_MAX - 1
};

/**
 * enum smc_lo_state - device state (%SMC_LO_A_STATE)
 * @SMC_LO_STATE_INACTIVE: no device registered
 * @SMC_LO_STATE_ACTIVE: registered with DIBS and SMC, accepting SMC-D connections
 * @SMC_LO_STATE_DRAINING: registered but refusing new connections; being removed
 */
enum smc_lo_state {
	SMC_LO_STATE_INACTIVE,
	SMC_LO_STATE_ACTIVE,
	SMC_LO_STATE_DRAINING,
};

/**
 * enum smc_lo_dmb_type - how DMB memory is allocated (%SMC_LO_S_DMB_TYPE)
 * @SMC_LO_DMB_PHYS: physically contiguous compound pages (a folio), like the built-in
 *	loopback device.  The only accepted value.
 * @SMC_LO_DMB_VIRT: virtually contiguous (vmalloc).  Refused with EOPNOTSUPP: unsafe with
 *	SMC-D, which treats every DMB as one page-backed buffer (virt_to_page() + splice()).
 */
enum smc_lo_dmb_type {
	SMC_LO_DMB_PHYS,
	SMC_LO_DMB_VIRT,
};

/**
 * enum smc_lo_apply - when stored settings take effect (%SMC_LO_A_APPLY)
 * @SMC_LO_APPLY_NOW: nothing is pending: no device is registered (the settings are used by
 *	the next activation) or the registered device already uses them
 * @SMC_LO_APPLY_NEXT_ACTIVATION: the registered device runs with other settings
 *	(%SMC_LO_A_ACTIVE_SETTINGS); deactivate and activate to apply
 */
enum smc_lo_apply {
	SMC_LO_APPLY_NOW,
	SMC_LO_APPLY_NEXT_ACTIVATION,
};

/**
 * enum smc_lo_event - what a %SMC_LO_CMD_NOTIFY message announces (%SMC_LO_A_EVENT)
 * @SMC_LO_EVENT_ACTIVATED: a new device was registered (state active)
 * @SMC_LO_EVENT_DRAINING: deactivation started (state draining)
 * @SMC_LO_EVENT_REMOVING: the drain wait is over; unregistering from DIBS now, which
 *	aborts the connections still open (counters say what holds the device)
 * @SMC_LO_EVENT_DEACTIVATED: the device is gone (state inactive)
 * @SMC_LO_EVENT_SETTINGS: the stored settings changed
 */
enum smc_lo_event {
	SMC_LO_EVENT_ACTIVATED,
	SMC_LO_EVENT_DRAINING,
	SMC_LO_EVENT_REMOVING,
	SMC_LO_EVENT_DEACTIVATED,
	SMC_LO_EVENT_SETTINGS,
};

/**
 * enum smc_lo_attr - top-level attributes
 * @SMC_LO_A_UNSPEC: unused
 * @SMC_LO_A_PAD: padding for 64-bit attributes; ignore
 * @SMC_LO_A_DEV_NAME: string, the DIBS device name (/sys/class/dibs/NAME; also the name
 *	SMC's pnet table matches as IBNAME).  Always present.
 * @SMC_LO_A_STATE: u8, &enum smc_lo_state.  Always present.
 * @SMC_LO_A_GID: binary, 16 bytes: the device GID (a random UUID, new on every
 *	activation) in the byte order of /sys/class/dibs/NAME/gid.  SMC_GEN_NETLINK's
 *	SMC-D link group dump reports it as GID (bytes 0-7, big-endian) and EXT_GID (bytes
 *	8-15): a link group belongs to this device iff both match.  Present unless inactive.
 * @SMC_LO_A_FABRIC_ID: u16, the DIBS fabric id (always 0xffff, loopback).  Present unless
 *	inactive.
 * @SMC_LO_A_GENERATION: u32, number of the activation that created the registered device
 *	(counts from 1 since module load).  Present unless inactive.
 * @SMC_LO_A_SETTINGS: nest of &enum smc_lo_settings_attr.  In replies: the stored
 *	settings, used by the next activation (always present).  In a SET request: the
 *	settings to change.
 * @SMC_LO_A_ACTIVE_SETTINGS: nest of &enum smc_lo_settings_attr: the settings the
 *	registered device runs with.  Present unless inactive.
 * @SMC_LO_A_COUNTERS: nest of &enum smc_lo_counter_attr.  Always present.
 * @SMC_LO_A_DRAIN_TIMEOUT_MS: u32, milliseconds, 0..%SMC_LO_DRAIN_TIMEOUT_MAX_MS.  In a
 *	DEACTIVATE request: how long to wait for link groups to go away before removing the
 *	device anyway (default %SMC_LO_DRAIN_TIMEOUT_DEFAULT_MS).  In replies while draining:
 *	the timeout in force.
 * @SMC_LO_A_DRAIN_REMAINING_MS: u32, milliseconds left of the drain wait.  Present while
 *	draining and not yet removing.
 * @SMC_LO_A_REMOVING: u8, 1 once the drain wait is over and the device is being
 *	unregistered from DIBS.  Present while draining.
 * @SMC_LO_A_APPLY: u8, &enum smc_lo_apply.  SET replies only.
 * @SMC_LO_A_EVENT: u8, &enum smc_lo_event.  NOTIFY messages only.
 * @SMC_LO_A_PENDING: u8, 1 if the stored settings differ from the active ones (a
 *	re-activation would change something).  Always present.
 * @__SMC_LO_A_MAX: internal
 * @SMC_LO_A_MAX: highest attribute number
 */
enum smc_lo_attr {
	SMC_LO_A_UNSPEC,
	SMC_LO_A_PAD,
	SMC_LO_A_DEV_NAME,
	SMC_LO_A_STATE,
	SMC_LO_A_GID,
	SMC_LO_A_FABRIC_ID,
	SMC_LO_A_GENERATION,
	SMC_LO_A_SETTINGS,
	SMC_LO_A_ACTIVE_SETTINGS,
	SMC_LO_A_COUNTERS,
	SMC_LO_A_DRAIN_TIMEOUT_MS,
	SMC_LO_A_DRAIN_REMAINING_MS,
	SMC_LO_A_REMOVING,
	SMC_LO_A_APPLY,
	SMC_LO_A_EVENT,
	SMC_LO_A_PENDING,

	__SMC_LO_A_MAX,
	SMC_LO_A_MAX = __SMC_LO_A_MAX - 1
};

/**
 * enum smc_lo_settings_attr - attributes inside %SMC_LO_A_SETTINGS and
 *	%SMC_LO_A_ACTIVE_SETTINGS
 * @SMC_LO_S_UNSPEC: unused
 * @SMC_LO_S_DMB_TYPE: u8, &enum smc_lo_dmb_type (policy range 0..1; 1 is refused with
 *	EOPNOTSUPP and an extended ack that says why).  Default %SMC_LO_DMB_PHYS.
 * @SMC_LO_S_NOCOPY: u8, 0 or 1: whether the device offers mapped remote DMBs, so SMC
 *	merges each connection's send buffer with the peer's DMB (no copy in move_data).
 *	Default 1.
 * @SMC_LO_S_MAX_DMBS: u32, %SMC_LO_MAX_DMBS_MIN..%SMC_LO_MAX_DMBS_MAX: most DMBs the
 *	device registers at once (one per SMC-D connection end; SMC keeps them while the
 *	link group lives).  Registrations beyond it fail with ENOSPC, which SMC turns into
 *	the CLC decline SMC_CLC_DECL_MAX_DMB and a TCP fallback.  Default
 *	%SMC_LO_MAX_DMBS_DEFAULT.
 * @__SMC_LO_S_MAX: internal
 * @SMC_LO_S_MAX: highest attribute number
 */
enum smc_lo_settings_attr {
	SMC_LO_S_UNSPEC,
	SMC_LO_S_DMB_TYPE,
	SMC_LO_S_NOCOPY,
	SMC_LO_S_MAX_DMBS,

	__SMC_LO_S_MAX,
	SMC_LO_S_MAX = __SMC_LO_S_MAX - 1
};

/**
 * enum smc_lo_counter_attr - attributes inside %SMC_LO_A_COUNTERS
 *
 * "Gauges" describe the registered device (0 when inactive) and together say what still
 * holds it; all other counters are u64 totals since the module was loaded, never reset.
 * A failed registration is counted once per call: SMC retries smaller buffer sizes, so
 * one refused connection usually shows up several times.
 *
 * @SMC_LO_C_UNSPEC: unused
 * @SMC_LO_C_PAD: padding for u64 attributes; ignore
 * @SMC_LO_C_DMBS: u32 gauge, DMBs registered and not yet freed
 * @SMC_LO_C_DMB_BYTES: u64 gauge, bytes of those DMBs
 * @SMC_LO_C_ATTACHED: u32 gauge, current nocopy attachments (one per open SMC-D
 *	connection end while nocopy is in force)
 * @SMC_LO_C_LINK_GROUPS: u32 gauge, references to the device held by others; SMC holds
 *	exactly one per SMC-D link group on the device
 * @SMC_LO_C_REGISTRATIONS: u64, successful register_dmb calls
 * @SMC_LO_C_UNREGISTRATIONS: u64, unregister_dmb calls that found their DMB
 * @SMC_LO_C_ALLOC_FAILURES: u64, register_dmb calls that failed for lack of memory
 *	(ENOMEM; SMC retries with a smaller buffer)
 * @SMC_LO_C_LIMIT_REJECTS: u64, register_dmb calls refused because max DMBs were in use
 *	(ENOSPC)
 * @SMC_LO_C_MOVES: u64, move_data calls
 * @SMC_LO_C_MOVE_BYTES: u64, bytes written by move_data
 * @SMC_LO_C_MOVE_SIGNALS: u64, move_data calls that signalled the receiver
 * @SMC_LO_C_MOVE_ERRORS: u64, move_data calls refused (unknown token, out of bounds)
 * @SMC_LO_C_ATTACHES: u64, successful attach_dmb calls
 * @SMC_LO_C_DETACHES: u64, successful detach_dmb calls
 * @SMC_LO_C_ACTIVATIONS: u64, devices registered
 * @SMC_LO_C_DEACTIVATIONS: u64, devices removed
 * @SMC_LO_C_DRAIN_REJECTS: u64, register_dmb calls refused because the device was
 *	draining (ENODEV; the connection's handshake fails and it uses TCP)
 * @__SMC_LO_C_MAX: internal
 * @SMC_LO_C_MAX: highest attribute number
 */
enum smc_lo_counter_attr {
	SMC_LO_C_UNSPEC,
	SMC_LO_C_PAD,
	SMC_LO_C_DMBS,
	SMC_LO_C_DMB_BYTES,
	SMC_LO_C_ATTACHED,
	SMC_LO_C_LINK_GROUPS,
	SMC_LO_C_REGISTRATIONS,
	SMC_LO_C_UNREGISTRATIONS,
	SMC_LO_C_ALLOC_FAILURES,
	SMC_LO_C_LIMIT_REJECTS,
	SMC_LO_C_MOVES,
	SMC_LO_C_MOVE_BYTES,
	SMC_LO_C_MOVE_SIGNALS,
	SMC_LO_C_MOVE_ERRORS,
	SMC_LO_C_ATTACHES,
	SMC_LO_C_DETACHES,
	SMC_LO_C_ACTIVATIONS,
	SMC_LO_C_DEACTIVATIONS,
	SMC_LO_C_DRAIN_REJECTS,

	__SMC_LO_C_MAX,
	SMC_LO_C_MAX = __SMC_LO_C_MAX - 1
};

#endif /* _UAPI_SMC_LO_H */
