# Helpers for the kmod guest tests (busybox sh), sourced after lib.sh:
#   . "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/lib-kmod.sh"
# Not a test (no "lanes:" header); mkinitramfs puts every guest/lib*.sh next to the tests.
#
# The tests drive our module through the product: smcctl (device loopback-ism, device show,
# linkgroup, pnet, ueid, stats).  What smcctl deliberately cannot send - requests the module
# must refuse by its policies, and the raw "state" notifications - goes through
# tests/tools/smcnl-record (smclo-raw, smclo-set with out-of-range values, smclo-monitor),
# libsmcnl's recorder.
#
# The module: /kmod/smc_lo.ko (vm-run --kmod; make check's 7x lane and kmod/vm-test pass
# it), else any smc_lo.ko in the guest; the proof build (kmod-vdmb-proof.sh) lives in a
# *vdmb* folder.

if [ -z "${KMOD_KO:-}" ]; then
	if [ -f /kmod/smc_lo.ko ]; then
		KMOD_KO=/kmod/smc_lo.ko
	else
		KMOD_KO=$(find / -xdev -name smc_lo.ko ! -path '*vdmb*' 2>/dev/null | head -n 1)
	fi
fi
KMOD_UEID=SMCLO-TEST-UEID
# The PNET ID that takes SMC-Dv2 loopback away from "lo" (the agent's take-over-lo uses it).
KMOD_LO_PNETID=SMCDVIASMCLO

kmod_require() {
	[ -n "$KMOD_KO" ] || skip "smc_lo.ko is not in the guest (make check builds it; by hand: kmod/vm-test)"
	require_cmd smcctl smclo-xfer smcnl-record jq
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

# kmod_json: the device as smcctl -j device loopback-ism shows it
kmod_json() {
	smcctl -j device loopback-ism
}

# kmod_get KEY: one value of the device: state, gid (32 hex digits), generation, removing
# (0/1), pending (0/1), active_max_dmbs, active_nocopy (0/1), or a counter name
# (dmbs, registrations, moves, move_bytes, link_groups, ...).
kmod_get() {
	case $1 in
	state | generation) _f=".smc_lo.$1" ;;
	gid) _f='.smc_lo.gid // "" | gsub("-"; "")' ;;
	removing | pending) _f="if .smc_lo.$1 then 1 else 0 end" ;;
	active_max_dmbs) _f='.smc_lo.active_settings.max_dmbs' ;;
	active_nocopy) _f='if .smc_lo.active_settings.nocopy then 1 else 0 end' ;;
	*) _f=".smc_lo.counters.$1" ;;
	esac
	kmod_json | jq -r "$_f"
}

kmod_counter() {
	kmod_get "$1"
}

# kmod_wait_state STATE [SECONDS]
kmod_wait_state() {
	_n=0
	while [ "$(kmod_get state)" != "$1" ]; do
		_n=$((_n + 1))
		[ $_n -lt $((${2:-30} * 5)) ] ||
			fail "device did not reach state $1 within ${2:-30} s: $(kmod_json)"
		sleep 0.2
	done
}

# kmod_deactivate [SECONDS]: smcctl's deactivation protocol (PNET ID on smclo, drain with a
# bound, wait for "deactivated", PNET ID deleted); fails unless the device is gone.
kmod_deactivate() {
	smcctl device loopback-ism deactivate --wait "${1:-1}" ||
		fail "smcctl device loopback-ism deactivate --wait ${1:-1} failed: $(kmod_json)"
	assert_eq inactive "$(kmod_get state)" "deactivated"
}

# A UEID (SMC-Dv2 needs one on x86) and a PNET ID on the built-in "lo", which makes it
# ineligible for SMC-Dv2 proposals on x86, so that our device carries the traffic.
kmod_smc_setup() {
	smcctl ueid add "$KMOD_UEID" 2>/dev/null || smcctl ueid list | grep -qx "$KMOD_UEID" ||
		fail "adding UEID $KMOD_UEID failed"
	if [ "${1:-}" != keep-lo ]; then
		smcctl pnet add "$KMOD_LO_PNETID" --ib lo || fail "pnet add $KMOD_LO_PNETID --ib lo failed"
	fi
}

# The GID of a DIBS device as 32 hex digits (sysfs prints a UUID).
kmod_sysfs_gid() {
	tr -d -- '-\n' <"/sys/class/dibs/$1/gid"
}

# kmod_lgr_gids: the local GIDs of all SMC-D link groups, one per line (32 hex digits).
kmod_lgr_gids() {
	smcctl -j linkgroup list --smcd | jq -r '.smcd[].gid'
}

# kmod_wait_lgr_on GID: until an SMC-D link group has the local GID (32 hex digits), 20 s
kmod_wait_lgr_on() {
	_n=0
	until kmod_lgr_gids | grep -q "$1"; do
		_n=$((_n + 1))
		[ $_n -lt 100 ] || fail "no link group on GID $1: $(smcctl linkgroup)"
		sleep 0.2
	done
}

# kmod_fback SIDE NAME: how many fallbacks with that reason smcctl stats counts
kmod_fback() {
	smcctl -j stats | jq -r --arg s "$1" --arg n "$2" \
		'[.fallback.reasons[] | select(.side == $s and .name == $n) | .count] | add // 0'
}

# kmod_monitor COUNT SECONDS FILE: start listening to the module's notifications in the
# background (smcnl-record smclo-monitor); returns once it listens.  $KMOD_MON is its pid.
kmod_monitor() {
	rm -rf /tmp/kmod-mon.$$
	smcnl-record /tmp/kmod-mon.$$ smclo-monitor "$1" "$2" >"$3" 2>&1 &
	KMOD_MON=$!
	_n=0
	until grep -q '^monitoring' "$3" 2>/dev/null; do
		_n=$((_n + 1))
		[ $_n -lt 100 ] || fail "the notification monitor did not start: $(cat "$3")"
		sleep 0.1
	done
}

# kmod_events FILE: the events the monitor saw, space-separated
kmod_events() {
	sed -n 's/.* event=\([a-z]*\).*/\1/p' "$1" | tr '\n' ' '
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
			case $_c in smc* | sh) ;; *) continue ;; esac
			echo "kmod_watchdog: $_t $_c $(cut -d' ' -f3 "$_t/stat") $(cat "$_t/wchan" 2>/dev/null)" >/dev/console
			cat "$_t/stack" >/dev/console 2>/dev/null
		done
		smcctl socket -a >/dev/console 2>&1
		smcctl device show smclo >/dev/console 2>&1
		dmesg | awk '/task:(smc|kworker)/ { p = 1 } /task:/ && !/task:(smc|kworker)/ { p = 0 } p' |
			tail -n 300 >/dev/console
	) </dev/null >/dev/null 2>&1 &
	KMOD_WATCHDOG=$!
}
