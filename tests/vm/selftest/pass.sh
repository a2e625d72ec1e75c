#!/bin/sh
# lanes: 7x 612 debug
# Harness self-test: must pass.
. "$(dirname "$0")/lib.sh"
assert_eq "$SMCD_VM_LANE" "$(cat /proc/cmdline | tr ' ' '\n' | sed -n 's/^smcdvm.lane=//p')" lane
assert_eq smcd-vm "$(hostname)" hostname
assert_eq 5ac0d0000000400080000000000e5771 "$(cat /etc/machine-id)" machine-id
assert_contains "$(ip link show lo)" "UP" "lo state"
assert_exists /dev/ttyS1
for d in /proc/self /sys/kernel /tmp /run /dev/shm; do assert_exists "$d"; done
exit 0
