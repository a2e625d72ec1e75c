#!/bin/sh
# lanes: 7x
# timeout: 720
#
# Issue 12's soak: the agent under steady load for SMCD_SOAK_SECS seconds of guest time
# (default 120, make check's bounded run; `make soak` passes 600 through vm-run --env).
# Throughout: loopback connections opened and closed at a steady rate (smclo-xfer churn
# --rate), a reader of the Prometheus file (prom-reader), smcctl and busctl clients polling
# (Refresh included), smcctl -j monitor and busctl monitor following the signals.  In
# cycles: a Reload with active: true (the agent loads smc_lo with libkmod, or finds it loaded
# by hand or still loaded, and activates smclo: link groups appear on it), an unchanged
# Reload and one that changes net.smc.wmem, a Reload with active: false (drained and
# removed: the link groups go, the connections fall back to TCP), and every second cycle
# rmmod smc_lo.  The built-in lo has a PNET ID of its own throughout, so it never carries
# SMC-D (take-over-lo then adds nothing): 7.3's SMC-D link-group dump hides a device's link
# groups while a device before it in the list ("lo" sorts first) has as many (see
# kmod-traffic.sh), and the kernel's answer is what everything here is compared with.
#
# Checked:
#   - at rest after every step, what the kernel has (smcctl straight from the kernel, and
#     /sys/class/dibs) equals the agent's D-Bus objects, the set the monitor's events add
#     up to (added minus removed) and the Prometheus file's link-group series: no event
#     missed, none invented (waited for, up to REST_WAIT s; never a fixed sleep);
#   - every link group's events in order (added once, changed..., removed), each device
#     added/removed once per activation/deactivation, the ObjectManager signals of busctl
#     monitor counted per interface (LoopbackDevice once per module load and unload), the
#     reconcile events per Reload, the agent's seen/removed counters equal to the events;
#   - prom-reader never read a partial file; churn never saw corrupt data;
#   - the agent's VmRSS, RssAnon and open descriptors flat after a warm-up of two cycles
#     (the series printed, "# series ..." lines, for bench/soak/README.md).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-kmod.sh"
kmod_require
require_cmd smcd-agent smcctl prom-reader dbus-daemon busctl jq

SECS=${SMCD_SOAK_SECS:-120}
case $SECS in '' | *[!0-9]*) fail "SMCD_SOAK_SECS wants seconds, got '$SECS'" ;; esac
# One sample of the agent's memory and descriptors every SAMPLE seconds (about 60 a run).
SAMPLE=$((SECS / 60))
[ $SAMPLE -ge 5 ] || SAMPLE=5
RATE=5          # connections a second
REST_WAIT=90    # seconds the agent may take to show a state the kernel is at rest in (loaded host)
# Memory growth allowed after the warm-up, in kB: glibc gives the top of its heap back only
# above M_TRIM_THRESHOLD (128 KiB free), so the heap breathes by about that much; twice it.
RSS_SLACK=256

M="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER"
S="$SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS"
OM="$SMCD_BUS_NAME $SMCD_BUS_PATH org.freedesktop.DBus.ObjectManager"
LB=$SMCD_BUS_PATH_SMCD_DEVICE/smclo
PROM=/tmp/prom/smc.prom
MON=/tmp/monitor.json
OMLOG=/tmp/om.json
STOP=/tmp/soak.stop
secs() { cut -d. -f1 /proc/uptime; }
uptime_cs() { cut -d' ' -f1 /proc/uptime | tr -d .; } # hundredths of a second

kver=$(uname -r)
mkdir -p "/lib/modules/$kver/extra" /tmp/prom /tmp/state /etc/smc
cp "$KMOD_KO" "/lib/modules/$kver/extra/smc_lo.ko"
depmod -a "$kver" || fail "depmod"
module_loaded smc_lo && fail "smc_lo is loaded before the agent starts"
export STATE_DIRECTORY=/tmp/state

WMEM=256KiB
write_config() { # ACTIVE
	cat >/etc/smc/smc.yaml <<EOF
ueid: {auto: true}
sysctl: {wmem: $WMEM}
modules: [smc, smc_diag]
drift: {action: repair, interval: 3s}
monitor: {interval: 1s}
stats: {interval: 1s, prometheus: {path: $PROM}}
loopback: {active: $1, drain-timeout: 2s}
EOF
}
reload() {
	busctl call $M Reload >/tmp/reload.out 2>&1 || fail "Reload: $(cat /tmp/reload.out)"
	reloads=$((reloads + 1))
}

# --- the views: "lgr TECH ID" (8 hex digits) and "dev TECH NAME" lines, sorted --------------
# Few processes per look: under TCG every jq costs about a second, an smcctl a third.
# The kernel's, read by smcctl without a bus (with one, smcctl linkgroup asks the agent for
# its columns with refresh=true, which would make the agent look).
view_kernel() {
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/no-bus smcctl linkgroup list |
		awk '/^SMC-D/ { t = "smcd" } /^SMC-R/ { t = "smcr" }
			length($1) == 8 && $1 ~ /^[0-9a-f]+$/ { print "lgr " t " " $1 }'
	for _d in /sys/class/dibs/*; do [ -e "$_d" ] && echo "dev smcd ${_d##*/}"; done
}
view_dbus() {
	busctl --json=short call $OM GetManagedObjects |
		jq -r --arg lg $SMCD_BUS_IFACE_LINKGROUP --arg dev $SMCD_BUS_IFACE_DEVICE \
			'.data[0] | to_entries[] | (.key | split("/")) as $p |
		if .value[$lg] then "lgr \($p[5]) \($p[6])"
		elif .value[$dev] then "dev \($p[5]) \($p[6])" else empty end'
}
# The monitor's events (json-c keeps smcctl's key order: time_usec, event, technology, then
# id or name; a line still being written does not end in "}") added up, from the devices it
# started with ($DEVS0).
view_monitor() {
	sed -n 's/^{"time_usec":[0-9]*,"event":"\(linkgroup-added\|linkgroup-removed\|device-added\|device-removed\)","technology":"\([a-z]*\)","\(id\|name\)":"\{0,1\}\([0-9A-Za-z_.-]*\)[",].*}$/\1 \2 \4/p' $MON |
		awk -v init="$DEVS0" '
		BEGIN { n = split(init, a, " "); for (i = 1; i <= n; i++) s["dev smcd " a[i]] = 1 }
		$1 == "linkgroup-added" { s["lgr " $2 " " $3] = 1 }
		$1 == "linkgroup-removed" { delete s["lgr " $2 " " $3] }
		$1 == "device-added" { s["dev " $2 " " $3] = 1 }
		$1 == "device-removed" { delete s["dev " $2 " " $3] }
		END { for (k in s) print k }'
}
view_prom() {
	awk 'index($1, "smc_linkgroup_connections{") == 1 {
		split($1, a, "\""); if (a[4] != "_other") print "lgr " a[2] " " a[4] }' $PROM
}
sorted() { "$@" 2>&1 | sort; }

# at_rest LABEL: until the kernel reads the same twice around the agent's three views and
# they all equal it (the Prometheus file has link groups only).
rests=0
at_rest() {
	_ar_t0=$(secs) _ar_n=0
	while :; do
		_ar_n=$((_ar_n + 1))
		_t1=$(secs)
		_k1=$(sorted view_kernel)
		_t2=$(secs)
		_d=$(sorted view_dbus)
		_t3=$(secs)
		_m=$(sorted view_monitor)
		_p=$(sorted view_prom)
		_t4=$(secs)
		_k2=$(sorted view_kernel)
		_t5=$(secs)
		[ $((_t5 - _t1)) -lt 10 ] ||
			info "$1: a slow look: kernel $((_t2 - _t1)) s, D-Bus $((_t3 - _t2)) s, monitor and file $((_t4 - _t3)) s, kernel $((_t5 - _t4)) s"
		_kl=$(printf '%s\n' "$_k2" | grep '^lgr' || true)
		if [ "$_k1" = "$_k2" ] && [ "$_d" = "$_k2" ] && [ "$_m" = "$_k2" ] && [ "$_p" = "$_kl" ]; then
			rests=$((rests + 1))
			info "$1: at rest after $(($(secs) - _ar_t0)) s ($_ar_n looks): $(printf '%s\n' "$_k2" | cut -d' ' -f3 | tr '\n' ' ')"
			return 0
		fi
		if [ $(($(secs) - _ar_t0)) -ge $REST_WAIT ]; then
			printf '%s\n' "--- kernel:" "$_k2" "--- D-Bus:" "$_d" "--- monitor:" "$_m" \
				"--- Prometheus:" "$_p" "--- monitor events (last 40):" >&2
			tail -n 40 $MON >&2
			fail "$1: the agent's views differ from the kernel's after $REST_WAIT s ($_ar_n looks)"
		fi
		sleep 1
	done
}

# wait_lgr_on GID: until the kernel has a link group on that GID (kmod_wait_lgr_on asks
# smcctl with the bus, which makes the agent look).
wait_lgr_on() {
	_wg_t0=$(secs)
	until DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/no-bus smcctl -j linkgroup list --smcd |
		grep -q "\"gid\":\"$1\""; do
		[ $(($(secs) - _wg_t0)) -lt 30 ] || fail "no link group on GID $1 after 30 s: $(smcctl linkgroup)"
		sleep 0.2
	done
}

# The LoopbackDevice object on D-Bus: "yes" or "no".
lb_object() {
	busctl --json=short call $OM GetManagedObjects |
		jq -r --arg p $LB --arg i $SMCD_BUS_IFACE_LOOPBACK_DEVICE \
			'.data[0][$p][$i] | if . then "yes" else "no" end'
}
wait_lb_object() { # yes|no WHAT
	_wl_t0=$(secs)
	until [ "$(lb_object)" = "$1" ]; do
		[ $(($(secs) - _wl_t0)) -lt 30 ] || fail "$2: the LoopbackDevice object is not '$1' after 30 s"
		sleep 0.2
	done
}

# --- memory and descriptors -------------------------------------------------------------
# sample: "SECS VmRSS RssAnon FDS" (kB) of the agent.
sample() {
	printf '%s %s %s\n' "$(($(secs) - T0))" \
		"$(awk '$1 == "VmRSS:" { r = $2 } $1 == "RssAnon:" { a = $2 } END { print r, a }' /proc/$agent/status)" \
		"$(ls /proc/$agent/fd 2>/dev/null | wc -l)"
}
# checkpoint: a sample whose descriptor count is the least of five reads 0.2 s apart: every
# interval the Prometheus and state files' writers hold a temporary file (and its
# directory) open for a moment.
checkpoint() {
	_cp=$(sample)
	for _i in 1 2 3 4; do
		sleep 0.2
		_f=$(ls /proc/$agent/fd 2>/dev/null | wc -l)
		[ "$_f" -ge "${_cp##* }" ] || _cp="${_cp% *} $_f"
	done
	echo "$cycle $_cp" >>/tmp/checkpoints
}

# diagnose: what a failure report needs besides its own message.
diagnose() {
	{
		echo "--- churn: $(cat /tmp/churn.out 2>/dev/null)"
		echo "--- sockets:"; smcctl socket -a
		echo "--- kernel statistics:"; smcctl -j stats --kernel | jq -c .summary
		echo "--- devices:"; smcctl device
		echo "--- PNET table:"; smcctl pnet list
		echo "--- smc_lo:"; kmod_json
		echo "--- agent log (last 30 lines):"; tail -n 30 /tmp/agent.log
	} >&2 2>&1
}
# Background jobs write only to files (a job holding the test's output would keep vm-run
# waiting after a failure); at the exit they are ended, after a failure with a diagnosis.
bg_pids=
cleanup() {
	_rc=$?
	touch $STOP
	[ $_rc -eq 0 ] || diagnose
	# shellcheck disable=SC2086
	[ -z "$bg_pids" ] || kill $bg_pids 2>/dev/null
	kill "${agent:-}" 2>/dev/null
	return $_rc
}
trap cleanup EXIT

# --- start ----------------------------------------------------------------------------------
smcctl pnet add SOAKNOTLO --ib lo || fail "pnet add SOAKNOTLO --ib lo"
start_system_bus
write_config false
start_agent $PROM
T0=$(secs)
DEVS0=$(cd /sys/class/dibs && echo *)
info "soak of $SECS s; devices at the start: $DEVS0; samples every $SAMPLE s; agent pid $agent"

# busctl monitor: every ObjectManager signal, and our own probe signal to know it listens.
busctl monitor --json=short --match "type='signal',interface='org.freedesktop.DBus.ObjectManager'" \
	--match "type='signal',interface='org.smcd.Soak'" >$OMLOG 2>/tmp/om.err &
ommon=$!
bg_pids="$bg_pids $ommon"
n=0
until grep -q '"member":"Probe"' $OMLOG 2>/dev/null; do
	busctl emit /org/smcd/Soak org.smcd.Soak Probe
	n=$((n + 1))
	[ $n -lt 50 ] || fail "busctl monitor shows no signal after 10 s: $(cat /tmp/om.err)"
	sleep 0.2
done
start_monitor $MON
bg_pids="$bg_pids $mon"
reloads=0

# --- the load ---------------------------------------------------------------------------------
smclo-xfer churn --secs 100000 --bytes 16384 --rate $RATE >/tmp/churn.out 2>&1 &
churn=$!
prom-reader $PROM 1000000 20 >/tmp/prom-reader.out 2>&1 & # until SIGTERM
reader=$!
bg_pids="$bg_pids $churn $reader"
# smcctl through the agent (status, stats with a refresh, linkgroup with the agent's columns)
# and from the kernel (device, info), one call every 2 s; a failure is logged with its output.
(
	n=0
	while [ ! -e $STOP ]; do
		for c in status stats linkgroup device info; do
			smcctl -j $c >/tmp/poll-smcctl.last 2>&1 ||
				echo "smcctl $c: $? $(head -c 300 /tmp/poll-smcctl.last)" >>/tmp/poll-smcctl.err
			n=$((n + 1))
			echo $n >/tmp/poll-smcctl.n
			sleep 2
		done
	done
) </dev/null >/tmp/poll-smcctl.out 2>&1 &
poll_smcctl=$!
# D-Bus clients, one call a second, each a new connection to the agent.
(
	n=0
	while [ ! -e $STOP ]; do
		for c in "$OM GetManagedObjects" "$S GetStatistics b false" "$M Refresh" \
			"$SMCD_BUS_NAME $SMCD_BUS_PATH org.freedesktop.DBus.Properties GetAll s $SMCD_BUS_IFACE_MANAGER" \
			"$SMCD_BUS_NAME $SMCD_BUS_PATH_SMCD_DEVICE/lo org.freedesktop.DBus.Introspectable Introspect"; do
			_t0=$(uptime_cs)
			# shellcheck disable=SC2086 # word splitting on purpose
			busctl call $c >/tmp/poll-bus.last 2>&1 ||
				echo "busctl call $c: $(head -c 300 /tmp/poll-bus.last)" >>/tmp/poll-bus.err
			echo "$(($(secs) - T0)) $(($(uptime_cs) - _t0)) ${c##* }" >>/tmp/poll-bus.times
			n=$((n + 1))
			echo $n >/tmp/poll-bus.n
			sleep 1
		done
	done
) </dev/null >/tmp/poll-bus.out 2>&1 &
poll_bus=$!
(
	while [ ! -e $STOP ]; do
		sample >>/tmp/samples
		sleep $SAMPLE
	done
) </dev/null >/tmp/sampler.out 2>&1 &
sampler=$!
bg_pids="$bg_pids $poll_smcctl $poll_bus $sampler"
: >/tmp/checkpoints

# --- the cycles ---------------------------------------------------------------------------
# smc_lo is loaded by the agent (cycles 1, 4, 5, 8, ...: it was unloaded), by hand (2, 6, ...)
# or still there (3, 7, ...: the device's second generation); rmmod after odd cycles.
cycle=0 activations=0 deactivations=0 loads=0 unloads=0 wmem_changes=0 hand_loads=0
loaded=no
# At least three cycles: the checkpoint after the second is the third's baseline.
while [ $(($(secs) - T0)) -lt "$SECS" ] || [ $cycle -lt 3 ]; do
	cycle=$((cycle + 1))
	if [ $loaded = no ] && [ $((cycle % 4)) = 2 ]; then
		modprobe smc_lo || fail "cycle $cycle: modprobe smc_lo"
		wait_lb_object yes "cycle $cycle: smc_lo loaded by hand"
		loaded=yes loads=$((loads + 1)) hand_loads=$((hand_loads + 1))
	fi
	write_config true
	reload
	activations=$((activations + 1))
	[ $loaded = yes ] || loads=$((loads + 1))
	loaded=yes
	[ "$(kmod_get state)" = active ] || fail "cycle $cycle: smclo not active after the Reload: $(kmod_json)"
	wait_lgr_on "$(kmod_get gid)"
	reload # unchanged: no event
	[ $WMEM = 256KiB ] && WMEM=512KiB || WMEM=256KiB
	write_config true
	reload # net.smc.wmem only: one reconcile event, nothing else
	wmem_changes=$((wmem_changes + 1))
	at_rest "cycle $cycle active"
	sleep 2 # steady traffic on smclo

	write_config false
	reload
	deactivations=$((deactivations + 1))
	[ "$(kmod_get state)" = inactive ] || fail "cycle $cycle: smclo still there after the Reload: $(kmod_json)"
	at_rest "cycle $cycle inactive"
	# The same state at every checkpoint: smc_lo loaded, its device inactive, TCP.
	checkpoint
	if [ $((cycle % 2)) = 1 ]; then
		n=0
		until rmmod smc_lo 2>/tmp/rmmod.err; do
			n=$((n + 1))
			[ $n -lt 50 ] || fail "cycle $cycle: rmmod smc_lo: $(cat /tmp/rmmod.err)"
			sleep 0.2
		done
		wait_lb_object no "cycle $cycle: smc_lo unloaded"
		module_loaded smc_lo && fail "cycle $cycle: smc_lo was loaded again after rmmod"
		loaded=no unloads=$((unloads + 1))
	fi
	sleep 1 # steady traffic (TCP)
done
info "$cycle cycles in $(($(secs) - T0)) s"

# --- the end: stop the load, last look at rest --------------------------------------------
touch $STOP
kill $churn
wait $churn
churn_rc=$?
wait $poll_smcctl $poll_bus $sampler
at_rest "after the load"
sample >>/tmp/samples
stats=$(smcctl -j stats)
sleep 1.5 # one more stats interval: prom-reader sees a version after the load too
kill $reader
wait $reader
reader_rc=$?
kill $agent
wait $agent
agent_rc=$?
stop_monitor $MON
kill $ommon 2>/dev/null
wait $ommon 2>/dev/null

# --- figures ----------------------------------------------------------------------------------
info "churn: $(cat /tmp/churn.out)"
assert_eq 0 "$churn_rc" "churn: no corrupt data"
ok=$(sed -n 's/.* ok=\([0-9]*\).*/\1/p' /tmp/churn.out)
[ "${ok:-0}" -gt 0 ] || fail "churn made no connection: $(cat /tmp/churn.out)"
info "prom-reader: $(cat /tmp/prom-reader.out)"
assert_json "$(cat /tmp/prom-reader.out)" .bad 0 "prom-reader: no partial read"
assert_eq 0 "$reader_rc" "prom-reader: no partial read, and the file changed"
info "pollers: smcctl $(cat /tmp/poll-smcctl.n) calls, D-Bus $(cat /tmp/poll-bus.n) calls;" \
	"busctl call's time (a process, a connection, the call): $(sort -n -k2 /tmp/poll-bus.times |
		awk '{ v[NR] = $2 } END { printf "median %.2f s, 90%% %.2f s, max %.2f s", v[int(NR / 2) + 1] / 100, v[int(NR * 0.9) + 1] / 100, v[NR] / 100 }')"
info "busctl calls over 3 s (t, hundredths, call): $(awk '$2 > 300 { printf "%s/%s/%s ", $1, $2, $3 }' /tmp/poll-bus.times)"
[ ! -s /tmp/poll-smcctl.err ] || { head -n 20 /tmp/poll-smcctl.err; fail "smcctl polls failed"; }
[ ! -s /tmp/poll-bus.err ] || { head -n 20 /tmp/poll-bus.err; fail "D-Bus calls failed"; }
assert_eq 0 "$agent_rc" "the agent stops cleanly"
assert_eq 0 "$mon_rc" "smcctl monitor says agent-gone, follows on, exits 0 on SIGTERM"
info "$activations activations, $deactivations deactivations, $loads module loads ($hand_loads by hand), $unloads unloads, $reloads Reloads, $rests checks at rest"

# --- events -----------------------------------------------------------------------------------
jq -rR <$MON 'fromjson? | [.event, .technology // "-", (.id // .name // .item // "-" | tostring), .result // "-"] | join(" ")' >/tmp/events
count() { awk -v e="$1" -v t="$2" -v n="$3" -v r="${4:--}" \
	'$1 == e && (t == "" || $2 == t) && (n == "" || $3 == n) && $4 == r { c++ } END { print c + 0 }' /tmp/events; }
lg_added=$(count linkgroup-added smcd '')
lg_removed=$(count linkgroup-removed smcd '')
lg_changed=$(count linkgroup-changed smcd '')
info "events: link groups $lg_added added, $lg_removed removed, $lg_changed changed;" \
	"smclo $(count device-added smcd smclo) added, $(count device-removed smcd smclo) removed"
# Each link group: added once, changes only while there, removed at most once.
bad=$(awk '$1 ~ /^linkgroup-/ { k = $2 " " $3 }
	$1 == "linkgroup-added" { if (k in s) print "added twice: " k; s[k] = 1 }
	$1 == "linkgroup-changed" { if (!(k in s)) print "changed while not there: " k }
	$1 == "linkgroup-removed" { if (!(k in s)) print "removed while not there: " k; delete s[k] }' /tmp/events)
[ -z "$bad" ] || fail "link-group events out of order: $bad"
# The kernel numbers link groups 256, 512, ...: how many it created, and any it created that
# nobody saw (a link group that lived between two looks; none is expected here).
max=$(awk '$1 == "linkgroup-added" && $3 > m { m = $3 } END { print m + 0 }' /tmp/events)
unseen=$(awk -v max="$max" '$1 == "linkgroup-added" { s[$3] = 1 }
	END { for (i = 256; i <= max; i += 256) if (!(i in s)) printf "%x ", i }' /tmp/events)
info "the kernel created $((max / 256)) link groups; announced: $lg_added${unseen:+; never announced: $unseen}"
assert_eq "$lg_added" "$(awk '$1 == "linkgroup-added" { s[$3] = 1 } END { print length(s) }' /tmp/events)" \
	"no link group announced twice (removed and added again)"
assert_eq "$activations" "$(count device-added smcd smclo)" "device-added smclo: one per activation"
assert_eq "$deactivations" "$(count device-removed smcd smclo)" "device-removed smclo: one per deactivation"
assert_eq 0 $(($(count device-added smcd lo) + $(count device-removed smcd lo))) "no device event for lo"
failed=$(awk '$1 == "reconcile" && $4 == "failed"' /tmp/events)
[ -z "$failed" ] || fail "failed reconcile items: $failed"
assert_eq "$wmem_changes" "$(count reconcile '' sysctl:wmem applied)" "one reconcile event per wmem change"
assert_eq $((activations + deactivations)) "$(count reconcile '' loopback:state applied)" \
	"one loopback:state event per activation and deactivation"
assert_eq $((loads - hand_loads)) "$(count reconcile '' loopback:module applied)" \
	"one loopback:module event per load by the agent"
info "reconcile events: $(awk '$1 == "reconcile" { c[$3 " " $4]++ } END { for (k in c) print k "=" c[k] }' /tmp/events | sort | tr '\n' ' ')"
info "other events: $(awk '$1 !~ /^(linkgroup|device)-/ && $1 != "reconcile" { c[$1]++ } END { for (k in c) print k "=" c[k] }' /tmp/events | sort | tr '\n' ' ')"
assert_json "$stats" .linkgroups.smcd.seen "$lg_added" "the agent's seen counter equals the added events"
assert_json "$stats" .linkgroups.smcd.removed "$lg_removed" "its removed counter equals the removed events"

# busctl monitor: InterfacesAdded/Removed per interface (ObjectManager clients see these).
om_count() { # MEMBER INTERFACE [PATH]
	jq -rR --arg m "$1" --arg i "$2" --arg p "${3:-}" 'fromjson? | select(.member == $m) |
		.payload.data as $d | select($p == "" or $d[0] == $p) |
		select(if $m == "InterfacesAdded" then ($d[1] | has($i)) else ($d[1] | index($i)) end) | 1' \
		$OMLOG | wc -l
}
om_lg_added=$(om_count InterfacesAdded $SMCD_BUS_IFACE_LINKGROUP)
om_lg_removed=$(om_count InterfacesRemoved $SMCD_BUS_IFACE_LINKGROUP)
info "ObjectManager signals: LinkGroup +$om_lg_added -$om_lg_removed;" \
	"smclo Device +$(om_count InterfacesAdded $SMCD_BUS_IFACE_DEVICE $LB) -$(om_count InterfacesRemoved $SMCD_BUS_IFACE_DEVICE $LB);" \
	"LoopbackDevice +$(om_count InterfacesAdded $SMCD_BUS_IFACE_LOOPBACK_DEVICE $LB) -$(om_count InterfacesRemoved $SMCD_BUS_IFACE_LOOPBACK_DEVICE $LB)"
assert_eq "$lg_added" "$om_lg_added" "InterfacesAdded of link groups: as many as linkgroup-added events"
assert_eq "$lg_removed" "$om_lg_removed" "InterfacesRemoved of link groups: as many as linkgroup-removed events"
assert_eq "$activations" "$(om_count InterfacesAdded $SMCD_BUS_IFACE_DEVICE $LB)" "InterfacesAdded of smclo's Device"
assert_eq "$deactivations" "$(om_count InterfacesRemoved $SMCD_BUS_IFACE_DEVICE $LB)" "InterfacesRemoved of smclo's Device"
assert_eq "$loads" "$(om_count InterfacesAdded $SMCD_BUS_IFACE_LOOPBACK_DEVICE $LB)" \
	"InterfacesAdded of LoopbackDevice: one per module load"
assert_eq "$unloads" "$(om_count InterfacesRemoved $SMCD_BUS_IFACE_LOOPBACK_DEVICE $LB)" \
	"InterfacesRemoved of LoopbackDevice: one per module unload"

# --- memory and descriptors ------------------------------------------------------------------
# Warm-up: the first two cycles (the agent loads smc_lo, rmmod, loaded by hand).  The
# checkpoints are taken in the same state every cycle (smc_lo loaded, its device inactive,
# the connections on TCP), so their descriptor counts must be equal; the periodic samples
# are taken in any state (smc_lo's notification socket comes and goes with the module).
info "series t(s)/VmRSS(kB)/RssAnon(kB)/fds: $(awk '{ printf "%s/%s/%s/%s ", $1, $2, $3, $4 }' /tmp/samples)"
info "checkpoints cycle/t(s)/VmRSS/RssAnon/fds: $(awk '{ printf "%s/%s/%s/%s/%s ", $1, $2, $3, $4, $5 }' /tmp/checkpoints)"
base=$(awk '$1 == 2' /tmp/checkpoints)
[ -n "$base" ] || fail "no checkpoint after cycle 2"
flat=$(awk -v slack=$RSS_SLACK -v b_rss="$(echo $base | cut -d' ' -f3)" \
	-v b_anon="$(echo $base | cut -d' ' -f4)" -v b_fds="$(echo $base | cut -d' ' -f5)" '
	$1 > 2 && $3 > b_rss + slack { print "cycle " $1 ": VmRSS " $3 " kB > " b_rss " + " slack }
	$1 > 2 && $4 > b_anon + slack { print "cycle " $1 ": RssAnon " $4 " kB > " b_anon " + " slack }
	$1 > 2 && $5 != b_fds { print "cycle " $1 ": " $5 " descriptors, " b_fds " after the warm-up" }
	' /tmp/checkpoints)
[ -z "$flat" ] || fail "the agent grew: $flat"
# Periodic samples after the warm-up: no memory above the warm-up's highest plus the slack
# (their descriptors are only printed: they catch the file writers' temporary ones, +2).
t_warm=$(echo $base | cut -d' ' -f2)
grow=$(awk -v t=$t_warm -v slack=$RSS_SLACK '
	$1 <= t { if ($2 > r) r = $2; if ($3 > a) a = $3; next }
	$2 > r + slack || $3 > a + slack { print $0 " (warm-up max " r " " a ")" }' /tmp/samples)
[ -z "$grow" ] || fail "samples above the warm-up's: $grow"
# A run of 6 minutes or more: no growth over its last third either, beyond 4 pages
# (measured: glibc's heap settles after about 14 cycles, 60-64 kB above the warm-up's, then
# stays to the page; the live heap does not grow, bench/soak/README.md).
if [ "$SECS" -ge 360 ]; then
	trend=$(awk -v end="$(tail -n 1 /tmp/samples | cut -d' ' -f1)" '
		$1 > end / 3 && $1 <= end * 2 / 3 { if ($2 > r) r = $2; if ($3 > a) a = $3 }
		$1 > end * 2 / 3 { if ($2 > r2) r2 = $2; if ($3 > a2) a2 = $3 }
		END { if (r2 > r + 16 || a2 > a + 16) print "VmRSS " r " -> " r2 " kB, RssAnon " a " -> " a2 " kB" }' /tmp/samples)
	[ -z "$trend" ] || fail "the agent still grows in the last third of the run: $trend"
fi
info "flat: VmRSS $(echo $base | cut -d' ' -f3) -> $(tail -n 1 /tmp/checkpoints | cut -d' ' -f3) kB," \
	"RssAnon $(echo $base | cut -d' ' -f4) -> $(tail -n 1 /tmp/checkpoints | cut -d' ' -f4) kB," \
	"fds $(echo $base | cut -d' ' -f5) -> $(tail -n 1 /tmp/checkpoints | cut -d' ' -f5) (checkpoints after cycle 2 and $(tail -n 1 /tmp/checkpoints | cut -d' ' -f1))"
kmod_check_dmesg
info "ok"
