#!/bin/sh
# lanes: 61
# timeout: 300
#
# smcctl on Debian 12's own kernel (6.1): smc and smc_diag are modules, there is no
# IPPROTO_SMC (6.11), no update_socket_protocol hook (6.6), no SMC-D device and only five
# net.smc sysctls.  Every read verb answers and says what 6.1 lacks; AF_SMC connections
# fall back to TCP with a named reason, seen by socket and stats; smcctl run takes the
# LD_PRELOAD path (AF_SMC), says why, and an unmodified TCP program's data still arrive.
. "$(dirname "$0")/lib.sh"
require_cmd smcctl smc-conn smc-threads jq
export SMCD_PRELOAD_LIB=/usr/local/bin/libsmc-preload.so
last() { printf '%s\n' "$out" | grep '^{' | tail -n 1; }

info "kernel $(uname -r)"
module_loaded smc && fail "smc is loaded at boot already: $(cat /proc/modules)"
assert_not_exists /sys/class/dibs "(6.1 has no DIBS layer)"

# No IPPROTO_SMC: the socket is refused (and loads nothing); AF_SMC autoloads smc.
run smc-conn socket --proto smc
assert_ne 0 "$rc" "socket(IPPROTO_SMC) on 6.1"
assert_contains "$out" "Protocol not supported" "socket(IPPROTO_SMC) on 6.1"
module_loaded smc && fail "socket(IPPROTO_SMC) loaded smc on 6.1"
assert_ok smc-conn socket --proto afsmc
module_loaded smc || fail "socket(AF_SMC) did not autoload smc"
assert_eq "autocorking_size rmem smcr_buf_type smcr_testlink_time wmem" \
	"$(ls /proc/sys/net/smc | tr '\n' ' ' | sed 's/ $//')" "the net.smc sysctls of 6.1"

assert_ok smcctl info
assert_match "$out" "IPPROTO_SMC +MISSING"
assert_contains "$out" "ipproto_smc: socket(AF_INET, SOCK_STREAM, IPPROTO_SMC) fails: needs Linux 6.11 or later"
assert_contains "$out" "SMC-D loopback: no loopback device in this kernel (SMC-D loopback needs Linux 6.10 or later: install a 6.10-6.17 kernel with CONFIG_SMC_LO=y or a 6.18+ kernel with CONFIG_DIBS_LO=y)"
assert_contains "$out" "not in kernel:  smcr_max_links_per_lgr smcr_max_conns_per_lgr limit_smc_hs"
assert_ok smcctl -j info
assert_json "$out" '.capabilities.smc_gen_netlink and .capabilities.af_smc and .capabilities.smc_diag' true
assert_json "$out" '.capabilities.ipproto_smc or .capabilities.dibs or .capabilities.loopback' false
assert_json "$out" '.smc_version' 2.0 "6.1 is SMC v2, release 0"
assert_json "$out" '.sysctls.present | join(" ")' "autocorking_size rmem smcr_buf_type smcr_testlink_time wmem"
assert_json "$out" '[.verdicts[] | select(.subject == "SMC-D loopback") | .ready] | .[0]' false
for o in info ueid seid device linkgroup socket pnet sysctl hs-limit stats; do
	assert_ok smcctl -j "$o"
	printf '%s\n' "$out" | jq -e . >/dev/null || fail "smcctl -j $o is not JSON: $out"
done
assert_ok smcctl sysctl
assert_contains "$out" "Not in this kernel: smcr_max_links_per_lgr (6.8+)"
assert_contains "$out" "limit_smc_hs (6.12+)"
assert_ok smcctl device
assert_contains "$out" "SMC-D devices: none"
assert_ok smcctl linkgroup
assert_contains "$out" "SMC-D link groups: none"
# The handshake limitation exists on 6.1 through netlink only (no limit_smc_hs sysctl).
assert_ok smcctl hs-limit enable
assert_ok smcctl -j hs-limit
assert_json "$out" .enabled true "hs-limit through netlink"
assert_ok smcctl hs-limit disable

# AF_SMC connections held open: no device, so TCP, the reason named per socket and counted.
smc-conn pair --proto afsmc --conns 2 --bytes 64K --hold 60 >/tmp/c.out 2>&1 &
pair=$!
wait_conns /tmp/c.out 2
assert_json "$(grep '"conn":0' /tmp/c.out)" .fallback_name NOSMCDEV "smc-conn: the client's reason"
assert_ok smcctl -j socket
assert_json "$out" '[.sockets[] | select(.mode == "TCP") | .fallback.reason.name] | sort | unique | join(" ")' \
	"NOSMCDEV PEERDECL" "fallen-back sockets, both ends with their reason: $out"
assert_json "$out" '[.sockets[] | select(.mode == "TCP")] | length >= 4' true "2 connections, both ends"
assert_ok smcctl socket
assert_contains "$out" "NOSMCDEV"
kill $pair
wait $pair 2>/dev/null
assert_ok smcctl -j stats
assert_json "$out" '.fallback.client >= 2 and .fallback.server >= 2' true
assert_json "$out" '[.fallback.reasons[] | select(.name == "NOSMCDEV" and .side == "client") | .count] | add' 2
assert_json "$out" '.smcd.connections + .smcr.connections' 0

# smcctl run: no BPF path on 6.1, LD_PRELOAD with AF_SMC, and it says why.
run smcctl run -m bpf -- smc-threads threads --threads 1
assert_eq 3 "$rc" "smcctl run -m bpf on 6.1: not available"
assert_contains "$out" "no update_socket_protocol hook (Linux 6.6) and no IPPROTO_SMC (6.11)"
assert_ok smcctl run -- smc-threads threads --threads 4
assert_contains "$out" "SMC through LD_PRELOAD (AF_SMC"
assert_contains "$out" "BPF not used: this kernel has no update_socket_protocol hook (Linux 6.6) and no IPPROTO_SMC (6.11)"
assert_json "$(last)" .afsmc 6 "6.1: threads, a forked child and the main thread got AF_SMC sockets"
assert_ok smcctl run --sndbuf 64KiB -- smc-conn pair --proto tcp --conns 2 --bytes 256K
assert_json "$(last)" .ok 2 "6.1: the data of an unmodified TCP program went through"
c0=$(printf '%s\n' "$out" | grep '"conn":0')
assert_json "$c0" .smc_socket true "6.1: an SMC (AF_SMC) socket under smcctl run"
assert_json "$c0" .mode tcp "6.1: no SMC device, so TCP"
assert_json "$c0" .fallback_name NOSMCDEV "6.1: the fallback's reason"
assert_ok smcctl -j stats
assert_json "$out" '[.fallback.reasons[] | select(.name == "NOSMCDEV" and .side == "client") | .count] | add' 4

assert_ok smcctl ueid derive --apply
assert_contains "$out" "added to the kernel's UEID table"
assert_ok smcctl -j ueid
assert_json "$out" '.ueids | length' 1
assert_ok smcctl ueid flush
run smcctl seid enable
assert_eq 1 "$rc" "seid enable off s390"
exit 0
