#!/bin/sh
# The guest half of bench/autopilot/run (bench/autopilot/README.md): four workloads at once,
# each server and client in cgroups of their own, the real programs in a closed loop (their
# figures depend on the carrier), measured under four configurations:
#   A  all TCP (no policies)
#   B  all SMC (policies: {cgroups: [/]}, the shipped net.smc.wmem/rmem set by sysctl:)
#   C  the fragment of `smcctl -j assess --duration INTERVAL`, run while the four are on TCP,
#      appended to the configuration by hand
#   D  the autopilot (auto: {mode: on, window: 10s}) from a cold start, once it converged
# then a phase change under D (bulk turns to churn) and the time until bulk's state is tcp.
# One "# @@BENCH {json}" line per measured workload, convergence, flap count and phase change.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-load dbus-daemon busctl jq redis-server redis-benchmark \
	sockperf nginx wrk
INTERVAL=${INTERVAL:-20}
ROUNDS=${ROUNDS:-3}
RUN=${RUN:-5}          # guest seconds of one wrk, sockperf tp or smc-load churn run
REDIS_N=${REDIS_N:-20000} # requests of one redis-benchmark run
WINDOW=10
CG=/sys/fs/cgroup
AP="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_AUTOPILOT"
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
NAMES="rr bulk web churn"
export STATE_DIRECTORY=/var/lib/smcd-agent

port() { case $1 in rr) echo 7311 ;; bulk) echo 7312 ;; web) echo 7313 ;; churn) echo 7314 ;; esac; }
gtime() { awk '{ print $1 }' /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
bench() { echo "# @@BENCH $*"; }

nginx_conf "$(port web)" 1 # one worker: one vCPU

# server NAME: the server of workload NAME, exec'd (its listening socket is made now)
server() {
	case $1 in
	rr) exec redis-server --port "$(port rr)" --save "" --appendonly no --protected-mode no \
		--daemonize no --bind 127.0.0.1 ;;
	# --uc-reuseaddr: a server killed under its client leaves the port in TIME_WAIT
	# (smc-load serve in the phase change: /tmp/ab-phase exists)
	bulk) [ ! -e /tmp/ab-phase ] || exec smc-load serve --port "$(port bulk)"
		exec sockperf sr --tcp --uc-reuseaddr -i 127.0.0.1 -p "$(port bulk)" ;;
	web) exec nginx -p /tmp/nginx -e /tmp/nginx/error.log -c /tmp/nginx/nginx.conf ;;
	churn) exec smc-load serve --port "$(port churn)" ;;
	esac
}
# client NAME: one run of workload NAME's client; prints its figure (req/s, MB/s for bulk)
# or nothing when the run failed (its output then on stderr).  redis-benchmark: 4
# connections of GET with 100-byte values (long-lived request/response); sockperf tp:
# 64,000-byte messages on one connection (a bulk stream; its server misreads 64 KiB ones
# over SMC: "Message received was larger than expected"); wrk: 4 keep-alive connections,
# one thread (nginx+wrk); smc-load churn: a new connection per 100-byte request.  Each run
# is bounded (RUN + 30 s): a client that hangs (a redis-benchmark whose connections moved no
# byte for minutes was seen) fails its run, and the next run makes new connections.
client() {
	_b=$((RUN + 30))
	case $1 in
	rr) _o=$(timeout $_b redis-benchmark -h 127.0.0.1 -p "$(port rr)" -q -t get -n "$REDIS_N" -c 4 -d 100 2>&1)
		_v=$(printf '%s\n' "$_o" | tr '\r' '\n' | sed -n 's/^GET: \([0-9.]*\) requests per second.*/\1/p' | tail -n 1) ;;
	bulk) _o=$(timeout $_b sockperf tp --tcp -i 127.0.0.1 -p "$(port bulk)" -m 64000 -t "$RUN" 2>&1)
		_v=$(printf '%s\n' "$_o" | sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p' | tail -n 1) ;;
	web) _o=$(timeout $_b wrk -t 1 -c 4 -d "${RUN}s" --timeout 10s "http://127.0.0.1:$(port web)/" 2>&1)
		_v=$(printf '%s\n' "$_o" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p')
		# wrk counts errors instead of failing: a failed connection, read or write, or an
		# answer other than 200 makes the rate meaningless
		case $_o in *"Socket errors: connect "[1-9]* | *"Non-2xx"*) _v= ;; esac ;;
	churn) _o=$(timeout $_b smc-load client --port "$(port churn)" --shape churn --size 100 --reply 100 \
		--seconds "$RUN" 2>&1)
		_v=$(printf '%s\n' "$_o" | grep '"summary"' | jq -r 'select(.errors == 0) | .req_per_s') ;;
	esac
	[ -n "$_v" ] && echo "$_v" || printf '%s\n' "$_o" >&2
}
# stuck NAME: what NAME's client processes wait for and NAME's sockets, for a trial that does
# not begin
stuck() {
	for _p in $(cat $CG/ab-$1-cli/cgroup.procs); do
		info "$1's client pid $_p $(cat /proc/$_p/comm 2>/dev/null): $(cat /proc/$_p/wchan 2>/dev/null)"
		for _t in /proc/$_p/task/*; do
			[ "$(cat $_t/wchan 2>/dev/null)" = 0 ] || cat $_t/stack 2>/dev/null | head -n 12 | sed "s|^|# ${_t#/proc/} |"
		done
	done
	smcctl socket 2>&1 | grep -e "State" -e ":$(port "$1")" | head -n 20 | sed 's/^/# /'
}
# loop NAME STOP: NAME's client run after run, in NAME's client cgroup, until file STOP
# exists; a line "START END FIGURE" per run in /tmp/ab-NAME.runs (FIGURE "fail" when the
# run gave none: the server restarted under it, say).  Each run makes new connections, as
# clients that come and go do, so a policy switched meanwhile reaches the next run.
loop() {
	sh -c 'echo $PPID >"$0"' "$CG/ab-$1-cli/cgroup.procs" || fail "cannot move into ab-$1-cli"
	: >/tmp/ab-$1.runs
	while [ ! -e "$2" ]; do
		_s=$(gtime)
		_f=$(client "$1" 2>>/tmp/ab-$1.err)
		echo "$_s $(gtime) ${_f:-fail}" >>/tmp/ab-$1.runs
		[ -n "$_f" ] || sleep 0.5
	done
}

cleanup() {
	touch /tmp/ab-stop
	for n in $NAMES; do eval "_p=\${srv_$n:-}"; [ -z "$_p" ] || kill "$_p" 2>/dev/null || true; done
	for p in ${cli_pids:-}; do kill "$p" 2>/dev/null || true; done
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

restart_server() { # restart_server NAME: NAME's server anew, in its cgroup; returns once it listens
	eval "_p=\${srv_$1:-}"
	if [ -n "$_p" ]; then
		kill "$_p" 2>/dev/null || true
		wait "$_p" 2>/dev/null || true
	fi
	# the old listening socket gone first (nginx's workers hold it too): wait_listen below
	# must see the new server's, not the old one's last moment
	_i=0
	while awk -v p="$(printf ':%04X ' "$(port "$1")")" 'index($2 " ", p) && $4 == "0A" { f = 1 }
		END { exit !f }' /proc/net/tcp; do
		_i=$((_i + 1))
		[ $_i -le 600 ] || fail "$1's old server still listens 30 s after it was stopped"
		sleep 0.05
	done
	(exec_in_cgroup /ab-$1-srv sh -c '. "$0"; server "$1"' /tmp/ab-funcs.sh "$1") \
		>/tmp/ab-$1-srv.out 2>&1 &
	eval "srv_$1=$!"
	wait_listen "$(port "$1")"
}
servers() { for n in $NAMES; do restart_server "$n"; done; }
clients() { # clients STOP: the four client loops (loop), until file STOP exists
	rm -f "$1"
	cli_pids=
	for n in $NAMES; do
		(loop "$n" "$1") >/dev/null 2>&1 &
		cli_pids="$cli_pids $!"
	done
}
clients_end() { # clients_end STOP
	touch "$1"
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
	for n in $NAMES; do
		jq -c --argjson p "$(port $n)" --arg n "$n" '[.sockets[] | select(.conninfo != null) |
			select(.local.port == $p or .peer.port == $p) |
			.conninfo.sndbuf_size + .conninfo.rmbe_size] |
			{($n): {bytes: (add // 0), sockets: length}}' /tmp/ab-sockets.json
	done | jq -cs add
}

# measure CONFIG ROUND: the four client loops at once for INTERVAL seconds of guest time
# (each loop's last run ends after it); the figure of a workload is the mean of its runs'
# figures weighted by their length; its SMC buffer memory sampled once, mid-interval (a
# workload between two runs then holds none); the SMC-D connections the kernel counted.
smcd_total() { smcctl -j stats --kernel | jq '.summary.smcd // 0'; }
measure() {
	k0=$(smcd_total)
	clients /tmp/ab-stop-m
	sleep "$(awk -v i="$INTERVAL" 'BEGIN { print i / 2 }')"
	buffers >/tmp/ab-buf.json
	sleep "$(awk -v i="$INTERVAL" 'BEGIN { print i / 2 }')"
	clients_end /tmp/ab-stop-m
	# the SMC-D connections the kernel counted in the measurement, all four workloads
	bench "{\"config\":\"$1\",\"round\":$2,\"smcd_connections\":$(($(smcd_total) - k0))}"
	for n in $NAMES; do
		info "$1 $2 $n runs (start end figure): $(tr '\n' ';' </tmp/ab-$n.runs)"
		b=$(jq -c --arg n "$n" '.[$n] // {bytes: null, sockets: null}' /tmp/ab-buf.json)
		bench "$(jq -Rcs --arg c "$1" --argjson r "$2" --arg w "$n" --argjson b "$b" '
			split("\n") | map(select(length > 0) | split(" ")) as $runs |
			[$runs[] | select(.[2] != "fail") | {s: ((.[1] | tonumber) - (.[0] | tonumber)),
			 f: (.[2] | tonumber)}] as $ok |
			($ok | map(.s) | add // 0) as $secs |
			{config: $c, round: $r, workload: $w,
			 unit: (if $w == "bulk" then "MB/s" else "req/s" end),
			 figure: (if $secs > 0 then ($ok | map(.s * .f) | add) / $secs else null end),
			 runs: ($runs | length), failed: ([$runs[] | select(.[2] == "fail")] | length),
			 seconds: $secs, buf_bytes: $b.bytes, smc_sockets: $b.sockets}' /tmp/ab-$n.runs)"
		f=$(grep -c ' fail$' /tmp/ab-$n.runs || true)
		[ "$f" = 0 ] || info "$1 $2 $n: $f runs failed: $(tail -n 5 /tmp/ab-$n.err)"
	done
}

# --- the autopilot's table -------------------------------------------------------------------
# restart_waiting T0: restart the server of every workload whose trial waits for it to listen
# anew ("restart" in its reason), as smcd-agent(8) AUTOPILOT asks an operator to; once, and
# again only if the trial still waits two windows later (its reason is the last window's
# until the next one, so it says "restart" for a window after a restart that worked; a
# restart that raced the switch would otherwise leave the trial waiting for good); counted
# in $restarts.  $restarted holds "NAME:GUEST-TIME" of the trials' last restarts.
restarted= restarts=0
restart_waiting() {
	for _n in $(workloads | jq -r '.workloads[] | select(.state == "trial" and (.why | test("restart"))) |
		.cgroup | capture("^/ab-(?<n>[a-z]+)-srv$").n'); do
		_at=$(echo " $restarted " | sed -n "s/.* $_n:\([0-9.]*\) .*/\1/p")
		if [ -n "$_at" ]; then
			awk -v n="$(gtime)" -v a="$_at" -v w=$WINDOW 'BEGIN { exit !(n - a >= 2 * w) }' ||
				continue
			info "$(elapsed "$1" "$(gtime)") s: $_n's trial still waits $(elapsed "$_at" "$(gtime)") s after its restart: $(workloads | jq -r --arg cg "/ab-$_n-srv" '.workloads[] | select(.cgroup == $cg) | .why')"
			restarted=$(echo " $restarted " | sed "s/ $_n:[0-9.]* / /")
			# what a trial that does not begin shows: the runs, the server, the kernel's
			# fallback reasons
			info "$_n's last runs: $(tail -n 3 /tmp/ab-$_n.runs | tr '\n' ';') errors: $(tail -n 2 /tmp/ab-$_n.err 2>/dev/null | tr '\n' ';')"
			info "$_n's server: $(tail -n 3 /tmp/ab-$_n-srv.out 2>/dev/null | tr '\n' ';')"
			smcctl stats 2>&1 | sed -n '/[Ff]allback/,$p' | head -n 30 | sed 's/^/# /'
			stuck "$_n"
		fi
		info "$(elapsed "$1" "$(gtime)") s: $_n's trial waits for its server to listen anew: restarting it"
		restart_server "$_n"
		restarted="$restarted $_n:$(gtime)"
		restarts=$((restarts + 1))
	done
	for _e in $restarted; do # a trial ended: a later one may need its own restart
		[ "$(state_of "${_e%%:*}")" = trial ] || restarted=$(echo " $restarted " | sed "s/ $_e / /")
	done
}

workloads() { busctl --json=short call $AP GetWorkloads 2>/dev/null | jq -r '.data[0]'; }
state_of() { # state_of NAME: the state of the server workload of NAME's cgroup
	workloads | jq -r --arg cg "/ab-$1-srv" '[.workloads[] | select(.cgroup == $cg) | .state][0] // "none"'
}
decisions() { busctl get-property $AP Decisions 2>/dev/null | cut -d' ' -f2; }
settled() { # settled TABLE: every workload of GetWorkloads' TABLE decided: smc, tcp or rolled-back
	for n in $NAMES; do
		case $(printf '%s\n' "$1" | jq -r --arg cg "/ab-$n-srv" \
			'[.workloads[] | select(.cgroup == $cg) | .state][0] // "none"') in
		smc | tcp | rolled-back) ;;
		*) return 1 ;;
		esac
	done
}
decision_lines() { grep -c 'Autopilot: .*(port' /tmp/agent.log || true; }

# the functions the servers' and loops' shells need, for restart_server
{ sed -n '/^port()/p' "$0"; sed -n '/^server() {/,/^}/p' "$0"; } >/tmp/ab-funcs.sh
for n in $NAMES; do mkdir -p $CG/ab-$n-srv $CG/ab-$n-cli; done
modprobe smc 2>/dev/null || true
start_system_bus
mkdir -p /etc/smc
rm -rf $STATE_DIRECTORY
mkdir -p -m 0700 $STATE_DIRECTORY
config "auto: {mode: on, window: ${WINDOW}s}"
start_agent
info "interval ${INTERVAL}s, runs of ${RUN}s (redis-benchmark -n $REDIS_N), $ROUNDS rounds," \
	"window ${WINDOW}s; $(nproc) CPU, $(grep MemTotal /proc/meminfo)"

# D first: the agent has just started with an empty state directory, a cold start; the
# others follow.
# --- D: the autopilot from a cold start -----------------------------------------------------------
servers
t0=$(gtime)
clients /tmp/ab-conv
# converged: every workload decided and no Decision for 3 windows.  A trial that waits for
# its server to listen anew (its reason says "restart") gets it, as an operator would do
# (smcd-agent(8) AUTOPILOT); the restarts are counted.
last=$(decisions)
quiet_since=$(gtime)
limit=$(awk -v t="$t0" -v l="${CONVERGE_LIMIT:-300}" 'BEGIN { print t + l }')
conv=
while :; do
	sleep 1
	now=$(gtime)
	d=$(decisions)
	if [ "$d" != "$last" ]; then
		last=$d
		quiet_since=$now
	fi
	restart_waiting "$t0"
	# the table as it settled is the one recorded: a rolled-back workload's retrial may
	# begin a moment later
	tbl=$(workloads)
	if settled "$tbl" && awk -v n="$now" -v q="$quiet_since" -v w=$WINDOW 'BEGIN { exit !(n - q >= 3 * w) }'; then
		conv=$now
		conv_table=$tbl
		break
	fi
	awk -v n="$now" -v l="$limit" 'BEGIN { exit !(n > l) }' && break
	if awk -v n="$now" -v p="${said:-$t0}" 'BEGIN { exit !(n - p >= 10) }'; then
		# a trial's reason too: where it waits is what a boot that does not settle shows
		info "$(elapsed "$t0" "$now") s: $(workloads | jq -c '[.workloads[] |
			"\(.name) \(.state)" + (if .state == "trial" then " (\(.why))" else "" end)]')"
		said=$now
	fi
done
workloads | jq -c '.workloads[] | {name, cgroup, port, state, why, sndbuf, rcvbuf, rollbacks}' |
	sed 's/^/# D table: /'
grep 'Autopilot' /tmp/agent.log | sed 's/^/# agent: /'
if [ -z "$conv" ]; then
	bench "{\"converged\":false,\"after_s\":$(elapsed "$t0" "$(gtime)"),\"decisions\":$(decisions),\"restarts\":$restarts}"
	info "the autopilot did not converge within ${CONVERGE_LIMIT:-300} s of guest time"
else
	# the decided state's time: the last Decision, 3 quiet windows before convergence was seen
	bench "$(printf '%s\n' "$conv_table" | jq -c --argjson c "$(elapsed "$t0" "$quiet_since")" \
		--argjson s "$(elapsed "$t0" "$conv")" --argjson r $restarts '{converged: true,
		decided_after_s: $c, seen_after_s: $s, restarts: $r,
		states: [.workloads[] | {name, cgroup, state}]}')"
fi
clients_end /tmp/ab-conv
lines0=$(decision_lines)
log0=$(wc -l </tmp/agent.log)
dec0=$(decisions)
r=1
while [ $r -le "$ROUNDS" ]; do
	info "D round $r"
	measure D $r
	r=$((r + 1))
done
# A flap: a kept decision (smc or tcp) reversed after convergence.  A rolled-back workload
# tried again once its hold is over (4 windows, doubling) is a retrial, counted apart.
flaps=$(tail -n +$((log0 + 1)) /tmp/agent.log | grep -c 'Autopilot: .*(port [0-9]*): \(smc\|tcp\) -> ' || true)
retrials=$(tail -n +$((log0 + 1)) /tmp/agent.log | grep -c 'Autopilot: .*(port [0-9]*): rolled-back -> trial' || true)
bench "{\"flaps\":$flaps,\"retrials\":$retrials,\"decisions\":$(($(decisions) - dec0)),\"decision_lines\":$(($(decision_lines) - lines0))}"
busctl get-property $AP BufferBytes | sed 's/^/# D BufferBytes: /'
tail -n +$((log0 + 1)) /tmp/agent.log | grep 'Autopilot' | sed 's/^/# after convergence: /' || true

# --- the phase change: bulk turns to churn ----------------------------------------------------------
# sockperf has no churn, so bulk's server becomes smc-load serve (same cgroup and port: the
# same workload to the autopilot) and its client an smc-load bulk stream that turns to churn
# once /tmp/ab-churn exists; the other three go on in their loops.
rm -f /tmp/ab-churn /tmp/ab-stop-p
touch /tmp/ab-phase
restart_server bulk
cli_pids=
(exec_in_cgroup /ab-bulk-cli smc-load client --port "$(port bulk)" --shape bulk --conns 1 \
	--reconnect 5 --until /tmp/ab-stop-p --churn-after /tmp/ab-churn) >/tmp/ab-phase.out 2>&1 &
cli_pids=$!
for n in rr web churn; do
	(loop "$n" /tmp/ab-stop-p) >/dev/null 2>&1 &
	cli_pids="$cli_pids $!"
done
# bulk on smc-load's stream for two windows first: still long-lived, still its decision
sleep $((2 * WINDOW))
# A change is followed from SMC: a bulk rolled back before (or kept on TCP) is first left
# to its retrial once its hold is over, up to PHASE_LIMIT.
t1=$(gtime)
limit=$(awk -v t="$t1" -v l="${PHASE_LIMIT:-200}" 'BEGIN { print t + l }')
until case $(state_of bulk) in smc | trial) true ;; *) false ;; esac do
	sleep 1
	restart_waiting "$t1"
	awk -v n="$(gtime)" -v l="$limit" 'BEGIN { exit !(n > l) }' && break
done
before=$(state_of bulk)
info "bulk is $before before the phase change"
touch /tmp/ab-churn
t1=$(gtime)
limit=$(awk -v t="$t1" -v l="${PHASE_LIMIT:-200}" 'BEGIN { print t + l }')
# followed: off SMC, tcp (a kept smc turned off) or rolled-back (a trial the churn ended)
until case $(state_of bulk) in tcp | rolled-back) true ;; *) false ;; esac do
	sleep 1
	restart_waiting "$t1"
	awk -v n="$(gtime)" -v l="$limit" 'BEGIN { exit !(n > l) }' && break
done
after=$(state_of bulk)
bench "{\"phase_change\":true,\"from\":\"$before\",\"to\":\"$after\",\"after_s\":$(elapsed "$t1" "$(gtime)")}"
grep 'Autopilot' /tmp/agent.log | tail -n 3 | sed 's/^/# agent: /'
clients_end /tmp/ab-stop-p
rm -f /tmp/ab-phase
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
clients /tmp/ab-assess-done
smcctl -j assess --duration "$INTERVAL" >/tmp/ab-assess.json 2>/tmp/ab-assess.err ||
	fail "assess failed: $(cat /tmp/ab-assess.err)"
clients_end /tmp/ab-assess-done
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
