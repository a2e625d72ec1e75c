#!/bin/sh
# lanes: 612
# timeout: 300
#
# smcctl assess on Debian's stock 6.12 (BTF, BPF trampolines; smc a module that is not
# loaded; no SMC-D device, no RDMA): the tracing programs load and see same-host
# connections - a long-lived bulk transfer over 127.0.0.1 and short connections to a local
# server, each in a cgroup of its own - with their ports (6.12 once read the local port as
# 0: commit 3f45700), and a connection to an address behind a veth that never answers.
# Each is classified as on 7.3 (same host: SMC-D, which the loopback device would give;
# smc-lo-dkms provides one on such a kernel); and assess changes nothing: no connection
# becomes SMC, no module is loaded (neither smc nor the RDMA core), no BPF object stays.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn bpf-progs jq
IP=/usr/sbin/ip
[ -x $IP ] || fail "iproute2's ip is not in the guest (vm-run --host-bin ip)"
CG=/sys/fs/cgroup
NS=assess-ns
bpf_objects() { { bpf-progs; bpf-progs links; bpf-progs maps; } | sort; }
app() { jq -c ".applications[] | select(.cgroup == \"$1\")" /tmp/assess.json; }

module_loaded smc && skip "smc is loaded at boot already: this test is about assess not loading it"
for g in bulk short far; do mkdir -p $CG/assess-$g; done
# 198.51.100.0/24 leaves through va; $NS does not forward, so a SYN there gets no answer
$IP netns add $NS || fail "ip netns add"
$IP link add va type veth peer name vb || fail "ip link add veth"
$IP link set vb netns $NS
$IP addr add 10.77.0.1/24 dev va
$IP link set va up
$IP -n $NS addr add 10.77.0.2/24 dev vb
$IP -n $NS link set vb up
$IP route add 198.51.100.0/24 via 10.77.0.2 dev va
modules0=$(cut -d' ' -f1 /proc/modules | sort)
before=$(bpf_objects)

smcctl -j assess --duration 2m >/tmp/assess.json 2>/tmp/assess.err &
ass=$!
wait_until 120 "assess starts observing" grep -q "observing TCP connections" /tmp/assess.err
(exec_in_cgroup /assess-far smc-conn connect --proto tcp --addr 198.51.100.7 --port 7304) \
	>/tmp/far.out 2>&1 &
far=$!
(exec_in_cgroup /assess-short smc-conn serve --proto tcp --port 7303) >/tmp/short-srv.out 2>&1 &
ssrv=$!
wait_listen 7303
assert_ok in_cgroup /assess-bulk smc-conn pair --proto tcp --port 7301 --bytes 8M --hold 1
assert_json "$(printf '%s\n' "$out" | grep '"summary"')" .ok 1 "the bulk transfer was verified"
assert_json "$(printf '%s\n' "$out" | grep '"summary"')" .tcp 1 "and stayed TCP"
i=0
while [ $i -lt 10 ]; do
	in_cgroup /assess-short smc-conn connect --proto tcp --port 7303 --bytes 100 >/dev/null ||
		fail "short connection $i failed"
	i=$((i + 1))
done
wait_until 30 "the far connection is in SYN_SENT" sh -c "grep -q ' 076433C6:1C88 02 ' /proc/net/tcp"
kill -INT $ass
wait $ass || fail "smcctl assess exited with $?: $(cat /tmp/assess.err)"
kill $far $ssrv 2>/dev/null
wait $far $ssrv 2>/dev/null

out=$(cat /tmp/assess.json)
assert_json "$out" .method bpf "6.12: observed with BPF"
assert_json "$out" .method_reason null "no reason to sample instead"
a=$(app /assess-bulk)
assert_json "$a" .verdict likely-faster "bulk on one host: likely faster"
assert_json "$a" '.classes.well_suited.connections' 2 "bulk: both ends well suited"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-bulk") | .reach] | unique | join(",")' \
	smcd "bulk: same host, SMC-D"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-bulk" and .side == "server")][0].local' \
	127.0.0.1:7301 "the server's local port (not 0)"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-bulk" and .side == "client")][0].peer' \
	127.0.0.1:7301 "the client's peer port"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-bulk")][0].both_ends_seen' true \
	"both ends paired"
a=$(app /assess-short)
assert_json "$a" .verdict likely-slower "short connections: likely slower"
assert_json "$a" '.classes.not_suited.connections >= 20' true "short: all 10, both ends, not suited"
a=$(app /assess-far)
assert_json "$a" .verdict no-change "the unanswered peer: no change"
assert_json "$out" '[.connections[] | select(.cgroup == "/assess-far")][0].why' \
	"peer 198.51.100.7 is not on this host and va has no RDMA device" "with the reason"
frag=$(json_get "$out" .fragment)
assert_contains "$frag" "- /assess-bulk"
assert_not_contains "$frag" "- /assess-short"
assert_contains "$frag" "{address: 127.0.0.1, port: 7303}"

# changed nothing
same_objects() { [ "$(bpf_objects)" = "$before" ]; }
wait_until 120 "assess left no BPF program, link or map behind (left: $(bpf_objects))" same_objects
assert_eq "$modules0" "$(cut -d' ' -f1 /proc/modules | sort)" "assess loaded no module"
module_loaded smc && fail "assess loaded smc"
$IP netns del $NS
info "assess-612: ok"
