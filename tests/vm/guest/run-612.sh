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
for p in dbus-daemon busctl; do
	command -v $p >/dev/null 2>&1 || skip "$p is not in the guest (VM_HOST_BINS needs dbus-daemon busctl)"
done
mkdir -p /run/dbus /etc/smc
cat >/tmp/bus.conf <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_type="method_return"/>
    <allow send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
EOF
dbus-daemon --config-file=/tmp/bus.conf --nofork --nopidfile >/tmp/bus.log 2>&1 &
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
i=0
while [ ! -S /run/dbus/system_bus_socket ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mkdir /sys/fs/cgroup/smc-on
cat >/etc/smc/smc.yaml <<'EOF'
modules: [smc, smc_diag]
drift: {action: repair, interval: 2s}
policies:
  cgroups: [/smc-on]
  exclude: [{port: 5555}]
EOF
smcd-agent --config /etc/smc/smc.yaml >/tmp/agent.log 2>&1 &
agent=$!
i=0
until busctl status org.smcd.Agent1 >/dev/null 2>&1; do
	sleep 0.2
	i=$((i + 1))
	if [ $i -gt 150 ] || ! kill -0 $agent 2>/dev/null; then
		cat /tmp/agent.log
		fail "the agent did not come up"
	fi
done
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
