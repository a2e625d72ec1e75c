#!/bin/sh
# lanes: 7x
# timeout: 900
#
# The datapath outlives the agent (issue 12): a program enrolled by `smcctl run` through the
# agent and one in a `policies:` cgroup make a loopback connection every 0.2 s while the
# agent is killed (SIGKILL), stopped (SIGTERM), replaced by "another build" (its pinned
# layout renamed) and started again with a smaller smc.yaml.  Every connection while the
# agent is away and after it is back is SMC-D (the figures are printed); the exclusion holds
# throughout; a starting agent adopts what it finds without loading the programs twice,
# replaces another layout without a gap, prunes what smc.yaml no longer asks for; and only
# `smcctl policy flush` ends it all.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn bpf-progs dbus-daemon busctl jq
CG=/sys/fs/cgroup
PIN=/sys/fs/bpf/smcd-agent

start_system_bus
# Where systemd's StateDirectory= puts the statistics state (baseline, link-group history).
mkdir -p /tmp/state
export STATE_DIRECTORY=/tmp/state
# The connection loops end with the script, whichever way it ends (a failing check too:
# they hold the console, and the guest would wait for them until the lane's timeout).
stop_loops() {
	touch /tmp/stop-loops
	[ -z "${runpid:-}" ] || kill $runpid 2>/dev/null || true
	[ -z "${cgpid:-}" ] || kill $cgpid 2>/dev/null || true
}
trap stop_loops EXIT

last() { printf '%s\n' "$out" | grep '^{' | tail -n 1; }
write_config() {
	cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
modules: [smc, smc_diag]
drift: {action: repair, interval: 2s}
monitor: {interval: 0}
$1
EOF
}
# The phase a connection of the loops belongs to: written only once the agent is in the
# state the phase names, so that a line's phase is true of its whole connection.
phase() { echo "$1" >/tmp/phase; }
# wait_lines LOG PHASE N: until N connections of PHASE are logged.
wait_lines() {
	_wl_i=0
	until [ "$(grep -c "^$2 " "$1" 2>/dev/null || true)" -ge "$3" ] 2>/dev/null; do
		sleep 0.2
		_wl_i=$((_wl_i + 1))
		[ $_wl_i -le 900 ] || fail "$1: fewer than $3 connections in phase $2: $(cat "$1")"
	done
}
# figure LOG PHASE: "SMCD/TOTAL" of the phase.
figure() {
	echo "$(grep -c "^$2 1 " "$1")/$(grep -c "^$2 " "$1")"
}
# all_smcd LOG PHASE...: every connection of these phases was SMC-D (the failing ones shown).
all_smcd() {
	_as_log=$1
	shift
	for _as_p; do
		_as_bad=$(grep "^$_as_p " "$_as_log" | grep -v "^$_as_p 1 " || true)
		[ -z "$_as_bad" ] || fail "$_as_log: not every connection of phase $_as_p was SMC-D" \
			"($(figure "$_as_log" "$_as_p")); the others: $_as_bad"
		info "$_as_log: every connection of phase $_as_p SMC-D ($(figure "$_as_log" "$_as_p"))"
	done
}
progs() { bpf-progs | grep -c "prog $1\$" || true; }
# wait_progs NAME N: until N programs of that name are loaded (the kernel frees a program
# whose last holder went in deferred work, so a count can lag its cause).
wait_progs() {
	_wp_i=0
	until [ "$(progs "$1")" -eq "$2" ]; do
		sleep 0.2
		_wp_i=$((_wp_i + 1))
		[ $_wp_i -le 150 ] || fail "$(progs "$1") programs $1 loaded, expected $2: $(bpf-progs)"
	done
	info "$2 programs $1 loaded"
}
# start_agent returns once the agent owns its bus name, which it takes before its first
# reconcile; a call is answered only after that reconcile (one event loop).
started() { start_agent && pol=$(smcctl -j policy) && printf '%s\n' "$pol"; }
stop_agent() { # stop_agent SIGNAL
	kill -"$1" $agent
	wait $agent 2>/dev/null || true
}

mkdir -p /etc/smc $CG/smc-on $CG/smc-gone
write_config "policies:
  cgroups: [/smc-on, /smc-gone]
  exclude: [{port: 5555}]"
started
assert_json "$pol" .kernel.pinned true "the programs are pinned"
assert_json "$pol" .kernel.adopted false "nothing to adopt at the first start"
assert_eq 1 "$(ls -d $PIN/select-* | wc -l)" "one selection layout pinned"
assert_eq 1 "$(ls -d $PIN/excl-* | wc -l)" "one exclusion layout pinned"
assert_eq smcd_excl "$(cat /proc/sys/net/smc/hs_ctrl)"

# A child whose copy of the run mark failed at fork (an allocation or a lock the kernel gave
# up on; smcd_fork counts it): `bpf-progs unmark` leaves what such a failure leaves.  The
# child's sockets, and those of its own children, are SMC-D still, through its enrolled
# parent, and the failure is counted.
mkfifo /tmp/go
# (Each shell ends in `exit`, so that none execs its last command: the enrolled shell, its
# child and the child's smc-conn are three processes.)
smcctl run -q -- sh -c 'sh -c "echo \$\$ >/tmp/child; read x </tmp/go; smc-conn pair --proto tcp --conns 1 --bytes 16K; exit \$?"; exit $?' >/tmp/unmarked.out 2>&1 &
unmarked=$!
wait_until 60 "the child under smcctl run to start" test -s /tmp/child
assert_ok bpf-progs unmark "$(ls -d $PIN/select-*)" "$(cat /tmp/child)"
echo go >/tmp/go
wait $unmarked || fail "smcctl run of the unmarked child: exit $?: $(cat /tmp/unmarked.out)"
assert_json "$(grep '^{"summary"' /tmp/unmarked.out)" .smcd 1 \
	"a child whose copy of the mark failed: SMC-D through its enrolled parent"
assert_json "$(smcctl -j policy)" .kernel.inherit_failures 1 "the failed copy is counted"

cat >/tmp/loop.sh <<'EOF'
# One connection every 0.2 s until /tmp/stop-loops: "PHASE SMCD WHAT" per connection, WHAT
# being smc-conn's account of it (mode, whether the kernel made it an SMC socket, the
# fallback reason, the error), so that a failing figure says which connection and why.
while [ ! -e /tmp/stop-loops ]; do
	p=$(cat /tmp/phase)
	o=$(smc-conn pair --proto tcp --conns 1 --bytes 16K 2>&1)
	r=$(printf '%s\n' "$o" | grep '^{"summary"' | tail -n 1 | jq -r .smcd)
	w=$(printf '%s\n' "$o" | grep '^{"conn"' | tail -n 1 |
		jq -r '"\(.mode) smc_socket=\(.smc_socket) fallback=\(.fallback_name // .fallback_reason // "-") error=\(.error // "-") connect_ms=\(.connect_ms)"')
	echo "$p ${r:-error} ${w:-$(printf '%s' "$o" | tr '\n' ' ' | cut -c1-200)}" >>"$1"
	sleep 0.2
done
EOF
phase up
smcctl run -q -- sh /tmp/loop.sh /tmp/run.log &
runpid=$!
in_cgroup /smc-on sh /tmp/loop.sh /tmp/cg.log &
cgpid=$!
wait_lines /tmp/run.log up 3
wait_lines /tmp/cg.log up 3
assert_eq 0 "$(grep -c '^up [^1]' /tmp/run.log)" "enrolled: SMC-D with the agent up"
assert_eq 0 "$(grep -c '^up [^1]' /tmp/cg.log)" "cgroup policy: SMC-D with the agent up"

# What the agent holds besides the datapath: the statistics baseline, the link-group history
# and its D-Bus objects.
assert_ok smcctl stats reset
reset_usec=$(smcctl -j stats | jq -r .reset_usec)
seen_before=$(smcctl -j stats | jq -r .linkgroups.smcd.seen)
busctl --list tree $SMCD_BUS_NAME | sort >/tmp/paths.before
assert_contains "$(cat /tmp/paths.before)" $SMCD_BUS_PATH_LINKGROUP "link groups on D-Bus"

# --- a crash: everything stays in force --------------------------------------------------------
stop_agent KILL
phase down
wait_lines /tmp/run.log down 5
wait_lines /tmp/cg.log down 5
assert_eq smcd_excl "$(cat /proc/sys/net/smc/hs_ctrl)" "hs_ctrl still names the exclusions"
assert_ok in_cgroup /smc-on smc-conn pair --proto tcp --port 5555 --conns 1 --bytes 16K
assert_json "$(last)" .tcp 1 "the exclusion holds with no agent"
run_down=$(figure /tmp/run.log down)
cg_down=$(figure /tmp/cg.log down)

started
st=$(smcctl -j stats)
phase back
assert_json "$pol" .kernel.adopted true "the agent adopted the pinned programs"
assert_json "$st" .reset_usec "$reset_usec" "the statistics baseline survived the crash"
assert_json "$st" '.summary.smcd >= 10' true "since-reset counts go on from before the crash"
assert_json "$st" ".linkgroups.smcd.seen >= $seen_before" true "the link-group history survived"
busctl --list tree $SMCD_BUS_NAME | sort >/tmp/paths.after
# The paths of before that after lacks (awk: the guest's busybox has no comm(1), and a
# missing command must not read as "none lacking").
lacking=$(awk 'NR == FNR { after[$0] = 1; next } !($0 in after)' /tmp/paths.after /tmp/paths.before) ||
	fail "cannot compare the D-Bus paths"
assert_eq "" "$lacking" "every D-Bus object came back at its path"
assert_contains "$(cat /tmp/agent.log)" "took over the selection programs pinned in $PIN"
assert_contains "$(cat /tmp/agent.log)" "took over the exclusions"
assert_eq 1 "$(progs smcd_select)" "adopted, not loaded a second time"
assert_eq 1 "$(progs smcd_syn_option)" "one smc_hs_ctrl"
assert_eq active "$(printf '%s\n' "$pol" | jq -r '.policies[] | select(.target == "/smc-on") | .state')"
wait_lines /tmp/run.log back 5
wait_lines /tmp/cg.log back 5
run_back=$(figure /tmp/run.log back)
cg_back=$(figure /tmp/cg.log back)
info "restart figures (SIGKILL): smcctl run: $run_down SMC-D while the agent was away, $run_back after; cgroup policy: $cg_down and $cg_back"
all_smcd /tmp/run.log down back
all_smcd /tmp/cg.log down back

# --- a clean stop (systemctl stop) keeps the datapath too ---------------------------------------
stop_agent TERM
phase stopped
wait_lines /tmp/run.log stopped 3
wait_lines /tmp/cg.log stopped 3
assert_eq smcd_excl "$(cat /proc/sys/net/smc/hs_ctrl)" "a stop keeps the exclusions"
run_stopped=$(figure /tmp/run.log stopped)
cg_stopped=$(figure /tmp/cg.log stopped)

assert_ok in_cgroup /smc-gone smc-conn pair --proto tcp --conns 1 --bytes 16K
assert_json "$(last)" .smcd 1 "the second cgroup policy, with no agent"

# --- another build's layout: replaced without a gap, enrollments kept, pruned at once ---------------
old=$(ls -d $PIN/select-*)
mv "$old" $PIN/select-0123456789abcdef
write_config "policies:
  cgroups: [/smc-on]
  exclude: [{port: 5555}]"
started
phase replaced
assert_json "$pol" .kernel.adopted true "the exclusions were adopted"
assert_contains "$(cat /tmp/agent.log)" "replacing the selection programs another build left pinned"
assert_ok in_cgroup /smc-gone smc-conn pair --proto tcp --conns 1 --bytes 16K
assert_json "$(last)" .tcp 1 "the other layout's entry smc.yaml no longer has: pruned in the same reconcile"
assert_not_exists $PIN/select-0123456789abcdef
assert_exists "$old"
wait_progs smcd_select 1 # the other layout's programs are gone
wait_lines /tmp/run.log replaced 4
wait_lines /tmp/cg.log replaced 4
run_repl=$(figure /tmp/run.log replaced)
cg_repl=$(figure /tmp/cg.log replaced)
info "stop and replacement: smcctl run: $run_stopped stopped, $run_repl replaced; cgroup policy: $cg_stopped and $cg_repl"
all_smcd /tmp/run.log stopped replaced
all_smcd /tmp/cg.log stopped replaced

# --- started with less in smc.yaml: pruned, enrollments kept ----------------------------------------
stop_agent TERM
write_config ""
started
phase pruned
assert_json "$pol" .kernel.adopted true
assert_contains "$(cat /tmp/agent.log)" "smc.yaml no longer asks for it"
assert_eq "" "$(cat /proc/sys/net/smc/hs_ctrl)" "exclusions pruned: hs_ctrl cleared"
assert_eq 0 "$(ls -d $PIN/excl-* 2>/dev/null | wc -l)" "and unpinned"
wait_progs smcd_syn_option 0 # and unregistered
wait_lines /tmp/run.log pruned 3
wait_lines /tmp/cg.log pruned 3
assert_eq 0 "$(grep -c '^pruned [^1]' /tmp/run.log)" "the enrolled program stays on SMC-D"
assert_eq 0 "$(grep -c '^pruned [^0]' /tmp/cg.log)" "the pruned cgroup policy: TCP"

info "fork copies of the run mark that failed: $(smcctl -j policy | jq .kernel.inherit_failures) (one made by the test)"

# --- flush: refused while the agent runs, then everything ends ---------------------------------------
run smcctl policy flush
assert_eq 1 "$rc" "flush refused while the agent runs"
assert_contains "$out" "stop it first"
# Also when smcctl cannot see the agent on its bus: the agent's lock on the pin directory.
run env DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent smcctl policy flush
assert_eq 1 "$rc" "flush refused by the agent's lock"
assert_contains "$out" "a running smcd-agent holds the programs"
assert_exists $PIN
stop_agent TERM
assert_ok smcctl -j policy flush
assert_json "$out" .removed 1 "one layout removed"
assert_not_exists $PIN
phase flushed
wait_lines /tmp/run.log flushed 3
assert_eq 0 "$(grep -c '^flushed [^0]' /tmp/run.log)" "flushed: the enrolled program is on TCP"
wait_progs smcd_select 0 # no program of ours is left
assert_ok smcctl policy flush
assert_contains "$out" "Nothing was pinned"

stop_loops
wait $runpid $cgpid 2>/dev/null || true
exit 0
