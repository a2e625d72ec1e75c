#!/bin/sh
# lanes: 612
#
# The package's maintainer scripts under a running systemd (the boot test covers the install
# before the first boot): an upgrade to VERSION+t1 replaces an unchanged conffile, keeps a
# changed one (dpkg --force-confdef --force-confold, as unattended upgrades run) and restarts
# the agent; a reinstall restarts it with a changed conffile; remove stops it, keeps the
# conffile and removes the Prometheus textfile; purge removes the conffile, the enablement
# and /var/lib/smcd-agent; a fresh install on a system without the group smcd enables and
# starts the agent at once, and a member of the new group may change settings (D-Bus
# reloaded its policy after the group was created).  Runs after systemd-agent.sh in the
# same boot.  The .debs are in /var/cache/smcdvm/debs (tests/pkg/systemd-lane).
. "$(dirname "$0")/lib.sh"
require_cmd dpkg systemctl busctl
U=smcd-agent
deb=$(ls /var/cache/smcdvm/debs/smcd-agent_*.deb)
[ -f "$deb" ] || fail "no smcd-agent .deb in /var/cache/smcdvm/debs"
up=$(ls /var/cache/smcdvm/debs/upgrade/smcd-agent_*+t1.deb)
[ -f "$up" ] || fail "no upgrade .deb in /var/cache/smcdvm/debs/upgrade"
version=$(dpkg-deb -f "$deb" Version)
marker="# smcd-agent $version+t1 (systemd lane upgrade test)"
prom=/var/lib/prometheus/node-exporter/smc.prom
export DEBIAN_FRONTEND=noninteractive

# wait_active SECONDS : until the unit is active and owns its bus name.
wait_active() {
	_i=0
	until [ "$(systemctl is-active $U)" = active ] && busctl status $SMCD_BUS_NAME >/dev/null 2>&1; do
		_i=$((_i + 1))
		[ $_i -le $(($1 * 5)) ] || { run systemctl status --no-pager $U; fail "$U not active within $1 s"; }
		sleep 0.2
	done
}

# --- upgrade to VERSION+t1: an unchanged conffile is replaced, the agent restarted -----------
run dpkg --verify smcd-agent
assert_eq "" "$out" "before the upgrade: the conffile is unchanged"
pid=$(systemctl show -P MainPID $U)
assert_ok dpkg --force-confdef --force-confold -i "$up"
assert_eq "$version+t1" "$(dpkg-query -W -f='${Version}' smcd-agent)" "upgraded"
assert_eq "$marker" "$(tail -n 1 /etc/smc/smc.yaml)" "the unchanged conffile was replaced by the new one"
wait_active 30
assert_ne "$pid" "$(systemctl show -P MainPID $U)" "the upgrade restarted the agent"

# --- upgrade with a changed conffile: the admin's file stays, the new one beside it ---------
assert_ok dpkg -i "$deb"
assert_eq "$version" "$(dpkg-query -W -f='${Version}' smcd-agent)" "downgraded for the next upgrade"
assert_not_contains "$(cat /etc/smc/smc.yaml)" "$marker" "the downgrade brought the old file back"
sed -i 's/^  rmem: 256KiB$/  rmem: 512KiB/' /etc/smc/smc.yaml
wait_active 30
pid=$(systemctl show -P MainPID $U)
assert_ok dpkg --force-confdef --force-confold -i "$up"
assert_contains "$(cat /etc/smc/smc.yaml)" "rmem: 512KiB" "the upgrade keeps the changed conffile"
assert_not_contains "$(cat /etc/smc/smc.yaml)" "$marker" "the changed conffile is not merged"
assert_eq "$marker" "$(tail -n 1 /etc/smc/smc.yaml.dpkg-dist)" "the new conffile as smc.yaml.dpkg-dist"
wait_active 30
assert_ne "$pid" "$(systemctl show -P MainPID $U)" "the upgrade restarted the agent"
assert_eq 524288 "$(cat /proc/sys/net/smc/rmem)" "the restarted agent applied the kept file"
rm /etc/smc/smc.yaml.dpkg-dist
assert_ok dpkg --force-confnew -i "$deb"
run dpkg --verify smcd-agent
assert_eq "" "$out" "back at $version with its own conffile"
wait_active 30

# --- reinstall (same version again): the changed conffile stays and is applied ---------------
sed -i 's/^  rmem: 256KiB$/  rmem: 512KiB/' /etc/smc/smc.yaml
assert_contains "$(cat /etc/smc/smc.yaml)" "rmem: 512KiB" "conffile changed by the admin"
pid=$(systemctl show -P MainPID $U)
assert_ok dpkg -i "$deb"
assert_contains "$(cat /etc/smc/smc.yaml)" "rmem: 512KiB" "the upgrade keeps the changed conffile"
wait_active 30
assert_ne "$pid" "$(systemctl show -P MainPID $U)" "the upgrade restarted the agent"
assert_eq 524288 "$(cat /proc/sys/net/smc/rmem)" "the restarted agent applied the changed file"

# --- remove: stopped, conffile kept, no stale Prometheus textfile ---------------------------
i=0
while [ ! -s $prom ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
assert_exists $prom "the running agent writes $prom"
assert_ok dpkg -r smcd-agent
assert_ne active "$(systemctl is-active $U)" "removed: not running"
assert_not_exists /lib/systemd/system/$U.service
assert_exists /etc/smc/smc.yaml "a removed package keeps its conffile"
assert_not_exists $prom "removed: node-exporter would export the stopped agent's last values"
assert_exists /var/lib/smcd-agent/stats.state "removed: the statistics state is kept"

# --- purge: conffile, enablement and state gone ---------------------------------------------
assert_ok dpkg --purge smcd-agent
assert_not_exists /etc/smc/smc.yaml "purged"
assert_not_exists /etc/systemd/system/multi-user.target.wants/$U.service "purged"
assert_not_exists /var/lib/smcd-agent "purged: the state directory"

# --- fresh install on a system that never had the group --------------------------------------
# The D-Bus policy names no group (anyone may call the agent, which decides: polkit, or
# without it root and admin-group), so a member of the group the postinst creates may change
# settings at once, with no reload of the bus.  --no-triggers keeps dbus's own trigger (run
# at the end of the dpkg run, under apt of the whole transaction) from hiding a policy that
# would need one.
assert_ok groupdel smcd
since=$(date +@%s)
assert_ok dpkg --no-triggers -i "$deb"
assert_eq enabled "$(systemctl is-enabled $U)" "a fresh install enables the unit"
wait_active 30
assert_eq 0 "$(systemctl show -P NRestarts $U)" "started without a failed attempt (D-Bus had the policy)"
assert_eq 262144 "$(cat /proc/sys/net/smc/rmem)" "the shipped file applied again"
assert_match "$(getent group smcd)" '^smcd:x:[0-9]+:' "the postinst created group smcd again"
run journalctl --no-pager -o cat -u dbus --since "$since"
info "dbus-daemon since the install (an 'Unknown group' here is the unpack before the group)"
assert_ok useradd --no-create-home --no-user-group --groups smcd smcdtest
assert_ok setpriv --reuid=smcdtest --regid=nogroup --init-groups smcctl config reload
assert_ok dpkg --triggers-only --pending
exit 0
