#!/bin/sh
# lanes: 7x
# timeout: 480
#
# smc.yaml policies kept by smcd-agent on a kernel with everything (7.3): an unmodified TCP
# program gets SMC-D when a policy names its cgroup (created after the agent started, or a
# child of it) or its network namespace, and TCP when none does; a connection to an
# excluded port stays TCP without any SMC handshake (smc_hs_ctrl: no SMC option on the
# SYN); removing the policies stops new conversions; smcctl run goes through the agent,
# for root and for an unprivileged user; a stopped agent leaves its programs in force and
# smcctl policy flush leaves net.smc.hs_ctrl as the agent found it.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn smc-threads dbus-daemon busctl
export SMCD_PRELOAD_LIB=/usr/local/bin/libsmc-preload.so
CG=/sys/fs/cgroup

start_system_bus

M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
last() { printf '%s\n' "$out" | grep '^{' | tail -n 1; }
policy_json() { smcctl -j policy; }
policy_field() { policy_json | jq -r ".policies[] | select(.target == \"$1\") | .$2"; }
stat_of() { smcctl -j stats | jq -r "$1"; }
reason_count() { smcctl -j stats | jq -r "[.fallback.reasons[] | select(.name == \"$1\") | .count] | add // 0"; }

write_config() { # write_config POLICIES-YAML
	cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
sysctl: {wmem: 1MiB, rmem: 1MiB}
modules: [smc, smc_diag]
drift: {action: repair, interval: 2s}
monitor: {interval: 0}
$1
EOF
}

mkdir -p /etc/smc
write_config "policies:
  cgroups: [/smc-on]
  exclude: [{port: 5555}]"
assert_ok smcd-agent --check-config /etc/smc/smc.yaml
start_agent
info "agent up"

# --- the cgroup does not exist yet: waiting; exclusions active --------------------------
assert_ok smcctl policy
assert_json "$(smcctl -j policy)" '.kernel.select' true "the kernel can switch sockets"
assert_json "$(smcctl -j policy)" '.kernel.exclude' true "the kernel has smc_hs_ctrl"
assert_eq waiting "$(policy_field /smc-on state)" "a cgroup that does not exist yet"
assert_eq active "$(policy_field '*:5555' state)" "the exclusion"
assert_eq smcd_excl "$(cat /proc/sys/net/smc/hs_ctrl)" "net.smc.hs_ctrl names the agent's smc_hs_ctrl"
run busctl get-property $M LastReconcile
assert_contains "$out" '"policy:cgroup:/smc-on"' "the policy is a reconcile item"

# --- created now: covered from its first socket, without waiting for a reconcile ---------
mkdir $CG/smc-on
assert_ok in_cgroup /smc-on smc-conn pair --proto tcp --conns 2 --bytes 1M
assert_json "$(last)" .ok 2 "cgroup policy: both connections verified"
assert_json "$(last)" .smcd 2 "cgroup policy: an unmodified TCP program used SMC-D"
# A child cgroup (a container's scope under its slice) is covered too.
mkdir $CG/smc-on/child
assert_ok in_cgroup /smc-on/child smc-threads threads --threads 4
assert_json "$(last)" .smc 6 "cgroup policy: a descendant cgroup, threads and a child"
# busybox nc (static, so no LD_PRELOAD could help it), another unmodified program, in the
# cgroup: its connection counts as SMC-D in the kernel's statistics.
smcd_before=$(stat_of .summary.smcd)
in_cgroup /smc-on timeout 10 nc -l -p 7000 >/tmp/nc.out &
ncpid=$!
wait_listen 7000
# Neither side closes first on its own: the client's timeout ends the connection.
echo hello-over-smc | in_cgroup /smc-on timeout 3 nc 127.0.0.1 7000 || true
wait $ncpid
assert_ne "$smcd_before" "$(stat_of .summary.smcd)" "busybox nc's connection was SMC-D"
assert_eq hello-over-smc "$(cat /tmp/nc.out)" "nc moved its data"

# --- outside the cgroup: plain TCP ------------------------------------------------------------
assert_ok smc-conn pair --proto tcp --conns 1 --bytes 64K
assert_json "$(last)" .tcp 1 "no policy for this cgroup: TCP"
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .smc_socket false "and a TCP socket"

# --- the excluded port: an SMC socket, but no SMC option on the SYN, so no handshake ------
smcd_before=$(stat_of .summary.smcd)
hs_before=$(stat_of .summary.handshake_errors)
peernosmc_before=$(reason_count PEERNOSMC)
assert_ok in_cgroup /smc-on smc-conn pair --proto tcp --port 5555 --conns 2 --bytes 64K
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .smc_socket true "an SMC socket (the policy applies)"
assert_json "$(last)" .tcp 2 "excluded port: TCP"
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .fallback_name PEERNOSMC "the peer saw no SMC option"
assert_eq "$smcd_before" "$(stat_of .summary.smcd)" "no SMC-D connection was made"
assert_eq "$hs_before" "$(stat_of .summary.handshake_errors)" "no handshake was attempted"
assert_ne "$peernosmc_before" "$(reason_count PEERNOSMC)" "counted as 'peer did not offer SMC'"
run policy_field '*:5555' sockets
assert_ne 0 "$out" "the exclusion counted the handshakes it kept TCP"
assert_ne 0 "$(policy_field /smc-on sockets)" "the cgroup policy counted its sockets"

# --- a network namespace policy --------------------------------------------------------------
unshare -n sh -c 'ip link set lo up; exec sleep 600' &
nspid=$!
# In its own netns with lo up once it is sleep (the exec comes after both).
i=0
until [ "$(cat /proc/$nspid/comm 2>/dev/null)" = sleep ]; do
	sleep 0.05
	i=$((i + 1))
	[ $i -le 600 ] || fail "the netns process did not start"
done
write_config "policies:
  cgroups: [/smc-on]
  netns: [/proc/$nspid/ns/net]
  exclude: [{port: 5555}]"
assert_ok smcctl config reload
assert_eq active "$(policy_field /proc/$nspid/ns/net state)" "the netns policy"
assert_ok nsenter -t $nspid -n smc-conn pair --proto tcp --conns 2 --bytes 256K
assert_json "$(last)" .smcd 2 "netns policy: an unmodified TCP program used SMC-D"
assert_eq smcd_excl "$(nsenter -t $nspid -n cat /proc/sys/net/smc/hs_ctrl)" "a new netns took the exclusions (inherited)"
assert_ok nsenter -t $nspid -n smc-conn pair --proto tcp --port 5555 --conns 1 --bytes 64K
assert_json "$(last)" .tcp 1 "the exclusion holds in the netns too"
kill $nspid
wait $nspid 2>/dev/null

# --- smcctl run goes through the agent -----------------------------------------------------
assert_ok smcctl run -- smc-threads threads --threads 8
assert_contains "$out" "SMC through BPF (IPPROTO_SMC; enrolled by smcd-agent)"
assert_json "$(last)" .smc 10 "run through the agent: threads, a child, the main thread"
run smcctl run -q -- sh -c 'exit 9'
assert_eq 9 "$rc" "run through the agent: the command's exit status (exec)"
# From a pid namespace of its own: the agent checks the pidfd against the caller.
assert_ok unshare -p -f smcctl run -- smc-threads chain --depth 3
assert_contains "$out" "enrolled by smcd-agent"
assert_json "$(last)" .smc 1 "run through the agent from a new pid namespace"
# An unprivileged user: the agent enrolls the caller itself, nobody else.
run su -s /bin/sh nobody -c "PATH=$PATH DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS smcctl run -- smc-threads chain --depth 3"
assert_eq 0 "$rc" "unprivileged smcctl run"
assert_contains "$out" "enrolled by smcd-agent"
assert_json "$(last)" .smc 1 "unprivileged: BPF through the agent"
assert_json "$(smcctl -j policy)" '.kernel.enrolled >= 4' true "the agent counts enrollments"

# --- policies removed: no new conversions ---------------------------------------------------
write_config ""
assert_ok smcctl config reload
assert_ok smcctl policy
assert_contains "$out" "No policies"
assert_ok in_cgroup /smc-on smc-conn pair --proto tcp --conns 1 --bytes 64K
assert_json "$(last)" .tcp 1 "policy removed: TCP again"
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .smc_socket false "a TCP socket again"
assert_eq "" "$(cat /proc/sys/net/smc/hs_ctrl)" "exclusions removed: hs_ctrl cleared"

# --- the agent stops: its programs stay (pinned); smcctl policy flush removes them ---------------
write_config "policies:
  exclude: [{port: 5555}]"
assert_ok smcctl config reload
assert_eq smcd_excl "$(cat /proc/sys/net/smc/hs_ctrl)"
kill $agent
wait $agent
assert_eq 0 "$?" "the agent stops cleanly"
assert_eq smcd_excl "$(cat /proc/sys/net/smc/hs_ctrl)" "a stopped agent keeps the exclusions in force"
assert_ok smcctl policy flush
assert_contains "$out" "Removed 2 pinned sets"
assert_eq "" "$(cat /proc/sys/net/smc/hs_ctrl)" "flush cleared hs_ctrl"
# Flushed, its smc_hs_ctrl is unregistered: the name is refused.
if echo smcd_excl >/proc/sys/net/smc/hs_ctrl 2>/dev/null; then
	fail "smcd_excl is still registered after smcctl policy flush"
fi
assert_ok in_cgroup /smc-on smc-threads threads --threads 2
assert_json "$(last)" .tcp 4 "no agent, no policy: TCP"
exit 0
