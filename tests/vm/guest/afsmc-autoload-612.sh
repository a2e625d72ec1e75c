#!/bin/sh
# lanes: 612 61
#
# socket(AF_SMC) on a fresh boot must autoload smc via its net-pf-43 alias (a separate boot
# from smoke-612.sh, which loads smc through IPPROTO_SMC first).
. "$(dirname "$0")/lib.sh"
require_cmd smc-conn

module_loaded smc && fail "smc is loaded at boot already"
assert_ok smc-conn socket --proto afsmc
assert_json "$out" .ok true "smc-conn socket --proto afsmc"
module_loaded smc || fail "smc not in /proc/modules after socket(AF_SMC): $(cat /proc/modules)"
assert_exists /proc/sys/net/smc
exit 0
