#!/bin/sh
# The guest half of bench/assess/run: a bulk TCP transfer over loopback, ROUNDS times
# without and with an assessment observing, alternately (so drift in the host's load hits
# all alike): plain, `smcctl assess` (mode assess), and the agent's continuous assessment
# (mode agent: the agent runs throughout, with nothing else to do - no polling, no drift
# checks, no statistics - and its assessment is switched on by a reload for the transfer and
# off again after it).  Then the same three ways for a churn: smc-load's new connection per
# 100-byte request, CHURN_S seconds (what assess costs per connection: its tracepoint, a
# record through the ring buffer and the agent's reading of it), and a fourth, the
# autopilot observing (auto: {mode: observe, window: 10s}: the assessment plus the
# classification of every window).  One "# @@BENCH {json}" line per run.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn smc-load smcd-agent dbus-daemon busctl jq
ROUNDS=${ROUNDS:-5}
BYTES=${BYTES:-32M}
CHURN_S=${CHURN_S:-12}
A="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_ASSESSMENT"
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
modprobe smc 2>/dev/null || true

xfer() { # xfer MODE ROUND: one transfer, its client's transfer time
	out=$(smc-conn pair --proto tcp --bytes "$BYTES") || fail "the transfer failed: $out"
	ms=$(printf '%s\n' "$out" | grep '"conn":0' | jq .transfer_ms)
	echo "# @@BENCH {\"mode\":\"$1\",\"round\":$2,\"bytes\":\"$BYTES\",\"transfer_ms\":$ms}"
}
churn() { # churn MODE ROUND: one churn run, its request rate
	out=$(smc-load client --port 7400 --shape churn --size 100 --reply 100 --seconds "$CHURN_S") ||
		fail "the churn failed: $out"
	rate=$(printf '%s\n' "$out" | grep '"summary"' | jq -r 'select(.errors == 0) | .req_per_s')
	[ -n "$rate" ] || fail "the churn had errors: $(printf '%s\n' "$out" | tail -n 1)"
	echo "# @@BENCH {\"mode\":\"churn-$1\",\"round\":$2,\"seconds\":$CHURN_S,\"req_per_s\":$rate}"
}
agent_config() { # agent_config [ASSESS-SECTION]
	cat >/etc/smc/smc.yaml <<EOF2
ueid: {auto: false}
drift: {interval: 0}
monitor: {interval: 0}
stats: {interval: 0}
$1
EOF2
}
ends() { # ends PID: until it exited (120 s), else say where it is stuck
	_e=0
	while kill -0 "$1" 2>/dev/null; do
		_e=$((_e + 1))
		if [ $_e -gt 1200 ]; then
			info "pid $1 did not end: $(cat /proc/$1/wchan 2>&1) $(grep State /proc/$1/status)"
			cat /proc/$1/stack 2>&1 | sed 's/^/# /'
			for t in /proc/$1/task/*; do info "task $t: $(cat $t/wchan 2>&1)"; done
			cat /tmp/assess.err
			fail "smcctl assess did not end after SIGINT"
		fi
		sleep 0.1
	done
}
assessing() { [ "$(busctl get-property $A Available)" = "b $1" ]; }
# assess_start / assess_stop: `smcctl -j assess` observing around a run, and what it saw.  A
# fresh file: the last round's line must not pass for this one's (a SIGINT before smcctl's
# handler would be ignored, as in every background job of a script).
assess_start() {
	rm -f /tmp/assess.json /tmp/assess.err
	smcctl -j assess --duration 3600 >/tmp/assess.json 2>/tmp/assess.err &
	ass=$!
	wait_until 120 "assess starts observing" grep -q "observing TCP connections" /tmp/assess.err
}
assess_stop() {
	kill -INT $ass
	ends $ass
	wait $ass || fail "assess failed: $(cat /tmp/assess.err)"
	jq -e '.method == "bpf" and .total.connections >= 1' /tmp/assess.json >/dev/null ||
		fail "assess did not see the run: $(cat /tmp/assess.json)"
}
# reconfigure SECTION WHAT ASSESSING: the agent reloaded with SECTION; its assessment
# running (true) or not (false) after it
reconfigure() {
	agent_config "$1"
	busctl call $M Reload >/dev/null || fail "reload ($2) failed"
	assessing "$3" || fail "$2: the agent's assessment is not as expected ($3): $(busctl get-property $A Error)"
}

start_system_bus
mkdir -p /etc/smc
agent_config ""
start_agent
(smc-load serve --port 7400) >/tmp/churn-srv.out 2>&1 &
srv=$!
wait_listen 7400
xfer warmup 0
r=1
while [ $r -le "$ROUNDS" ]; do
	info "round $r"
	xfer plain $r
	assess_start
	xfer assess $r
	assess_stop
	# a window longer than the run: the agent reads its ring buffer every second, as always
	info "round $r: agent"
	reconfigure "assess: {interval: 1h}" "assessment on" true
	xfer agent $r
	reconfigure "" "assessment off" false

	info "round $r: churn"
	churn plain $r
	assess_start
	churn assess $r
	assess_stop
	reconfigure "assess: {interval: 1h}" "assessment on" true
	churn agent $r
	reconfigure "auto: {mode: observe, window: 10s}" "autopilot observing" true
	churn auto $r
	reconfigure "" "assessment off" false
	r=$((r + 1))
done
kill $agent $srv
wait $agent 2>/dev/null
