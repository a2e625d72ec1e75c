// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-enroll PID | --child: calls org.smcd.Agent1.Policy.EnrollProcess with a pidfd of PID,
 * or of a child of its own (a process of the caller's uid that is not the caller, which
 * the agent once refused because it compared pids).  Prints "ok: NOTE" or "ERROR: MESSAGE"
 * with the D-Bus error name, and exits 0 or 1 (2: set-up failed).
 * bus-enroll --refresh N: calls Manager.Refresh N times on one connection (as fast as the
 * agent answers) and prints "N_OK ok" and, after the first error, "ERROR: MESSAGE"; then
 * one EnrollProcess of a child on the same connection ("enroll: ERROR: MESSAGE" or
 * "enroll: ok"), and "elapsed_ms MS" from the first call to the last: a rate limit's window
 * can only be judged when that is shorter than it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "common/bus-api.h"

/* A child that waits to be killed: a process of the caller's own that is not the caller. */
static pid_t spawn_child(void)
{
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	return child;
}

int main(int argc, char **argv)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	const char *note;
	pid_t pid, child = 0;
	int fd, r, ret;

	if (argc == 3 && strcmp(argv[1], "--refresh") == 0) {
		int n = atoi(argv[2]), n_ok = 0, rr;
		struct timespec t0, t1;

		r = sd_bus_open_system(&bus);
		if (r < 0)
			return 2;
		r = sd_bus_get_unique_name(bus, &note); /* connected before the clock starts */
		if (r < 0)
			return 2;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < n; i++) {
			r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH,
					       SMCD_BUS_IFACE_MANAGER, SMCD_BUS_MANAGER_REFRESH,
					       &error, NULL, "");
			if (r < 0)
				break;
			n_ok++;
		}
		printf("%d ok\n", n_ok);
		if (r < 0)
			printf("%s: %s\n", error.name ? error.name : "?",
			       error.message ? error.message : strerror(-r));
		sd_bus_error_free(&error);
		child = spawn_child();
		if (child < 0)
			return 2;
		fd = (int)syscall(SYS_pidfd_open, child, 0);
		if (fd < 0)
			return 2;
		rr = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_POLICY,
					SMCD_BUS_POLICY_ENROLL_PROCESS, &error, NULL, "huu", fd, 0u,
					0u);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (rr < 0)
			printf("enroll: %s: %s\n", error.name ? error.name : "?",
			       error.message ? error.message : strerror(-rr));
		else
			printf("enroll: ok\n");
		printf("elapsed_ms %ld\n",
		       (long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		sd_bus_error_free(&error);
		sd_bus_unref(bus);
		return r < 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: bus-enroll PID | --child | --refresh N\n");
		return 2;
	}
	if (strcmp(argv[1], "--child") == 0) {
		child = spawn_child();
		if (child < 0)
			return 2;
		pid = child;
	} else
		pid = (pid_t)strtol(argv[1], NULL, 10);
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0) {
		fprintf(stderr, "bus-enroll: pidfd_open(%d): %s\n", (int)pid, strerror(errno));
		return 2;
	}
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "bus-enroll: sd_bus_open_system: %s\n", strerror(-r));
		return 2;
	}
	r = sd_bus_call_method(bus, SMCD_BUS_NAME, SMCD_BUS_PATH, SMCD_BUS_IFACE_POLICY,
			       SMCD_BUS_POLICY_ENROLL_PROCESS, &error, &reply, "huu", fd, 0u, 0u);
	if (r < 0) {
		printf("%s: %s\n", error.name ? error.name : "?",
		       error.message ? error.message : strerror(-r));
		ret = 1;
	} else {
		if (sd_bus_message_read(reply, "s", &note) < 0)
			note = "?";
		printf("ok: %s\n", note);
		ret = 0;
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	sd_bus_error_free(&error);
	sd_bus_message_unref(reply);
	sd_bus_unref(bus);
	return ret;
}
