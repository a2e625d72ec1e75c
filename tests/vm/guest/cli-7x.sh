#!/bin/sh
# lanes: 7x
# timeout: 400
#
# smcctl against the real SMC+DIBS kernel: every object and verb, in text and JSON.
# The order follows the kernel state: first no UEID (loopback falls back to TCP and the
# reasons show up by name), then the host's own UEID via "ueid derive --apply" (loopback
# uses SMC-D: link groups, sockets, device use and statistics), then every write verb
# and its refusals, then unprivileged use.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn jq

# json_true JSON JQ_EXPR WHAT: the jq expression must print true
json_true() {
	assert_json "$1" "$2" true "$3"
}

info "kernel $(uname -r)"

# --- help works, every -j output is one JSON document ----------------------------------
assert_ok smcctl --version
assert_ok smcctl help
assert_contains "$out" "ueid derive [--machine-id-file FILE] [--derive HOW] [--apply]"
for o in info ueid seid device linkgroup socket pnet sysctl hs-limit stats; do
	assert_ok smcctl -j "$o"
	printf '%s\n' "$out" | jq -e . >/dev/null || fail "smcctl -j $o is not JSON: $out"
	assert_eq 1 "$(printf '%s\n' "$out" | wc -l)" "smcctl -j $o prints one line"
done

# --- no UEID: the verdict says so, loopback falls back, reasons by name ------------------
assert_ok smcctl ueid flush
assert_ok smcctl info
assert_contains "$out" "SMC-D loopback: connections will fall back to TCP: no UEID configured (run smcctl ueid derive --apply)"
assert_ok smcctl -j info
json_true "$out" '.capabilities.loopback and .capabilities.dibs and .capabilities.ipproto_smc' "capabilities"
assert_json "$out" .ueids.configured 0
assert_json "$out" '.verdicts[0].ready' false

# Held until killed below: a guessed --hold can end while a loaded machine still looks.
smc-conn pair --proto smc --conns 1 --bytes 64K --hold 3600 >/tmp/fb.out 2>&1 &
fb=$!
wait_conns /tmp/fb.out 1
assert_ok smcctl socket
assert_contains "$out" "TCP"
assert_contains "$out" "NOUEID"
assert_contains "$out" "Fallback reasons:"
assert_ok smcctl -j socket
json_true "$out" '[.sockets[] | select(.mode == "TCP") | .fallback.reason.name] | length >= 2' "fallback sockets"
kill $fb 2>/dev/null
wait $fb 2>/dev/null
assert_ok smcctl stats
assert_match "$out" "server NOUEID +[0-9]+ the peer sent no UEID"
assert_contains "$out" "smcctl ueid derive --apply"
assert_ok smcctl -j stats
json_true "$out" '.fallback.server > 0 and ([.fallback.reasons[] | select(.name == "NOUEID" and .side == "server")] | length == 1)' "NOUEID counted"

# --- the host's UEID ------------------------------------------------------------------
mid=$(cat /etc/machine-id)
# The seed's convention, --derive machine-id: unchanged, as the shell derives it.
assert_ok smcctl ueid derive --derive machine-id
assert_eq "MID-$(printf '%s' "$mid" | cut -c1-27 | tr a-f A-F)" "$out" "the MID- UEID"
# The default, app-specific (test-common-ueid-derive checks it against libsystemd's).
assert_ok smcctl ueid derive
expected=$out
assert_match "$expected" '^APP-[0-9A-F]{28}$' "derived UEID"
assert_ok smcctl -j ueid derive
assert_json "$out" .derive app-specific
assert_ok smcctl ueid derive --apply
assert_eq "$expected: added to the kernel's UEID table" "$out"
assert_ok smcctl ueid derive --apply
assert_eq "$expected: already configured" "$out"
assert_ok smcctl -j ueid derive --apply
assert_json "$out" .changed false
assert_ok smcctl ueid
assert_eq "$expected" "$out" "ueid list"
assert_ok smcctl info
assert_contains "$out" "SMC-D loopback: ready"

# --- a real SMC-D loopback connection ----------------------------------------------------
smc-conn pair --proto smc --conns 2 --bytes 256K --hold 3600 >/tmp/lo.out 2>&1 &
lo=$!
wait_conns /tmp/lo.out 2
assert_ok smcctl linkgroup
assert_match "$out" "^  [0-9a-f]{8} +0 +[0-9]+ +0xffff +lo"
assert_ok smcctl -j linkgroup
json_true "$out" '(.smcd | length) > 0 and .smcd[0].device == "lo" and .smcd[0].chid == 65535' "SMC-D link group on lo"
assert_json "$out" '.smcd[0].v2.negotiated_eid' "$expected"
hex=$(json_get "$out" '.smcd[0].id')
assert_match "$hex" '^[0-9a-f]{8}$' "the link group id in JSON as in the text"
assert_ok smcctl linkgroup show "0x$hex"
assert_contains "$out" "LG-ID:     $hex"
assert_contains "$out" "EID:       $expected"
assert_ok smcctl -d linkgroup
assert_contains "$out" "Peer-GID:"
assert_ok smcctl socket
assert_match "$out" "ACTIVE .* SMCD"
assert_ok smcctl socket -a -d
assert_contains "$out" "IPPROTO_SMC"
assert_ok smcctl -j socket -a -d
json_true "$out" '[.sockets[] | select(.mode == "SMCD" and .dmbinfo != null and .conninfo != null)] | length >= 4' "SMC-D sockets with DMB info"
json_true "$out" '[.sockets[] | select(.protocol == "IPPROTO_SMC" and .local.address == null)] | length >= 2' "IPPROTO_SMC sockets have no address"
assert_ok smcctl socket --smcd
assert_ok smcctl socket --listening
assert_contains "$out" "LISTEN"
assert_ok smcctl device
assert_match "$out" "^  lo +loopback +0xffff +[1-9][0-9]* +[1-9]"
assert_ok smcctl -j device show lo
json_true "$out" '.smcd[0].in_use and .smcd[0].connections > 0' "lo carries traffic"
kill $lo 2>/dev/null
wait $lo 2>/dev/null
assert_ok smcctl -j stats
json_true "$out" '.smcd.connections > 0 and .smcd.rx.bytes > 0 and .smcd.tx.bytes > 0' "SMC-D stats count the bytes"
assert_ok smcctl stats -d
assert_match "$out" "^SMC-D$"

# --- UEID table: every refusal in one line ----------------------------------------------
assert_ok smcctl ueid add SMCCTL-TWO
run smcctl ueid add SMCCTL-TWO
assert_eq 1 "$rc" "duplicate UEID"
assert_contains "$out" "smcctl: cannot add UEID SMCCTL-TWO: "
assert_ok smcctl ueid add SMCCTL-THREE
assert_ok smcctl ueid add SMCCTL-FOUR
run smcctl ueid add SMCCTL-FIVE
assert_eq 1 "$rc" "UEID table full"
assert_contains "$out" "at most 4"
run smcctl ueid add lower-case
assert_eq 2 "$rc" "invalid UEID is a usage error"
assert_contains "$out" "did you mean 'LOWER-CASE'?"
run smcctl ueid del NOT-THERE
assert_eq 1 "$rc" "removing an unknown UEID"
assert_ok smcctl ueid del SMCCTL-TWO
assert_ok smcctl -j ueid
assert_json "$out" '.ueids | length' 3
assert_ok smcctl ueid flush
assert_ok smcctl ueid
assert_eq "" "$out" "ueid list after flush"

# --- SEID: only s390 has one ---------------------------------------------------------------
assert_ok smcctl seid
assert_contains "$out" "n/a"
run smcctl seid enable
assert_eq 1 "$rc" "seid enable off s390"
assert_contains "$out" "s390"
run smcctl seid disable
assert_eq 1 "$rc" "seid disable off s390"

# --- handshake limitation and sysctls ---------------------------------------------------
assert_ok smcctl hs-limit enable
assert_ok smcctl -j hs-limit
assert_json "$out" .enabled true
assert_eq 1 "$(cat /proc/sys/net/smc/limit_smc_hs)" "the sysctl follows"
assert_ok smcctl hs-limit disable
assert_ok smcctl hs-limit
assert_eq "Handshake limitation: disabled" "$out"
assert_ok smcctl sysctl
assert_match "$out" "^wmem +65536 +bytes +65536"
assert_ok smcctl sysctl set wmem 131072
assert_eq 131072 "$(cat /proc/sys/net/smc/wmem)" "sysctl set"
assert_ok smcctl -j sysctl show net.smc.wmem
assert_json "$out" '.sysctls[0].value' 131072
assert_ok smcctl sysctl set wmem 65536
assert_ok smcctl sysctl set smcr_buf_type mixed
assert_eq 2 "$(cat /proc/sys/net/smc/smcr_buf_type)" "enum by name"
assert_ok smcctl sysctl set smcr_buf_type 0
run smcctl sysctl set wmem 1
assert_eq 2 "$rc" "out of range is a usage error"

# --- PNET table ------------------------------------------------------------------------------
assert_ok smcctl pnet flush
assert_ok smcctl pnet add net1 --eth lo
assert_ok smcctl -j pnet
assert_json "$out" '.pnet[0].pnetid + " " + .pnet[0].eth' "NET1 lo"
run smcctl pnet add NET1 --eth lo
assert_eq 1 "$rc" "duplicate PNET entry"
assert_ok smcctl pnet add NOLO --ib lo
assert_ok smcctl info
assert_contains "$out" "the loopback device has PNET ID NOLO (run smcctl pnet del NOLO)"
assert_ok smcctl pnet del NOLO
assert_ok smcctl pnet del net1
run smcctl pnet del NET1
assert_eq 1 "$rc" "removing a missing PNET ID"
assert_ok smcctl pnet flush
assert_ok smcctl pnet
assert_eq "PNET table: empty" "$out"

# --- without CAP_NET_ADMIN ---------------------------------------------------------------
# busybox su as root needs no password; nobody is in the guest's /etc/passwd.
smcctl=$(command -v smcctl)
run su -s /bin/sh -c "$smcctl ueid add SMCCTL-NOPRIV" nobody
assert_eq 4 "$rc" "unprivileged ueid add"
assert_contains "$out" "CAP_NET_ADMIN"
assert_not_contains "$out" "Success"
run su -s /bin/sh -c "$smcctl -j linkgroup" nobody
assert_eq 0 "$rc" "reading needs no privilege"
run su -s /bin/sh -c "$smcctl sysctl set wmem 131072" nobody
assert_eq 4 "$rc" "unprivileged sysctl set"
exit 0
