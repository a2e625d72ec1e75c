#!/bin/sh
# lanes: 612lo
# timeout: 300
#
# smcctl assess sees what SMC carries where SMC is a module (Debian's 6.12 with smc.ko
# rebuilt with loopback-ism): with smc loaded, its functions are in the module's BTF and
# the assessment traces smc_sendmsg/smc_recvmsg there, so an SMC-D connection moving 8 MiB
# each way shows with its bytes and smc true (its TCP socket carries only the CLC
# handshake), counted once; a TCP connection beside it stays as it was, smc false.  (The
# 7x lane, where SMC is built in: autopilot-bpf-7x.sh; smc not loaded: assess-612.sh.)
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn jq
CG=/sys/fs/cgroup
MIB8=8388608

modprobe smc || fail "modprobe smc"
[ -e /sys/kernel/btf/smc ] ||
	skip "the rebuilt smc.ko's BTF was not accepted by this kernel (no /sys/kernel/btf/smc)"
assert_ok smcctl ueid derive --apply
for g in smc tcp; do mkdir -p $CG/apb-$g; done

smcctl -j assess --duration 240 >/tmp/assess.json 2>/tmp/assess.err &
ass=$!
wait_until 60 "assess starts observing" grep -q "observing TCP connections" /tmp/assess.err
assert_ok in_cgroup /apb-smc smc-conn pair --proto smc --port 7211 --bytes 8M
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .mode smcd "the SMC pair used SMC-D"
assert_ok in_cgroup /apb-tcp smc-conn pair --proto tcp --port 7212 --bytes 8M
assert_json "$(printf '%s\n' "$out" | grep '"conn":0')" .mode tcp "the TCP pair used TCP"
kill -INT $ass
wait $ass || fail "smcctl assess exited with $?: $(cat /tmp/assess.err)"
out=$(cat /tmp/assess.json)
ends() { printf '%s\n' "$out" | jq -c "[.connections[] | select((.local | endswith(\":$1\")) or (.peer | endswith(\":$1\")))]"; }
smc=$(ends 7211)
tcp=$(ends 7212)
info "SMC-D pair: $smc"
info "TCP pair: $tcp"
assert_json "$smc" 'length' 2 "assess saw both ends of the SMC-D connection"
assert_json "$smc" 'map(.smc) | all' true "both ends: smc true"
assert_json "$smc" "map(.bytes_sent >= $MIB8 and .bytes_sent < $MIB8 + 65536) | all" true \
	"both ends: 8 MiB sent, once"
assert_json "$smc" "map(.bytes_received >= $MIB8 and .bytes_received < $MIB8 + 65536) | all" true \
	"both ends: 8 MiB received, once"
assert_json "$tcp" 'length' 2 "assess saw both ends of the TCP connection"
assert_json "$tcp" 'map(.smc) | any' false "TCP: smc false"
assert_json "$tcp" "map(.bytes_sent >= $MIB8 and .bytes_received >= $MIB8) | all" true \
	"TCP: its bytes as before"
info "assess-smc-612lo: ok"
