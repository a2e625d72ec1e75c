#!/bin/sh
# lanes: 7x debug
# timeout: 300
#
# Smoke test of the SMC+DIBS kernel: the DIBS loopback device and the SMC sysctls exist,
# and SMC connections over loopback move intact data. With no UEID configured SMC-D
# loopback declines and the connection falls back to TCP.
. "$(dirname "$0")/lib.sh"
require_cmd smc-conn

info "kernel $(uname -r)"
assert_exists /sys/class/dibs/lo "(CONFIG_DIBS_LO: the built-in DIBS loopback device)"
assert_exists /proc/sys/net/smc "(CONFIG_SMC)"
info "net.smc: $(ls /proc/sys/net/smc | tr '\n' ' ')"
info "dibs devices: $(ls /sys/class/dibs | tr '\n' ' ')"

# mode_is JSON EXPECTED WHAT: the connection mode must be EXPECTED.
mode_is() {
	assert_eq "$2" "$(json_get "$1" .mode)" "$3 (mode)"
}

# pair PROTO EXPECTED_MODE WHAT: two connections that move verified data in EXPECTED_MODE
pair() {
	assert_ok smc-conn pair --proto "$1" --conns 2 --bytes 4M
	summary=$(printf '%s\n' "$out" | tail -n 1)
	assert_json "$summary" .ok 2 "$1 pair summary ($3)"
	first=$(printf '%s\n' "$out" | head -n 1)
	assert_json "$first" .verified true "$1 connection 0 ($3)"
	mode_is "$first" "$2" "$1 connection 0 $3"
}

require_cmd smcctl jq
assert_ok smcctl ueid flush
for proto in smc afsmc; do
	# No UEID: the server declines SMC-D loopback and the connection falls back to TCP.
	pair $proto tcp "without a UEID"
done

# With a UEID, the same connections use SMC-D loopback: link groups are created and the
# SMC-D statistics count the bytes.
assert_ok smcctl -j stats
before=$(json_get "$out" .smcd.tx.bytes)
assert_ok smcctl ueid add SMCD-AGENT-SMOKE
for proto in smc afsmc; do
	pair $proto smcd "with a UEID"
done
assert_ok smcctl -j stats
after=$(json_get "$out" .smcd.tx.bytes)
[ "$after" -ge $((before + 4 * 4 * 1024 * 1024)) ] ||
	fail "SMC-D tx bytes grew from $before to $after, expected at least 16 MiB more"

# Link groups exist while connections are open.
smc-conn pair --proto smc --conns 2 --bytes 64K --hold 20 >/tmp/hold.out 2>&1 &
hold=$!
i=0
while [ "$(conn_lines /tmp/hold.out)" -lt 2 ]; do
	i=$((i + 1)); [ $i -gt 600 ] && fail "smc-conn did not connect: $(cat /tmp/hold.out)"
	sleep 0.1
done
assert_ok smcctl -j linkgroup
n=$(printf '%s\n' "$out" | jq '[.smcd[] | select(.conns > 0)] | length')
[ "$n" -ge 1 ] || fail "no SMC-D link group with connections while 2 are open: $out"
kill $hold 2>/dev/null; wait $hold 2>/dev/null

# Without the UEID again, new connections fall back to TCP.
assert_ok smcctl ueid flush
pair smc tcp "after ueid flush"
exit 0
