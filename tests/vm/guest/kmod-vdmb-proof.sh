#!/bin/sh
# lanes: 7x debug
# timeout: 300
#
# PROOF that virtually contiguous (vmalloc) DMBs are unsafe with SMC-D in this kernel.
# Runs only under `kmod/vm-test --proof`, which puts a build of smc_lo made with
# SMC_LO_UNSAFE_VIRT_DMB=1 into the guest; that build accepts dmb_type=virtual.  The
# expected outcome is a kernel crash, which kmod/vm-test checks on the console:
#   debug lane (CONFIG_DEBUG_VIRTUAL): "kernel BUG at arch/x86/mm/physaddr.c" as soon as
#     SMC registers the first DMB: smcd_new_buf_create() calls virt_to_page() on it.
#   7x lane: read() works (it copies through the virtual address) - the trap; splice()
#     hands the bogus page from virt_to_page() to get_page() and the pipe: Oops (or, where
#     that page happens to exist, corrupt data and a refcount on a stranger's page).
. "$(dirname "$0")/lib.sh"
KMOD_KO=$(find / -xdev -name smc_lo.ko -path '*vdmb*' 2>/dev/null | head -n 1)
[ -n "$KMOD_KO" ] || skip "no SMC_LO_UNSAFE_VIRT_DMB build in the guest (kmod/vm-test --proof)"
. "$(dirname "$0")/lib-kmod.sh"
require_cmd smcctl smclo-xfer jq

proof() { echo "PROOF: $*" >/dev/console; info "PROOF: $*"; }

kmod_load
assert_ok smcctl device loopback-ism set dmb-type virtual
assert_ok smcctl -j device loopback-ism activate
assert_json "$out" .smc_lo.active_settings.dmb_type virtual
kmod_smc_setup
proof "step 1: SMC-D connection with vmalloc DMBs, data read with read()"
smclo-xfer verify --conns 1 --bytes 1000000
proof "step 1 done: rc=$? registrations=$(kmod_counter registrations)"
[ "$(kmod_counter registrations)" -gt 0 ] || fail "the connection did not use smc_lo"
proof "step 2: the same with splice() from the SMC-D socket"
if ! smclo-xfer verify --conns 1 --bytes 1000000 --recv splice; then
	proof "CORRUPT: splice() delivered wrong data or failed"
fi
proof "step 2 done"
dmesg | tail -n 40
exit 0
