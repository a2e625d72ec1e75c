/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smclo: libsmcnl's client of the SMC_LO generic netlink family, the control interface of
 * our loopback DIBS module (kmod/, smc-lo(4); the contract is netlink/uapi/smc_lo.h).
 *
 * Same conventions as smcnl.h: >= 0 success, negative errno on failure (the kernel's own
 * where it answered, its extended ack in smcnl_extack() until the next request), and:
 *   -EPROTONOSUPPORT  the SMC_LO family is not registered and could not be autoloaded:
 *                     the smc_lo module is not installed (or not loadable) here
 *   -EBADMSG          a reply that breaks the contract (a missing "always present"
 *                     attribute, a value out of its documented range, a wrong length)
 *   -EINVAL           an argument the kernel's policy would refuse (checked here first)
 *   -ENODATA          replay only: no recorded reply
 * The family is host-global (netnsok = false): in another network namespace it does not
 * exist, which also reads as -EPROTONOSUPPORT.
 *
 * Record/replay keys: smclo-get, smclo-activate, smclo-deactivate, smclo-set and
 * genl-ctrl-SMC_LO; notifications of the "state" group read through a struct smclo_monitor
 * are recorded as smclo-notify.bin (every message received, in order) and replayed one per
 * smclo_monitor_read().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netlink/smcnl.h"

#define SMCLO_GID_LEN 16
#define SMCLO_MAX_DMBS_MIN 1
#define SMCLO_MAX_DMBS_MAX 32768
#define SMCLO_DRAIN_TIMEOUT_MAX_MS 600000u
#define SMCLO_DRAIN_TIMEOUT_DEFAULT_MS 10000u

enum smclo_state {
	SMCLO_STATE_INACTIVE,
	SMCLO_STATE_ACTIVE,
	SMCLO_STATE_DRAINING,
};

enum smclo_dmb_type {
	SMCLO_DMB_PHYSICAL,
	SMCLO_DMB_VIRTUAL, /* refused by the module: unsafe with SMC-D (smc-lo(4)) */
};

enum smclo_event {
	SMCLO_EVENT_ACTIVATED,
	SMCLO_EVENT_DRAINING,
	SMCLO_EVENT_REMOVING,
	SMCLO_EVENT_DEACTIVATED,
	SMCLO_EVENT_SETTINGS,
};

struct smclo_settings {
	uint8_t dmb_type; /* enum smclo_dmb_type */
	bool nocopy;
	uint32_t max_dmbs;
};

/*
 * The module's counters, one row each: the one list that struct smclo_counters, the parser
 * (attribute SMC_LO_C_<ATTR>), the agent's LoopbackDevice properties, smcctl's JSON (key: the
 * field, in this order) and its text follow.  A new counter is its row here, its attribute
 * in netlink/uapi/smc_lo.h and its paragraph in COUNTERS of smc-lo(4), the one page that
 * lists them (smcctl(8) and smcd-agent(8) refer to it).
 *   X(field, bits, ATTR, Bus, kind, line, label)
 *   bits   32 or 64: the field's width (D-Bus "u" or "t")
 *   ATTR   the field in upper case
 *   Bus    the D-Bus property, SMCD_BUS_LOOPBACK_DEVICE_COUNTER(Bus) of common/bus-api.h:
 *          the field in CamelCase (dmb_bytes: DmbBytes), as smcd-agent(8) says
 *          (agent-man-lint.test holds every row to both spellings)
 *   kind   GAUGE: describes the registered device (0 when inactive); the module always
 *          sends it, a reply without it is -EBADMSG.  TOTAL: since the module was loaded;
 *          0 from a module that does not send it
 *   line   smcctl's text: the counter's line (1, 2, ...), 0 for none of its own (dmbs and
 *          dmb_bytes share the first line, "DMBs")
 *   label  smcctl's text: the line's label
 */
#define SMCLO_COUNTERS(X)                                                                     \
	X(dmbs, 32, DMBS, Dmbs, GAUGE, 0, NULL)                                               \
	X(dmb_bytes, 64, DMB_BYTES, DmbBytes, GAUGE, 0, NULL)                                 \
	X(attached, 32, ATTACHED, Attached, GAUGE, 1, "Attached (nocopy)")                    \
	/* references held by others: one per SMC-D link group */                             \
	X(link_groups, 32, LINK_GROUPS, LinkGroups, GAUGE, 2, "Link groups")                  \
	X(registrations, 64, REGISTRATIONS, Registrations, TOTAL, 3, "Registrations")         \
	X(unregistrations, 64, UNREGISTRATIONS, Unregistrations, TOTAL, 4, "Unregistrations") \
	X(alloc_failures, 64, ALLOC_FAILURES, AllocFailures, TOTAL, 5, "Allocation failures") \
	X(limit_rejects, 64, LIMIT_REJECTS, LimitRejects, TOTAL, 6, "Refused at max DMBs")    \
	X(moves, 64, MOVES, Moves, TOTAL, 8, "move_data calls")                               \
	X(move_bytes, 64, MOVE_BYTES, MoveBytes, TOTAL, 9, "move_data bytes")                 \
	X(move_signals, 64, MOVE_SIGNALS, MoveSignals, TOTAL, 10, "Signals")                  \
	X(move_errors, 64, MOVE_ERRORS, MoveErrors, TOTAL, 11, "move_data errors")            \
	X(attaches, 64, ATTACHES, Attaches, TOTAL, 12, "Attaches")                            \
	X(detaches, 64, DETACHES, Detaches, TOTAL, 13, "Detaches")                            \
	X(activations, 64, ACTIVATIONS, Activations, TOTAL, 14, "Activations")                \
	X(deactivations, 64, DEACTIVATIONS, Deactivations, TOTAL, 15, "Deactivations")        \
	X(drain_rejects, 64, DRAIN_REJECTS, DrainRejects, TOTAL, 7, "Refused while draining")

enum smclo_counter_kind {
	SMCLO_COUNTER_GAUGE,
	SMCLO_COUNTER_TOTAL,
};

struct smclo_counters {
#define SMCLO_COUNTER_FIELD(f, bits, attr, bus, kind, line, label) uint##bits##_t f;
	SMCLO_COUNTERS(SMCLO_COUNTER_FIELD)
#undef SMCLO_COUNTER_FIELD
};

/* How many lines of smcctl's text the counters make (the line numbers 1, 2, ... once each:
 * cli/loopback.c checks). */
#define SMCLO_COUNTER_LINE(f, bits, attr, bus, kind, line, label) +((line) > 0)
#define SMCLO_COUNTER_LINE_BIT(f, bits, attr, bus, kind, line, label) | (1ull << (line))
enum {
	SMCLO_N_COUNTER_LINES = 0 SMCLO_COUNTERS(SMCLO_COUNTER_LINE),
};

/* A GET reply (also the body of every other reply and of notifications). */
struct smclo_device {
	char name[SMC_DIBS_NAME_LEN];
	uint8_t state;			/* enum smclo_state */
	bool pending;			/* stored settings differ from the active ones */
	struct smclo_settings settings; /* stored: used by the next activation */
	struct smclo_counters counters;
	/* While a device is registered (state active or draining): */
	bool registered;
	uint8_t gid[SMCLO_GID_LEN];
	char gid_hex[2 * SMCLO_GID_LEN + 1];  /* equals smcd_gid_format() of its link groups */
	char gid_uuid[SMC_UUID_TEXT_LEN + 1]; /* as /sys/class/dibs/NAME/gid prints it */
	uint16_t fabric_id;
	uint32_t generation;
	struct smclo_settings active;
	/* While draining: */
	uint32_t drain_timeout_ms;
	bool has_drain_remaining; /* absent once the removal started */
	uint32_t drain_remaining_ms;
	bool removing;
	/* SET replies only: */
	bool has_apply;
	bool apply_next_activation; /* SMC_LO_APPLY_NEXT_ACTIVATION */
	/* Notifications only: */
	bool has_event;
	uint8_t event; /* enum smclo_event */
};

const char *smclo_state_name(uint8_t state);   /* "inactive", "active", "draining" */
const char *smclo_dmb_type_name(uint8_t type); /* "physical", "virtual" */
const char *smclo_event_name(uint8_t event);   /* "activated", ... "settings" */
/* The inverse of smclo_dmb_type_name(): the enum smclo_dmb_type, or -EINVAL.  The one
 * reader of the word, for smc.yaml, smcctl and the agent's Set method alike. */
int smclo_dmb_type_from_name(const char *s);

/*
 * Is the smc_lo module loaded (/sys/module/smc_lo under the sysroot)?  Read-only views ask
 * the family only then: resolving an unknown generic netlink family makes the kernel load
 * its module, and listing devices should not load one.
 */
bool smclo_module_loaded(struct smcnl *nl);

/* The device's state, settings and counters (GET; autoloads the module). */
int smclo_get(struct smcnl *nl, struct smclo_device *ret);
/* Register a device with the stored settings (no-op if active; -EBUSY while removing). */
int smclo_activate(struct smcnl *nl, struct smclo_device *ret);
/*
 * Start draining with a bound in milliseconds (SMC_LO_A_DRAIN_TIMEOUT_MS; UINT32_MAX: the
 * module's default).  Replies at once; the removal is announced on the "state" group.
 * Callers should follow the deactivation protocol: smclo_shutdown() does.
 */
int smclo_deactivate(struct smcnl *nl, uint32_t timeout_ms, struct smclo_device *ret);

/* Settings to change; the others are left as stored. */
struct smclo_set_request {
	bool set_dmb_type;
	uint8_t dmb_type;
	bool set_nocopy;
	bool nocopy;
	bool set_max_dmbs;
	uint32_t max_dmbs;
};

/*
 * Store settings for the next activation; ret->apply_next_activation says whether the
 * registered device runs with other ones.  dmb_type virtual is sent as it is: the module's
 * refusal (-EOPNOTSUPP) and its extended ack are the authoritative answer and say why.
 */
int smclo_set(struct smcnl *nl, const struct smclo_set_request *req, struct smclo_device *ret);

/* ---- notifications ---------------------------------------------------------------------- */

struct smclo_monitor;

/*
 * Join the "state" multicast group on a socket of its own (the handle's request socket
 * stays free for GETs).  Open it BEFORE the request whose consequences it should see.
 */
int smclo_monitor_open(struct smcnl *nl, struct smclo_monitor **ret);
void smclo_monitor_close(struct smclo_monitor *m);
/* For poll(): readable when a notification waits; -1 when replaying (never blocks). */
int smclo_monitor_fd(const struct smclo_monitor *m);
/*
 * The family has another id than when m was opened (smc_lo was unloaded and loaded again,
 * seen by a request of the same handle): m hears nothing any more, open a new one.
 */
bool smclo_monitor_stale(const struct smclo_monitor *m);
/*
 * The next notification: 1 and *ret (has_event set), 0 when none is pending (never
 * blocks), or a negative errno (-ENOBUFS: the socket overflowed and notifications were
 * lost: GET the state; -ESTALE: smc_lo's family was unregistered or registered again, the
 * monitor hears nothing more: close it, GET the state and open a new one).
 */
int smclo_monitor_read(struct smclo_monitor *m, struct smclo_device *ret);

/* ---- the deactivation protocol ------------------------------------------------------------ */

/*
 * PNET ID that smclo_shutdown() puts on the device while it drains (and smclo_activate_clean()
 * removes if a previous shutdown left it), and the one the agent gives the built-in "lo" to
 * hand SMC-D loopback to our device.  Upper case: the kernel stores PNET IDs so.
 */
#define SMCLO_DRAIN_PNETID "SMCLODRAIN"
/*
 * The longest drain the agent does (loopback.drain-timeout, Deactivate(seconds)) and smcctl
 * offers (--wait): the agent waits in its event loop, well below WatchdogSec=1min, and
 * smcctl's answer must not depend on whether an agent runs.  Then at most
 * SMCLO_REMOVAL_MS for the removal.
 */
#define SMCLO_WAIT_MAX_S 30
#define SMCLO_REMOVAL_MS 10000
#define SMCLO_LO_PNETID "SMCDVIASMCLO"

struct smclo_shutdown_result {
	bool was_active;	  /* something was registered when we started */
	bool pnet_added;	  /* SMCLO_DRAIN_PNETID went on the device (else it had one) */
	bool removed;		  /* the device is gone (state inactive) */
	bool pnet_removed;	  /* SMCLO_DRAIN_PNETID was deleted afterwards */
	unsigned waited_ms;	  /* from DEACTIVATE to "deactivated" */
	struct smclo_device last; /* the last state seen (what holds it if not removed) */
};

/*
 * The deactivation protocol of kmod/README.md (SMC 7.3 holds no reference on its
 * per-device struct; see smc-lo(4) BUGS): give the device a PNET ID so that no client
 * selects it any more, DEACTIVATE with a drain bound of drain_ms (> 0), wait for the
 * device to be gone (the "deactivated" notification, with a GET every second as a safety
 * net) for at most drain_ms plus removal_ms, then delete that PNET ID.
 *
 * Returns 0 when the device is inactive at the end (also when it already was; a
 * SMCLO_DRAIN_PNETID entry left by an earlier attempt is removed then), -ETIMEDOUT when
 * it is still being removed at the deadline (res->last says what holds it; the PNET ID
 * stays, so nobody selects a device SMC is about to free: call again later), or the
 * failing request's errno.
 */
int smclo_shutdown(struct smcnl *nl, uint32_t drain_ms, uint32_t removal_ms,
		   struct smclo_shutdown_result *res);
/*
 * ACTIVATE, after deleting a SMCLO_DRAIN_PNETID entry left on the (inactive) device by an
 * interrupted smclo_shutdown(): the pnet table would give the new device that PNET ID and
 * SMC would never propose it for SMC-Dv2.  *ret_changed (may be NULL): a new device was
 * registered (false when one was active already).
 */
int smclo_activate_clean(struct smcnl *nl, struct smclo_device *ret, bool *ret_changed);
