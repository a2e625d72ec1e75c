#!/bin/sh
# lanes: 7x
# timeout: 600
#
# Statistics per network namespace on a real 7.3 kernel (issue 16): the kernel counts SMC
# per namespace, and the agent reads its own and the named ones of /run/netns.
#   - two named namespaces, SMC-D traffic in one: the textfile shows each under its netns
#     label, equal to what the kernel dumps in that namespace (smcctl -n NAME, which reads
#     the kernel directly); the busy one counts its connections and its open sockets, the
#     idle one 0, the agent's own (netns="host") only its own traffic;
#   - the UEID the agent sets is the kernel's one global table: SMC-D works in the named
#     namespaces with no UEID set there (net.smc sysctls, by contrast, are per namespace);
#   - ip netns del while the agent runs: its series go at the next sample, the file stays
#     whole (promtool when the guest has it), the agent closes its sockets there (no fd of
#     the deleted namespace left) and goes on;
#   - what one more namespace costs per sample (smc_stats_collection_duration_seconds with
#     stats.netns none and all), said, not asserted (TCG timing).
# Host programs: ip (iproute2: busybox's has no netns), jq, dbus-daemon busctl.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn jq dbus-daemon busctl
IP=/usr/sbin/ip # iproute2, full path: see lib-smcr.sh
PROM=/tmp/prom/smc.prom
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"

# prom_sum NETNS METRIC FILTER: the sum of METRIC's samples of NETNS whose labels contain FILTER
prom_sum() {
	awk -v m="$2{netns=\"$1\"," -v f="$3" 'index($1, m) == 1 && index($1, f) { s += $2 } END { print s + 0 }' "${4:-$PROM}"
}
# has_netns NETNS FILE: a sample of a per-namespace family labelled NETNS is in FILE
has_netns() { grep -q "^smc_handshakes_total{netns=\"$1\"," "$2"; }
no_netns() { ! grep -q "netns=\"$1\"" "$2"; }

newns() {
	$IP netns add "$1" || fail "ip netns add $1"
	$IP -n "$1" link set lo up || fail "lo up in $1"
}

start_system_bus
mkdir -p /tmp/prom /tmp/state /etc/smc
export STATE_DIRECTORY=/tmp/state
newns busy
newns idle
# write_config NETNS: smc.yaml with stats.netns NETNS
write_config() {
	cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
modules: [smc, smc_diag]
drift: {interval: 30s}
monitor: {interval: 1s}
stats:
  interval: 1s
  netns: $1
  prometheus: {path: $PROM}
EOF
}
write_config all
start_agent $PROM
wait_prom $PROM 30 "both named namespaces in the textfile" sh -c \
	"grep -qx 'smc_netns_up{netns=\"busy\"} 1' \"\$0\" && grep -qx 'smc_netns_up{netns=\"idle\"} 1' \"\$0\""
info "the agent reads busy and idle besides its own"

# --- the UEID is global: set by the agent in its namespace, there in the others --------------
assert_ok smcctl -j ueid
ueid=$(json_get "$out" '.ueids[0]')
[ -n "$ueid" ] && [ "$ueid" != null ] || fail "the agent set no UEID: $out"
assert_ok smcctl -n busy -j ueid
assert_json "$out" '.ueids[0]' "$ueid" "the UEID table is the kernel's one: busy sees the agent's UEID"
assert_ok smcctl -n busy -j sysctl
assert_json "$out" '.sysctls[] | select(.name == "wmem") | .value' 65536 \
	"net.smc sysctls are per namespace: busy has the default wmem, not smc.yaml's 1 MiB"

# --- traffic: 3 SMC-D connections held open in busy, 1 closed one in the agent's own ---------
(exec $IP netns exec busy smc-conn pair --proto smc --conns 3 --bytes 256K --hold 300) >/tmp/busy.out 2>&1 &
busy=$!
wait_conns /tmp/busy.out 3
assert_eq 3 "$(grep -c '"mode":"smcd"' /tmp/busy.out)" "busy's 3 connections use SMC-D (no UEID set in busy)"
assert_ok smc-conn pair --proto smc --conns 1 --bytes 64K
printf '%s\n' "$out" | grep -q '"summary":true.*"smcd":1' || fail "the agent's own connection did not use SMC-D: $out"

assert_ok smcctl -n busy -j stats
kb=$out
[ "$(json_get "$kb" .summary.smcd)" -ge 6 ] || fail "the kernel counted no SMC-D in busy: $(printf '%s' "$kb" | jq -c .summary)"
assert_ok smcctl -j stats --kernel
kh=$out
# A sample that has both namespaces' connections (the counters do not move any more:
# nothing else runs); an earlier one may have busy's and not yet the agent's own.
want=$(json_get "$kb" .summary.smcd)
want_host=$(json_get "$kh" .summary.smcd)
both_counted() {
	test "$(prom_sum busy smc_handshakes_total 'technology="smcd"' "$1")" = "$want" &&
		test "$(prom_sum host smc_handshakes_total 'technology="smcd"' "$1")" = "$want_host"
}
wait_prom $PROM 30 "busy's and the agent's own handshakes in the textfile" both_counted
cp "$prom_snap" /tmp/prom.busy
info "busy: $(prom_sum busy smc_handshakes_total technology=\"smcd\" /tmp/prom.busy) SMC-D handshakes in the file, $(json_get "$kb" .summary.smcd) in the kernel"
for d in rx tx; do
	assert_eq "$(json_get "$kb" ".smcd.$d.bytes")" \
		"$(prom_sum busy smc_bytes_total "technology=\"smcd\",direction=\"$d\"" /tmp/prom.busy)" \
		"busy's smcd $d bytes: the file vs the kernel of busy"
done
assert_eq "$(json_get "$kb" .summary.fallback)" "$(prom_sum busy smc_fallbacks_total '' /tmp/prom.busy)" \
	"busy's fallbacks: the file vs the kernel of busy"
socks=$(smcctl -n busy -j socket | jq '[.sockets[] | select(.mode == "SMCD" and .state == "ACTIVE")] | length')
[ "$socks" -ge 6 ] || fail "busy has $socks open SMC-D sockets, expected the 6 ends of 3 connections"
assert_eq "$socks" "$(prom_sum busy smc_sockets 'mode="smcd"' /tmp/prom.busy)" "busy's open SMC-D sockets: the file vs smc_diag in busy"
assert_eq 0 "$(prom_sum idle smc_handshakes_total '' /tmp/prom.busy)" "idle counts no handshake"
assert_eq 0 "$(prom_sum idle smc_bytes_total '' /tmp/prom.busy)" "... and no byte"
assert_eq 0 "$(prom_sum idle smc_sockets '' /tmp/prom.busy)" "... and has no socket"
has_netns idle /tmp/prom.busy || fail "idle's zeros are not in the file"
assert_eq "$(json_get "$kh" .summary.smcd)" "$(prom_sum host smc_handshakes_total technology=\"smcd\" /tmp/prom.busy)" \
	"the agent's own namespace counts its own connection only (its kernel's count)"
[ "$(json_get "$kh" .summary.smcd)" -lt "$(json_get "$kb" .summary.smcd)" ] ||
	fail "the agent's own namespace counted busy's connections"
assert_eq 0 "$(prom_sum host smc_sockets 'mode="smcd"' /tmp/prom.busy)" "no SMC-D socket open in the agent's own"
# D-Bus stays the agent's own namespace's.
assert_json "$(smcctl -j stats --absolute)" .summary.smcd "$(json_get "$kh" .summary.smcd)" \
	"GetStatistics is the agent's own namespace's, as before"
if command -v promtool >/dev/null 2>&1; then
	run sh -c "promtool check metrics </tmp/prom.busy"
	assert_eq 0 "$rc" "promtool check metrics with three namespaces"
fi
kill $busy 2>/dev/null
wait $busy 2>/dev/null

# --- ip netns del while the agent runs -------------------------------------------------------
# The agent's fds of idle's namespace, by identity (the link text of an fd opened through
# a bind mount is its path, not net:[INO]).
id=$(stat -L -c %d:%i /run/netns/idle) || fail "stat /run/netns/idle"
nfds() {
	_nf=0
	for _f in /proc/$agent/fd/*; do
		[ "$(stat -L -c %d:%i "$_f" 2>/dev/null)" = "$id" ] && _nf=$((_nf + 1))
	done
	echo $_nf
}
info "the agent holds $(nfds) fd(s) of idle's namespace ($id)"
[ "$(nfds)" -ge 1 ] || fail "the agent holds no fd of idle's namespace while it reads it"
$IP netns del idle || fail "ip netns del idle"
wait_prom $PROM 30 "idle leaves the textfile" no_netns idle
info "idle gone from the file $samples sample(s) after ip netns del"
[ "$samples" -le 2 ] || fail "idle left the file $samples samples after its deletion, expected at the next one"
tail -n 1 "$prom_snap" | grep -q '^smc_stats_timestamp_seconds ' || fail "the file written after the deletion is not whole"
grep -qx 'smc_netns_up{netns="busy"} 1' "$prom_snap" || fail "busy is no longer read"
grep -qx 'smc_netns_up{netns="host"} 1' "$prom_snap" || fail "the agent's own is no longer read"
kill -0 $agent 2>/dev/null || { cat /tmp/agent.log; fail "the agent died"; }
assert_eq 0 "$(nfds)" "the agent closed its handle of the deleted namespace (no fd of it left)"
if command -v promtool >/dev/null 2>&1; then
	run sh -c "promtool check metrics <$prom_snap"
	assert_eq 0 "$rc" "promtool check metrics after the deletion"
fi
assert_not_contains "$(cat /tmp/agent.log)" "Cannot read the SMC statistics of network namespace" \
	"a namespace deleted between two samples is no read error"

# --- what one more namespace costs (said, not asserted: TCG timing) --------------------------
# duration_avg N: the mean smc_stats_collection_duration_seconds of the next N samples
duration_avg() {
	_da_sum=0 _da_n=0
	while [ $_da_n -lt "$1" ]; do
		wait_samples 1
		_da_v=$(awk '$1 == "smc_stats_collection_duration_seconds" { print $2 * 1000000 }' $PROM)
		_da_sum=$(awk -v a="$_da_sum" -v b="${_da_v:-0}" 'BEGIN { print a + b }')
		_da_n=$((_da_n + 1))
	done
	awk -v s="$_da_sum" -v n="$1" 'BEGIN { printf "%d", s / n }'
}
for n in 1 2 3 4 5 6 7 8; do newns "cost$n"; done
# Once they are open (the first sample that lists them enters each, makes its sockets and
# resolves the SMC family there: said apart), the interval's cost.
wait_prom $PROM 30 "the 8 new namespaces are read" grep -qx 'smc_netns_up{netns="cost8"} 1'
first=$(awk '$1 == "smc_stats_collection_duration_seconds" { printf "%d", $2 * 1000000 }' "$prom_snap")
all8=$(duration_avg 5)
write_config none
assert_ok busctl call $M Reload
wait_prom $PROM 30 "stats.netns none: the agent's own only" no_netns busy
none=$(duration_avg 5)
info "sample duration (mean of 5, TCG): ${none} us with the agent's own namespace only, ${all8} us with 9 more (busy and cost1..8): $(( (all8 - none) / 9 )) us per namespace; ${first} us for the sample that opened 8 of them"
kill $agent
wait $agent 2>/dev/null
for n in 1 2 3 4 5 6 7 8; do $IP netns del "cost$n"; done
$IP netns del busy
