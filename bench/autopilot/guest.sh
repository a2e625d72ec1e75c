#!/bin/sh
# The guest half of bench/autopilot/run (bench/autopilot/README.md): four workloads at once,
# each server and client in cgroups of their own, all smc-load in a closed loop (no --rate:
# their figures depend on the carrier), measured under four configurations:
#   A  all TCP (no policies)
#   B  all SMC (policies: {cgroups: [/]}, the shipped net.smc.wmem/rmem set by sysctl:)
#   C  the fragment of `smcctl -j assess --duration INTERVAL`, run while the four are on TCP,
#      appended to the configuration by hand
#   D  the autopilot (auto: {mode: on, window: 10s}) from a cold start, once it converged
# then a phase change under D (bulk turns to churn) and the time until bulk's state is tcp.
# One "# @@BENCH {json}" line per measured workload, convergence, flap count and phase change.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-load dbus-daemon busctl jq
INTERVAL=${INTERVAL:-20}
WARMUP=${WARMUP:-5}
ROUNDS=${ROUNDS:-3}
WINDOW=10
CG=/sys/fs/cgroup
AP="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_AUTOPILOT"
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
NAMES="rr bulk web churn"
export STATE_DIRECTORY=/var/lib/smcd-agent

port() { case $1 in rr) echo 7311 ;; bulk) echo 7312 ;; web) echo 7313 ;; churn) echo 7314 ;; esac; }
# smc-load's client arguments per workload (redis-like, a bulk stream, nginx+wrk-like
# keep-alive, a new connection per request); long-lived ones reconnect every 5 s so that a
# policy switched meanwhile reaches them (SMC is chosen when a socket is made)
shape() {
	case $1 in
	rr) echo "--shape rr --conns 4 --size 100 --reply 100 --reconnect 5" ;;
	bulk) echo "--shape bulk --conns 1 --reconnect 5" ;;
	web) echo "--shape rr --conns 4 --size 200 --reply 16384 --reconnect 5" ;;
	churn) echo "--shape churn --size 100 --reply 100" ;;
	esac
}
gtime() { awk '{ print $1 }' /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
bench() { echo "# @@BENCH $*"; }

cleanup() {
	touch /tmp/ab-stop
	for p in ${srv_pids:-} ${cli_pids:-}; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

config() { # config MORE...: the agent's configuration with these sections
	{
		printf 'ueid: {auto: true}\nmodules: [smc, smc_diag]\ndrift: {interval: 0}\n'
		printf 'monitor: {interval: 0}\n'
		for s in "$@"; do printf '%s\n' "$s"; done
	} >/etc/smc/smc.yaml
}
reload() { busctl call $M Reload >/dev/null || fail "reload failed: $(tail -5 /tmp/agent.log)"; }

servers() { # (re)start the four servers: their listening sockets are made now
	for p in ${srv_pids:-}; do kill "$p" 2>/dev/null || true; done
	for p in ${srv_pids:-}; do wait "$p" 2>/dev/null || true; done
	srv_pids=
	for n in $NAMES; do
		(exec_in_cgroup /ab-$n-srv smc-load serve --port "$(port $n)") >/tmp/ab-$n-srv.out 2>&1 &
		srv_pids="$srv_pids $!"
	done
	for n in $NAMES; do wait_listen "$(port $n)"; done
}
clients() { # clients ARGS...: the four clients, with ARGS (--seconds S or --until FILE)
	cli_pids=
	for n in $NAMES; do
		# shellcheck disable=SC2046
		(exec_in_cgroup /ab-$n-cli smc-load client --port "$(port $n)" $(shape $n) "$@") \
			>/tmp/ab-$n.out 2>/tmp/ab-$n.err &
		cli_pids="$cli_pids $!"
	done
}
clients_end() {
	for p in $cli_pids; do wait "$p" || true; done
	cli_pids=
}

# SMC buffer memory of a workload's connections (both ends): sndbuf + RMB of every SMC socket
# whose local or peer port is its server's, and the number of such sockets
buffers() {
	if ! smcctl -j -d socket >/tmp/ab-sockets.json 2>/tmp/ab-sockets.err; then
		info "smcctl socket failed: $(cat /tmp/ab-sockets.err)"
		echo '{"sockets":[]}' >/tmp/ab-sockets.json
	fi
	info "sockets (all, SMC): $(jq -c '[.sockets | length, (map(select(.conninfo != null)) | length)]' /tmp/ab-sockets.json)" >&2
	for n in $NAMES; do
		jq -c --argjson p "$(port $n)" --arg n "$n" '[.sockets[] | select(.conninfo != null) |
			select(.local.port == $p or .peer.port == $p) |
			.conninfo.sndbuf_size + .conninfo.rmbe_size] |
			{($n): {bytes: (add // 0), sockets: length}}' /tmp/ab-sockets.json
	done | jq -cs add
}

# measure CONFIG ROUND: the four at once for WARMUP + INTERVAL seconds of guest time; the
# summary line's figures (the whole run, what bench/autopilot/table uses) and those of the
# per-second lines after the warm-up (unreliable when the printing thread is starved:
# README)
measure() {
	rm -f /tmp/ab-buf.json
	clients --seconds "$(awk -v w="$WARMUP" -v i="$INTERVAL" 'BEGIN { print w + i + 0.5 }')"
	sleep "$(awk -v w="$WARMUP" -v i="$INTERVAL" 'BEGIN { print w + i / 2 }')" # mid-interval
	buffers >/tmp/ab-buf.json
	clients_end
	for n in $NAMES; do
		info "$1 $2 $n requests per second: $(grep '^{"t"' /tmp/ab-$n.out | jq -r .requests | tr '\n' ' ')"
		s=$(grep '"summary"' /tmp/ab-$n.out | tail -n 1)
		[ -n "$s" ] || fail "$1 round $2: $n printed no summary: $(cat /tmp/ab-$n.err)"
		b=$(jq -c --arg n "$n" '.[$n] // {bytes: null, sockets: null}' /tmp/ab-buf.json)
		bench "$(grep '^{"t"' /tmp/ab-$n.out | jq -cs --arg c "$1" --argjson r "$2" --arg w "$n" \
			--argjson b "$b" --argjson s "$s" --argjson from "$WARMUP" --argjson len "$INTERVAL" '
			map(select(.t > $from + 0.5 and .t <= $from + $len + 0.5)) as $x |
			($x | length) as $k |
			{config: $c, round: $r, workload: $w, seconds: $k,
			 req_per_s: (if $k > 0 then ($x | map(.requests) | add) / $k else null end),
			 mib_per_s: (if $k > 0 then ($x | map(.bytes) | add) / $k / 1048576 else null end),
			 smc: $s.smc, tcp: $s.tcp, errors: $s.errors,
			 summary_req_per_s: $s.req_per_s, summary_mib_per_s: $s.mib_per_s,
			 buf_bytes: $b.bytes, smc_sockets: $b.sockets}')"
	done
}

# --- the autopilot's table -------------------------------------------------------------------
workloads() { busctl --json=short call $AP GetWorkloads 2>/dev/null | jq -r '.data[0]'; }
state_of() { # state_of NAME: the state of the server workload of NAME's cgroup
	workloads | jq -r --arg cg "/ab-$1-srv" '[.workloads[] | select(.cgroup == $cg) | .state][0] // "none"'
}
decisions() { busctl get-property $AP Decisions 2>/dev/null | cut -d' ' -f2; }
settled() { # every workload decided: smc, tcp or rolled-back
	for n in $NAMES; do
		case $(state_of $n) in smc | tcp | rolled-back) ;; *) return 1 ;; esac
	done
}
decision_lines() { grep -c 'Autopilot: .*(port' /tmp/agent.log || true; }

for n in $NAMES; do mkdir -p $CG/ab-$n-srv $CG/ab-$n-cli; done
modprobe smc 2>/dev/null || true
start_system_bus
mkdir -p /etc/smc
rm -f /tmp/ab-stop /tmp/ab-churn
rm -rf $STATE_DIRECTORY
mkdir -p -m 0700 $STATE_DIRECTORY
config "auto: {mode: on, window: ${WINDOW}s}"
start_agent
info "interval ${INTERVAL}s after ${WARMUP}s of warm-up, $ROUNDS rounds, window ${WINDOW}s"

# D first: the agent has just started with an empty state directory, a cold start; the
# others follow, and whatever the time allows of them is recorded
# --- D: the autopilot from a cold start -----------------------------------------------------------
servers
t0=$(gtime)
clients --until /tmp/ab-conv
# converged: every workload decided and no Decision for 3 windows
last=$(decisions)
quiet_since=$(gtime)
limit=$(awk -v t="$t0" -v l="${CONVERGE_LIMIT:-200}" 'BEGIN { print t + l }')
conv=
while :; do
	sleep 1
	now=$(gtime)
	d=$(decisions)
	if [ "$d" != "$last" ]; then
		last=$d
		quiet_since=$now
	fi
	if settled && awk -v n="$now" -v q="$quiet_since" -v w=$WINDOW 'BEGIN { exit !(n - q >= 3 * w) }'; then
		conv=$now
		break
	fi
	awk -v n="$now" -v l="$limit" 'BEGIN { exit !(n > l) }' && break
	case $(awk -v n="$now" -v t="$t0" 'BEGIN { printf "%d", n - t }') in
	*0) info "$(elapsed "$t0" "$now") s: $(workloads | jq -c '[.workloads[] | "\(.name) \(.state)"]')" ;;
	esac
done
workloads | jq -c '[.workloads[] | {name, cgroup, port, state, why, sndbuf, rcvbuf, rollbacks}]' |
	sed 's/^/# D table: /'
grep 'Autopilot' /tmp/agent.log | sed 's/^/# agent: /'
if [ -z "$conv" ]; then
	bench "{\"converged\":false,\"after_s\":$(elapsed "$t0" "$(gtime)"),\"decisions\":$(decisions)}"
	info "the autopilot did not converge within ${CONVERGE_LIMIT:-200} s of guest time"
else
	# the decided state's time: the last Decision, 3 quiet windows before convergence was seen
	bench "$(workloads | jq -c --argjson c "$(elapsed "$t0" "$quiet_since")" \
		--argjson s "$(elapsed "$t0" "$conv")" '{converged: true, decided_after_s: $c,
		seen_after_s: $s, states: [.workloads[] | {name, cgroup, state}]}')"
fi
touch /tmp/ab-conv
clients_end
lines0=$(decision_lines)
dec0=$(decisions)
r=1
while [ $r -le "$ROUNDS" ]; do
	info "D round $r"
	measure D $r
	r=$((r + 1))
done
bench "{\"flaps\":$(($(decisions) - dec0)),\"decision_lines\":$(($(decision_lines) - lines0))}"
busctl get-property $AP BufferBytes | sed 's/^/# D BufferBytes: /'
tail -n +$((lines0 + 1)) /tmp/agent.log | grep 'Autopilot' | sed 's/^/# flap: /' || true

# --- the phase change: bulk turns to churn ----------------------------------------------------------
rm -f /tmp/ab-churn
cli_pids=
(exec_in_cgroup /ab-bulk-cli smc-load client --port "$(port bulk)" $(shape bulk) \
	--until /tmp/ab-stop --churn-after /tmp/ab-churn) >/tmp/ab-phase.out 2>&1 &
cli_pids=$!
for n in rr web churn; do
	(exec_in_cgroup /ab-$n-cli smc-load client --port "$(port $n)" $(shape $n) \
		--until /tmp/ab-stop) >/tmp/ab-$n-phase.out 2>&1 &
	cli_pids="$cli_pids $!"
done
before=$(state_of bulk)
info "bulk is $before before the phase change"
touch /tmp/ab-churn
t1=$(gtime)
limit=$(awk -v t="$t1" -v l="${PHASE_LIMIT:-150}" 'BEGIN { print t + l }')
until [ "$(state_of bulk)" = tcp ]; do
	sleep 1
	awk -v n="$(gtime)" -v l="$limit" 'BEGIN { exit !(n > l) }' && break
done
after=$(state_of bulk)
bench "{\"phase_change\":true,\"from\":\"$before\",\"to\":\"$after\",\"after_s\":$(elapsed "$t1" "$(gtime)")}"
grep 'Autopilot' /tmp/agent.log | tail -n 3 | sed 's/^/# agent: /'
touch /tmp/ab-stop
clients_end
# off takes back everything the autopilot switched, before A
config "auto: {mode: off}"
reload
# --- A: all TCP ------------------------------------------------------------------------------
smcctl -j policy | jq -c '[.policies[] | {target, state}]' | sed 's/^/# A policies: /'
servers
r=1
while [ $r -le "$ROUNDS" ]; do
	info "A round $r"
	measure A $r
	r=$((r + 1))
done

# --- B: all SMC, shipped buffers -------------------------------------------------------------
SHIPPED="sysctl: {wmem: 64KiB, rmem: 256KiB}" # etc/smc/smc.yaml's
config "policies: {cgroups: [/]}" "$SHIPPED"
reload
servers
r=1
while [ $r -le "$ROUNDS" ]; do
	info "B round $r"
	measure B $r
	r=$((r + 1))
done

# --- C: the assessment's fragment, by hand -----------------------------------------------------
# Back to TCP with the shipped buffers (the fragment's sysctl:, if any, replaces them).
config "$SHIPPED"
reload
servers
rm -f /tmp/ab-assess.json /tmp/ab-assess.err
clients --until /tmp/ab-assess-done
smcctl -j assess --duration "$INTERVAL" >/tmp/ab-assess.json 2>/tmp/ab-assess.err ||
	fail "assess failed: $(cat /tmp/ab-assess.err)"
touch /tmp/ab-assess-done
clients_end
frag=$(jq -r .fragment /tmp/ab-assess.json)
info "the assessment's fragment:"
printf '%s\n' "$frag" | sed 's/^/#   /'
bench "$(jq -c '{config: "C", fragment: .fragment, applications: [.applications[] |
	{cgroup, verdict: (.verdict // .class // null)}]}' /tmp/ab-assess.json)"
if printf '%s\n' "$frag" | grep -q '^sysctl:'; then config "$frag"; else config "$SHIPPED" "$frag"; fi
reload
smcctl -j policy | jq -c '[.policies[] | {target, state}]' | sed 's/^/# C policies: /'
servers
r=1
while [ $r -le "$ROUNDS" ]; do
	info "C round $r"
	measure C $r
	r=$((r + 1))
done

kill $agent
wait $agent 2>/dev/null || true
