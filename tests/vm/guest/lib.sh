# Guest test library (busybox sh). In a test:  . "$(dirname "$0")/lib.sh"
#
# Conventions: a test exits 0 = pass, 77 = skip, anything else = fail. Every assertion
# prints what was expected and what was seen, and exits 1 on failure. Lines starting with
# "# " are informational. Test scripts carry header comments read by vm-run:
#   # lanes: 7x 612      lanes the test runs in (required)
#   # timeout: 300       wall-clock seconds for this test's VM boot (optional): a hang guard,
#                        not a timing assert; TCG on a loaded 2-core host runs 3-4x slower
#                        than idle (smoke-7x: 40 s idle, over 120 s loaded), so give 5x the
#                        idle run

: "${SMCD_VM_LANE:=}"

# The D-Bus names of common/bus-api.h ($SMCD_BUS_NAME, $SMCD_BUS_PATH, ...): written next to
# this file by tests/vm/mkinitramfs (and tests/pkg/systemd-lane) with common/bus-api-sh; a
# test spells none (bus-names.test).
# shellcheck source=/dev/null
. "$(dirname "$0")/bus-api.sh"

# Debian's busybox-static runs its own applet for a bare command name even when PATH has
# another program of that name (FEATURE_SH_STANDALONE). The module tools must be kmod's
# (the guest's module indexes are written by the host's depmod, and the kernel's autoload
# runs /sbin/modprobe = kmod too), so route them explicitly. Other host programs that share
# an applet's name (ip, ...) must be called by their full path.
modprobe() { /usr/sbin/modprobe "$@"; }
insmod() { /usr/sbin/insmod "$@"; }
rmmod() { /usr/sbin/rmmod "$@"; }
lsmod() { /usr/sbin/lsmod "$@"; }
modinfo() { /usr/sbin/modinfo "$@"; }
depmod() { /usr/sbin/depmod "$@"; }

info() { echo "# $*"; }

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	[ "$1" = "$2" ] && return 0
	fail "${3:-values differ}: expected '$1', got '$2'"
}

# assert_ne UNEXPECTED ACTUAL [WHAT]
assert_ne() {
	[ "$1" != "$2" ] && return 0
	fail "${3:-values equal}: expected anything but '$1'"
}

# assert_contains HAYSTACK NEEDLE [WHAT]   (fixed string, may span lines)
assert_contains() {
	case $1 in
	*"$2"*) return 0 ;;
	esac
	printf 'FAIL: %s: expected to contain "%s", got:\n%s\n' "${3:-output}" "$2" "$1" >&2
	exit 1
}

# assert_not_contains HAYSTACK NEEDLE [WHAT]
assert_not_contains() {
	case $1 in
	*"$2"*)
		printf 'FAIL: %s: expected not to contain "%s", got:\n%s\n' "${3:-output}" "$2" "$1" >&2
		exit 1
		;;
	esac
	return 0
}

# assert_match HAYSTACK ERE [WHAT]   (grep -E on any line)
assert_match() {
	printf '%s\n' "$1" | grep -Eq -- "$2" && return 0
	printf 'FAIL: %s: expected a line matching /%s/, got:\n%s\n' "${3:-output}" "$2" "$1" >&2
	exit 1
}

# assert_exists PATH / assert_not_exists PATH
assert_exists() {
	[ -e "$1" ] && return 0
	fail "expected $1 to exist (${2:-})"
}
assert_not_exists() {
	[ ! -e "$1" ] && return 0
	fail "expected $1 not to exist (${2:-})"
}

# assert_json JSON JQ_FILTER EXPECTED [WHAT]: `jq -r FILTER` on JSON must print EXPECTED.
# Needs jq in the guest (vm-run --host-bin jq; the lane tests include it).
assert_json() {
	command -v jq >/dev/null || fail "assert_json needs jq in the guest (vm-run --host-bin jq)"
	_aj_got=$(printf '%s\n' "$1" | jq -r "$2" 2>&1) ||
		fail "${4:-json}: jq '$2' failed: $_aj_got; input: $1"
	[ "$_aj_got" = "$3" ] && return 0
	fail "${4:-json}: expected $2 == '$3', got '$_aj_got' in: $1"
}

# json_get JSON JQ_FILTER : print `jq -r FILTER`.
json_get() {
	command -v jq >/dev/null || fail "json_get needs jq in the guest (vm-run --host-bin jq)"
	printf '%s\n' "$1" | jq -r "$2"
}

# run CMD... : echo and run a command; its output is in $out, its status in $rc; never fails.
run() {
	echo "\$ $*"
	out=$("$@" 2>&1) && rc=0 || rc=$?
	[ -n "$out" ] && printf '%s\n' "$out"
	return 0
}

# assert_ok CMD... : run; fail (showing the output) unless it exits 0.
assert_ok() {
	run "$@"
	[ "$rc" -eq 0 ] || fail "'$*' exited with $rc, expected 0"
}

# assert_fails CMD... : run; fail unless it exits non-zero.
assert_fails() {
	run "$@"
	[ "$rc" -ne 0 ] || fail "'$*' succeeded, expected it to fail"
}

# require_cmd NAME... : fail (not skip: a missing binary is a broken test setup) unless
# every NAME is in PATH.
require_cmd() {
	for _rc_c; do
		command -v "$_rc_c" >/dev/null ||
			fail "$_rc_c is not in the guest (pass it to vm-run with --bin or --host-bin)"
	done
}

# module_loaded NAME : true if /proc/modules lists NAME.
module_loaded() {
	grep -q "^$1 " /proc/modules
}

# start_system_bus : a system bus of our own at the standard address (the guest has none),
# on which everyone may own names and talk to everyone.  Skips the test when vm-run did not
# copy dbus-daemon in (the lanes add it and busctl through VM_HOST_BINS).
start_system_bus() {
	command -v dbus-daemon >/dev/null 2>&1 ||
		skip "dbus-daemon is not in the guest (VM_HOST_BINS needs dbus-daemon busctl)"
	mkdir -p /run/dbus
	cat >/tmp/bus.conf <<'XEOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/> <allow own="*"/>
    <allow send_type="method_call"/> <allow send_type="signal"/>
    <allow send_type="method_return"/> <allow send_type="error"/>
    <allow receive_type="method_call"/> <allow receive_type="method_return"/>
    <allow receive_type="error"/> <allow receive_type="signal"/>
  </policy>
</busconfig>
XEOF
	dbus-daemon --config-file=/tmp/bus.conf --nofork --nopidfile >/tmp/bus.log 2>&1 &
	export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
	_sb_i=0
	while [ ! -S /run/dbus/system_bus_socket ]; do
		[ $_sb_i -lt 100 ] || { cat /tmp/bus.log; fail "dbus-daemon did not create its socket in 10 s"; }
		sleep 0.1
		_sb_i=$((_sb_i + 1))
	done
}

# wait_listen PORT [NETNS]: until a socket listens on TCP PORT (an SMC listener's TCP socket
# included), in this netns or in NETNS, from /proc/net/tcp{,6}: no guessed delay before
# connecting.
wait_listen() {
	_wl_hex=$(printf ':%04X ' "$1")
	_wl_i=0
	until ${2:+/usr/sbin/ip netns exec "$2"} cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$_wl_hex" 'index($2 " ", p) && $4 == "0A" { f = 1 } END { exit !f }'; do
		sleep 0.05
		_wl_i=$((_wl_i + 1))
		[ $_wl_i -le 1200 ] || fail "nothing listens on port $1${2:+ in $2}"
	done
}

# start_monitor FILE: smcctl -j monitor into FILE (its stderr in FILE.err) in the background,
# $mon its pid, returning once it is subscribed: no event made after this is missed.
start_monitor() {
	smcctl -j monitor >"$1" 2>"$1.err" &
	mon=$!
	_sm_i=0
	until grep -q "following smcd-agent" "$1.err"; do
		sleep 0.05
		_sm_i=$((_sm_i + 1))
		if [ $_sm_i -gt 600 ] || ! kill -0 $mon 2>/dev/null; then
			fail "smcctl monitor did not start: $(cat "$1.err")"
		fi
	done
}

# stop_monitor FILE: once the agent was stopped, until smcctl -j monitor (start_monitor
# FILE) printed agent-gone; the monitor does not end with the agent (it waits for the next
# one, as journalctl -f goes on), so it is ended with SIGTERM then, its status in $mon_rc.
stop_monitor() {
	_sm_file=$1
	wait_until 30 "smcctl monitor's agent-gone event" sh -c \
		"tail -n 1 '$_sm_file' | grep -q '\"event\":\"agent-gone\"'"
	kill -0 $mon 2>/dev/null || fail "smcctl monitor stopped when the agent went away"
	kill -TERM $mon
	wait $mon
	mon_rc=$?
}

# start_agent [FILE] : smcd-agent --config /etc/smc/smc.yaml in the background, its pid in
# $agent and its output in /tmp/agent.log.  Returns once it is ready on the system bus
# (start_system_bus) and FILE, when given, is not empty; fails showing the log if the agent
# exits first or is not ready within 120 s (a hang guard: TCG on a loaded host is slow).
# Ready: it answers a Ping.  It owns its name before its first reconcile and serves the bus
# only from its event loop, entered after that reconcile and READY=1, so what a test reads
# next of the kernel or the textfile is the started agent's doing.
start_agent() {
	command -v busctl >/dev/null 2>&1 ||
		skip "busctl is not in the guest (VM_HOST_BINS needs dbus-daemon busctl)"
	smcd-agent --config /etc/smc/smc.yaml >/tmp/agent.log 2>&1 &
	agent=$!
	_sa_i=0
	until busctl call "$SMCD_BUS_NAME" "$SMCD_BUS_PATH" org.freedesktop.DBus.Peer Ping >/dev/null 2>&1 &&
		{ [ -z "${1:-}" ] || [ -s "$1" ]; }; do
		sleep 0.2
		_sa_i=$((_sa_i + 1))
		if [ $_sa_i -gt 600 ] || ! kill -0 $agent 2>/dev/null; then
			cat /tmp/agent.log
			fail "the agent did not come up${1:+ and write $1}"
		fi
	done
}

# in_cgroup CGROUP CMD...: run CMD as a process of the cgroup2 directory CGROUP (a path below
# /sys/fs/cgroup, which must exist), from its first socket on.  In the foreground it
# returns CMD's status.  Started with &, $! is a shell that waits for CMD; for $! to be
# CMD itself, start it as `(exec_in_cgroup CGROUP CMD...) &`.
in_cgroup() {
	_ic=$1
	shift
	sh -c 'echo $$ >"/sys/fs/cgroup$0/cgroup.procs" && exec "$@"' "$_ic" "$@"
}
exec_in_cgroup() {
	_ic=$1
	shift
	exec sh -c 'echo $$ >"/sys/fs/cgroup$0/cgroup.procs" && exec "$@"' "$_ic" "$@"
}

# wait_until SECONDS WHAT CMD...: until CMD succeeds (tried every 0.1 s, its output hidden);
# fails saying that WHAT did not happen within SECONDS.  For a state the test brought about,
# instead of a guessed delay.
wait_until() {
	_wu_secs=$1 _wu_what=$2
	shift 2
	_wu_i=0
	until "$@" >/dev/null 2>&1; do
		_wu_i=$((_wu_i + 1))
		[ $_wu_i -le $((_wu_secs * 10)) ] || fail "$_wu_what: not within $_wu_secs s"
		sleep 0.1
	done
}

# wait_conns FILE N: until smc-conn printed N connection lines: it does once they are open
# and have moved their data, before its --hold, so they stay open for that long from now.
wait_conns() {
	_wc_i=0
	# conn_lines counts 0 while the file does not exist yet: the background job opens it
	# after the fork, and an empty count made "[ '' -lt N ]" an error that ended the wait
	# at once (seen on a loaded machine: cli-7x listed no socket).
	while [ "$(conn_lines "$1")" -lt "$2" ]; do
		_wc_i=$((_wc_i + 1))
		[ $_wc_i -le 1200 ] || fail "timeout waiting for $2 connections in $1: $(cat "$1")"
		sleep 0.05
	done
}

# bench_hold_conns N: for the benchmarks of bench/smcctl-vs-smctools/guest/, the UEID
# SMCD-BENCH and N SMC-D loopback connections held open (smc-conn pair --hold, its lines in
# /tmp/conn.log, its pid in $conn, killed at exit), waited for until all are up.
bench_hold_conns() {
	smcctl ueid add SMCD-BENCH >/dev/null || fail "smcctl ueid add"
	: >/tmp/conn.log
	smc-conn pair --conns "$1" --bytes 1K --hold 3000 >>/tmp/conn.log 2>&1 &
	conn=$!
	trap 'kill $conn 2>/dev/null' EXIT
	_bh_i=0
	while [ "$(grep -c '"mode":' /tmp/conn.log || true)" -lt "$1" ]; do
		sleep 0.5
		_bh_i=$((_bh_i + 1))
		[ $_bh_i -lt 600 ] || { tail -5 /tmp/conn.log; fail "$1 connections did not come up"; }
		kill -0 $conn 2>/dev/null || { tail -5 /tmp/conn.log; fail "smc-conn died"; }
	done
}

# smc_open_conns smcd|smcr: how many connections the SMC-D or SMC-R link groups hold (0
# without a link group).
smc_open_conns() { smcctl -j linkgroup list --"$1" | jq --arg k "$1" '[.[$k][].conns] | add // 0'; }

# wait_smc_closed smcd|smcr SECS: until the link groups of that kind hold no connection.  SMC
# frees (and zeroes) a closed connection's buffers after the close returned: a benchmark
# waits for that before its next measurement.
wait_smc_closed() {
	_wsc_i=0
	until [ "$(smc_open_conns "$1")" = 0 ]; do
		_wsc_i=$((_wsc_i + 1))
		[ $_wsc_i -le $(($2 * 10)) ] || fail "$1 connections still open $2 s after the run: $(smcctl linkgroup)"
		sleep 0.1
	done
}

# conn_lines FILE: how many connection lines smc-conn wrote to FILE (0 when it has none yet).
conn_lines() {
	_cl_n=$(grep -c '"conn":' "$1" 2>/dev/null) || true
	echo "${_cl_n:-0}"
}

# start_bus_monitor FILE MATCH: busctl monitor --match MATCH into FILE in the background, $bmon
# its pid, returning once it listens: busctl logs "Monitoring bus message stream." once the
# bus answered its BecomeMonitor (it prints no NameAcquired of its own).
start_bus_monitor() {
	busctl monitor --match "$2" >"$1" 2>&1 &
	bmon=$!
	_bm_i=0
	until grep -q "Monitoring bus message stream" "$1"; do
		sleep 0.05
		_bm_i=$((_bm_i + 1))
		if [ $_bm_i -gt 600 ] || ! kill -0 $bmon 2>/dev/null; then
			fail "busctl monitor did not start: $(cat "$1")"
		fi
	done
}

# agent_ticks INTERFACE PROPERTY N [SECONDS]: until the property of /org/smcd/Agent1 that the
# agent sets at every run of a periodic task changed N times.  The agent answers D-Bus from
# the loop that runs those tasks, so each change is a run that began after this was called:
# "N intervals" counted in the agent's own runs, which a loaded machine cannot shorten.  Two
# runs between two looks count as one (a longer wait, never a shorter one).
agent_ticks() {
	_at_last=$(busctl get-property "$SMCD_BUS_NAME" "$SMCD_BUS_PATH" "$SMCD_BUS_NAME.$1" "$2") ||
		fail "cannot read $1.$2"
	_at_n=0 _at_i=0
	while [ $_at_n -lt "$3" ]; do
		_at_i=$((_at_i + 1))
		[ $_at_i -le $((${4:-60} * 10)) ] ||
			fail "$1.$2 changed $_at_n times in ${4:-60} s, expected $3 (the agent's periodic runs)"
		sleep 0.1
		_at_v=$(busctl get-property "$SMCD_BUS_NAME" "$SMCD_BUS_PATH" "$SMCD_BUS_NAME.$1" "$2")
		[ "$_at_v" != "$_at_last" ] && { _at_n=$((_at_n + 1)); _at_last=$_at_v; }
	done
}

# wait_drift_checks N [SECONDS]: N drift checks (LastCheckUSec moves at each, every
# drift.interval) from now.
wait_drift_checks() {
	agent_ticks Manager LastCheckUSec "$1" "${2:-60}"
}

# wait_samples N [SECONDS]: N statistics samples (TimestampUSec moves at each, every
# stats.interval) from now; the Prometheus file is written by then.
wait_samples() {
	agent_ticks Statistics TimestampUSec "$1" "${2:-60}"
}

# wait_prom PROM SECONDS WHAT CMD...: until CMD FILE succeeds on a copy of the Prometheus file
# PROM (every 0.05 s; the copy stays in $prom_snap), counting in $samples the samples the
# agent wrote meanwhile (changes of its smc_stats_timestamp_seconds).  A late look may see
# two as one, never one as two: "within N samples" holds on a loaded machine too, where a
# bound in seconds does not.
wait_prom() {
	_wp_f=$1 _wp_secs=$2 _wp_what=$3
	shift 3
	prom_snap=/tmp/prom-snap.$$
	cp "$_wp_f" "$prom_snap" || fail "cannot read $_wp_f"
	_wp_last=$(awk '$1 == "smc_stats_timestamp_seconds" { print $2 }' "$prom_snap")
	samples=0 _wp_i=0
	until "$@" "$prom_snap" >/dev/null 2>&1; do
		_wp_i=$((_wp_i + 1))
		if [ $_wp_i -gt $((_wp_secs * 20)) ]; then
			cat "$prom_snap"
			fail "$_wp_what: not within $_wp_secs s ($samples samples)"
		fi
		sleep 0.05
		cp "$_wp_f" "$prom_snap" || fail "cannot read $_wp_f"
		_wp_v=$(awk '$1 == "smc_stats_timestamp_seconds" { print $2 }' "$prom_snap")
		[ "$_wp_v" != "$_wp_last" ] && { samples=$((samples + 1)); _wp_last=$_wp_v; }
	done
}

# agent_killed_while_talking RUNTIME NAME IMAGE ADDR [RUN-ARGS...]: (the systemd lanes'
# podman and docker scripts, issue 39) a client container NAME of RUNTIME (podman, docker),
# started with RUN-ARGS from IMAGE, holds an SMC-D connection to ADDR:5000 while smcd-agent
# is killed (systemctl kill -s KILL).  Until systemd has started it again, and twice after,
# one more connection from inside the container (RUNTIME exec joins its scope) is SMC-D, at
# least one while the agent is dead; then the held one ends with its bytes verified and the
# container is removed.  The policy is pinned BPF, so the agent's absence must not show.
# Waits on states (the agent's MainPID: 0 while it is dead), never on a fixed time.
agent_killed_while_talking() {
	_rt=$1 _name=$2 _image=$3 _addr=$4
	shift 4
	"$_rt" run -d --name "$_name" "$@" "$_image" /bin/smc-conn connect --proto tcp \
		--addr "$_addr" --port 5000 --conns 1 --bytes 65536 --hold 600 >"/tmp/$_name.id" 2>&1 ||
		fail "$_rt run $_name: $(cat "/tmp/$_name.id")"
	wait_until 60 "the held client connected" sh -c "$_rt logs $_name 2>&1 | grep -q '\"mode\"'"
	assert_contains "$($_rt logs "$_name" 2>&1)" '"smcd"' "the held connection is SMC-D"
	_pid0=$(systemctl show -P MainPID smcd-agent)
	assert_ok systemctl kill -s KILL smcd-agent
	_during=0 _n=0
	until [ "$(systemctl show -P MainPID smcd-agent)" != 0 ] &&
		[ "$(systemctl show -P MainPID smcd-agent)" != "$_pid0" ] &&
		systemctl is-active --quiet smcd-agent; do
		[ $_n -lt 100 ] || fail "smcd-agent did not come back after 100 connections"
		_p=$(systemctl show -P MainPID smcd-agent)
		[ "$_p" = 0 ] && _during=$((_during + 1))
		_held_talk "$_p"
	done
	info "$_during connection(s) while the agent was dead, $_n in all until it was back"
	assert_ne 0 "$_during" "connections made while the agent was dead"
	assert_ne "$_pid0" "$(systemctl show -P MainPID smcd-agent)" "systemd started the killed agent again"
	_held_talk "$(systemctl show -P MainPID smcd-agent)"
	_held_talk "$(systemctl show -P MainPID smcd-agent)"
	assert_ok "$_rt" kill -s USR1 "$_name"
	wait_until 60 "the held client ended" sh -c \
		"$_rt inspect -f '{{.State.Status}}' $_name | grep -qx exited"
	_sum=$($_rt logs "$_name" 2>&1 | grep '"summary"')
	assert_eq 1 "$(echo "$_sum" | jq .ok)" "the held connection outlived the agent, its bytes verified ($_sum)"
	assert_eq 0 "$($_rt inspect -f '{{.State.ExitCode}}' "$_name")" "... and it ended cleanly"
	assert_ok "$_rt" rm -f "$_name"
}
# _held_talk PID: one more client inside agent_killed_while_talking's container.
_held_talk() {
	_n=$((_n + 1))
	"$_rt" exec "$_name" /bin/smc-conn connect --proto tcp --addr "$_addr" --port 5000 --conns 1 \
		--bytes 65536 >"/tmp/held-$_n.out" 2>&1 || fail "$_rt exec #$_n: $(cat "/tmp/held-$_n.out")"
	_s=$(grep '"summary"' "/tmp/held-$_n.out")
	assert_eq 1 "$(echo "$_s" | jq .smcd)" "connection #$_n, agent PID $1: SMC-D ($_s)"
}

# nginx_conf PORT WORKERS: /tmp/nginx/nginx.conf, nginx as Debian configures it (sendfile,
# tcp_nopush, keep-alive) with WORKERS worker processes ("auto": one per CPU), serving
# its 615-byte welcome page (vm-run --host-file /usr/share/nginx/html/index.html) on
# 127.0.0.1:PORT; access log off, a listen backlog for wrk's connections.  Run it as
# nginx -p /tmp/nginx -e /tmp/nginx/error.log -c /tmp/nginx/nginx.conf.
nginx_conf() {
	[ -f /usr/share/nginx/html/index.html ] || fail "nginx's index.html is not in the guest (--host-file)"
	mkdir -p /tmp/nginx
	cat >/tmp/nginx/nginx.conf <<EOF
user root;
worker_processes $2;
worker_rlimit_nofile 65536;
daemon off;
pid /tmp/nginx/nginx.pid;
error_log /tmp/nginx/error.log;
events { worker_connections 8192; }
http {
	sendfile on;
	tcp_nopush on;
	default_type text/html;
	access_log off;
	client_body_temp_path /tmp/nginx/body;
	proxy_temp_path /tmp/nginx/proxy;
	fastcgi_temp_path /tmp/nginx/fastcgi;
	uwsgi_temp_path /tmp/nginx/uwsgi;
	scgi_temp_path /tmp/nginx/scgi;
	server {
		listen 127.0.0.1:$1 backlog=4096;
		root /usr/share/nginx/html;
	}
}
EOF
}
