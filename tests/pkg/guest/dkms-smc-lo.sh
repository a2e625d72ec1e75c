#!/bin/sh
# lanes: 7x
#
# The module as the smc-lo-dkms package builds it (DKMS, against the 7x kernel tree; see
# tests/pkg/dkms-check): it loads, registers its device with DIBS when activated, and
# unloads.  The .ko comes in with vm-run --host-file.
. "$(dirname "$0")/lib.sh"
ko=$(find / -xdev -name smc_lo.ko -path '*dkms*' 2>/dev/null | head -n 1)
[ -n "$ko" ] || fail "no DKMS-built smc_lo.ko in the guest (vm-run --host-file)"
info "module $ko"
run modinfo -F vermagic "$ko"
assert_match "$out" "^$(uname -r) " "vermagic matches the running kernel"
assert_ok insmod "$ko" activate=1
assert_exists /sys/class/dibs/smclo "the activated device is registered with DIBS"
assert_ok rmmod smc_lo
assert_not_exists /sys/class/dibs/smclo "the device is gone after rmmod"
exit 0
