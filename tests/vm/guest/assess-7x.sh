#!/bin/sh
# lanes: 7x
# timeout: 300
#
# smcctl assess on a workload mix whose truth the test knows, each in a cgroup of its own:
#   /assess-bulk   a long-lived bulk transfer between two local processes (over 127.0.0.1)
#   /assess-xns    the same across two network namespaces (a veth pair): SMC-D loopback
#                  serves that too, so it is "same host"
#   /assess-short  a stream of short-lived connections to a local server
#   /assess-far    a connection to 198.51.100.7, which is no address of this host in any
#                  netns: routed out of the veth to a namespace that does not forward, so
#                  it stays in SYN_SENT - what a peer on another host without RDMA is to
#                  SMC (the guest has no other host: a peer that answers from outside
#                  would need NAT, which the lane's kernel lacks)
# assess must classify each as expected and name the processes, change no connection (they
# stay TCP and verified) and leave no BPF program, map or link behind; the fragment it
# suggests, applied through smcd-agent, must switch exactly the well-suited ones to SMC-D
# and leave the rest on TCP: smcctl socket -p names the holders of the SMC-D sockets (those
# processes, no other socket), and the kernel's statistics count exactly their 2 client
# and 2 server handshakes, no fallback.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn bpf-progs dbus-daemon busctl jq
IP=/usr/sbin/ip
[ -x $IP ] || fail "iproute2's ip is not in the guest (vm-run --host-bin ip)"
CG=/sys/fs/cgroup
NS=assess-ns

in_cgroup() { # in_cgroup CGROUP CMD...: run CMD as a process of CGROUP (from its first socket)
	_ic=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG$_ic" "$@"
}
bg_in_cgroup() { # bg_in_cgroup CGROUP CMD... &: the same, as $! itself (for a job: exec)
	_ic=$1
	shift
	exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG$_ic" "$@"
}
ns_listens() { # ns_listens PORT: a socket of $NS listens on PORT
	$IP netns exec $NS cat /proc/net/tcp | grep -q ":$(printf %04X "$1") 00000000:0000 0A"
}
app() { jq -c ".applications[] | select(.cgroup == \"$1\")" /tmp/assess.json; }
bpf_objects() { { bpf-progs; bpf-progs links; bpf-progs maps; } | sort; }

for g in bulk xns short far; do mkdir -p $CG/assess-$g; done
$IP netns add $NS || fail "ip netns add"
$IP link add va type veth peer name vb || fail "ip link add veth"
$IP link set vb netns $NS
$IP addr add 10.77.0.1/24 dev va
$IP link set va up
$IP -n $NS addr add 10.77.0.2/24 dev vb
$IP -n $NS link set vb up
$IP -n $NS link set lo up
# 198.51.100.0/24 leaves through va; $NS does not forward, so a SYN there gets no answer.
$IP route add 198.51.100.0/24 via 10.77.0.2 dev va

modprobe smc 2>/dev/null || true
modprobe tcp_diag 2>/dev/null || true # the sock_diag method (built in on 7x)
before=$(bpf_objects)

# --- observe ---------------------------------------------------------------------------------
t0=$(date +%s)
smcctl -j assess --all-netns --duration 240 >/tmp/assess.json 2>/tmp/assess.err &
ass=$!
wait_until 60 "assess starts observing" grep -q "observing TCP connections" /tmp/assess.err

bg_in_cgroup /assess-far smc-conn connect --proto tcp --addr 198.51.100.7 --port 7104 >/tmp/far.out 2>&1 &
far=$!
bg_in_cgroup /assess-xns $IP netns exec $NS smc-conn serve --proto tcp --addr 10.77.0.2 --port 7102 --conns 1 >/tmp/xns-srv.out 2>&1 &
xsrv=$!
bg_in_cgroup /assess-short smc-conn serve --proto tcp --port 7103 >/tmp/short-srv.out 2>&1 &
ssrv=$!
wait_until 30 "the server in $NS listens" ns_listens 7102
wait_listen 7103

bg_in_cgroup /assess-bulk smc-conn pair --proto tcp --port 7101 --bytes 16M --hold 1 >/tmp/bulk.out 2>&1 &
bulk=$!
assert_ok in_cgroup /assess-xns smc-conn connect --proto tcp --addr 10.77.0.2 --port 7102 --bytes 8M --hold 1
assert_json "$(printf '%s\n' "$out" | grep '"summary"')" .ok 1 "the cross-netns transfer was verified"
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .smc_socket false "and stayed a TCP socket"
i=0
while [ $i -lt 20 ]; do
	in_cgroup /assess-short smc-conn connect --proto tcp --port 7103 --bytes 100 >/dev/null ||
		fail "short connection $i failed"
	i=$((i + 1))
done
wait $bulk || fail "the bulk transfer failed: $(cat /tmp/bulk.out)"
assert_json "$(grep '"summary"' /tmp/bulk.out)" .ok 1 "the bulk transfer was verified during assess"
assert_json "$(grep '"summary"' /tmp/bulk.out)" .tcp 1 "assess changed no connection: TCP"
wait $xsrv || true
# Ctrl-C ends the observation early; the report still comes.
kill -INT $ass
wait $ass || fail "smcctl assess exited with $?: $(cat /tmp/assess.err)"
info "assess observed for $(($(date +%s) - t0)) s"
kill $far $ssrv 2>/dev/null
wait $far $ssrv 2>/dev/null

# The kernel frees a trampoline program after an RCU tasks grace period and only then puts
# the maps it used, so they may outlive smcctl by a moment: wait for them to go by
# themselves (nothing else here could remove them).
same_objects() { [ "$(bpf_objects)" = "$before" ]; }
wait_until 120 "assess left no BPF program, link or map behind (left: $(bpf_objects))" same_objects
out=$(cat /tmp/assess.json)
assert_json "$out" .method bpf "observed with BPF"
assert_json "$out" .scope "all network namespaces" "the scope"

a=$(app /assess-bulk)
assert_json "$a" .verdict likely-faster "bulk on one host: likely faster"
assert_json "$a" "[.processes[].pid] | index($bulk) != null" true "bulk: the process is named"
assert_json "$a" ".processes[0].comm" smc-conn "bulk: its command"
assert_json "$a" '.classes.well_suited.connections' 2 "bulk: both ends well suited"
a=$(app /assess-xns)
assert_json "$a" .verdict likely-faster "bulk across network namespaces: likely faster"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-xns" and .side == "client")][0].reach' smcd \
	"across netns: SMC-D"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-xns" and .side == "client")][0].both_ends_seen' true \
	"across netns: both ends seen (--all-netns)"
a=$(app /assess-short)
assert_json "$a" .verdict likely-slower "short connections: likely slower"
assert_json "$a" '.classes.not_suited.connections >= 40' true "short: all 20 connections, both ends, not suited"
assert_json "$a" '.classes.well_suited.connections' 0 "short: none well suited"
a=$(app /assess-far)
assert_json "$a" .verdict no-change "the unreachable peer: no change"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-far")][0].why' \
	"peer 198.51.100.7 is not on this host and va has no RDMA device" "with the reason"
assert_json "$out" '.total.classes.well_suited.connections' 2 "two well-suited connections in total"

json_get "$out" .fragment >/tmp/fragment.yaml
cat /tmp/fragment.yaml
frag=$(cat /tmp/fragment.yaml)
assert_contains "$frag" "- /assess-bulk"
assert_contains "$frag" "- /assess-xns"
assert_not_contains "$frag" "- /assess-short"
assert_not_contains "$frag" "- /assess-far"
assert_contains "$frag" "{address: 127.0.0.1, port: 7103}"
assert_contains "$frag" "wmem: 128KiB"

info "phase 1 done after $(($(date +%s) - t0)) s"
# --- without BPF: inet_diag samples, and it says so ------------------------------------------------
bg_in_cgroup /assess-bulk smc-conn pair --proto tcp --port 7105 --bytes 8M --hold 4 >/tmp/bulk2.out 2>&1 &
bulk=$!
wait_conns /tmp/bulk2.out 1
smcctl -j assess --method sock_diag --duration 2 >/tmp/diag.json 2>/tmp/diag.err ||
	fail "assess --method sock_diag: $(cat /tmp/diag.err)"
wait $bulk || fail "the second bulk transfer failed: $(cat /tmp/bulk2.out)"
out=$(cat /tmp/diag.json)
assert_json "$out" .method sock_diag "sampled"
assert_json "$out" .method_reason "--method sock_diag" "and why"
assert_contains "$(json_get "$out" .coverage)" "shorter ones are missed" "what samples miss"
assert_json "$(jq -c '.applications[] | select(.cgroup == "/assess-bulk")' /tmp/diag.json)" .verdict \
	likely-faster "sampled: the bulk transfer is likely faster"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-bulk")] | map(.both_ends_seen) | all' true \
	"sampled: both ends of the connection paired (the listener tells the server's end)"

info "sock_diag done after $(($(date +%s) - t0)) s"
# --- apply the fragment through the agent --------------------------------------------------------
start_system_bus
mkdir -p /etc/smc
{
	echo "ueid: {auto: true}"
	echo "modules: [smc, smc_diag]"
	echo "drift: {action: repair, interval: 2s}"
	echo "monitor: {interval: 0}"
	cat /tmp/fragment.yaml
} >/etc/smc/smc.yaml
assert_ok smcctl config check /etc/smc/smc.yaml
start_agent
# The agent owns its bus name before its first reconciliation has written the sysctls.
wmem_set() { [ "$(cat /proc/sys/net/smc/wmem)" = 131072 ]; }
wait_until 30 "net.smc.wmem from the fragment (131072; is $(cat /proc/sys/net/smc/wmem))" wmem_set
wait_until 30 "the policies are active" sh -c \
	"smcctl -j policy | jq -e '[.policies[] | select(.state == \"active\")] | length == 3'"
info "agent applied the fragment after $(($(date +%s) - t0)) s"
# The kernel's own counters before (per netns): the fragment must add exactly the two
# well-suited connections, a client and a server handshake each - the bulk pair's both here,
# the cross-netns client here and its server in $NS.
stat() { smcctl -j stats --kernel | jq "$1"; }
nstat() { smcctl -j -n $NS stats --kernel | jq "$1"; }
cli0=$(stat .smcd.client_v2) srv0=$(stat .smcd.server_v2) total0=$(stat .summary.total)
nsrv0=$(nstat .smcd.server_v2) ntotal0=$(nstat .summary.total)

# Both well-suited ones, held open while smcctl socket -p names who holds which SMC-D socket
# (until killed at the end, not for a guessed time).
(exec_in_cgroup /assess-bulk smc-conn pair --proto tcp --port 7101 --bytes 1M --hold 3600) \
	>/tmp/bulk3.out 2>&1 &
bulk=$!
wait_conns /tmp/bulk3.out 1
assert_json "$(grep '"conn":0' /tmp/bulk3.out)" .mode smcd "bulk: now SMC-D"
(exec_in_cgroup /assess-xns $IP netns exec $NS smc-conn serve --proto tcp --addr 10.77.0.2 \
	--port 7102 --conns 1) >/tmp/xns-srv.out 2>&1 &
xsrv=$!
wait_until 30 "the server in $NS listens" ns_listens 7102
(exec_in_cgroup /assess-xns smc-conn connect --proto tcp --addr 10.77.0.2 --port 7102 \
	--bytes 1M --hold 3600) >/tmp/xns3.out 2>&1 &
xcli=$!
wait_conns /tmp/xns3.out 1
assert_json "$(grep '"conn":0' /tmp/xns3.out)" .mode smcd "across netns: now SMC-D"
# this netns: the pair's two ends and the cross-netns client, and no other SMC-D socket
assert_ok smcctl -j socket -p
doc=$out
smcd='.sockets[] | select(.mode == "SMCD" and .state == "ACTIVE")'
assert_json "$doc" "[$smcd] | length" 3 "three SMC-D sockets here, no other"
assert_json "$doc" "[$smcd | select(any((.processes // [])[]; .pid == $bulk))] | length" 2 \
	"bulk: both ends held by the pair's process"
assert_json "$doc" "[$smcd | select(any((.processes // [])[]; .pid == $xcli))] | length" 1 \
	"across netns: the client's end held by the client"
assert_json "$doc" "[$smcd | .processes[0].command] | unique | join(\",\")" smc-conn "the command"
assert_json "$doc" "[$smcd | .processes[0].cgroup] | unique | join(\",\")" \
	"/assess-bulk,/assess-xns" "their cgroups: the two the fragment switched"
# $NS: the server's accepted end, held by the server
assert_ok smcctl -j -n $NS socket -p
assert_json "$out" "[$smcd] | length" 1 "one SMC-D socket in $NS"
assert_json "$out" "[$smcd | select(any((.processes // [])[]; .pid == $xsrv))] | length" 1 \
	"across netns: the server's end held by the server"

bg_in_cgroup /assess-short smc-conn serve --proto tcp --port 7103 >/tmp/short-srv.out 2>&1 &
ssrv=$!
wait_listen 7103
assert_ok in_cgroup /assess-short smc-conn connect --proto tcp --port 7103 --bytes 100
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .mode tcp "short: still TCP"
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .smc_socket false "short: not even an SMC socket"
kill $ssrv
wait $ssrv 2>/dev/null
bg_in_cgroup /assess-far smc-conn connect --proto tcp --addr 198.51.100.7 --port 7104 >/dev/null 2>&1 &
far=$!
wait_until 30 "the far connection is in SYN_SENT" sh -c \
	"grep -q ' 076433C6:1BC0 02 ' /proc/net/tcp"
run smcctl -j socket -a
assert_not_contains "$out" "198.51.100.7" "far: no SMC socket"
ino=$(awk '$3 == "076433C6:1BC0" { print $10; exit }' /proc/net/tcp)
assert_ne "" "$ino" "far: its TCP socket"
assert_json "$out" "[.sockets[] | select(.inode == $ino)] | length" 0 "far: its socket is plain TCP"
kill $far
wait $far 2>/dev/null
# exactly the two: 2 client and 2 server handshakes, nothing else counted (no fallback)
assert_eq $((cli0 + 2)) "$(stat .smcd.client_v2)" "SMC-D client handshakes here: +2"
assert_eq $((srv0 + 1)) "$(stat .smcd.server_v2)" "SMC-D server handshakes here: +1 (bulk)"
assert_eq $((nsrv0 + 1)) "$(nstat .smcd.server_v2)" "SMC-D server handshakes in $NS: +1"
assert_eq $((total0 + 3)) "$(stat .summary.total)" "nothing else counted here (no fallback)"
assert_eq $((ntotal0 + 1)) "$(nstat .summary.total)" "nothing else counted in $NS"
kill $bulk $xcli 2>/dev/null
wait $bulk $xcli $xsrv 2>/dev/null

kill $agent
wait $agent 2>/dev/null
smcctl policy flush >/dev/null 2>&1 || true
$IP netns del $NS
info "assess-7x: ok"
