#!/bin/sh
# The guest half of bench/assess/run: a bulk TCP transfer over loopback, ROUNDS times
# without and with `smcctl assess` observing, alternately (so drift in the host's load
# hits both alike).  One "# @@BENCH {json}" line per transfer.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn jq
ROUNDS=${ROUNDS:-5}
BYTES=${BYTES:-32M}
modprobe smc 2>/dev/null || true

xfer() { # xfer MODE ROUND: one transfer, its client's transfer time
	out=$(smc-conn pair --proto tcp --bytes "$BYTES") || fail "the transfer failed: $out"
	ms=$(printf '%s\n' "$out" | grep '"conn":0' | jq .transfer_ms)
	echo "# @@BENCH {\"mode\":\"$1\",\"round\":$2,\"bytes\":\"$BYTES\",\"transfer_ms\":$ms}"
}

xfer warmup 0
r=1
while [ $r -le "$ROUNDS" ]; do
	xfer plain $r
	smcctl -j assess --duration 3600 >/tmp/assess.json 2>/tmp/assess.err &
	ass=$!
	wait_until 120 "assess starts observing" grep -q "observing TCP connections" /tmp/assess.err
	xfer assess $r
	kill -INT $ass
	wait $ass || fail "assess failed: $(cat /tmp/assess.err)"
	jq -e '.method == "bpf" and .total.connections >= 1' /tmp/assess.json >/dev/null ||
		fail "assess did not see the transfer: $(cat /tmp/assess.json)"
	r=$((r + 1))
done
