#!/bin/sh
# lanes: 612lo
# timeout: 300
#
# SMC-D through loopback-ism, the loopback device of Linux 6.10-6.17 (CONFIG_SMC_LO, inside
# smc.ko, no DIBS): Debian's 6.12 with smc.ko rebuilt with CONFIG_SMC_LO=y
# (tests/vm/build-smclo-612).  Connections between two local processes and between two
# network namespaces (veth) use it for real; smcctl device lists it (inferred: the kernel
# lists it nowhere), linkgroup/socket/stats count those connections, "device loopback-ism"
# says what can and cannot be controlled here, and so does the agent's loopback: section.
# Host programs: jq, ip (busybox's has no netns), dbus-daemon, busctl.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn smcd-agent jq
IP=/usr/sbin/ip
[ -x $IP ] || IP=$(command -v ip)

info "kernel $(uname -r)"
modprobe smc || fail "modprobe smc"
assert_contains "$(dmesg)" "smc: adding smcd device loopback-ism" "the rebuilt smc.ko has loopback-ism"
assert_not_exists /sys/class/dibs "(6.12: no DIBS)"

# --- the device, before any connection ----------------------------------------------------
assert_ok smcctl -j device
assert_json "$out" '.smcd | length' 1 "one SMC-D device"
assert_json "$out" '.smcd[0].name' loopback-ism "its name"
assert_json "$out" '.smcd[0].type + " " + (.smcd[0].chid | tostring)' "loopback 65535" "type and CHID"
assert_json "$out" '.smcd[0].sources | join(",")' inferred "nothing lists it: inferred"
assert_json "$out" '.smcd[0].gid' null "no GID before a link group"
assert_ok smcctl device
assert_match "$out" "loopback-ism"
assert_ok smcctl -j info
assert_json "$out" '.capabilities.loopback' true "caps: loopback"
assert_ok smcctl info
assert_match "$out" "Loopback devices: +1"

# What can be controlled here.
assert_ok smcctl device loopback-ism
assert_contains "$out" "built into smc.ko (Linux 6.10-6.17, CONFIG_SMC_LO)"
assert_match "$out" "activate, deactivate +no: "
assert_match "$out" "dmb-type, nocopy, max-dmbs +no: "
assert_ok smcctl -j device loopback-ism
assert_json "$out" '.builtin and (.smc_lo == null)' true "built in, no smc_lo"
assert_json "$out" '[.controls.activate, .controls.deactivate, .controls.settings, .controls.pnetid] | map(tostring) | join(",")' \
	"false,false,false,true" "controls"
assert_ok smcctl device loopback-ism activate
assert_contains "$out" "always active while smc is loaded"
run smcctl device loopback-ism deactivate
assert_eq 3 "$rc" "deactivate: unavailable"
assert_contains "$out" "loopback-ism cannot be deactivated"
run smcctl device loopback-ism set max-dmbs 64
assert_eq 3 "$rc" "set: unavailable"
assert_contains "$out" "at most 5000 DMBs"

# --- SMC-D between two local processes ---------------------------------------------------
assert_ok smcctl ueid add SMCD-AGENT-612LO
assert_ok smcctl -j stats
before=$(json_get "$out" .smcd.tx.bytes)
assert_ok smc-conn pair --proto smc --conns 2 --bytes 1M
assert_json "$(printf '%s\n' "$out" | head -n 1)" '.mode + " " + (.verified | tostring)' "smcd true" "IPPROTO_SMC over loopback-ism"
assert_ok smc-conn pair --proto afsmc --addr ::1 --conns 1 --bytes 1M
assert_json "$(printf '%s\n' "$out" | head -n 1)" .mode smcd "AF_SMC, IPv6, over loopback-ism"
assert_ok smcctl -j stats
after=$(json_get "$out" .smcd.tx.bytes)
[ "$after" -ge $((before + 3 * 1024 * 1024)) ] ||
	fail "SMC-D tx bytes grew from $before to $after, expected at least 3 MiB more"

smc-conn pair --proto smc --conns 2 --bytes 64K --hold 60 >/tmp/hold.out 2>&1 &
hold=$!
wait_conns /tmp/hold.out 2
assert_ok smcctl -j linkgroup
lg_conns=$(printf '%s\n' "$out" | jq '[.smcd[] | select(.device == "loopback-ism") | .conns] | add')
gid=$(printf '%s\n' "$out" | jq -r '[.smcd[] | select(.device == "loopback-ism")][0].gid')
[ "${lg_conns:-0}" -ge 4 ] || fail "loopback-ism link groups hold $lg_conns connections, expected 4 (2 pairs): $out"
assert_ok smcctl -j device loopback-ism
assert_json "$out" .loopback_ism.gid "$gid" "the device's GID is its link groups'"
assert_json "$out" .loopback_ism.connections "$lg_conns" "the device counts its link groups' connections"
assert_ok smcctl -j socket
n=$(printf '%s\n' "$out" | jq '[.sockets[] | select(.mode == "SMCD" and .state == "ACTIVE")] | length')
[ "$n" -eq 4 ] || fail "smcctl socket lists $n active SMC-D sockets, expected 4: $out"
assert_ok smcctl device
assert_match "$out" "loopback-ism"
kill $hold 2>/dev/null
wait $hold 2>/dev/null

# --- SMC-D across two network namespaces (veth) -----------------------------------------
$IP netns add lo-a || fail "ip netns add"
$IP netns add lo-b || fail "ip netns add"
$IP link add veth-a type veth peer name veth-b || fail "ip link add veth"
$IP link set veth-a netns lo-a
$IP link set veth-b netns lo-b
$IP -n lo-a addr add 198.18.7.1/24 dev veth-a
$IP -n lo-b addr add 198.18.7.2/24 dev veth-b
for ns in lo-a lo-b; do
	$IP -n $ns link set lo up
	$IP -n $ns link set "veth-${ns#lo-}" up
done
$IP netns exec lo-a smc-conn serve --port 7070 --addr 198.18.7.1 --conns 1 >/tmp/srv.out 2>&1 &
srv=$!
$IP netns exec lo-a sh -c ". $(dirname "$0")/lib.sh; wait_listen 7070"
assert_ok $IP netns exec lo-b smc-conn connect --port 7070 --addr 198.18.7.1 --bytes 1M
assert_json "$(printf '%s\n' "$out" | head -n 1)" '.mode + " " + (.verified | tostring)' "smcd true" \
	"netns lo-b -> lo-a over loopback-ism"
wait $srv 2>/dev/null
# The statistics are per network namespace: lo-b saw one SMC-Dv2 client, lo-a one server.
assert_ok $IP netns exec lo-b smcctl -j stats
assert_json "$out" '[.smcd.client_v2, .smcd.server_v2] | map(tostring) | join(",")' "1,0" "lo-b's SMC-D statistics"
assert_ok $IP netns exec lo-a smcctl -j stats
assert_json "$out" '[.smcd.client_v2, .smcd.server_v2] | map(tostring) | join(",")' "0,1" "lo-a's SMC-D statistics"

# --- the agent's loopback: section -------------------------------------------------------
start_system_bus
mkdir -p /etc/smc
cat >/etc/smc/smc.yaml <<'EOF2'
ueid: {auto: false, entries: [SMCD-AGENT-612LO]}
modules: [smc, smc_diag]
loopback:
  active: true
  nocopy: false
  max-dmbs: 64
EOF2
start_agent
run busctl get-property $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER LastReconcile
assert_contains "$out" '"loopback:module" "unsupported" "smc_lo needs Linux 6.18 or later with DIBS'
assert_contains "$out" '"loopback:state" "unsupported" "the SMC-D loopback device of this kernel is loopback-ism, built into smc.ko'
assert_contains "$out" 'cannot be activated or deactivated'
assert_contains "$out" '"loopback:settings" "unsupported"'
assert_contains "$out" '"loopback:take-over-lo" "unsupported"'
assert_eq 's "running"' "$(busctl get-property $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER State)" \
	"unsupported loopback items do not degrade the agent"
assert_not_contains "$(cat /proc/modules)" "smc_lo " "nothing tried to load smc_lo"
# SMC-D loopback keeps working under the agent (the UEID is the file's).
assert_ok smc-conn pair --proto smc --conns 1 --bytes 256K
assert_json "$(printf '%s\n' "$out" | head -n 1)" .mode smcd "SMC-D with the agent running"
kill $agent
wait $agent 2>/dev/null

# Without a loopback: section smcctl's changes go through the agent: the same answers.
cat >/etc/smc/smc.yaml <<'EOF2'
ueid: {auto: false, entries: [SMCD-AGENT-612LO]}
modules: [smc, smc_diag]
EOF2
start_agent
run smcctl device loopback-ism activate
assert_eq 3 "$rc" "activate through the agent: unavailable"
assert_contains "$out" "loopback-ism, built into smc.ko (Linux 6.10-6.17)"
run smcctl device loopback-ism deactivate
assert_eq 3 "$rc" "deactivate through the agent: unavailable"
assert_contains "$out" "loopback-ism cannot be deactivated"
kill $agent
exit 0
