#!/bin/sh
# lanes: 7x
# timeout: 420
#
# smcctl run on a kernel with everything (7.3: BTF, MPTCP, IPPROTO_SMC, SMC-D loopback):
# unmodified TCP programs get SMC-D, both ways (BPF held by smcctl, BPF through the agent,
# LD_PRELOAD), including threads that exit, forks from threads, fork chains, many threads
# calling socket() at once, buffer sizes, exit statuses and signals passed through, and
# nothing left attached afterwards.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn smc-threads
export SMCD_PRELOAD_LIB=/usr/local/bin/libsmc-preload.so
assert_exists "$SMCD_PRELOAD_LIB" "the preload library in the guest"

# SMC-D over the loopback device needs a UEID.
assert_ok smcctl ueid derive --apply
sysctl -w net.smc.wmem=65536 >/dev/null

last() { printf '%s\n' "$out" | grep '^{' | tail -n 1; }
line_of() { printf '%s\n' "$out" | grep "\"who\":\"$1\""; }

# --- without smcctl: a TCP program gets TCP ----------------------------------------------
assert_ok smc-conn pair --proto tcp --conns 1 --bytes 64K
assert_json "$(last)" .tcp 1 "plain TCP without smcctl run"
assert_ok smc-threads threads --threads 4
assert_json "$(last)" .tcp 6 "plain TCP without smcctl run (threads)"

# --- BPF held by smcctl (no agent) --------------------------------------------------------
assert_ok smcctl run --method bpf -- smc-conn pair --proto tcp --conns 2 --bytes 1M
assert_contains "$out" "smcctl: run: SMC through BPF (IPPROTO_SMC; programs held by smcctl"
assert_json "$(last)" .ok 2 "bpf: both connections verified"
assert_json "$(last)" .smcd 2 "bpf: an unmodified TCP program used SMC-D"

# Worker threads that exit (smc_run.bpf lost the process when any thread exited), a fork
# from a worker thread (smc_run.bpf keyed inheritance on the thread id), and the main
# thread afterwards; 16 threads call socket() at the same instant.
assert_ok smcctl run -m bpf -- smc-threads threads --threads 16
assert_json "$(last)" .smc 18 "bpf: 16 threads, the child of a thread and the main thread after them"
assert_json "$(last)" .tcp 0 "bpf: no TCP socket"
assert_json "$(line_of child-of-thread)" .proto smc "bpf: a fork from a worker thread"
assert_json "$(line_of main-after-threads)" .proto smc "bpf: the main thread after every worker exited"

# A fork chain, five processes deep.
assert_ok smcctl run -m bpf -- smc-threads chain --depth 5
assert_json "$(last)" .smc 1 "bpf: the end of a fork chain"

# In a pid namespace of its own (a container's view): nothing depends on pid numbers.
assert_ok unshare -p -f smcctl run -m bpf -- smc-threads threads --threads 4
assert_json "$(last)" .smc 6 "bpf: smcctl run inside a new pid namespace"

# Exit status and signals are the command's.
run smcctl run -m bpf -q -- sh -c 'exit 7'
assert_eq 7 "$rc" "bpf: exit status passed through"
assert_eq "" "$out" "-q: nothing printed"
run smcctl run -m bpf -q -- sh -c 'kill -TERM $$'
assert_eq 143 "$rc" "bpf: death by SIGTERM passed through"
run smcctl run -m bpf -- /nonexistent/program
assert_eq 127 "$rc" "bpf: command not found"

# A signal sent to smcctl reaches the command.
# Sent once the command runs with its trap (it says so), not after a guessed delay: loading
# the programs took longer than 3 s on a loaded host, and the signal then ended smcctl.
rm -f /tmp/ready
smcctl run -m bpf -q -- sh -c 'trap "echo got-term >/tmp/term.txt; exit 3" TERM; touch /tmp/ready; while :; do sleep 0.1; done' &
pid=$!
i=0
until [ -e /tmp/ready ]; do
	sleep 0.05
	i=$((i + 1))
	[ $i -le 1200 ] || fail "the command under smcctl run did not start"
done
kill -TERM $pid
wait $pid && rc=0 || rc=$?
assert_eq 3 "$rc" "bpf: SIGTERM forwarded, the command's exit status returned"
assert_eq got-term "$(cat /tmp/term.txt)" "the command got the SIGTERM"

# Buffer sizes through the cgroup/sock_create program: SO_SNDBUF 128 KiB -> 256 KiB.
assert_ok smcctl run -m bpf --sndbuf 128KiB --rcvbuf 96KiB -- smc-threads threads --threads 1
assert_json "$(line_of main-after-threads)" .sndbuf 262144 "bpf: --sndbuf applied (doubled by the kernel)"
assert_json "$(line_of main-after-threads)" .rcvbuf 196608 "bpf: --rcvbuf applied"
assert_not_contains "$out" "not applied" "bpf: buffer sizes supported here"
wmax=$(cat /proc/sys/net/core/wmem_max)
info "net.core.wmem_max is $wmax"
assert_ok smcctl run -m bpf --sndbuf $((wmax + 4096)) -- true
assert_contains "$out" "is more than net.core.wmem_max ($wmax)" "the cap is explained"

# Nothing stays attached once smcctl is gone.
assert_ok smc-threads threads --threads 4
assert_json "$(last)" .tcp 6 "after smcctl run ended, TCP again"

# --- LD_PRELOAD ------------------------------------------------------------------------------
assert_ok smcctl run --method preload -- smc-conn pair --proto tcp --conns 2 --bytes 1M
assert_contains "$out" "smcctl: run: SMC through LD_PRELOAD (IPPROTO_SMC, $SMCD_PRELOAD_LIB)"
assert_json "$(last)" .smcd 2 "preload: an unmodified TCP program used SMC-D"
# 64 threads make their first socket() call at the same instant (smc-tools issue #9).
assert_ok smcctl run -m preload -- smc-threads threads --threads 64
assert_json "$(last)" .smc 66 "preload: 64 concurrent first calls, a forked child, the main thread"
assert_ok smcctl run -m preload -- smc-threads chain --depth 5
assert_json "$(last)" .smc 1 "preload: the end of a fork chain"
assert_ok smcctl run -m preload --sndbuf 128KiB -- smc-threads threads --threads 1
assert_json "$(line_of main-after-threads)" .sndbuf 262144 "preload: --sndbuf applied"
SMCD_PRELOAD_PROTO=afsmc smcctl run -q -m preload -- smc-threads threads --threads 2 >/tmp/afsmc.log 2>&1 ||
	fail "preload with AF_SMC: $(cat /tmp/afsmc.log)"
assert_json "$(tail -n 1 /tmp/afsmc.log)" .afsmc 4 "preload: AF_SMC where asked for"
run smcctl run -m preload -- sh -c 'exit 5'
assert_eq 5 "$rc" "preload: exit status passed through (exec)"

# --- auto: BPF when it can, and says so --------------------------------------------------------
assert_ok smcctl run -- smc-threads threads --threads 2
assert_contains "$out" "SMC through BPF"
# An unprivileged user without an agent cannot load BPF: auto falls back and says why.
as_nobody() { su -s /bin/sh nobody -c "PATH=$PATH SMCD_PRELOAD_LIB=$SMCD_PRELOAD_LIB $*"; }
run as_nobody smcctl run -- smc-threads threads --threads 2
info "unprivileged, no agent: rc $rc"
assert_eq 0 "$rc" "unprivileged auto run works"
assert_contains "$out" "SMC through LD_PRELOAD"
assert_contains "$out" "BPF not used: loading the SMC selection programs needs root (CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN; this process lacks"
assert_json "$(last)" .smc 4 "unprivileged: LD_PRELOAD switched the sockets"
run as_nobody smcctl run -m bpf -- true
assert_eq 4 "$rc" "unprivileged --method bpf without an agent: permission status"

# --- usage -----------------------------------------------------------------------------------
run smcctl run
assert_eq 2 "$rc" "run without a command"
run smcctl run --method magic -- true
assert_eq 2 "$rc" "unknown method"
assert_contains "$out" "expected auto, bpf or preload"
run smcctl run --sndbuf 1k -- true
assert_eq 2 "$rc" "a size below 4KiB"
exit 0
