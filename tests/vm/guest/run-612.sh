#!/bin/sh
# lanes: 612
# timeout: 420
#
# The BPF path on a stock distribution kernel (Debian 6.12: BTF, MPTCP, IPPROTO_SMC, smc as
# a module, no SMC-D device, no smc_hs_ctrl): smcctl run and a cgroup policy make an
# unmodified TCP program's sockets IPPROTO_SMC (the module is loaded on demand), and the
# connections fall back to TCP with a named reason because there is no device; exclusions
# are reported as unsupported, with the reason.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn smc-threads
export SMCD_PRELOAD_LIB=/usr/local/bin/libsmc-preload.so
last() { printf '%s\n' "$out" | grep '^{' | tail -n 1; }
conn0() { printf '%s\n' "$out" | grep '"conn":0'; }

# --- smcctl run, BPF held by smcctl --------------------------------------------------------
assert_ok smcctl run --method bpf -- smc-threads threads --threads 8
assert_contains "$out" "SMC through BPF (IPPROTO_SMC; programs held by smcctl"
assert_json "$(last)" .smc 10 "6.12: threads, a forked child and the main thread got IPPROTO_SMC sockets"
module_loaded smc || fail "the smc module was not loaded on demand"
assert_ok smcctl run -m bpf -- smc-threads chain --depth 3
assert_json "$(last)" .smc 1 "6.12: the end of a fork chain"
assert_ok smcctl run -m bpf --sndbuf 64KiB -- smc-threads threads --threads 1
info "$out"
assert_ok smcctl run -m bpf -- smc-conn pair --proto tcp --conns 2 --bytes 256K
assert_json "$(last)" .ok 2 "6.12: the data went through"
assert_json "$(conn0)" .smc_socket true "6.12: an SMC socket"
assert_json "$(conn0)" .mode tcp "6.12: no SMC-D device, so TCP"
assert_json "$(conn0)" .fallback_name NOSMCDEV "6.12: fallback with a named reason"

# --- LD_PRELOAD ---------------------------------------------------------------------------------
assert_ok smcctl run -m preload -- smc-threads threads --threads 8
assert_contains "$out" "SMC through LD_PRELOAD (IPPROTO_SMC"
assert_json "$(last)" .smc 10 "6.12: preload"

# --- a cgroup policy and an exclusion through the agent -----------------------------------------
start_system_bus
mkdir -p /etc/smc
mkdir /sys/fs/cgroup/smc-on
cat >/etc/smc/smc.yaml <<'EOF'
modules: [smc, smc_diag]
drift: {action: repair, interval: 2s}
policies:
  cgroups: [/smc-on]
  exclude: [{port: 5555}]
EOF
start_agent
assert_ok smcctl policy
assert_contains "$out" "cgroup   /smc-on  active"
doc=$(smcctl -j policy)
assert_json "$doc" '.policies[] | select(.kind == "exclude") | .state' unsupported "6.12 has no smc_hs_ctrl"
assert_json "$doc" '.policies[] | select(.kind == "exclude") | .message | test("Linux 6.19 or later")' true "the reason"
assert_json "$doc" '.kernel.exclude' false "Hooks: no exclusions"
assert_ok sh -c 'echo $$ >/sys/fs/cgroup/smc-on/cgroup.procs && exec smc-threads threads --threads 4'
assert_json "$(last)" .smc 6 "6.12: the cgroup policy switched an unmodified program"
assert_ok smcctl run -- smc-threads threads --threads 2
assert_contains "$out" "enrolled by smcd-agent"
kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
exit 0
