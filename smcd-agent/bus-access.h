/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who may do what on the agent's bus (bus-access.c): the caller's credentials as the bus
 * recorded them, root and admin-group, the rate limit of the methods anyone may call, and
 * polkit.  The bus objects (bus-*.c) call it; it calls none of them.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

struct manager;

/*
 * May the caller make this change?  The action is the one bus_actions[]
 * (bus-access.c) names for the call's interface and member.  Root and CAP_NET_ADMIN are not asked
 * about; for anyone else polkit decides, or, where polkit is not installed, membership in
 * admin-group (root only for EnrollProcess, as before polkit).  0: go on; 1: the call waits for
 * polkit, return 1 from the handler (it runs again from the start when polkit answered,
 * so read and check the arguments before, change nothing before); < 0: refused (an
 * AccessDenied error saying why) or failed.
 */
int bus_authorize(sd_bus_message *msg, struct manager *m, sd_bus_error *error);
/* Whether polkit's answer for this call waits for its handler (its second run). */
bool bus_authorize_answered(struct manager *m, sd_bus_message *msg);
/* bus_actions[], one "INTERFACE MEMBER ACTION" line per row (tests/tools). */
void bus_actions_print(FILE *f);
/* Drop every pending question to polkit (manager_free()). */
void bus_auth_free_all(struct manager *m);
/* The bus filter that drops a question whose call's second run ended without it. */
int bus_polkit_register(struct manager *m);
/* Whether the bus's groups of the caller hold GROUP. */
bool bus_sender_in_group(sd_bus_message *msg, const char *group);

/* vtable flags of methods.  sd-bus lets anyone call every method, so that the agent's own
 * check decides: POLKIT, the method asks bus_authorize() (for its row of bus_actions[]:
 * agent-polkit-actions.test holds them together); ANYONE, it asks nobody. */
#define ANYONE SD_BUS_VTABLE_UNPRIVILEGED
#define POLKIT SD_BUS_VTABLE_UNPRIVILEGED
/*
 * Methods anyone may call that cost the agent work: at most smc.yaml's rate-limit calls per
 * caller uid in BUS_RATE_WINDOW_USEC (root is not limited); beyond, a RateLimited error and one
 * journal line per window.  0, or the error's negative errno; *ret_uid (when not NULL): the
 * caller's uid as the bus vouches for it, (uid_t)-1 when it does not say.
 */
#define BUS_RATE_WINDOW_USEC (10ULL * 1000000ULL)
int bus_rate_limit(sd_bus_message *msg, struct manager *m, uid_t *ret_uid, sd_bus_error *error);
/* The same for a caller whose uid the method has read already ((uid_t)-1: the bus did not
 * say): one GetConnectionCredentials per call, not two. */
int bus_rate_limit_uid(sd_bus_message *msg, struct manager *m, uid_t uid, sd_bus_error *error);
/* The caller's uid and groups as the bus recorded them at connect time. */
int bus_sender_credentials(sd_bus_message *msg, uid_t *ret_uid, uint32_t **ret_gids,
			   size_t *ret_n_gids);

/* Root, CAP_NET_ADMIN (uid 0 on a dbus-daemon: sd-bus reads no capabilities of a peer) or
 * a member of smc.yaml's admin-group. */
bool bus_sender_is_admin(sd_bus_message *msg, struct manager *m);
/* Root only. */
bool bus_sender_is_root(sd_bus_message *msg);
/* 0 for an admin, else AccessDenied saying who may (what: the refused action, for the
 * caller: "Changing SMC settings"), and a journal line. */
int bus_check_admin(sd_bus_message *msg, struct manager *m, const char *what, sd_bus_error *error);
/* Whether reply answers the current method call and its sender is an admin: a property
 * getter's test before it shows smc.yaml's own text (a signal goes to everyone: no). */
bool bus_reader_is_admin(sd_bus *bus, sd_bus_message *reply, struct manager *m);
