#!/bin/sh
# lanes: 7x debug
# timeout: 120
#
# Smoke test of the SMC+DIBS kernel: the DIBS loopback device and the SMC sysctls exist,
# and SMC connections over loopback move intact data. With no UEID configured SMC-D
# loopback declines and the connection falls back to TCP.
. "$(dirname "$0")/lib.sh"
require_cmd smc-conn

info "kernel $(uname -r)"
assert_exists /sys/class/dibs/lo "(CONFIG_DIBS_LO: the built-in DIBS loopback device)"
assert_exists /proc/sys/net/smc "(CONFIG_SMC)"
info "net.smc: $(ls /proc/sys/net/smc | tr '\n' ' ')"
info "dibs devices: $(ls /sys/class/dibs | tr '\n' ' ')"

# mode_is JSON EXPECTED WHAT: the connection mode must be EXPECTED. While smc-conn cannot
# tell the mode yet (it needs the netlink library), "unknown" is accepted with a TODO note.
mode_is() {
	_m=$(json_get "$1" .mode)
	if [ "$_m" = unknown ]; then
		info "TODO: cannot check that $3 used '$2': smc-conn reports mode unknown" \
			"($(json_get "$1" .mode_detail))"
		return 0
	fi
	assert_eq "$2" "$_m" "$3"
}

for proto in smc afsmc; do
	assert_ok smc-conn pair --proto $proto --conns 2 --bytes 4M
	summary=$(printf '%s\n' "$out" | tail -n 1)
	assert_json "$summary" .ok 2 "$proto pair summary"
	first=$(printf '%s\n' "$out" | head -n 1)
	assert_json "$first" .verified true "$proto connection 0"
	# No UEID yet: SMC-D loopback is declined (SMC_CLC_DECL_NOUEID or similar), TCP is used.
	mode_is "$first" tcp "$proto connection 0 without a UEID"
done

# TODO(smcctl): once `smcctl ueid add` exists, add a UEID here, repeat the pair and
# expect mode "smcd", SMC-D link groups in `smcctl linkgroup list`, and the SMC-D
# stats counting the bytes; then `smcctl ueid flush` and expect TCP again.
info "TODO: UEID step (needs smcctl ueid add) not written yet"
exit 0
