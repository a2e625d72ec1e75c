#!/bin/sh
# lanes: 612lo
#
# The README's quick start, walked exactly as written, under systemd on a kernel with SMC-D
# loopback (Debian 13's 6.12 with smc.ko rebuilt with CONFIG_SMC_LO=y, the 612lo lane),
# with the installed package and its shipped /etc/smc/smc.yaml, nothing configured by hand.
# The commands are the indented lines between README.md's markers
#   <!-- quick-start: ... -->  and  <!-- /quick-start -->
# (tests/pkg/systemd-lane copies README.md to /tests/README.md): each one, without its
# trailing "# comment", runs through sh -c, as root and as nobody (the README says neither
# sudo nor root), and must exit 0 and print every "double-quoted" text of its comment.
# Whatever the comments say, the promise holds too: the agent is active (running) with a
# STATUS=, `smcctl info` says "SMC-D loopback: ready" and `smcctl check` says "Result:  SMC-D
# through loopback-ism" (smc.ko's loopback device of 6.10-6.17).
. "$(dirname "$0")/lib.sh"
require_cmd smcctl systemctl busctl
readme=$(dirname "$0")/README.md
assert_exists "$readme" "the README shipped by tests/pkg/systemd-lane"
U=smcd-agent

info "boot: $SMCD_VM_BOOT_STATE after $(cut -d' ' -f1 /proc/uptime)s; kernel $SMCD_VM_KERNEL"
# "Once the agent runs": the unit is Type=notify and the agent sends READY=1 after its first
# reconcile (UEID, modules, sysctls applied), so "active" is the state the README means.
# The runner has waited for the boot's jobs already; this only says so if it was not so.
wait_until 120 "$U.service active" systemctl is-active --quiet $U
assert_eq 's "running"' "$(busctl get-property "$SMCD_BUS_NAME" "$SMCD_BUS_PATH" \
	"$SMCD_BUS_IFACE_MANAGER" State)" "the agent's State after its start"

# The block: one command per indented line, its comment after the first " #".
block=$(sed -n '/^<!-- quick-start[: ]/,/^<!-- \/quick-start -->/{/^<!--/d;/^[[:space:]]*$/d;p}' "$readme")
[ -n "$block" ] || fail "no quick-start block (<!-- quick-start: --> ... <!-- /quick-start -->) in README.md"
info "the quick start:"
printf '%s\n' "$block" | sed 's/^/#   /'

# walk_block WHO [PREFIX...]: run every line of $block through PREFIX sh -c, as WHO; the
# outputs are kept as /tmp/quickstart/WHO.N.out (the command in WHO.N.cmd).
walk_block() {
	who=$1
	shift
	n=0
	mkdir -p /tmp/quickstart
	printf '%s\n' "$block" >/tmp/quickstart/block
	while IFS= read -r line; do
		n=$((n + 1))
		cmd=$(printf '%s\n' "$line" | sed 's/[[:space:]]#.*$//; s/^[[:space:]]*//; s/[[:space:]]*$//')
		comment=$(printf '%s\n' "$line" | sed -n 's/^[^#]*[[:space:]]#//p')
		[ -n "$cmd" ] || fail "quick-start line $n has no command: '$line'"
		echo "$who\$ $cmd"
		out=$("$@" sh -c "$cmd" 2>&1 </dev/null) && rc=0 || rc=$?
		printf '%s\n' "$out" | sed 's/^/  /'
		printf '%s\n' "$out" >"/tmp/quickstart/$who.$n.out"
		printf '%s\n' "$cmd" >"/tmp/quickstart/$who.$n.cmd"
		[ "$rc" -eq 0 ] || fail "the README's quick start as $who: '$cmd' exited with $rc, expected 0"
		printf '%s\n' "$comment" | grep -o '"[^"]*"' | sed 's/^"//; s/"$//' >/tmp/quickstart/expect
		while IFS= read -r want; do
			assert_contains "$out" "$want" \
				"the README's quick start as $who: '$cmd' (its comment promises it)"
		done </tmp/quickstart/expect
	done </tmp/quickstart/block
}

# output_of WHO CMD: the output of the quick-start command CMD run as WHO; fails if the
# block lacks CMD.
output_of() {
	for f in /tmp/quickstart/"$1".*.cmd; do
		[ "$(cat "$f")" = "$2" ] && { cat "${f%.cmd}.out"; return 0; }
	done
	fail "the README's quick start no longer runs '$2' (it promises what it prints)"
}

# promises WHO: what the quick start promises whatever the README's comments say.  On
# 6.10-6.17 the loopback device is smc.ko's loopback-ism (6.18+: DIBS's "lo").
promises() {
	s=$(output_of "$1" "systemctl status $U") || exit 1
	assert_match "$s" '^ *Active: active \(running\)' "systemctl status $U as $1"
	assert_match "$s" '^ *Status: "running, ' "systemctl status $U as $1: the agent's STATUS="
	i=$(output_of "$1" "smcctl info") || exit 1
	assert_match "$i" '^ *SMC-D loopback: ready$' "smcctl info as $1"
	c=$(output_of "$1" "smcctl check") || exit 1
	assert_match "$c" '^ *Result:  SMC-D through loopback-ism$' "smcctl check as $1"
}

# The README says neither sudo nor root: as root (who installed the package) and as a user.
walk_block root
promises root
walk_block nobody setpriv --reuid=nobody --regid=nogroup --clear-groups
promises nobody
exit 0
