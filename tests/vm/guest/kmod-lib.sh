# Helpers for the kmod guest tests (busybox sh).  Not a test: it has no "lanes:" header.
# The tests find it, the module and the tools anywhere in the guest, because vm-run copies
# --host-file paths verbatim; kmod/vm-test passes all of them.
#
# Until netlink/ and smcctl grow the SMC_LO client, the tests drive the family with the
# test-only tests/tools/smclo-ctl; they switch to `smcctl device loopback-ism ...` then.

# The module under test; the proof build (kmod-vdmb-proof.sh) lives in a *vdmb* folder.
KMOD_KO=${KMOD_KO:-$(find / -xdev -name smc_lo.ko ! -path '*vdmb*' 2>/dev/null | head -n 1)}
KMOD_UEID=SMCLO-TEST-UEID
KMOD_LO_PNETID=LOEXCL

kmod_require() {
	[ -n "$KMOD_KO" ] || skip "smc_lo.ko is not in the guest (run the kmod tests with kmod/vm-test)"
	require_cmd smclo-ctl
	require_cmd smclo-xfer
	[ -d /sys/class/dibs ] || skip "no DIBS in this kernel"
}

# kmod_load [PARAM=VALUE...]
kmod_load() {
	insmod "$KMOD_KO" "$@" || fail "insmod $KMOD_KO $* failed"
	info "loaded $(basename "$KMOD_KO") $*"
}

kmod_unload() {
	rmmod smc_lo || fail "rmmod smc_lo failed: $(lsmod | grep smc_lo)"
}

kmod_get() {
	smclo-ctl get "$1"
}

# kmod_wait_state STATE [SECONDS]
kmod_wait_state() {
	smclo-ctl wait "$1" "${2:-30}" >/dev/null ||
		fail "device did not reach state $1 within ${2:-30} s: $(smclo-ctl get | tr '\n' ' ')"
}

# A UEID (SMC-Dv2 needs one on x86) and a PNET ID on the built-in "lo", which makes it
# ineligible for SMC-Dv2 proposals on x86, so that our device carries the traffic.
kmod_smc_setup() {
	smclo-ctl ueid-add "$KMOD_UEID" || fail "adding UEID $KMOD_UEID failed"
	if [ "${1:-}" != keep-lo ]; then
		smclo-ctl pnet-add "$KMOD_LO_PNETID" lo || fail "pnet-add $KMOD_LO_PNETID lo failed"
	fi
}

# The GID of a DIBS device as 32 hex digits (sysfs prints a UUID).
kmod_sysfs_gid() {
	tr -d -- '-\n' <"/sys/class/dibs/$1/gid"
}

# kmod_lgr_gids: the local GIDs of all SMC-D link groups, one per line (32 hex digits).
kmod_lgr_gids() {
	smclo-ctl lgrs | awk '{ print $2 }'
}

# kmod_counter NAME: one counter of the device
kmod_counter() {
	smclo-ctl get "$1"
}

# Fail on any kernel splat since boot (the harness checks too; this names the step).
kmod_check_dmesg() {
	_bad=$(dmesg | grep -E 'BUG:|WARNING:|KASAN|suspected memory leak|Oops|general protection|possible circular locking|inconsistent lock state|possible recursive locking|sleeping function called|blocked for more than|refcount_t:|list_(add|del) corruption' || true)
	[ -z "$_bad" ] && return 0
	dmesg | tail -n 80 >&2
	fail "kernel reported a problem ${1:+($1)}: $_bad"
}

# In the debug lane: ask kmemleak for a scan and fail on anything it reports.
kmod_check_leaks() {
	_kml=/sys/kernel/debug/kmemleak
	[ -w $_kml ] || return 0
	# kmemleak reports objects only once they are older than its minimum age (5 s).
	sleep 6
	echo scan >$_kml
	echo scan >$_kml
	_leaks=$(cat $_kml)
	[ -z "$_leaks" ] && { info "kmemleak: no leaks"; return 0; }
	printf '%s\n' "$_leaks" | head -n 60 >&2
	fail "kmemleak reports leaks"
}

# kmod_watchdog SECONDS: if the test is still running then, dump the blocked tasks and the
# kernel log to the console (vm-run shows its tail), so a hang names its culprit.  Its
# output never goes to the test's stdout: vm-run would wait for the sleep to end.
kmod_watchdog() {
	(
		sleep "$1"
		echo "kmod_watchdog: test still running after $1 s; blocked tasks:" >/dev/console
		echo w >/proc/sysrq-trigger 2>/dev/null
		echo t >/proc/sysrq-trigger 2>/dev/null
		for _t in /proc/[0-9]*/task/[0-9]*; do
			read -r _c <"$_t/comm" 2>/dev/null || continue
			case $_c in smclo* | sh) ;; *) continue ;; esac
			echo "kmod_watchdog: $_t $_c $(cut -d' ' -f3 "$_t/stat") $(cat "$_t/wchan" 2>/dev/null)" >/dev/console
			cat "$_t/stack" >/dev/console 2>/dev/null
		done
		smclo-ctl socks >/dev/console 2>&1
		smclo-ctl get >/dev/console 2>&1
		dmesg | awk '/task:(smclo|kworker)/ { p = 1 } /task:/ && !/task:(smclo|kworker)/ { p = 0 } p' |
			tail -n 300 >/dev/console
	) </dev/null >/dev/null 2>&1 &
	KMOD_WATCHDOG=$!
}
