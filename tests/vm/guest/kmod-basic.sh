#!/bin/sh
# lanes: 7x debug
# timeout: 240
#
# smc_lo basics: the SMC_LO family's contract (policies, errors with extended acks,
# admin-only commands answered, settings that apply on the next activation), the DIBS
# device it registers (name, GID, fabric), activation/deactivation without traffic, and a
# clean unload.
. "$(dirname "$0")/lib.sh"
kmod_lib=$(find / -xdev -name kmod-lib.sh 2>/dev/null | head -n 1)
[ -n "$kmod_lib" ] || skip "kmod-lib.sh is not in the guest (run with kmod/vm-test)"
. "$kmod_lib"
kmod_require

kmod_load
assert_ok smclo-ctl get
assert_contains "$out" "state=inactive"
assert_contains "$out" "dev=smclo"
assert_contains "$out" "dmb_type=physical"
assert_contains "$out" "nocopy=1"
assert_contains "$out" "max_dmbs=5000"
assert_not_contains "$out" "gid=" "an inactive device has no GID"
assert_not_exists /sys/class/dibs/smclo "inactive: no DIBS device"
assert_ok smclo-ctl dump
assert_contains "$out" "state=inactive" "dump"

info "--- policies and refusals"
assert_fails smclo-ctl set dmb-type virtual
assert_contains "$out" "error: 95 " "virtual DMBs: EOPNOTSUPP"
assert_contains "$out" "virt_to_page" "the extack says why"
assert_fails smclo-ctl set dmb-type 2
assert_contains "$out" "error: 34 " "dmb_type out of range: ERANGE from the policy"
assert_fails smclo-ctl set max-dmbs 0
assert_contains "$out" "error: 34 " "max_dmbs 0"
assert_fails smclo-ctl set max-dmbs 8193
assert_contains "$out" "error: 34 " "max_dmbs above the limit"
assert_fails smclo-ctl raw 4
assert_contains "$out" "error: 22 " "SET without settings"
assert_fails smclo-ctl raw 1 2=1
assert_contains "$out" "error: 22 " "GET with an attribute (strict validation)"
assert_fails smclo-ctl raw 3 10=600001
assert_contains "$out" "error: 34 " "drain timeout above 10 minutes"
assert_fails smclo-ctl raw 9
assert_contains "$out" "error: 95 " "unknown command"

info "--- activate"
assert_ok smclo-ctl activate
assert_contains "$out" "state=active"
assert_contains "$out" "generation=1"
assert_contains "$out" "fabric_id=0xffff"
assert_exists /sys/class/dibs/smclo
assert_eq "0xffff" "$(cat /sys/class/dibs/smclo/fabric_id)" "sysfs fabric_id"
gid=$(kmod_get gid)
assert_eq "$(kmod_sysfs_gid smclo)" "$gid" "GID in netlink and sysfs"
assert_ne "$(kmod_sysfs_gid lo)" "$gid" "our GID differs from lo's"
case $gid in 0000000000000000*) fail "GID high 8 bytes are zero: $gid" ;; esac
assert_ok smclo-ctl activate
assert_contains "$out" "generation=1" "activate while active is a no-op"

info "--- settings apply on the next activation"
assert_ok smclo-ctl set nocopy off max-dmbs 64
assert_contains "$out" "apply=next-activation"
assert_contains "$out" "pending=1"
assert_contains "$out" "active_nocopy=1"
assert_contains "$out" "nocopy=0"
assert_ok smclo-ctl deactivate 0
kmod_wait_state inactive 10
assert_not_exists /sys/class/dibs/smclo "deactivated: DIBS device gone"
assert_ok smclo-ctl set max-dmbs 128
assert_contains "$out" "apply=now" "no device: nothing pending"
assert_ok smclo-ctl activate
assert_contains "$out" "active_nocopy=0"
assert_contains "$out" "active_max_dmbs=128"
assert_contains "$out" "pending=0"
assert_contains "$out" "generation=2"
assert_ne "$gid" "$(kmod_get gid)" "a new activation has a new GID"

info "--- notifications"
smclo-ctl monitor 3 20 >/tmp/events &
mon=$!
sleep 1
assert_ok smclo-ctl deactivate 0
wait $mon || fail "monitor saw fewer than 3 events: $(cat /tmp/events)"
events=$(grep '^event=' /tmp/events | tr '\n' ' ')
assert_eq "event=draining event=removing event=deactivated " "$events" "event order"
assert_eq inactive "$(kmod_get state)"
assert_eq 2 "$(kmod_counter activations)"
assert_eq 2 "$(kmod_counter deactivations)"

info "--- unload and reload active"
kmod_unload
assert_not_exists /sys/class/dibs/smclo
kmod_load activate=1 max_dmbs=16
assert_eq active "$(kmod_get state)"
assert_eq 16 "$(kmod_get active_max_dmbs)"
kmod_unload
assert_fails insmod "$KMOD_KO" max_dmbs=0
assert_fails insmod "$KMOD_KO" devname=a/b
kmod_check_dmesg
kmod_check_leaks
info "ok"
