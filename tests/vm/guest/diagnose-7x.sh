#!/bin/sh
# lanes: 7x
# timeout: 300
#
# Diagnosis per application on the real kernel: smcctl socket -p names the process that
# holds each SMC socket, its command, its cgroup and the systemd unit of that cgroup, from
# the real /proc (common/owner.c); an unprivileged caller is told which processes it could
# not inspect rather than shown sockets without owners as if nobody held them.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn jq
CG=/sys/fs/cgroup
APP=/smcd-test.slice/conn-app.service

info "kernel $(uname -r)"
assert_ok smcctl ueid derive --apply
mkdir -p "$CG$APP"

# Two SMC-D connections of one program (both ends in one process: smc-conn pair), held
# open while we look (until killed below); the unit is a cgroup named as systemd names a
# service's.
(exec_in_cgroup $APP smc-conn pair --proto smc --conns 2 --bytes 64K --hold 3600) >/tmp/pair.out 2>&1 &
app=$!
wait_conns /tmp/pair.out 2
assert_eq 2 "$(grep -c '"mode":"smcd"' /tmp/pair.out)" "both connections are SMC-D"

# --- JSON: every end of both connections names smc-conn, its pid, cgroup and unit --------
assert_ok smcctl -j socket -p
doc=$out
mine=".sockets[] | select(any(.processes[]; .pid == $app))"
assert_eq 4 "$(json_get "$doc" "[$mine] | length")" "the 4 sockets of the pair name its pid"
assert_json "$doc" "[$mine | .processes[0].command] | unique | join(\",\")" smc-conn "command"
assert_json "$doc" "[$mine | .processes[0].unit] | unique | join(\",\")" conn-app.service "unit"
assert_json "$doc" "[$mine | .processes[0].cgroup] | unique | join(\",\")" "$APP" "cgroup"
assert_json "$doc" "[$mine | .processes[0].user_unit] | unique | join(\",\")" "" "no user unit"
assert_json "$doc" "[$mine | .mode] | unique | join(\",\")" SMCD "the sockets are SMC-D"
# the fd is one of smc-conn's own descriptors for that socket
fd=$(json_get "$doc" "[$mine][0].processes[0].fd")
ino=$(json_get "$doc" "[$mine][0].inode")
assert_eq "socket:[$ino]" "$(readlink /proc/$app/fd/$fd)" "fd $fd of $app is socket $ino"
assert_json "$doc" .process_scan.unreadable 0 "root reads every process"
# without -p: no process lookup, no keys
assert_ok smcctl -j socket
assert_json "$out" '[.sockets[] | has("processes")] | any' false "no processes without -p"
assert_json "$out" 'has("process_scan")' false "no process_scan without -p"

# --- text: the Process and Unit columns ---------------------------------------------------
assert_ok smcctl socket -p
assert_match "$out" "Process +Unit"
assert_match "$out" "smc-conn/$app +conn-app.service"
assert_ok smcctl socket --processes -d
assert_match "$out" "smc-conn/$app +conn-app.service"
# pretty JSON is --pretty (--json=pretty); -p is --processes only, no option before the object
assert_ok smcctl --pretty socket
assert_contains "$out" '"sockets": ['
assert_not_contains "$out" '"processes"'
run smcctl -p socket
assert_eq 2 "$rc" "smcctl -p socket: a usage error"

# --- unprivileged: root's processes cannot be inspected, and the text says so -------------
smcctl=$(command -v smcctl)
run su -s /bin/sh -c "$smcctl socket -p" nobody
assert_eq 0 "$rc" "smcctl socket -p as nobody"
assert_contains "$out" "could not be inspected: run as root"
assert_not_contains "$out" "smc-conn/$app"
run su -s /bin/sh -c "$smcctl -j socket -p" nobody
assert_eq 0 "$rc" "smcctl -j socket -p as nobody"
n=$(json_get "$out" .process_scan.unreadable)
[ "$n" -ge 1 ] || fail "process_scan.unreadable is $n as nobody, expected at least 1"

kill $app 2>/dev/null
wait $app 2>/dev/null
exit 0
