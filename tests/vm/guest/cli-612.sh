#!/bin/sh
# lanes: 612
# timeout: 300
#
# smcctl on Debian's stock 6.12 kernel: smc and smc_diag are modules (loaded on first use),
# there is no SMC-D device on x86, so info must say why loopback cannot work, and every
# read verb must answer (sysctl show loads the module itself).
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn jq

info "kernel $(uname -r)"
assert_ok smcctl help
assert_ok smcctl sysctl
assert_match "$out" "^limit_smc_hs +0 +bool"
assert_ok smcctl info
assert_contains "$out" "SMC-D loopback: no loopback device in this kernel (rebuild the smc module with CONFIG_SMC_LO=y: Debian 13's 6.12 has it off)"
assert_ok smcctl -j info
assert_json "$out" '.capabilities.smc_gen_netlink and .capabilities.ipproto_smc' true
assert_json "$out" '.capabilities.dibs or .capabilities.loopback' false
assert_json "$out" '.smc_version' 2.1
for o in info ueid seid device linkgroup socket pnet sysctl hs-limit stats; do
	assert_ok smcctl -j "$o"
	printf '%s\n' "$out" | jq -e . >/dev/null || fail "smcctl -j $o is not JSON: $out"
done
assert_ok smcctl device
assert_contains "$out" "SMC-D devices: none"

# No SMC-D device: connections fall back, the reason is named.
assert_ok smc-conn pair --proto smc --conns 1 --bytes 16K
assert_ok smcctl -j stats
assert_json "$out" '.fallback.server + .fallback.client > 0' true
assert_json "$out" '[.fallback.reasons[] | select(.name == null)] | length' 0

assert_ok smcctl ueid derive --apply
assert_contains "$out" "added to the kernel's UEID table"
assert_ok smcctl -j ueid
assert_json "$out" '.ueids | length' 1
assert_ok smcctl ueid flush
run smcctl seid enable
assert_eq 1 "$rc" "seid enable off s390"
exit 0
