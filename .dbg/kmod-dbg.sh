#!/bin/sh
# lanes: 7x debug
. "$(dirname "$0")/lib.sh"
. "$(find / -xdev -name kmod-lib.sh | head -n1)"
kmod_load activate=1
smclo-ctl ueid-add SMCLO-TEST-UEID
smclo-xfer verify --conns 1 --bytes 100000
smclo-ctl lgrs
smclo-ctl pnet-add LOEXCL lo
smclo-xfer verify --conns 1 --bytes 100000
smclo-ctl fback
smclo-ctl lgrs
smclo-ctl get | grep -E 'regis|moves|state'
dmesg | grep -i smc | tail -5
