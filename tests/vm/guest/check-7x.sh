#!/bin/sh
# lanes: 7x
# timeout: 420
#
# smcctl check on the real kernel, seed 001's first situation: without a UEID the loopback
# check reports the TCP fallback with reason NOUEID and the command that fixes it (exit 1);
# after that command it reports SMC-D through the DIBS loopback device lo (exit 0), with
# the link group's version and EID; with -n NAME the same inside a named network namespace
# (lo down there: said; lo up: SMC-D through lo, the report naming the namespace).  Then
# `smcctl check --listen` in one network namespace
# answers `smcctl check HOST PORT` from another over veth, as SMC-R over soft-RoCE
# (lib-smcr.sh), both ends saying so; a client that trickles one byte a second holds one of
# the server's slots, never the others, and is cut at its deadline (issue 35).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-smcr.sh"
require_cmd smcctl smc-conn jq

info "kernel $(uname -r)"

# --- no UEID: TCP fallback, NOUEID, the fix ---------------------------------------------
assert_ok smcctl ueid flush
run smcctl check
assert_eq 1 "$rc" "smcctl check without a UEID exits 1"
assert_contains "$out" "Result:  TCP fallback"
assert_contains "$out" "NOUEID (the peer sent no UEID)"
assert_contains "$out" "smcctl ueid derive --apply"
run smcctl -j check
assert_eq 1 "$rc" "smcctl -j check without a UEID exits 1"
doc=$out
assert_json "$doc" .smc false "not SMC"
assert_json "$doc" .mode TCP "mode"
assert_json "$doc" .check loopback "kind"
assert_json "$doc" .protocol IPPROTO_SMC "7.3 has IPPROTO_SMC"
assert_json "$doc" .cause NOUEID "the cause"
assert_json "$doc" .fallback.server.name NOUEID "the server's reason"
assert_json "$doc" .fallback.client.name PEERDECL "the client's reason: the peer declined"
assert_json "$doc" .fallback.peer_diagnosis.name NOUEID "the peer's diagnosis"
assert_json "$doc" '.advice | contains("smcctl ueid derive --apply")' true "the fix"
assert_json "$doc" .socket.mode TCP "the client socket as smcctl socket shows it"
assert_json "$doc" .bytes 4096 "data moved"

# --- the fix: SMC-D through lo -------------------------------------------------------------
assert_ok smcctl ueid derive --apply
ueid=$(smcctl -j ueid | jq -r '.ueids[0]')
assert_ok smcctl check
assert_contains "$out" "Result:  SMC-D through lo"
assert_contains "$out" "Version: SMC v2, EID $ueid"
assert_ok smcctl -j check
doc=$out
assert_json "$doc" .smc true "SMC"
assert_json "$doc" .mode SMCD "mode"
assert_json "$doc" .device lo "the DIBS loopback device"
assert_json "$doc" .version 2 "SMC-Dv2"
assert_json "$doc" .eid "$ueid" "negotiated EID"
assert_json "$doc" 'has("fallback")' false "no fallback"
assert_json "$doc" .server_socket.mode SMCD "the server's end"

# --- -n NAME: the check inside a named network namespace -----------------------------------
# Its own lo, sysctls and sockets; the DIBS loopback device serves every namespace.  lo is
# down in a new namespace (no 127.0.0.1): the check says so instead of reporting a fallback.
assert_ok $SMCR_IP netns add chk-ns
run smcctl -n chk-ns check
assert_eq 1 "$rc" "smcctl -n chk-ns check with lo down exits 1"
assert_contains "$out" "cannot listen on 127.0.0.1 for the check: "
assert_contains "$out" "(is lo up?)"
assert_ok $SMCR_IP -n chk-ns link set lo up
assert_ok smcctl -n chk-ns check
assert_contains "$out" "over IPPROTO_SMC in network namespace chk-ns"
assert_contains "$out" "Result:  SMC-D through lo"
assert_contains "$out" "Version: SMC v2, EID $ueid"
assert_ok smcctl -n chk-ns -j check
doc=$out
assert_json "$doc" .netns chk-ns "the report names the namespace"
assert_json "$doc" .mode SMCD "SMC-D in the namespace"
assert_json "$doc" .device lo "through the DIBS loopback device"
assert_json "$doc" .server_socket.mode SMCD "the server's end, read from the namespace's smc_diag"
run smcctl -j check
assert_json "$out" 'has("netns")' false "without -n the report names no namespace"
# The check's sockets were the namespace's: its statistics counted the handshakes, and the
# sockets were found by inode in its smc_diag (above); without -n they are the host's.
assert_ok smcctl -n chk-ns -j stats --kernel
assert_json "$out" '.summary.smcd >= 2' true "the two checks in chk-ns' own counters"
assert_ok $SMCR_IP netns del chk-ns

# --- bad input: usage errors, nothing half done ----------------------------------------------
run smcctl check 198.18.0.1
assert_eq 2 "$rc" "HOST without PORT"
run smcctl check 127.0.0.1 1 --timeout 5
assert_eq 1 "$rc" "nothing listens on port 1"
assert_contains "$out" "cannot connect to 127.0.0.1 port 1"

# --- across network namespaces: SMC-R over soft-RoCE ------------------------------------
smcr_topology
assert_ok smcctl pnet add $SMCR_LO_PNETID --ib lo  # lo out of SMC-Dv2 (lib-smcr.sh says why)
smcctl -n $SMCR_NS_A -j check --listen 6000 --address $SMCR_ADDR_A --count 1 >/tmp/srv.json 2>/tmp/srv.err &
srv=$!
wait_until 30 "the check server listens" grep -q "answering SMC checks on $SMCR_ADDR_A port 6000" /tmp/srv.err
run smcctl -n $SMCR_NS_B check $SMCR_ADDR_A 6000
assert_eq 0 "$rc" "the remote check used SMC"
assert_match "$out" "Result:  SMC-R through rxe[01] port 1"
# the server answered one check (--count 1) and ended: a second one is refused
wait $srv || fail "the check server exited with $?: $(cat /tmp/srv.err)"
run smcctl -n $SMCR_NS_B -j check --timeout 30 $SMCR_ADDR_A 6000
assert_eq 1 "$rc" "a second check after --count 1"
assert_contains "$out" "cannot connect to $SMCR_ADDR_A port 6000"
line=$(head -n 1 /tmp/srv.json)
assert_json "$line" .check server "the server's report"
assert_json "$line" .mode SMCR "the server saw SMC-R"
assert_json "$line" '.device | test("^rxe[01]$")' true "the server's RDMA device"
assert_json "$line" .version 2 "SMC-Rv2"
assert_json "$line" .peer.address $SMCR_ADDR_B "the client's address"
assert_eq 1 "$(wc -l </tmp/srv.json)" "one report per check"

# --- a slow client (issue 35): one slot and --timeout seconds, never the server -------------
# The server used to serve one check at a time and restart --timeout at every byte: a
# client sending one byte a second held it for 4096 x --timeout while every other check
# timed out.  Now an honest check is answered beside the slow one (the server's --timeout
# is long, so that only concurrency can answer it; the client's own is the default 10 s) ...
smcctl -n $SMCR_NS_A check --listen 6002 --address $SMCR_ADDR_A --timeout 600 >/tmp/srv3.out 2>/tmp/srv3.err &
srv=$!
wait_until 30 "the check server listens" grep -q "answering SMC checks on $SMCR_ADDR_A port 6002" /tmp/srv3.err
$SMCR_IP netns exec $SMCR_NS_B smc-conn trickle --proto tcp --addr $SMCR_ADDR_A --port 6002 >/tmp/slow.out 2>&1 &
slow=$!
wait_until 30 "the slow client connected" grep -q '"trickle":"connected"' /tmp/slow.out
run smcctl -n $SMCR_NS_B check $SMCR_ADDR_A 6002
assert_eq 0 "$rc" "an honest check is answered while a slow client holds a slot"
assert_match "$out" "Result:  SMC-R through rxe[01] port 1"
wait_until 30 "the server reported the honest check" grep -q "SMC check (server)" /tmp/srv3.out
grep -q '"cut"' /tmp/slow.out && fail "the slow client was cut before its --timeout: $(cat /tmp/srv3.err)"
kill -TERM $srv
wait $srv || fail "the check server exited with $? on SIGTERM: $(cat /tmp/srv3.err)"
wait_until 30 "the slow client sees the server's end" grep -q '"trickle":"cut"' /tmp/slow.out
wait $slow
# ... and the slow one is cut at its deadline, from its accept, however its bytes trickle in.
smcctl -n $SMCR_NS_A check --listen 6003 --address $SMCR_ADDR_A --timeout 3 --count 1 >/tmp/srv4.out 2>/tmp/srv4.err &
srv=$!
wait_until 30 "the check server listens" grep -q "answering SMC checks on $SMCR_ADDR_A port 6003" /tmp/srv4.err
$SMCR_IP netns exec $SMCR_NS_B smc-conn trickle --proto tcp --addr $SMCR_ADDR_A --port 6003 >/tmp/slow.out 2>&1 &
slow=$!
wait_until 120 "the slow client is cut" grep -q '"trickle":"cut"' /tmp/slow.out
wait $slow
wait $srv || fail "the check server (--count 1) exited with $?: $(cat /tmp/srv4.err)"
assert_match "$(cat /tmp/srv4.err)" "the check from $SMCR_ADDR_B port [0-9]* was not completed: cut after 3 s \(--timeout\): it sent [0-9]* of 4096 bytes"
sent=$(sed -n 's/.*"sent":\([0-9]*\).*/\1/p' /tmp/slow.out)
[ "$sent" -lt 4096 ] || fail "the slow client sent all its bytes ($sent)"
assert_eq "" "$(cat /tmp/srv4.out)" "no report for a check that was cut"

# A fallback across namespaces: without a UEID the client has nothing to propose (lo has
# a PNET ID, SMC-Rv2 needs a UEID) and says so itself, before any CLC message.
assert_ok smcctl ueid flush
smcctl -n $SMCR_NS_A -j check --listen 6001 --address $SMCR_ADDR_A --count 1 >/tmp/srv2.json 2>/tmp/srv2.err &
srv=$!
wait_until 30 "the check server listens" grep -q "answering SMC checks on $SMCR_ADDR_A port 6001" /tmp/srv2.err
run smcctl -n $SMCR_NS_B -j check $SMCR_ADDR_A 6001
assert_eq 1 "$rc" "the remote check fell back"
assert_json "$out" .fallback.client.name NOSMCDEV "the client found no SMC device"
assert_json "$out" '.fallback | has("server")' false "a remote check has no server socket"
assert_json "$out" .cause NOSMCDEV "the cause"
assert_json "$out" '.advice | contains("UEID")' true "the advice names the UEID"
wait $srv || fail "the second check server exited with $?"
assert_json "$(head -n 1 /tmp/srv2.json)" .mode TCP "the server saw the fallback"
exit 0
