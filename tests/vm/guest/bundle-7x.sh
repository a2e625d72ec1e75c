#!/bin/sh
# lanes: 7x
# timeout: 400
#
# smcctl support-bundle on the real SMC+DIBS kernel: with SMC sockets open in the initial
# network namespace, in a named one and in an unnamed one that only its process holds (a
# container's, made with unshare -n), the bundle is one valid tar.gz whose manifest lists
# exactly its files, holds the socket lists of the three namespaces and the kernel's SMC lines,
# and the machine ID appears nowhere in it (not even where smc.yaml quotes it); then the
# same with the agent running (its status over D-Bus, its smc.yaml).  By hand: vm-run
# --host-bin jq --host-bin ip --host-bin dbus-daemon --host-bin busctl (the lane has them).
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn jq tar zcat
IP=/usr/sbin/ip # iproute2: busybox's ip has no netns
[ -x $IP ] || skip "no iproute2 ip in the guest (--host-bin ip)"

mid=$(cat /etc/machine-id)
ueid=$(smcctl ueid derive)
mid_ueid="MID-$(printf '%s' "$mid" | cut -c1-27 | tr a-f A-F)"
assert_ok smcctl ueid derive --apply

# smc.yaml quotes the machine ID (an operator's note): the bundle must replace it.
yaml=$(smcctl -j config check | jq -r .file)
mkdir -p "$(dirname "$yaml")"
printf '# this host: %s\nueid: {auto: true}\n' "$mid" >"$yaml"

smc-conn pair --proto smc --conns 1 --bytes 64K --hold 120 >/tmp/b-init.out 2>&1 &
p_init=$!
wait_conns /tmp/b-init.out 1
assert_ok $IP netns add bundle-ns
assert_ok $IP netns add bundle-empty
assert_ok $IP -n bundle-ns link set lo up
$IP netns exec bundle-ns smc-conn pair --proto smc --conns 1 --bytes 64K --hold 120 \
	>/tmp/b-ns.out 2>&1 &
p_ns=$!
wait_conns /tmp/b-ns.out 1
# No name anywhere: found through /proc/PID/ns/net.  busybox's unshare execs (no -f), so $!
# is smc-conn's pid.
unshare -n sh -c "$IP link set lo up && exec smc-conn pair --proto smc --conns 1 --bytes 64K --hold 120" \
	>/tmp/b-anon.out 2>&1 &
p_anon=$!
wait_conns /tmp/b-anon.out 1
anon_ino=$(stat -L -c %i /proc/$p_anon/ns/net)
assert_ne "$(stat -L -c %i /proc/self/ns/net)" "$anon_ino" "the unnamed netns is another one"
assert_contains "$(cat /tmp/b-anon.out)" '"mode":"smcd"' "SMC-D in the unnamed netns"
info "unnamed netns: inode $anon_ino, smc-conn pid $p_anon"

cd /tmp
assert_ok smcctl support-bundle -o /tmp/b.tar.gz
assert_contains "$out" "/tmp/b.tar.gz: "
assert_ok tar -tzf /tmp/b.tar.gz
list=$(printf '%s\n' "$out" | sort)
assert_eq manifest.json "$(printf '%s\n' "$out" | head -n 1)" "manifest.json comes first"
man=$(tar -xzOf /tmp/b.tar.gz manifest.json)
printf '%s\n' "$man" | jq -e . >/dev/null || fail "manifest.json is not JSON"
want=$( (echo manifest.json; printf '%s\n' "$man" | jq -r '.files[].name') | sort)
assert_eq "$want" "$list" "the manifest lists exactly the archive's files"
assert_json "$man" .format_version 1
assert_json "$man" '[.netns[] | select(.name == "init" and .collected)] | length' 1
assert_json "$man" '[.netns[] | select(.name == "bundle-ns" and .collected)] | length' 1
assert_json "$man" '[.netns[] | select(.name == "bundle-empty" and (.collected | not) and .reason == "no SMC sockets")] | length' 1
# The unnamed one: named after its inode, with the process that holds it.
A=netns-$anon_ino
assert_json "$man" "[.netns[] | select(.name == \"$A\" and .collected and .dir == \"netns/$A\" and .inode == $anon_ino and .path == \"/proc/$p_anon/ns/net\")] | length" 1
assert_json "$man" ".netns[] | select(.name == \"$A\") | .processes == 1 and .pids == [{pid: $p_anon, command: \"smc-conn\"}]" true "the process that holds it"
assert_json "$man" '[.netns[].inode | select(. != null)] | length == (unique | length)' true "each namespace once"
info "netns: $(printf '%s\n' "$man" | jq -c '[.netns[] | {name, collected, reason}]')"
assert_json "$man" '.agent.running' false
assert_json "$man" '.failed as $f | [.files[] | select(.status != "ok")] | length == $f' true
assert_json "$man" '[.files[] | select(.name == "netns/init/socket.json" or .name == "netns/named/bundle-ns/socket.json" or .name == "kernel/dmesg.txt" or .name == "global/linkgroup.json") | .status] | (length == 4 and all(. == "ok"))' true
assert_json "$man" '.machine_id.occurrences_replaced >= 1' true

n=$(tar -xzOf /tmp/b.tar.gz netns/init/socket.json | jq '.sockets | length')
[ "$n" -ge 2 ] || fail "the initial netns' socket list has $n sockets"
n=$(tar -xzOf /tmp/b.tar.gz netns/named/bundle-ns/socket.json | jq '.sockets | length')
[ "$n" -ge 2 ] || fail "bundle-ns' socket list has $n sockets"
n=$(tar -xzOf /tmp/b.tar.gz netns/$A/socket.json | jq '[.sockets[] | select(.mode == "SMCD")] | length')
[ "$n" -ge 2 ] || fail "the unnamed netns' socket list has $n SMC-D sockets"
# Its sockets' holder, by pid and command (socket -p), and its own objects.
assert_json "$(tar -xzOf /tmp/b.tar.gz netns/$A/socket.json)" "[.sockets[] | .processes[]? | select(.pid == $p_anon and .command == \"smc-conn\")] | length >= 2" true "socket -p names smc-conn"
for f in info.json pnet.json sysctl.json hs-limit.json stats.json sysctl-net.txt; do
	assert_json "$man" ".files[] | select(.name == \"netns/$A/$f\") | .status" ok "netns/$A/$f"
done
assert_json "$man" ".files[] | select(.name == \"netns/$A/socket.json\") | .source | endswith(\"(in network namespace $A)\")" true "its source names the namespace"
info "sockets: init $(tar -xzOf /tmp/b.tar.gz netns/init/socket.json | jq -c '[.sockets[].mode]'), bundle-ns $(tar -xzOf /tmp/b.tar.gz netns/named/bundle-ns/socket.json | jq -c '[.sockets[].mode]')"
dmesg=$(tar -xzOf /tmp/b.tar.gz kernel/dmesg.txt)
# The kernel's own SMC lines, not just the banner.
assert_contains "$dmesg" "] NET: Registered PF_SMC protocol family"
assert_match "$dmesg" "\\] smc: adding smcd device lo"
info "dmesg lines: $(printf '%s\n' "$dmesg" | wc -l), first: $(printf '%s\n' "$dmesg" | head -n 1)"
# The test kernel has no CONFIG_IKCONFIG and no /boot: a failed item, with its reason.
cst=$(json_get "$man" '.files[] | select(.name == "kernel/config.txt") | .status')
if [ "$cst" = ok ]; then
	assert_match "$(tar -xzOf /tmp/b.tar.gz kernel/config.txt)" "^CONFIG_SMC=y"
else
	assert_match "$cst" "^no kernel config found \(/proc/config.gz: No such file or directory; /boot/config-$(uname -r): "
fi
info "kernel config: $cst"
# The machine ID and its UEIDs become placeholders (smcctl(8), support-bundle).
assert_contains "$(tar -xzOf /tmp/b.tar.gz etc/smc.yaml)" "# this host: <machine-id>"
assert_contains "$(tar -xzOf /tmp/b.tar.gz global/ueid.json)" "<ueid:app-specific>"
for u in "$ueid" "$mid_ueid"; do
	if zcat /tmp/b.tar.gz | grep -aqiF "$u"; then
		fail "the UEID $u is in the bundle: $(zcat /tmp/b.tar.gz | grep -aiF "$u" | head -n 3)"
	fi
done

# The machine ID nowhere, in any case or as a UUID.
uuid=$(printf '%s' "$mid" | sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/')
if zcat /tmp/b.tar.gz | grep -aqi -e "$mid" -e "$uuid"; then
	fail "the machine ID is in the bundle: $(zcat /tmp/b.tar.gz | grep -ai -e "$mid" -e "$uuid" | head -n 3)"
fi

info "dmesg.txt:"
printf '%s\n' "$dmesg" | sed 's/^/#   /'

# --- with the agent: its status over D-Bus, its own smc.yaml, its counters --------------
mkdir -p /etc/smc
printf '# agent on %s\nueid: {auto: true}\nstats: {prometheus: {enabled: false}}\n' "$mid" \
	>/etc/smc/smc.yaml
start_system_bus
start_agent
assert_ok smcctl support-bundle -o /tmp/a.tar.gz
man=$(tar -xzOf /tmp/a.tar.gz manifest.json)
assert_json "$man" '.agent.running' true
assert_json "$man" '.agent.config_path' /etc/smc/smc.yaml
assert_json "$man" '[.files[] | select(.name == "agent/status.json" or .name == "agent/stats.json" or .name == "agent/policy.json" or .name == "etc/smc.yaml") | .status] | (length == 4 and all(. == "ok"))' true
assert_json "$(tar -xzOf /tmp/a.tar.gz agent/status.json)" .state running
assert_contains "$(tar -xzOf /tmp/a.tar.gz etc/smc.yaml)" "# agent on <machine-id>"
want=$( (echo manifest.json; printf '%s\n' "$man" | jq -r '.files[].name') | sort)
assert_eq "$want" "$(tar -tzf /tmp/a.tar.gz | sort)" "with the agent: the manifest lists exactly the archive's files"
assert_json "$man" "[.netns[] | select(.name == \"$A\" and .collected)] | length" 1 "with the agent: the unnamed netns again, by the same name"
if zcat /tmp/a.tar.gz | grep -aqi -e "$mid" -e "$uuid"; then
	fail "the machine ID is in the agent's bundle"
fi
info "with the agent: $(printf '%s\n' "$man" | jq -c '{failed, agent: .agent.running, replaced: .machine_id.occurrences_replaced, not_ok: [.files[] | select(.status != "ok") | .name]}')"
kill $agent 2>/dev/null
wait $agent 2>/dev/null

kill $p_init $p_ns $p_anon 2>/dev/null
wait $p_init $p_ns $p_anon 2>/dev/null
$IP netns del bundle-ns
$IP netns del bundle-empty
exit 0
