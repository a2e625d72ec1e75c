#!/bin/sh
# lanes: 7x
# timeout: 2400
#
# Guest half of bench/kmod-bench: SMC-D throughput and message rate through smc_lo versus
# the built-in "lo", in the same VM run, interleaved (REPS rounds of every configuration)
# so that drift hits all of them alike.  Prints "RESULT key=value ..." lines.
#   lo            the built-in device (no PNET ID on lo; smc_lo inactive)
#   smclo-phys-nocopy   smc_lo, physically contiguous DMBs, nocopy on (the default)
#   smclo-phys-copy     smc_lo, physically contiguous DMBs, nocopy off
# Virtually contiguous DMBs are not measured: the module refuses them (smc-lo(4)).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
kmod_require

REPS=${REPS:-3}
SECS=${SECS:-4}
kmod_load
smcctl ueid add "$KMOD_UEID" || fail "ueid"
lo_gid=$(kmod_sysfs_gid lo)

use_lo() {
	[ "$(kmod_get state)" = inactive ] || kmod_deactivate 1 >/dev/null
	smcctl pnet del "$KMOD_LO_PNETID" >/dev/null 2>&1 || true
}

use_smclo() { # NOCOPY
	[ "$(kmod_get state)" = inactive ] || kmod_deactivate 1 >/dev/null
	smcctl device loopback-ism set nocopy "$1" >/dev/null 2>&1 || fail "set nocopy"
	smcctl device loopback-ism activate >/dev/null || fail "activate"
	smcctl pnet add "$KMOD_LO_PNETID" --ib lo >/dev/null 2>&1 || true
}

# measure CONFIG: one stream and one rr run; checks the traffic used the intended device
measure() {
	regs=$(kmod_counter registrations)
	s=$(smclo-xfer stream --secs "$SECS" --msg 65536) || fail "$1 stream: $s"
	r=$(smclo-xfer rr --secs "$SECS" --msg 64) || fail "$1 rr: $r"
	if [ "$1" = lo ]; then
		assert_eq "$regs" "$(kmod_counter registrations)" "lo run used smc_lo"
		kmod_lgr_gids | grep -q "$lo_gid" || fail "lo run: no link group on lo"
	else
		[ "$(kmod_counter registrations)" -gt "$regs" ] || fail "$1 run did not use smc_lo"
	fi
	echo "RESULT config=$1 test=stream msg=65536 value=$(echo "$s" | sed -n 's/.*mbps=\([0-9.]*\).*/\1/p') unit=MB/s"
	echo "RESULT config=$1 test=rr msg=64 value=$(echo "$r" | sed -n 's/.*tps=\([0-9.]*\).*/\1/p') unit=transactions/s"
}

rep=0
while [ $rep -lt "$REPS" ]; do
	rep=$((rep + 1))
	info "round $rep"
	use_lo
	measure lo
	use_smclo on
	measure smclo-phys-nocopy
	use_smclo off
	measure smclo-phys-copy
done
kmod_deactivate 1
kmod_check_dmesg
