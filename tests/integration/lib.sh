# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the agent's host integration tests: TAP output, a private system bus
# (dbus-daemon, with or without the shipped policy) and an agent on it.
#
# Environment from the build (AM_TESTS_ENVIRONMENT): top_srcdir, top_builddir.

set -u
: "${top_srcdir:?run from make check}"
: "${top_builddir:?run from make check}"
# The D-Bus names of common/bus-api.h ($SMCD_BUS_NAME, $SMCD_BUS_PATH, ...), as make wrote
# them (common/bus-api-sh): a test spells none (bus-names.test).
# shellcheck source=/dev/null
. "$top_builddir/common/bus-api.sh"

tap_n=0
tap_failed=0

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# check DESCRIPTION COMMAND...: ok when the command succeeds; shows its output otherwise.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		not_ok "$desc"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}

# expect_match DESCRIPTION PATTERN TEXT: grep -E PATTERN in TEXT.
expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		ok "$1"
	else
		not_ok "$1"
		echo "# expected /$2/ in:"
		printf '%s\n' "$3" | sed 's/^/#   /'
	fi
}

# expect_absent DESCRIPTION PATTERN TEXT: grep -E PATTERN finds nothing in TEXT.
expect_absent() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		not_ok "$1"
		printf '%s\n' "$3" | grep -E -- "$2" | sed 's/^/# /'
	else
		ok "$1"
	fi
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

finish() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

for tool in dbus-daemon busctl; do
	command -v "$tool" >/dev/null 2>&1 || skip_all "$tool is not installed"
done
[ "$(id -u)" -eq 0 ] || skip_all "needs root (the agent checks callers against uid 0)"

T=$(mktemp -d /tmp/smcd-agent-test.XXXXXX)
chmod 755 "$T"
# The agent's statistics state goes here, not to the host's /var/lib/smcd-agent (the
# configs below also keep the Prometheus textfile out of the host's node_exporter).
export STATE_DIRECTORY="$T/state"
mkdir -m 0700 "$STATE_DIRECTORY"
BUS_PID=
AGENT_PID=
NOTIFY_PID=

cleanup() {
	[ -n "$AGENT_PID" ] && kill "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
	[ -n "$NOTIFY_PID" ] && kill "$NOTIFY_PID" 2>/dev/null
	[ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# How long a process started here may take to be ready (dbus-daemon's socket, the agent),
# by the clock: a hang guard, not a timing assert.  On an idle machine it takes well under a
# second; CI's loaded 2-core machine can stall a start for many.
START_SECONDS=120

# bail_out WHY: the test cannot go on (TAP's "Bail out!").
bail_out() {
	echo "Bail out! $*"
	exit 1
}

# wait_socket PATH PID: until PATH is a socket (0), PID exits or START_SECONDS pass (1).
wait_socket() {
	local deadline=$((SECONDS + START_SECONDS))
	until [ -S "$1" ]; do
		[ $SECONDS -le $deadline ] && kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
}

# start_bus strict|open: strict is Debian's system bus default policy plus ours; open lets
# anyone call anything, so that only the agent's own check stands between a caller and a change.
# BUS_EXTRA_POLICY: more of the configuration (another service's policy, say).
# BUS_USERS="FIRST LAST": the bus runs in a mount namespace of its own whose /etc/passwd also
# names the uids FIRST to LAST (dbus-daemon refuses a uid it cannot look up): many callers,
# each a real account to the bus, without adding accounts to the host.
start_bus() {
	local policy
	if [ "$1" = strict ]; then
		policy="<policy context=\"default\">
    <allow user=\"*\"/>
    <deny own=\"*\"/>
    <deny send_type=\"method_call\"/>
    <allow send_type=\"signal\"/>
    <allow send_requested_reply=\"true\" send_type=\"method_return\"/>
    <allow send_requested_reply=\"true\" send_type=\"error\"/>
    <allow receive_type=\"method_call\"/>
    <allow receive_type=\"method_return\"/>
    <allow receive_type=\"error\"/>
    <allow receive_type=\"signal\"/>
    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus\"/>
    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus.Introspectable\"/>
  </policy>
  <include>$top_srcdir/etc/dbus-1/org.smcd.Agent1.conf</include>"
	else
		policy="<policy context=\"default\">
    <allow user=\"*\"/>
    <allow own=\"*\"/>
    <allow send_type=\"method_call\"/>
    <allow send_type=\"signal\"/>
    <allow send_type=\"method_return\"/>
    <allow send_type=\"error\"/>
    <allow receive_type=\"method_call\"/>
    <allow receive_type=\"method_return\"/>
    <allow receive_type=\"error\"/>
    <allow receive_type=\"signal\"/>
  </policy>"
	fi
	cat >"$T/bus.conf" <<EOF2
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$T/bus</listen>
  <auth>EXTERNAL</auth>
  $policy
  ${BUS_EXTRA_POLICY:-}
</busconfig>
EOF2
	if [ -n "${BUS_USERS:-}" ]; then
		# shellcheck disable=SC2086
		for u in $(seq $BUS_USERS); do
			printf 'smcdtest%s:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' "$u" "$u" "$u"
		done | cat /etc/passwd - >"$T/passwd"
		unshare -m --propagation private sh -c 'mount --bind "$1" /etc/passwd && shift && exec "$@"' \
			sh "$T/passwd" dbus-daemon --config-file="$T/bus.conf" --nofork --nopidfile 2>"$T/bus.log" &
	else
		dbus-daemon --config-file="$T/bus.conf" --nofork --nopidfile 2>"$T/bus.log" &
	fi
	BUS_PID=$!
	# Until the socket exists: an agent started before then cannot connect and exits.  Up
	# to START_SECONDS by the clock (a loaded machine may take seconds to start a process),
	# then the test stops, saying why.
	wait_socket "$T/bus" "$BUS_PID" || bail_out "dbus-daemon did not create $T/bus: $(cat "$T/bus.log")"
	export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$T/bus"
}

# A datagram socket standing in for systemd's NOTIFY_SOCKET; messages land in $T/notify.log.
start_notify() {
	command -v python3 >/dev/null 2>&1 || return 0
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as f:
    while True:
        f.write(s.recv(4096).decode() + "\n--\n")
        f.flush()
' "$T/notify" "$T/notify.log" &
	NOTIFY_PID=$!
	# An agent started before the socket exists would get no NOTIFY_SOCKET (start_agent).
	wait_socket "$T/notify" "$NOTIFY_PID" || bail_out "the notify socket $T/notify did not appear"
}

# start_agent BINARY ARGS...: run it and wait until it is ready: it owns the bus name and
# answers a Ping.  The agent owns the name before its first reconcile and serves the bus only
# from its event loop, which it enters after that reconcile and READY=1 (manager_start()):
# the answer is that readiness, and what a test then reads (the fake kernel's files, the
# textfile) is the started agent's doing.  Up to START_SECONDS by the clock (a loaded
# machine made the old 200 tries of 0.05 s too short once); 1, showing the agent's log,
# when it exits first or is not ready by then.  Only the agent gets NOTIFY_SOCKET (busctl
# would report its own exit status there).
start_agent() {
	local deadline=$((SECONDS + START_SECONDS)) owned=
	if [ -S "$T/notify" ]; then
		NOTIFY_SOCKET="$T/notify" "$@" >"$T/agent.log" 2>&1 &
	else
		"$@" >"$T/agent.log" 2>&1 &
	fi
	AGENT_PID=$!
	while [ $SECONDS -le $deadline ]; do
		# NameHasOwner, not "busctl status": that one reads the owner's cgroup, which a
		# build chroot (pbuilder, sbuild) does not have mounted.
		if [ -z "$owned" ] && busctl call org.freedesktop.DBus /org/freedesktop/DBus \
			org.freedesktop.DBus NameHasOwner s "$SMCD_BUS_NAME" 2>/dev/null | grep -qx 'b true'; then
			owned=yes
		fi
		# Answered from the agent's event loop only (a Ping while it starts waits for it).
		[ -n "$owned" ] && busctl --timeout=$((START_SECONDS / 2)) call "$SMCD_BUS_NAME" \
			"$SMCD_BUS_PATH" org.freedesktop.DBus.Peer Ping >/dev/null 2>&1 && return 0
		kill -0 "$AGENT_PID" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$AGENT_PID" 2>/dev/null; then
		echo "# the agent is not ready after $START_SECONDS s (${owned:+it owns the name but }answers no Ping):"
	else
		echo "# the agent exited before it was ready:"
	fi
	sed 's/^/#   /' "$T/agent.log"
	return 1
}

# stop_agent: SIGTERM, then a clean exit is part of the test (with --enable-sanitizers a
# leak or a sanitizer report makes the status non-zero and shows in the log).
stop_agent() {
	local status
	kill "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID" 2>/dev/null
	status=$?
	AGENT_PID=
	if [ "$status" -eq 0 ] && ! grep -Eq 'Sanitizer|runtime error' "$T/agent.log"; then
		ok "the agent stops cleanly on SIGTERM"
	else
		not_ok "the agent stops cleanly on SIGTERM (status $status)"
		grep -E -A20 'Sanitizer|runtime error' "$T/agent.log" | head -40 | sed 's/^/# /'
	fi
}

# "${NO_HOST_TEXTFILE[@]}" COMMAND...: COMMAND (exec'd, so that $! of a background start
# stays its pid) in a private mount namespace where the default Prometheus textfile
# directory, when the host has one, is an empty tmpfs: an agent on the built-in defaults
# (no smc.yaml to set stats.prometheus.path) writes its textfile there, not into the
# host's node_exporter.
NO_HOST_TEXTFILE=(unshare -m --propagation private sh -c 'd=/var/lib/prometheus/node-exporter
	if [ -d "$d" ]; then mount -t tmpfs -o mode=0755 smcd-test "$d" || exit 125; fi
	exec "$@"' sh)

AGENT="$top_builddir/smcd-agent/smcd-agent"
AGENT_FAKE="$top_builddir/tests/integration/smcd-agent-fake"
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"

# prop NAME: a Manager property as busctl prints it.
prop() {
	# shellcheck disable=SC2086
	busctl get-property $M "$1"
}

# call METHOD [SIGNATURE ARGS...]
call() {
	local method=$1
	shift
	# shellcheck disable=SC2086
	busctl call $M "$method" "$@"
}

# as_nobody COMMAND...: the same, from an unprivileged user.  A COMMAND given as a path (a
# build-tree binary) runs from a copy in $T/nobody: the checkout may live where nobody cannot
# go (a clone in /root, mode 0700 on Debian), and then exec fails with 126 instead of giving
# the answer under test.  It runs in that directory too, for the same reason; pass absolute
# paths as arguments.
as_nobody() {
	local prog=$1
	shift
	case $prog in
	*/*)
		local copy
		copy="$T/nobody/$(basename "$prog")"
		mkdir -p -m 0755 "$T/nobody"
		cp "$prog" "$copy" && chmod 0755 "$copy" || return 125
		prog=$copy
		;;
	esac
	(cd "$T/nobody" 2>/dev/null || cd /
	 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env DBUS_SYSTEM_BUS_ADDRESS="$DBUS_SYSTEM_BUS_ADDRESS" "$prog" "$@")
}

# await SECONDS COMMAND...: until COMMAND succeeds (tried every 0.05 s, its output hidden);
# its status then.  Silent: the check that follows says what was expected.
await() {
	local secs=$1 i
	shift
	for i in $(seq $((secs * 20))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	"$@" >/dev/null 2>&1
}

# start_bus_monitor FILE MATCH...: busctl monitor --match MATCH... into FILE in the background,
# $MON its pid, returning once it listens: busctl logs "Monitoring bus message stream." once
# the bus answered its BecomeMonitor (it prints no NameAcquired of its own); 1 if it did not
# within 30 s.
start_bus_monitor() {
	local file=$1 m args=()
	shift
	for m; do args+=(--match "$m"); done
	busctl monitor "${args[@]}" >"$file" 2>&1 &
	MON=$!
	await 30 grep -q "Monitoring bus message stream" "$file"
}

# wait_checks N [SECONDS]: until the agent compared the kernel with the file N more times:
# LastCheckUSec changes at every check, and the agent answers D-Bus from the loop that runs
# them, so each change is a check that began after this was called.  "N drift intervals" in
# the agent's own runs, which a loaded machine cannot shorten; 1 (saying how many it saw)
# after SECONDS (60).
wait_checks() {
	local n=0 last cur i
	last=$(prop LastCheckUSec) || return 1
	for i in $(seq $((${2:-60} * 20))); do
		sleep 0.05
		cur=$(prop LastCheckUSec)
		[ "$cur" != "$last" ] && n=$((n + 1)) && last=$cur
		[ "$n" -ge "$1" ] && return 0
	done
	echo "LastCheckUSec changed $n times in ${2:-60} s, expected $1"
	return 1
}
