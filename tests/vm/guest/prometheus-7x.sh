#!/bin/sh
# lanes: 7x
# timeout: 900
#
# The operator's monitoring for real (issue 16): Debian's prometheus-node-exporter reads the
# agent's textfile directory while SMC traffic runs; its /metrics serves the smc_ families
# with node_textfile_scrape_error 0; a Prometheus server (Debian's prometheus) scraping it
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

metrics() { curl -sf http://127.0.0.1:9100/metrics; }
# q EXPR: the instant query's first value ("" when there is none)
q() {
	curl -sf --get --data-urlencode "query=$1" http://127.0.0.1:9090/api/v1/query |
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
