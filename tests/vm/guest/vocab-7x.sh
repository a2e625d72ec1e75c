#!/bin/sh
# lanes: 7x
# timeout: 600
#
# One vocabulary in smcctl's JSON (smcctl(8) JSON OUTPUT): every verb smcctl has, taken from
# smcctl itself (__complete), so a verb added later is run too, answers -j with one JSON
# document that jq lints:
#   1. keys are snake_case;
#   2. no key names a unit other than _usec (times) and _bytes (sizes): no _s, _ms, _ns,
#      _sec, _secs, _seconds, _kb, _kib, _mb;
#   3. the values of *_usec and *_bytes keys are integers (or null: no value, as anywhere);
#   4. a key that is a boolean in any document is null in none;
#   5. every capability key (info's and the agent's) is one of common/smc-caps-names.c;
#   6. every link group id is the kernel's 8 hex digits, as the text and D-Bus paths show it;
#   7. a verb that fails prints one JSON document, {"error":{"message":...,"exit_status":N}},
#      N its exit status.
# The agent runs (as in agent-7x.sh) and SMC-D connections are open, so the agent's verbs
# and the link groups answer with something to lint.
# Host programs: dbus-daemon, busctl and jq.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl smc-conn dbus-daemon busctl jq

# common/smc-caps-names.c's keys (the table test-common-caps-names holds unique and
# snake_case); info -j and the agent's Capabilities must use these and no other spelling.
CAPS="smc_module smc_gen_netlink smc_pnetid smc_diag af_smc ipproto_smc dibs loopback smcd_v2 smcr_v2 seid_supported"
# and the facts the agent's Capabilities carries beside them (named as info -j names them)
FACTS="kernel_release smc_version smc_release"
# Verbs with no JSON answer of their own: run's output is the command's.  monitor follows
# until it is stopped: its stream (start_monitor, one document per event) is linted below.
NO_JSON="run:exec monitor:events"

D=/tmp/vocab
mkdir -p $D /etc/smc
start_system_bus
cat >/etc/smc/smc.yaml <<'EOF'
ueid: {auto: true}
sysctl:
  wmem: 1MiB
modules: [smc, smc_diag]
drift: {action: repair, interval: 2s}
monitor: {interval: 1s}
stats: {interval: 1s}
EOF
start_agent
start_monitor $D/monitor.json

smc-conn pair --conns 2 --bytes 1M --hold 3600 >/tmp/conn.log 2>&1 &
conn=$!
wait_conns /tmp/conn.log 2
busctl call $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER Refresh >/dev/null

# What a verb is given so that it answers rather than refuses (a refusal is linted too);
# verbs not named here run without arguments.
args_for() {
	case "$1:$2" in
	ueid:add | ueid:del) echo VOCAB-TEST-UEID ;;
	device:show) echo lo ;;
	linkgroup:show) echo all ;;
	pnet:add) echo VOCAB --eth lo ;;
	pnet:del) echo VOCAB ;;
	sysctl:set) echo wmem "$(cat /proc/sys/net/smc/wmem)" ;;
	check:connection) echo --timeout 30 ;;
	assess:observe) echo -t 1 ;;
	enable:unit) echo vocab.service --cgroup /vocab.slice ;;
	disable:unit) echo vocab.service ;;
	# the autopilot is off here (no auto: above): they answer with its error document
	auto:explain | auto:freeze | auto:thaw | auto:forget) echo vocab.service ;;
	support-bundle:create) echo -o $D/bundle.tar.gz ;;
	esac
}

n=0
for o in $(smcctl __complete ""); do
	[ "$o" = help ] && continue
	for v in $(smcctl __complete "$o" ""); do
		case "$v" in help | @*) continue ;; esac
		case " $NO_JSON " in *" $o:$v "*) continue ;; esac
		n=$((n + 1))
		# shellcheck disable=SC2046
		# (timeout: a hang guard only, so that a verb that never ends is named)
		timeout 120 smcctl -j "$o" "$v" $(args_for "$o" "$v") >$D/$n.json 2>$D/$n.err && rc=0 || rc=$?
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 143 ]; then
			fail "smcctl -j $o $v did not end within 120 s"
		fi
		echo "$o $v $rc" >$D/$n.cmd
		info "smcctl -j $o $v $(args_for "$o" "$v"): exit $rc"
	done
done
[ $n -gt 30 ] || fail "only $n verbs from smcctl __complete"

# Failures on purpose: a bad argument, a bad file for the agent, an unknown object, and the
# agent's verbs once it has stopped.
fails() {
	n=$((n + 1))
	smcctl -j "$@" >$D/$n.json 2>$D/$n.err && rc=0 || rc=$?
	echo "$* $rc" >$D/$n.cmd
	echo "$rc" >$D/$n.fail
	info "smcctl -j $*: exit $rc (must fail)"
}
fails linkgroup show nonsense
fails sysctl set wmem 1
fails socket --nonsense
fails nonsense
fails run
cp /etc/smc/smc.yaml $D/good.yaml
printf 'sysctl:\n  wmem: 4KiB\n' >/etc/smc/smc.yaml
fails config reload
cp $D/good.yaml /etc/smc/smc.yaml

kill -USR1 $conn
wait $conn
kill $agent
wait $agent
stop_monitor $D/monitor.json
fails status
fails stats reset
fails policy list

# Every answer is one JSON document (the monitor's, one per line); a verb that failed
# printed {"error":...} with its exit status (rule 7).  Every problem is collected, and the
# test fails once with the whole list.
bad=
problem() { bad="$bad
7 $*"; }
: >$D/all.jsonl
i=0
while [ $i -lt $n ]; do
	i=$((i + 1))
	cmd=$(cat $D/$i.cmd)
	rc=${cmd##* }
	if ! docs=$(jq -s length $D/$i.json 2>&1); then
		problem "smcctl -j ${cmd% *}: not JSON: $(head -c 200 $D/$i.json)"
		continue
	fi
	cat $D/$i.json >>$D/all.jsonl
	if [ "$docs" != 1 ]; then
		problem "smcctl -j ${cmd% *} (exit $rc): $docs documents, expected one; stderr: $(head -c 200 $D/$i.err)"
	elif [ ! -e $D/$i.fail ] && [ "$rc" -eq 2 ]; then
		# a usage error where the verb should have run: args_for() is out of date
		problem "smcctl -j ${cmd% *}: a usage error, the test's arguments are wrong: $(head -c 200 $D/$i.err)"
	elif [ -e $D/$i.fail ] && [ "$rc" -eq 0 ]; then
		problem "smcctl -j ${cmd% *} succeeded, expected a failure"
	elif [ "$rc" -ne 0 ] && jq -e 'has("error")' $D/$i.json >/dev/null; then
		[ "$(jq -c '[(.error.message | type), .error.exit_status]' $D/$i.json)" = "[\"string\",$rc]" ] ||
			problem "smcctl -j ${cmd% *}: exit $rc but $(cat $D/$i.json)"
		grep -qF "smcctl: $(jq -r .error.message $D/$i.json)" $D/$i.err ||
			problem "smcctl -j ${cmd% *}: the message is not the one on stderr: $(cat $D/$i.err)"
	elif [ -e $D/$i.fail ]; then
		problem "smcctl -j ${cmd% *} failed ($rc) without an error document: $(head -c 200 $D/$i.json)"
	fi
done
mon_docs=$(jq -s length $D/monitor.json) || fail "monitor -j: not JSON lines: $(cat $D/monitor.json)"
[ "$mon_docs" -gt 2 ] || fail "monitor -j printed $mon_docs events: $(cat $D/monitor.json)"
assert_contains "$(cat $D/monitor.json)" '"event":"linkgroup-' "the monitor saw a link group"
cat $D/monitor.json >>$D/all.jsonl

# The lint, over every document at once (rule 4 is across documents).
lint() {
	jq -rs --arg caps "$CAPS $FACTS" '
		def keys_in: [paths as $p | $p[-1] | strings] | unique;
		def units: test("_(s|ms|ns|sec|secs|seconds|kb|kib|mb)$");
		(map(keys_in) | add | unique) as $keys
		| ([.[] | paths(type == "boolean") as $p | $p[-1] | strings] | unique) as $bools
		| ($caps | split(" ")) as $known
		| (map(.. | objects | .capabilities? // empty | objects | keys[]) | unique) as $capkeys
		| [($keys[] | select(test("^[a-z][a-z0-9]*(_[a-z0-9]+)*$") | not) | "1 not snake_case: \(.)"),
		   ($keys[] | select(units) | "2 unit suffix: \(.)"),
		   (.[] | paths as $p | select(($p[-1] | strings | test("_(usec|bytes)$")) // false)
			| getpath($p) as $v
			| select(if ($v | type) == "number" then $v != ($v | floor) else $v != null end)
			| "3 not an integer: \($p | map(tostring) | join(".")) = \($v)"),
		   (.[] | paths(. == null) as $p | select(($p[-1] | strings) as $k | any($bools[]; . == $k))
			| "4 null where a boolean is meant: \($p | map(tostring) | join("."))"),
		   ($capkeys[] | select(. as $k | any($known[]; . == $k) | not)
			| "5 unknown capability: \(.)"),
		   (.[] | path(.. | objects) as $p | getpath($p) | select(has("id") and has("conns"))
			| select(($p | map(strings) | last) != "links")
			| select(.id | type != "string" or (test("^[0-9a-f]{8}$") | not))
			| "6 link group id: \(.id)"),
		   (.[] | .. | objects | .linkgroup_id? // empty
			| select(type != "string" or (test("^[0-9a-f]{8}$") | not))
			| "6 linkgroup_id: \(.)")] | unique | .[]' "$1"
}
problems=$(lint $D/all.jsonl) || fail "jq could not lint: $problems"
problems="$problems$bad"
[ -z "$problems" ] || fail "the JSON vocabulary (smcctl(8) JSON OUTPUT):
$problems"
# The rules themselves can fail: a document that breaks each one is caught.
printf '%s\n' '{"fooBar":1,"a_ms":2,"b_usec":1.5,"f":true,"capabilities":{"af-smc":true},"id":257,"conns":0}' \
	'{"f":null}' >$D/bad.jsonl
bad=$(lint $D/bad.jsonl)
for rule in 1 2 3 4 5 6; do
	assert_contains "$bad" "$rule " "the lint's rule $rule catches its case"
done
info "$n documents linted"
# The agent's Capabilities (status -j) name every capability of the table, info -j those the
# kernel is probed for: both in the table's one spelling (rule 5 above).
caps_of() {
	for f in $D/*.cmd; do
		grep -q "^$1 show 0\$" "$f" && jq -r '.capabilities | keys[]' "${f%.cmd}.json"
	done | sort | tr '\n' ' '
}
assert_eq "$(echo $CAPS $FACTS | tr ' ' '\n' | sort | tr '\n' ' ')" "$(caps_of status)" \
	"the agent's Capabilities: every key of the table"
# info shows the table's first eight rows (the rest come from the system information)
assert_eq "$(echo $CAPS | tr ' ' '\n' | head -n 8 | sort | tr '\n' ' ')" "$(caps_of info)" \
	"info -j's capabilities: the table's info rows"
exit 0
