#!/bin/sh
# lanes: 612
# timeout: 300
#
# Smoke test of the stock-distro lane (Debian 6.12, smc as a module, no SMC-D loopback):
# smc is not loaded at boot, opening an SMC socket autoloads it through /sbin/modprobe,
# the net.smc sysctls appear, and there is no DIBS layer.
. "$(dirname "$0")/lib.sh"
require_cmd smc-conn modprobe

info "kernel $(uname -r)"
if module_loaded smc; then
	fail "smc is loaded at boot already; /proc/modules: $(cat /proc/modules)"
fi
assert_not_exists /proc/sys/net/smc "(before smc is loaded)"
assert_not_exists /sys/class/dibs "(6.12 has no DIBS layer)"

# IPPROTO_SMC: socket(AF_INET, SOCK_STREAM, 256) -> request_module(net-pf-2-proto-256-type-1)
assert_ok smc-conn socket --proto smc
assert_json "$out" .ok true "smc-conn socket --proto smc"
module_loaded smc || fail "smc not in /proc/modules after socket(IPPROTO_SMC): $(cat /proc/modules)"
assert_exists /proc/sys/net/smc "(after the autoload)"
info "loaded: $(grep '^smc ' /proc/modules)"
info "net.smc: $(ls /proc/sys/net/smc | tr '\n' ' ')"

# AF_SMC goes through net-pf-43 (already loaded now: must simply work).
assert_ok smc-conn socket --proto afsmc
assert_json "$out" .ok true "smc-conn socket --proto afsmc"

# A real connection: no SMC-D device and no RoCE here, so it must fall back to TCP and
# still move the data intact.
assert_ok smc-conn pair --proto smc --conns 2 --bytes 1M
summary=$(printf '%s\n' "$out" | tail -n 1)
assert_json "$summary" .ok 2 "pair summary"
assert_json "$summary" .smcd 0 "pair summary (no SMC-D device on a stock 6.12 kernel)"
exit 0
