#!/bin/sh
# lanes: 7x
# timeout: 600
#
# Statistics on a real SMC 7.3 kernel (issue 5): smcd-agent with a 1 s interval while
# smc-conn makes real SMC-D traffic and real TCP fallbacks.
#   - the Prometheus file and the D-Bus counters equal what the kernel dumps
#     (smcctl -j stats --kernel), fallback reasons included;
#   - a link group appears in the file, on D-Bus and in smcctl monitor within one interval
#     (plus the 1 s timer slack), and its connections go back to 0 when they close (the
#     kernel keeps an idle SMC-D link group for 600 s: its disappearance is
#     kmod-lgr-gone.sh, which removes the device under it, and stats-expiry.sh, which
#     waits the 600 s, by hand);
#   - a reader reading the file in a tight loop never sees a partial file;
#   - smcctl stats / stats reset through the agent, promtool when the guest has it.
# Host programs: dbus-daemon busctl jq (and promtool with tests/vm/stats-promtool.test).
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn prom-reader jq

S="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS"
PROM=/tmp/prom/smc.prom

start_system_bus
mkdir -p /tmp/prom /tmp/state
export STATE_DIRECTORY=/tmp/state

mkdir -p /etc/smc
cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
modules: [smc, smc_diag]
drift: {interval: 30s}
monitor: {interval: 1s}
stats:
  interval: 1s
  prometheus: {path: $PROM}
EOF
start_agent $PROM
info "agent up, $PROM written"

# seconds since boot with centiseconds, for timing against the interval
now() { cut -d' ' -f1 /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# prom METRIC LABELS: the value of one sample of the file
prom() { awk -v k="$1{$2}" '$1 == k { print $2 }' $PROM; }
# prom_sum METRIC FILTER: the sum over the agent's own namespace's samples whose labels
# contain FILTER
prom_sum() { awk -v m="$1{netns=\"host\"," -v f="$2" 'index($1, m) == 1 && (f == "" || index($1, f)) { s += $2 } END { print s + 0 }' $PROM; }
counter() { busctl --json=short get-property $S Counters | jq -r ".data[\"$1\"]"; }
sample_now() { busctl call $S GetStatistics b true >/dev/null; }

# Subscribed before the fallbacks below are made (a monitor still connecting under load
# missed them).
start_monitor /tmp/monitor.json

# --- real fallbacks: an SMC client against a TCP server -----------------------------------
smc-conn serve --port 7001 --proto tcp --conns 3 >/tmp/serve.log 2>&1 &
srv=$!
wait_listen 7001
assert_ok smc-conn connect --port 7001 --proto smc --conns 3 --bytes 64K
wait $srv

# --- real SMC-D: the link group appears within one interval --------------------------------
# The kernel's own handshake counter says when the first connection (and with it the link
# group) was made; "stats --kernel" reads it without asking the agent, which would sample
# on demand and make the test meaningless.
base=$(smcctl -j stats --kernel | jq .summary.smcd)
# Held until the file and D-Bus were read (SIGUSR1 below), not for a guessed 10 s.
smc-conn pair --conns 2 --bytes 4M --hold 3600 >/tmp/conn.log 2>&1 &
conn=$!
t0= i=0
while [ $i -lt 300 ]; do
	[ "$(smcctl -j stats --kernel | jq .summary.smcd)" -gt "$base" ] && { t0=$(now); break; }
	sleep 0.05
	i=$((i + 1))
done
[ -n "$t0" ] || { cat /tmp/conn.log; fail "the kernel counted no SMC-D connection"; }
info "kernel: the first SMC-D connection at ${t0}s"
# lg_with_conns FILE: the id of the first SMC-D link group with connections in FILE
lg_with_conns() {
	awk 'index($1, "smc_linkgroup_connections{technology=\"smcd\",linkgroup=\"") == 1 && $2 > 0 { split($1, a, "\""); print a[4]; f = 1; exit } END { exit !f }' "$1"
}
# Within one interval: at the latest in the second sample written after the kernel counted
# the connection (the first may have read the kernel before it).  Counted in samples, not
# seconds, which a busy machine stretches.
wait_prom $PROM 30 "an SMC-D link group with connections in $PROM" lg_with_conns
lgid=$(lg_with_conns "$prom_snap")
info "link group $lgid in the file after $(elapsed "$t0" "$(now)")s, $samples sample(s) after the kernel counted its connection (interval 1s)"
[ "$samples" -le 2 ] ||
	fail "link group $lgid appeared in the file $samples samples after the kernel counted its first connection, expected within one interval"
run busctl get-property $SMCD_BUS_NAME "$SMCD_BUS_PATH_LINKGROUP/smcd/$lgid" $SMCD_BUS_IFACE_LINKGROUP PeakConnections
assert_match "$out" '^u [1-9]' "PeakConnections on D-Bus"
run smcctl linkgroup --smcd
assert_match "$out" '^  LG-ID +VLAN +#Conns +CHID +Device +PNET-ID +Peak +Age$' "smcctl linkgroup adds the agent's columns"
assert_json "$(smcctl -j linkgroup show "$lgid")" "[.smcd[] | select(.id == \"$lgid\")][0].agent.peak_conns >= 1" true \
	"smcctl linkgroup show has the agent's statistics of the group"

# --- a tight-loop reader while the agent rewrites the file ---------------------------------
( i=0; while [ $i -lt 20 ]; do sample_now; sleep 0.2; i=$((i + 1)); done ) &
writer=$!
run prom-reader $PROM 5
wait $writer
assert_json "$out" .bad 0 "no partial file in a tight loop"
info "tight-loop reader: $out"

kill -USR1 $conn
wait $conn
info "$(tail -n 1 /tmp/conn.log)"
assert_json "$(tail -n 1 /tmp/conn.log)" .smcd 2 "both connections used SMC-D"

# --- after the close: 0 connections within an interval (the kernel keeps the group) --------
t0=$(now)
lg_idle() { grep -qx "smc_linkgroup_connections{technology=\"smcd\",linkgroup=\"$lgid\",device=\"lo\",pnetid=\"\",role=\"\"} 0" "$1"; }
wait_prom $PROM 30 "the link group's connections back to 0 in $PROM after the close" lg_idle
v=$(prom smc_linkgroup_connections "technology=\"smcd\",linkgroup=\"$lgid\",device=\"lo\",pnetid=\"\",role=\"\"")
assert_eq 0 "$v" "the link group's connections in the file after the close"
info "0 connections in the file $(elapsed "$t0" "$(now)")s, $samples sample(s) after the close"

# --- the file and D-Bus equal the kernel's dump (idle now) ---------------------------------
# Two periodic samples since the close (TimestampUSec), then one on demand.
wait_samples 2
sample_now
k=$(smcctl -j stats --kernel)
assert_json "$k" .source kernel "smcctl --kernel reads the kernel"
info "kernel: $(printf '%s' "$k" | jq -c '.summary')"
for pair in "smcd:summary.smcd" "fallback:summary.fallback" "handshake_errors:summary.handshake_errors"; do
	name=${pair%%:*}
	want=$(json_get "$k" ".${pair#*:}")
	case $name in
	smcd) got=$(prom_sum smc_handshakes_total 'technology="smcd"') ;;
	fallback) got=$(prom_sum smc_fallbacks_total '') ;;
	handshake_errors) got=$(prom_sum smc_handshake_errors_total '') ;;
	esac
	assert_eq "$want" "$got" "$name: the file vs the kernel"
done
[ "$(json_get "$k" .summary.smcd)" -ge 2 ] || fail "the kernel counted no SMC-D connections"
[ "$(json_get "$k" .fallback.client)" -ge 3 ] || fail "the kernel counted no client fallbacks"
for d in rx tx; do
	assert_eq "$(json_get "$k" ".smcd.$d.bytes")" "$(prom smc_bytes_total "netns=\"host\",technology=\"smcd\",direction=\"$d\"")" "smcd $d bytes: the file vs the kernel"
	assert_eq "$(json_get "$k" ".smcd.$d.bytes")" "$(counter "smcd.$d.bytes")" "smcd $d bytes: D-Bus vs the kernel"
done
assert_eq "$(json_get "$k" .fallback.client)" "$(counter fallback.client)" "client fallbacks: D-Bus vs the kernel"
# every reason the kernel itemises, by name, in the file
for row in $(printf '%s' "$k" | jq -r '.fallback.reasons[] | "\(.side)/\(.name // "")/\(.code)/\(.count)"'); do
	side=${row%%/*}; rest=${row#*/}; name=${rest%%/*}; rest=${rest#*/}; count=${rest#*/}
	[ -n "$name" ] || name=$(printf '0x%08x' "${rest%%/*}")
	assert_eq "$count" "$(prom smc_fallback_reasons_total "netns=\"host\",side=\"$side\",reason=\"$name\"")" "fallback reason $side $name: the file vs the kernel"
	info "fallback reason $side $name: $count in the kernel and in the file"
done
a=$(smcctl -j stats)
assert_json "$a" .source smcd-agent "smcctl stats is served by the agent"
assert_json "$a" .summary.smcd "$(json_get "$k" .summary.smcd)" "smcctl stats through the agent vs the kernel"
# Loopback: one link group per side (client and server), both seen, none gone yet.
assert_json "$a" '.linkgroups.smcd.seen == .linkgroups.smcd.current and .linkgroups.smcd.seen >= 1' true \
	"the agent counted the SMC-D link groups it saw"
assert_json "$a" .linkgroups.smcd.removed 0 "no link group gone yet (the kernel keeps them 600 s)"

# --- promtool, when the guest has it (tests/vm/stats-promtool.test) -------------------------
if command -v promtool >/dev/null 2>&1; then
	run sh -c "promtool check metrics <$PROM"
	assert_eq 0 "$rc" "promtool check metrics on the real file"
	info "promtool check metrics: passed on $(grep -c '^smc_' $PROM) samples"
	echo "@@PROM-FILE BEGIN"
	cat $PROM
	echo "@@PROM-FILE END"
else
	info "promtool is not in this guest (tests/vm/stats-promtool.test runs it)"
fi

# --- reset through the agent ----------------------------------------------------------------
run smcctl -j stats reset
assert_eq 0 "$rc" "smcctl stats reset"
assert_json "$out" .summary.smcd "$(json_get "$k" .summary.smcd)" "the reset prints the period it closes"
assert_json "$(smcctl -j stats)" .summary.smcd 0 "since the reset: 0"
assert_eq "$(json_get "$k" .summary.smcd)" "$(prom_sum smc_handshakes_total 'technology="smcd"')" "Prometheus counters are not reset"

# --- the monitor saw it all, and says when the agent goes -----------------------------------
kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
stop_monitor /tmp/monitor.json
assert_eq 0 "$mon_rc" "smcctl monitor says agent-gone, follows on, exits 0 on SIGTERM"
info "monitor: $(jq -r .event /tmp/monitor.json | sort | uniq -c | tr '\n' ' ')"
grep -q "\"event\":\"linkgroup-added\",\"technology\":\"smcd\",\"id\":\"$lgid\"," /tmp/monitor.json ||
	fail "smcctl monitor did not report link group $lgid: $(cat /tmp/monitor.json)"
grep -q '"event":"fallback","side":"client"' /tmp/monitor.json ||
	fail "smcctl monitor did not report the fallbacks: $(cat /tmp/monitor.json)"
assert_eq agent-gone "$(tail -n 1 /tmp/monitor.json | jq -r .event)" "the last event"
exit 0
