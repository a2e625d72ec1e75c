#!/bin/sh
# lanes: 7x
# timeout: 420
#
# The two BPF pieces the autopilot stands on (bpf/, issue 38):
#  (a) the assessment sees what SMC carries: an SMC-D connection moving 8 MiB each way shows
#      in smcctl -j assess with bytes >= 8 MiB and smc true (its TCP socket carries only the
#      CLC handshake), counted once (not also as TCP); a TCP connection beside it keeps its
#      TCP bytes and smc false;
#  (b) per-cgroup buffer sizes (smc_bufs' cgroup_bufs, through smcbpf-bufs): an entry sets
#      SO_SNDBUF/SO_RCVBUF of the SMC sockets a cgroup's tasks create and the RMB the
#      kernel sizes from them (smc_diag through smcctl -j -d socket), from pins alone (the
#      loader is gone), taken over by another build's layout; without the entry the
#      host's net.smc.wmem/rmem apply; del, ENOENT, and EOPNOTSUPP without the buffer
#      program.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn smcbpf-bufs jq
CG=/sys/fs/cgroup
ROOT=/sys/fs/bpf/apb-test
MIB8=8388608

assert_ok smcctl ueid derive --apply
sysctl -w net.smc.wmem=65536 >/dev/null
sysctl -w net.smc.rmem=65536 >/dev/null
for g in smc tcp bufs plain; do mkdir -p $CG/apb-$g; done

# --- (a) assess sees SMC's bytes ---------------------------------------------------------------
smcctl -j assess --duration 240 >/tmp/assess.json 2>/tmp/assess.err &
ass=$!
wait_until 60 "assess starts observing" grep -q "observing TCP connections" /tmp/assess.err
assert_ok in_cgroup /apb-smc smc-conn pair --proto smc --port 7201 --bytes 8M
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .mode smcd "the SMC pair used SMC-D"
assert_ok in_cgroup /apb-tcp smc-conn pair --proto tcp --port 7202 --bytes 8M
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .mode tcp "the TCP pair used TCP"
kill -INT $ass
wait $ass || fail "smcctl assess exited with $?: $(cat /tmp/assess.err)"
out=$(cat /tmp/assess.json)
ends() { printf '%s\n' "$out" | jq -c "[.connections[] | select((.local | endswith(\":$1\")) or (.peer | endswith(\":$1\")))]"; }
smc=$(ends 7201)
tcp=$(ends 7202)
info "SMC-D pair: $smc"
info "TCP pair: $tcp"
assert_json "$smc" 'length' 2 "assess saw both ends of the SMC-D connection"
assert_json "$smc" 'map(.smc) | all' true "both ends: smc true"
# 8 MiB plus smc-conn's 16-byte header each way, plus the few CLC bytes over TCP; counted
# once: SMC's bytes and the TCP socket's are not the same bytes twice.
assert_json "$smc" "map(.bytes_sent >= $MIB8 and .bytes_sent < $MIB8 + 65536) | all" true \
	"both ends: 8 MiB sent, once"
assert_json "$smc" "map(.bytes_received >= $MIB8 and .bytes_received < $MIB8 + 65536) | all" true \
	"both ends: 8 MiB received, once"
assert_json "$smc" 'map(.sends >= 8) | all' true "SMC's sends counted"
assert_json "$smc" '[.[] | select(.side == "server")][0].comm' smc-conn \
	"the accepted end is named by its first send or receive (its CLC ran in a kworker)"
assert_json "$tcp" 'length' 2 "assess saw both ends of the TCP connection"
assert_json "$tcp" 'map(.smc) | any' false "TCP: smc false"
assert_json "$tcp" "map(.bytes_sent >= $MIB8 and .bytes_received >= $MIB8) | all" true \
	"TCP: its bytes as before"

# --- (b) per-cgroup buffer sizes -----------------------------------------------------------------
# smcctl -j -d socket -p: sndbuf_size and rmbe_size of the active SMC-D sockets of process $1.
bufs_of() {
	smcctl -j -d socket -p | jq -c "[.sockets[] | select(.mode == \"SMCD\" and .state == \"ACTIVE\" and
		any((.processes // [])[]; .pid == $1)) | .conninfo | {sndbuf_size, rmbe_size}]"
}
pair_bufs() { # pair_bufs CGROUP PORT: the buffers of an SMC-D pair made in CGROUP, in $b
	(exec_in_cgroup "$1" smc-conn pair --proto smc --port "$2" --bytes 64K --hold 3600) \
		>/tmp/pair-$2.out 2>&1 &
	_pb=$!
	wait_conns /tmp/pair-$2.out 1
	assert_json "$(grep '"conn":0' /tmp/pair-$2.out)" .mode smcd "pair in $1: SMC-D"
	b=$(bufs_of $_pb)
	info "pair in $1: $b"
	kill $_pb
	wait $_pb 2>/dev/null
}

assert_fails smcbpf-bufs - put $CG/apb-bufs 131072 32768
assert_eq 3 "$rc" "without the buffer program: an errno"
assert_json "$out" .rc EOPNOTSUPP "put: EOPNOTSUPP without the buffer program"
assert_fails smcbpf-bufs - list
assert_json "$out" .rc EOPNOTSUPP "list: EOPNOTSUPP without the buffer program"

assert_ok smcbpf-bufs $ROOT put $CG/apb-bufs 131072 32768
assert_json "$out" .adopted false "put: the programs loaded and pinned"
cgid=$(json_get "$out" .cgroup_id)
# The loader is gone: what follows runs on the pins alone.
assert_ok smcbpf-bufs $ROOT list
assert_json "$out" .adopted true "list: the pinned layout adopted"
assert_json "$out" '.entries | length' 1 "one entry"
assert_json "$out" '.entries[0].cgroup_id' "$cgid" "for the cgroup"
assert_json "$out" '.entries[0].sndbuf' 131072 "its send buffer"
assert_json "$out" '.entries[0].rcvbuf' 32768 "its receive buffer"
# Another build's layout (the same renamed): the new one takes the map over, entry included,
# and the other goes.
mv "$(ls -d $ROOT/select-*)" $ROOT/select-0123456789abcdef
assert_ok smcbpf-bufs $ROOT list
assert_json "$out" .adopted false "another build's layout: loaded again"
assert_json "$out" '.entries | tojson' "[{\"cgroup_id\":$cgid,\"sndbuf\":131072,\"rcvbuf\":32768}]" \
	"the entry taken over"
assert_not_exists $ROOT/select-0123456789abcdef
assert_eq 1 "$(ls -d $ROOT/select-* | wc -l)" "one layout pinned"

# SO_SNDBUF/SO_RCVBUF of a new SMC socket as the program set them (doubled by the kernel).
assert_ok in_cgroup /apb-plain smcbpf-bufs sock
assert_json "$out" .sndbuf 131072 "without an entry: SO_SNDBUF from net.smc.wmem (2 x 64 KiB)"
assert_json "$out" .rcvbuf 131072 "without an entry: SO_RCVBUF from net.smc.rmem (2 x 64 KiB)"
assert_ok in_cgroup /apb-bufs smcbpf-bufs sock
assert_json "$out" .sndbuf 262144 "with the entry: SO_SNDBUF 128 KiB (doubled)"
assert_json "$out" .rcvbuf 65536 "with the entry: SO_RCVBUF 32 KiB (doubled)"
# What SMC made of them: the RMB (DMB) is half of SO_RCVBUF.  smc_diag's sizes leave out the
# DMB's CDC header (32 bytes on 7.3), learnt from the pair without an entry; on SMC-D
# loopback the send buffer is the peer's DMB (no copy), so sndbuf_size follows the peer's
# RMB, not SO_SNDBUF.
pair_bufs /apb-plain 7203
assert_json "$b" 'length' 2 "without an entry: both ends"
hdr=$((65536 - $(json_get "$b" '.[0].rmbe_size')))
info "smc_diag's sizes are $hdr bytes below the buffer's"
assert_json "$b" "$hdr >= 0 and $hdr <= 64" true "without an entry: net.smc.rmem's 64 KiB RMB"
assert_json "$b" "map(.rmbe_size) | unique | tojson" "[$((65536 - hdr))]" "without an entry: both ends' RMBs"
assert_json "$b" "map(.sndbuf_size) | unique | tojson" "[$((65536 - hdr))]" "without an entry: the peer's DMB to send into"
pair_bufs /apb-bufs 7204
assert_json "$b" 'length' 2 "with the entry: both ends"
assert_json "$b" "map(.rmbe_size) | unique | tojson" "[$((32768 - hdr))]" "with the entry: a 32 KiB RMB"
assert_json "$b" "map(.sndbuf_size) | unique | tojson" "[$((32768 - hdr))]" "with the entry: the peer's 32 KiB DMB to send into"

assert_ok smcbpf-bufs $ROOT del $CG/apb-bufs
assert_json "$out" .rc ok "del"
assert_fails smcbpf-bufs $ROOT del $CG/apb-bufs
assert_json "$out" .rc ENOENT "del again: ENOENT"
assert_ok in_cgroup /apb-bufs smcbpf-bufs sock
assert_json "$out" .sndbuf 131072 "entry deleted: SO_SNDBUF from net.smc.wmem again"
assert_json "$out" .rcvbuf 131072 "entry deleted: SO_RCVBUF from net.smc.rmem again"
pair_bufs /apb-bufs 7205
assert_json "$b" "map(.rmbe_size) | unique | tojson" "[$((65536 - hdr))]" "entry deleted: net.smc.rmem's RMB again"

assert_ok smcbpf-bufs $ROOT flush
assert_json "$out" .removed 1 "flush removed the layout"
info "autopilot-bpf-7x: ok"
