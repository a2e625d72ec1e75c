# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Shared by the tests of contrib/prometheus and contrib/grafana: what smcd-agent exports.
# Needs top_srcdir.

# prom_families: the metric families of the exporter's own table (smcd-agent/prometheus.c),
# one a line; a family renamed there is renamed here.
prom_families() {
	sed -n 's/^[[:space:]]*{ "\(smc_[a-z0-9_]*\)", "\(counter\|gauge\)",.*/\1/p' \
		"$top_srcdir/smcd-agent/prometheus.c" | sort -u
}

# prom_labels: the label names smcd-agent(8) documents for those families
# (".B smc_NAME TYPE {label, ...}"), one a line.
prom_labels() {
	sed -n 's/^\.B smc_[a-z0-9_]* \(counter\|gauge\) {\([a-z_, ]*\)}$/\2/p' \
		"$top_srcdir/man/smcd-agent.8" | tr -s ', ' '\n' | grep . | sort -u
}

# prom_netns_families: the families smcd-agent(8) documents with a netns label (what the
# kernel keeps per network namespace), one a line.
prom_netns_families() {
	sed -n 's/^\.B \(smc_[a-z0-9_]*\) \(counter\|gauge\) {netns[,}].*/\1/p' \
		"$top_srcdir/man/smcd-agent.8" | sort -u
}

# prom_records FILE: the recording rules' names of a Prometheus rules file.
prom_records() {
	sed -n 's/^[[:space:]]*-\{0,1\}[[:space:]]*record:[[:space:]]*\([a-zA-Z_:][a-zA-Z0-9_:]*\)[[:space:]]*$/\1/p' "$1" | sort -u
}

# promql_names: "metric NAME" and "label NAME" lines for the PromQL expressions on stdin
# (one a line).
promql_names() {
	perl "$top_srcdir/tests/integration/promql-names.pl"
}
