#!/bin/sh
# lanes: 61
# timeout: 300
#
# smcctl check on Debian 12's own kernel (6.1): no IPPROTO_SMC, so the check's sockets are
# AF_SMC ones, and it says so; no SMC-D device and no RDMA device, so the connection falls
# back to TCP: the client's reason is NOSMCDEV (no usable SMC device), the server's PEERDECL
# with that diagnosis, the cause NOSMCDEV with its advice, exit status 1; a UEID does not
# change that (the device is what is missing, not the UEID).  The same through
# `smcctl check --listen` and `smcctl check HOST PORT` over AF_SMC.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl jq

info "kernel $(uname -r)"
assert_ok smcctl ueid flush

# --- loopback: AF_SMC, TCP fallback, NOSMCDEV -------------------------------------------------
run smcctl check
assert_eq 1 "$rc" "smcctl check on 6.1 exits 1 (fallback)"
assert_contains "$out" "over AF_SMC"
assert_contains "$out" "Result:  TCP fallback"
assert_contains "$out" "Client:  NOSMCDEV (no usable SMC device (SMC-R or SMC-D) found)"
assert_contains "$out" "Server:  PEERDECL"
assert_contains "$out" "Fix:     check 'smcctl device' on both hosts"
assert_not_contains "$out" "NOUEID"
run smcctl -j check
assert_eq 1 "$rc" "smcctl -j check on 6.1 exits 1"
doc=$out
assert_json "$doc" .protocol AF_SMC "6.1 has no IPPROTO_SMC: the check used AF_SMC"
assert_json "$doc" .check loopback "kind"
assert_json "$doc" .smc false "not SMC"
assert_json "$doc" .mode TCP "mode"
assert_json "$doc" .fallback.client.name NOSMCDEV "the client found no SMC device"
assert_json "$doc" .fallback.client.code 0x03030000 "its code"
assert_json "$doc" .fallback.server.name PEERDECL "the server: the client declined"
assert_json "$doc" .cause NOSMCDEV "the cause"
assert_json "$doc" '.advice | contains("smcctl device")' true "the advice"
assert_json "$doc" .socket.protocol AF_SMC "the client socket as smcctl socket shows it"
assert_json "$doc" .socket.mode TCP "fallen back"
assert_json "$doc" .server_socket.fallback.reason.name PEERDECL "the server's end"
assert_json "$doc" .server_socket.fallback.peer_diagnosis.name NOSMCDEV "with the client's diagnosis"
assert_json "$doc" .bytes 4096 "data moved"

# A UEID is not what is missing here: still NOSMCDEV.
assert_ok smcctl ueid derive --apply
run smcctl -j check
assert_eq 1 "$rc" "with a UEID: still exit 1"
assert_json "$out" .cause NOSMCDEV "with a UEID the cause is still the missing device"
assert_ok smcctl ueid flush

# --- --listen and HOST PORT, both over AF_SMC ---------------------------------------------------
smcctl -j check --listen 6100 --address 127.0.0.1 --count 1 >/tmp/srv.json 2>/tmp/srv.err &
srv=$!
wait_until 30 "the check server listens" grep -q "answering SMC checks on 127.0.0.1 port 6100 over AF_SMC" /tmp/srv.err
run smcctl -j check 127.0.0.1 6100
assert_eq 1 "$rc" "the client's check on 6.1 falls back"
assert_json "$out" .check client "a client's report"
assert_json "$out" .protocol AF_SMC "the client used AF_SMC"
assert_json "$out" .fallback.client.name NOSMCDEV "the client's reason"
assert_json "$out" '.fallback | has("server")' false "a remote check has no server socket"
wait $srv || fail "the check server exited with $?: $(cat /tmp/srv.err)"
line=$(head -n 1 /tmp/srv.json)
assert_json "$line" .check server "the server's report"
assert_json "$line" .protocol AF_SMC "the server used AF_SMC"
assert_json "$line" .mode TCP "the server saw the fallback"
exit 0
