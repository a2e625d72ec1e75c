#!/bin/sh
# lanes: 612 61
#
# The INSTALLED package under real systemd, as the operator gets it: Debian 12 with the
# smcd-agent .deb installed by dpkg before the first boot, nothing configured by hand, the
# shipped /etc/smc/smc.yaml.  The unit must have been enabled by the package and be running
# after the boot, inside its sandbox, on Debian's stock 6.12 kernel and on Debian 12's own
# 6.1 (smc and smc_diag are modules that the agent loads).  Runs first in the systemd lane's one boot
# (tests/pkg/systemd-lane); systemd-lifecycle.sh follows.
. "$(dirname "$0")/lib.sh"
require_cmd smcd-agent smcctl busctl systemctl journalctl jq

U=smcd-agent
M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
prop() { busctl get-property $M "$1"; }

# no_denials SINCE : the unit's journal since SINCE ("" for the boot) shows no sandbox denial.
# A system call outside SystemCallFilter= is not in any log with the unit's
# SystemCallErrorNumber=EPERM; the lane's drop-in (tests/pkg/systemd-lane) sets it to "kill",
# so such a call ends the agent (SIGSYS, "seccomp" in the kernel log, a restart): see
# still_running for that check.
no_denials() {
	journal=$(journalctl -b --no-pager -o cat -u $U ${1:+--since "$1"})
	info "journal of $U${1:+ since $1}:"
	printf '%s\n' "$journal" | sed 's/^/#   /'
	for bad in 'Permission denied' 'Operation not permitted' 'Read-only file system' \
		'denied' 'Bad system call'; do
		assert_not_contains "$journal" "$bad" "the agent's journal"
	done
	kernel=$(journalctl -b -k --no-pager -o cat | grep -i -e 'audit.*smcd' -e 'seccomp.*smcd' \
		-e 'apparmor="DENIED"' || true)
	assert_eq "" "$kernel" "no audit, seccomp or AppArmor denial in the kernel log"
}

# still_running PID WHAT : the agent survived WHAT (a denied system call kills it, see above).
still_running() {
	assert_eq active "$(systemctl is-active $U)" "active after $2"
	assert_eq "$1" "$(systemctl show -P MainPID $U)" "the same process after $2"
	assert_eq 0 "$(systemctl show -P NRestarts $U)" "no restart after $2"
}

info "boot: $SMCD_VM_BOOT_STATE after $(cut -d' ' -f1 /proc/uptime)s; kernel $SMCD_VM_KERNEL"
if [ "$SMCD_VM_BOOT_STATE" != running ]; then
	run systemctl --failed --no-legend
fi
failed=$(systemctl --failed --no-legend --plain | grep -i -e smcd -e dbus || true)
assert_eq "" "$failed" "no failed unit of ours (or of D-Bus)"

# --- enabled by the package, started by the boot --------------------------------------------
assert_eq enabled "$(systemctl is-enabled $U)" "the package enabled $U.service"
assert_exists /etc/systemd/system/multi-user.target.wants/$U.service
assert_eq active "$(systemctl is-active $U)" "$U.service after the boot"
assert_eq 0 "$(systemctl show -P NRestarts $U)" "no restarts"
run systemctl status --no-pager --lines=0 $U
status_text=$(systemctl show -P StatusText $U)
info "STATUS=: $status_text"
assert_ne "" "$status_text" "the agent reports STATUS= to systemd"

# --- the shipped files ----------------------------------------------------------------------
assert_exists /etc/smc/smc.yaml
assert_match "$(dpkg-query -W -f='${Conffiles}' smcd-agent)" '^ /etc/smc/smc.yaml ' \
	"smc.yaml is a conffile"
assert_exists /usr/share/dbus-1/system.d/org.smcd.Agent1.conf
assert_exists /usr/share/bash-completion/completions/smcctl
for page in man8/smcctl.8 man8/smcd-agent.8 man5/smc.yaml.5; do
	assert_exists "/usr/share/man/$page.gz" "man page"
done
# The installed completion asks the installed smcctl (bash without bash-completion here).
comp=$(bash -c '. /usr/share/bash-completion/completions/smcctl
	COMP_WORDS=(smcctl sysctl set w); COMP_CWORD=3; _smcctl; echo "${COMPREPLY[*]}"')
assert_eq wmem "$comp" "completion of 'smcctl sysctl set w'"
assert_match "$(getent group smcd)" '^smcd:x:[0-9]+:' "the package created group smcd"
assert_ok smcd-agent --check-config
assert_ok smcctl config check
run dpkg --verify smcd-agent
assert_eq 0 "$rc" "dpkg --verify smcd-agent exit status"
assert_eq "" "$out" "dpkg --verify smcd-agent: every file as the package shipped it"
assert_contains "$(systemctl show -P DropInPaths $U)" lane-syscall-kill.conf "the lane's drop-in"
# systemd 252 shows "kill" as its internal SECCOMP_ERROR_NUMBER_KILL (INT_MAX - 1), EPERM as 1.
assert_eq 2147483646 "$(systemctl show -P SystemCallErrorNumber $U)" \
	"the lane's drop-in: a denied system call kills the agent"

# --- the sandbox: exposure recorded, no denials at boot --------------------------------------
run systemd-analyze security --no-pager $U
info "$(printf '%s\n' "$out" | grep -i 'overall exposure')"
assert_match "$out" 'Overall exposure level for smcd-agent.service: [0-9.]+' "systemd-analyze security"
no_denials ""

# --- D-Bus: the name, the policy ----------------------------------------------------------
assert_ok busctl status $SMCD_BUS_NAME
assert_ok smcctl status
assert_eq 's "running"' "$(prop State)" "State"
# Started with the shipped file, not without any: the built-in defaults equal the shipped
# settings, so only the path, the revision (a hash of the file's text; of "" without a
# file) and the error tell them apart.
assert_eq 's "/etc/smc/smc.yaml"' "$(prop ConfigPath)" "ConfigPath"
file_rev=$(smcctl -j config check | jq -r .revision)
assert_match "$file_rev" '^[0-9a-f]{16}$' "smcctl config check: the shipped file's revision"
assert_eq "s \"$file_rev\"" "$(prop ConfigRevision)" "ConfigRevision is the shipped file's"
assert_eq 's ""' "$(prop ConfigError)" "ConfigError after the boot"
# What the start at boot applied, from its journal: LastReconcile is the start's only until
# a drift check finds the same settings "unchanged" (every 30 s with the shipped file), and
# on a loaded machine the boot can be that far behind by now.
run prop LastReconcile
started=$(journalctl -b --no-pager -o cat -u $U)
assert_contains "$started" 'module:smc: loaded' "the agent loaded smc (libkmod, in the sandbox)"
assert_contains "$started" 'module:smc_diag: loaded' "the agent loaded smc_diag"
# nobody may read but not change (the installed policy and the agent's own check)
assert_ok setpriv --reuid=nobody --regid=nogroup --clear-groups busctl get-property $M State
run setpriv --reuid=nobody --regid=nogroup --clear-groups smcctl config reload
assert_eq 4 "$rc" "nobody's 'smcctl config reload' is refused (exit 4)"

# --- the kernel as the shipped config wants it ---------------------------------------------
ueid=$(smcctl -j ueid derive | jq -r .ueid)
info "derived UEID $ueid"
assert_match "$ueid" '^APP-[0-9A-F]{28}$' "smcctl ueid derive (app-specific, the default)"
assert_contains "$(smcctl -j ueid list)" "\"$ueid\"" "the kernel has the derived UEID"
assert_contains "$started" "ueid:$ueid: added" "the agent added it"
assert_eq 65536 "$(cat /proc/sys/net/smc/wmem)" "net.smc.wmem"
assert_eq 262144 "$(cat /proc/sys/net/smc/rmem)" "net.smc.rmem"

# --- reload through systemd: good file, bad file, good file --------------------------------
rev=$(prop ConfigRevision)
assert_ok systemctl reload $U
assert_eq active "$(systemctl is-active $U)" "active after reload"
assert_eq "$rev" "$(prop ConfigRevision)" "an unchanged file keeps its revision"
cp /etc/smc/smc.yaml /tmp/smc.yaml.good
# A bad value in the shipped sysctl section (appending a second "sysctl:" would be refused
# as a duplicate key, and "wmem" in the journal then came only from the start's lines).
sed -i 's/^  wmem: 64KiB$/  wmem: lots/' /etc/smc/smc.yaml
assert_contains "$(cat /etc/smc/smc.yaml)" "wmem: lots" "the shipped file's wmem made invalid"
assert_fails systemctl reload $U
journal_says() { journalctl -b --no-pager -o cat -u $U | grep -qF "$1"; }
wait_until 10 "the journal names the refused wmem" journal_says "sysctl.wmem: 'lots' is not valid"
run journalctl -b --no-pager -o cat -u $U -n 20
assert_contains "$out" "sysctl.wmem: 'lots' is not valid" "the journal says why the file was refused"
assert_eq active "$(systemctl is-active $U)" "still active after a refused reload"
assert_eq "$rev" "$(prop ConfigRevision)" "the running config stays"
cp /tmp/smc.yaml.good /etc/smc/smc.yaml
assert_ok systemctl reload $U
assert_eq 's ""' "$(prop ConfigError)" "ConfigError cleared by a good reload"

# --- statistics: state directory and Prometheus textfile, writable inside the sandbox -------
assert_eq 700 "$(stat -c %a /var/lib/smcd-agent)" "StateDirectory= /var/lib/smcd-agent"
assert_ok smcctl stats reset
assert_exists /var/lib/smcd-agent/stats.state "the reset baseline is kept"
assert_eq 600 "$(stat -c %a /var/lib/smcd-agent/stats.state)" "stats.state mode"
prom=/var/lib/prometheus/node-exporter/smc.prom
i=0
while [ ! -s $prom ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
assert_exists $prom "the Prometheus textfile (stats.prometheus.path)"
assert_match "$(cat $prom)" '^smc_[a-z_]+(\{[^}]*\})? [0-9]' "smc_* samples in $prom"
info "$(grep -c '^smc_' $prom) samples in $prom"

# --- every verb through the agent, with denied system calls fatal (the lane's drop-in) ------
pid=$(systemctl show -P MainPID $U)
since=$(date +@%s)
for verb in "status" "config show" "stats" "stats -a --kernel" "device list" "linkgroup list -d" \
	"socket list -a" "policy list" "info"; do
	# shellcheck disable=SC2086
	assert_ok smcctl $verb
	still_running "$pid" "smcctl $verb"
done
assert_ok busctl call $M Refresh
assert_ok busctl tree $SMCD_BUS_NAME
still_running "$pid" "Refresh and the object tree"
assert_ok smcctl config reload
still_running "$pid" "smcctl config reload"
# EnrollProcess (smcctl run) loads the selection programs; "smcctl run" may fall back to
# preload or fail on this kernel, what matters here is the agent's side.
run smcctl run -- true
still_running "$pid" "smcctl run (EnrollProcess)"
if [ "$SMCD_VM_LANE" = 61 ]; then
	# Debian 12's own kernel: no hook, no IPPROTO_SMC; run takes LD_PRELOAD and says why.
	assert_eq 0 "$rc" "smcctl run -- true on 6.1 (LD_PRELOAD)"
	assert_contains "$out" "SMC through LD_PRELOAD" "smcctl run on 6.1 says how"
	assert_contains "$out" "no update_socket_protocol hook" "smcctl run on 6.1 says why"
fi
# Policies: cgroups (BPF selection programs), exclude (smc_hs_ctrl, Linux 6.19+: refused by
# the 6.12 kernel, which the agent reports and survives).
printf 'policies:\n  cgroups: [/system.slice]\n  exclude:\n    - {port: 5432}\n' >>/etc/smc/smc.yaml
run smcctl config reload
run smcctl policy list
still_running "$pid" "a reload with policies (cgroups, exclude)"
# What each hook can do, as probed for these policies: never "not probed yet" once a
# policy needed it, also after the exclusion's load failed.
assert_not_contains "$out" "not probed yet" "smcctl policy list: the hooks were probed"
assert_match "$out" 'per-destination exclusion: +no: .*smc_hs_ctrl' \
	"smcctl policy list: no smc_hs_ctrl on this kernel"
if [ "$SMCD_VM_LANE" = 61 ]; then
	assert_match "$out" 'cgroup +/system.slice +unsupported .*no update_socket_protocol hook' \
		"policies on 6.1: the kernel lacks the hook, said by name"
	assert_match "$out" 'switch sockets to SMC: +no: .*no update_socket_protocol hook' \
		"smcctl policy list on 6.1: no hook to switch sockets"
else
	assert_match "$out" 'cgroup +/system.slice +active ' "the cgroup policy is active on 6.12"
	assert_match "$out" 'switch sockets to SMC: +yes' "smcctl policy list on 6.12: sockets can be switched"
fi
cp /tmp/smc.yaml.good /etc/smc/smc.yaml
assert_ok smcctl config reload
assert_ok smcctl stats reset
still_running "$pid" "the policies dropped again and stats reset"
no_denials "$since"

# --- smcctl support-bundle: the agent's journal, as the running system has it ---------------
# The bundle's agent/journal.txt must hold the agent's own last lines (sd-journal, with the
# unit's match), as "IDENTIFIER[PID]: MESSAGE"; where journald runs this is never "no
# journal files".
assert_ok smcctl support-bundle -o /tmp/bundle.tar.gz
man=$(tar -xzOf /tmp/bundle.tar.gz manifest.json)
assert_json "$man" .agent.running true "the bundle found the agent running"
assert_json "$man" '.files[] | select(.name == "agent/journal.txt") | .status' ok "the bundle's journal item"
bj=$(tar -xzOf /tmp/bundle.tar.gz agent/journal.txt)
info "agent/journal.txt: $(printf '%s\n' "$bj" | wc -l) lines, the last: $(printf '%s\n' "$bj" | tail -n 1)"
want=$(journalctl -b --no-pager -o json -n 3 _SYSTEMD_UNIT=$U.service |
	jq -r '"\(.SYSLOG_IDENTIFIER // ._COMM)[\(._PID)]: \(.MESSAGE)"')
assert_eq 3 "$(printf '%s\n' "$want" | grep -c .)" "the agent has journal lines to look for"
# (a here-document, not a pipe: fail must end this shell, not a subshell of the loop)
while IFS= read -r line; do
	assert_contains "$bj" "$line" "agent/journal.txt has the agent's line"
done <<EOF
$want
EOF
still_running "$pid" "smcctl support-bundle"

# --- restart: idempotent, and again no denials -------------------------------------------
since=$(date +@%s)
assert_ok systemctl restart $U
assert_eq active "$(systemctl is-active $U)" "active after restart"
run prop LastReconcile
assert_contains "$out" "\"ueid:$ueid\" \"unchanged\"" "a restart with the same file changes nothing (UEID)"
assert_contains "$out" '"sysctl:wmem" "unchanged"' "a restart with the same file changes nothing (wmem)"
no_denials "$since"

exit 0
