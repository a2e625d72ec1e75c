#!/bin/sh
# lanes: 7x
# timeout: 1800
#
# The operator's monitoring for real (issue 16): Debian's prometheus-node-exporter reads the
# agent's textfile directory while SMC traffic runs; its /metrics serves the smc_ families
# with node_textfile_scrape_error 0, before the traffic and again in scrapes of files the
# agent wrote while connections were open and data moved; a Prometheus server (Debian's
# prometheus) scraping it
# loads contrib/prometheus/smcd-agent-rules.yml, evaluates the recording rules over the
# real traffic (SMC-D connections and real fallbacks) and reports every rule healthy.
# The programs are big (about 110 MB): tests/vm/prometheus.test boots this test alone with
# them (--host-bin prometheus-node-exporter prometheus curl, the rules as --host-file); in
# the lane's ordinary boots they are missing and it is skipped.
# With SMCD_PROM_DUMP=1 it prints the Prometheus server's series of the recording rules and
# of fallbacks by reason and bytes per second between @@PROM-RANGE markers
# (bench/monitoring/plot turns them into the README's PNG).
. "$(dirname "$0")/lib.sh"
command -v prometheus-node-exporter >/dev/null && command -v prometheus >/dev/null ||
	skip "prometheus-node-exporter and prometheus are not in the guest (tests/vm/prometheus.test runs this)"
require_cmd smcctl smcd-agent smc-conn jq curl dbus-daemon busctl
RULES=${SMCD_PROM_RULES:?the path of smcd-agent-rules.yml (vm-run --host-file it, --env SMCD_PROM_RULES=)}
[ -r "$RULES" ] || fail "the rules file $RULES is not in the guest (vm-run --host-file)"
TEXTDIR=/var/lib/prometheus/node-exporter

assert_ok smcctl ueid derive --apply
start_system_bus
mkdir -p /etc/smc /tmp/state "$TEXTDIR"
export STATE_DIRECTORY=/tmp/state
printf 'stats: {interval: 1s, prometheus: {path: %s/smc.prom}}\n' "$TEXTDIR" >/etc/smc/smc.yaml
start_agent "$TEXTDIR/smc.prom"

# node_exporter: the textfile collector alone (the others read /proc and /sys of a guest
# nobody asked about); Prometheus: a 1 s scrape and rule evaluation, so that 5m rates have
# samples within seconds.
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$TEXTDIR" --web.listen-address=127.0.0.1:9100 \
	>/tmp/node-exporter.log 2>&1 &
ne=$!
cat >/tmp/prometheus.yml <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [$RULES]
scrape_configs:
  - job_name: node
    static_configs: [{targets: ['127.0.0.1:9100']}]
EOF
prometheus --config.file=/tmp/prometheus.yml --storage.tsdb.path=/tmp/tsdb \
	--web.listen-address=127.0.0.1:9090 >/tmp/prometheus.log 2>&1 &
pr=$!

metrics() { curl -sf --max-time 120 http://127.0.0.1:9100/metrics; }
# q EXPR: the instant query's first value ("" when there is none)
q() {
	curl -sf --max-time 120 --get --data-urlencode "query=$1" http://127.0.0.1:9090/api/v1/query |
		jq -r '.data.result[0].value[1] // ""'
}
positive() { v=$(q "$1") && [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0) }'; }

wait_until 120 "node_exporter serves /metrics" sh -c 'curl -sf http://127.0.0.1:9100/metrics >/dev/null'
# The agent's file once more after node_exporter is up: the textfile collector reads it at
# every scrape.
m=$(metrics) || { cat /tmp/node-exporter.log; fail "node_exporter does not answer"; }
printf '%s\n' "$m" | grep -q '^node_textfile_scrape_error 0$' ||
	fail "node_exporter reports a textfile error: $(printf '%s\n' "$m" | grep -e textfile -e smc_up)"
printf '%s\n' "$m" | grep -q "^node_textfile_mtime_seconds{file=\"$TEXTDIR/smc.prom\"} " ||
	fail "node_exporter does not list the agent's file"
for fam in smc_up smc_agent_info smc_agent_state smc_handshakes_total smc_fallbacks_total smc_stats_timestamp_seconds; do
	printf '%s\n' "$m" | grep -q "^$fam[{ ]" || fail "node_exporter's /metrics has no $fam"
done
info "node_exporter serves $(printf '%s\n' "$m" | grep -c '^smc_') smc_ samples, node_textfile_scrape_error 0"

up1() { [ "$(q 'up{job="node"}')" = 1 ]; }
wait_until 180 "Prometheus scrapes node_exporter (up == 1; its log: /tmp/prometheus.log)" up1

# --- traffic after the first scrape, so that the rates see it rise ----------------------------
smc-conn serve --port 7001 --proto tcp --conns 3 >/tmp/serve.log 2>&1 &
srv=$!
wait_listen 7001
assert_ok smc-conn connect --port 7001 --proto smc --conns 3 --bytes 64K
wait $srv
assert_ok smc-conn pair --proto smc --conns 4 --bytes 4M
wait_until 120 "the recording rule instance:smc_handshakes:rate5m sees the SMC-D connections" \
	positive 'instance:smc_handshakes:rate5m'
wait_until 60 "instance:smc_fallbacks:rate5m sees the fallbacks" positive 'instance:smc_fallbacks:rate5m'
share=$(q 'instance:smc_connection_share:ratio5m')
info "Prometheus: handshakes $(q 'instance:smc_handshakes:rate5m')/s, fallbacks $(q 'instance:smc_fallbacks:rate5m')/s, share $share"
awk -v v="$share" 'BEGIN { exit !(v > 0 && v < 1) }' ||
	fail "SMC's share of connections with 4 SMC-D and 3 fallbacks is not between 0 and 1: '$share'"
# Per network namespace: the agent's own is netns="host".
wait_until 60 "instance_netns:smc_handshakes:rate5m sees them under netns=\"host\"" \
	positive 'instance_netns:smc_handshakes:rate5m{netns="host"}'

# --- again while SMC traffic runs ------------------------------------------------------------
# The agent rewrites its file every second (stats.interval 1s) while node_exporter reads it
# at every scrape: neither may see a half-written file.  Four SMC-D connections stay open,
# and a transfer runs after each rewrite seen, so that every file read here was written
# while connections were open and data moved (paced by the rewrites, not free-running: the
# guest has two TCG vCPUs, and Prometheus needs them too).  "While" is shown by the file
# itself (the smcd sockets open, the handshakes past their count before, a modification
# time after the start), not assumed.  Label-agnostic sums: the families may gain labels (a
# netns) without this changing.
# fam_sum FAMILY SUBSTRING TEXT: the sum of FAMILY's samples whose line holds SUBSTRING
# ('' for all: busybox awk's index() of "" is 0) in exposition TEXT.
fam_sum() {
	printf '%s\n' "$3" | awk -v f="$1" -v sub_="$2" \
		'(index($0, f "{") == 1 || index($0, f " ") == 1) && (sub_ == "" || index($0, sub_)) { s += $NF }
		END { printf "%.0f\n", s }'
}
textfile_mtime() {
	printf '%s\n' "$1" | awk -v f="file=\"$TEXTDIR/smc.prom\"" \
		'index($0, "node_textfile_mtime_seconds{") == 1 && index($0, f) { printf "%.3f\n", $NF }'
}
# scrape_ok TEXT: node_textfile_scrape_error 0 and every family this test names.
scrape_ok() {
	printf '%s\n' "$1" | grep '^node_textfile_scrape_error 0$' >/dev/null || return 1
	for fam in smc_up smc_agent_info smc_agent_state smc_handshakes_total smc_fallbacks_total \
		smc_stats_timestamp_seconds smc_sockets smc_bytes_total; do
		printf '%s\n' "$1" | grep "^$fam[{ ]" >/dev/null || return 1
	done
}
transfer() { smc-conn pair --proto smc --conns 1 --bytes 1M >/dev/null 2>&1 || fail "a transfer during the checks failed"; }
# within SECONDS WHAT CMD...: until CMD succeeds, by the clock (wait_until counts tries, and
# under TCG on a loaded host one try of a scrape takes seconds).
within() {
	_wi_end=$(($(date +%s) + $1)) _wi_what=$2
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -le "$_wi_end" ] || fail "$_wi_what: not within the time"
		sleep 0.2
	done
}
m=$(metrics) || fail "node_exporter does not answer"
hs0=$(fam_sum smc_handshakes_total '' "$m")
t0=$(date +%s)
smc-conn pair --proto smc --conns 4 --bytes 64K --hold 900 >/tmp/hold.log 2>&1 &
hold=$!
# Closed however the test ends (a failed check exits): the guest reboots right after.
trap 'kill $hold 2>/dev/null; wait $hold 2>/dev/null' EXIT
wait_conns /tmp/hold.log 4
transfer
info "4 SMC-D connections held open, a transfer done; waiting for a scrape of a file written since"
# during: node_exporter's answer now is a file the agent wrote during the traffic ($m).
during() {
	m=$(metrics) || return 1
	mt=$(textfile_mtime "$m")
	[ -n "$mt" ] && [ "$(fam_sum smc_sockets 'mode="smcd"' "$m")" -gt 0 ] &&
		[ "$(fam_sum smc_handshakes_total '' "$m")" -gt "$hs0" ] &&
		awk -v a="$mt" -v b="$t0" 'BEGIN { exit !(a + 0 >= b + 0) }'
}
within 300 "node_exporter serves a textfile written while the SMC connections are open" during
info "node_exporter serves a file written during the traffic: $(fam_sum smc_sockets 'mode="smcd"' "$m") SMC-D sockets open, handshakes $hs0 -> $(fam_sum smc_handshakes_total '' "$m")"
scrape_ok "$m" ||
	fail "during the traffic node_exporter reports a textfile error or lacks a family: $(printf '%s\n' "$m" | grep -e textfile -e '^smc_up')"
# Then three more rewrites, a transfer after each: every scrape on the way must be clean.
mt_last=$(textfile_mtime "$m") bytes_first=$(fam_sum smc_bytes_total '' "$m")
rewrites=0 scrapes=0 end=$(($(date +%s) + 300))
transfer
while [ "$rewrites" -lt 3 ]; do
	m=$(metrics) || fail "node_exporter stopped answering during the traffic"
	scrapes=$((scrapes + 1))
	scrape_ok "$m" ||
		fail "scrape $scrapes during the traffic: a textfile error or a family missing: $(printf '%s\n' "$m" | grep -e textfile -e '^smc_up')"
	mt=$(textfile_mtime "$m")
	if [ "$mt" != "$mt_last" ]; then
		rewrites=$((rewrites + 1))
		mt_last=$mt
		[ "$rewrites" -eq 3 ] || transfer
	fi
	[ "$(date +%s)" -le "$end" ] || fail "the agent did not rewrite its textfile 3 times in 300 s ($scrapes scrapes)"
	sleep 0.1
done
bytes_last=$(fam_sum smc_bytes_total '' "$m")
[ "$bytes_last" -gt "$bytes_first" ] ||
	fail "smc_bytes_total did not rise during the traffic ($bytes_first -> $bytes_last): was there traffic?"
info "node_exporter during the traffic: $scrapes scrapes over 3 rewrites of the file, each with node_textfile_scrape_error 0 and every family; smc_bytes_total $bytes_first -> $bytes_last"
# Prometheus' own scrapes: one made while the connections are open (it sees them), and no
# scrape of the whole run with a textfile error.
prom_during() { positive 'sum(smc_sockets{mode="smcd"})'; }
within 300 "Prometheus scraped node_exporter while the SMC connections are open" prom_during
for fam in smc_up smc_agent_info smc_agent_state smc_handshakes_total smc_fallbacks_total \
	smc_stats_timestamp_seconds smc_bytes_total; do
	positive "count($fam)" || fail "Prometheus has no $fam in its scrape during the traffic"
done
# max over the run: 0 only if every scrape said 0 (and "" if there was none).
assert_eq 0 "$(q 'max_over_time(node_textfile_scrape_error[1h])')" \
	"the largest node_textfile_scrape_error Prometheus scraped in the run"
info "Prometheus during the traffic: open SMC-D sockets $(q 'sum(smc_sockets{mode="smcd"})'), every family, no textfile error in any scrape"
kill $hold 2>/dev/null
wait $hold 2>/dev/null || true
trap - EXIT

# every rule of the file loaded and healthy (an expression over a renamed metric would be
# healthy but empty: the rates above are what shows the names match)
rules=$(curl -sf http://127.0.0.1:9090/api/v1/rules) || fail "Prometheus' /api/v1/rules"
want=$(grep -cE '^ *- (record|alert):' "$RULES")
got=$(printf '%s' "$rules" | jq '[.data.groups[].rules[]] | length')
assert_eq "$want" "$got" "rules loaded from $RULES"
bad=$(printf '%s' "$rules" | jq -r '[.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.lastError)"] | join("; ")')
assert_eq "" "$bad" "rules that are not healthy"
info "Prometheus loaded $got rules, all healthy"

if [ "${SMCD_PROM_DUMP:-}" = 1 ]; then
	# A minute of mixed traffic for the plot (paced on purpose: this draws, it checks nothing).
	for round in 1 2 3 4 5 6; do
		smc-conn pair --proto smc --conns $((round * 2)) --bytes 8M >/dev/null 2>&1
		smc-conn serve --port 7001 --proto tcp --conns $round >/dev/null 2>&1 &
		srv=$!
		wait_listen 7001
		smc-conn connect --port 7001 --proto smc --conns $round --bytes 16K >/dev/null 2>&1
		wait $srv
		sleep 10
	done
	end=$(date +%s)
	for expr in 'instance:smc_handshakes:rate5m' 'instance:smc_fallbacks:rate5m' \
		'sum by (reason) (rate(smc_fallback_reasons_total[1m]))' \
		'sum by (direction) (rate(smc_bytes_total[1m]))'; do
		echo "@@PROM-RANGE $expr"
		curl -sf --get --data-urlencode "query=$expr" --data-urlencode "start=$((end - 180))" \
			--data-urlencode "end=$end" --data-urlencode step=1 \
			http://127.0.0.1:9090/api/v1/query_range
		echo
		echo "@@PROM-RANGE-END"
	done
fi

kill $pr $ne $agent 2>/dev/null
wait $pr $ne $agent 2>/dev/null || true
exit 0
