// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table of the kernel's SMC counters (see stats-table.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/stats-table.h"

/* ------------------------------------------------------------------------------------- */
/* The table                                                                              */

/* clang-format off */
#define ROW(t, key, metric, labels, kind, field)                                           \
	{ #t key, metric, "technology=\"" #t "\"," labels, STATS_##kind, STATS_SRC_STATS,   \
	  offsetof(struct smc_stats, t) + offsetof(struct smc_stats_tech, field),          \
	  offsetof(struct smc_stats, t) }

/* One row per kernel counter, in the order of the document. */
#define TECH_ROWS(t) \
	ROW(t, ".client_v1", "smc_handshakes_total", "side=\"client\",version=\"1\"", COUNTER, clnt_v1_succ), \
	ROW(t, ".client_v2", "smc_handshakes_total", "side=\"client\",version=\"2\"", COUNTER, clnt_v2_succ), \
	ROW(t, ".server_v1", "smc_handshakes_total", "side=\"server\",version=\"1\"", COUNTER, srv_v1_succ), \
	ROW(t, ".server_v2", "smc_handshakes_total", "side=\"server\",version=\"2\"", COUNTER, srv_v2_succ), \
	ROW(t, ".rx.bytes", "smc_bytes_total", "direction=\"rx\"", COUNTER, rx_bytes), \
	ROW(t, ".rx.requests", "smc_requests_total", "direction=\"rx\"", COUNTER, rx_cnt), \
	ROW(t, ".rx.buffer_usage", "smc_buffer_usage_bytes", "direction=\"rx\"", GAUGE, rx_rmb_usage), \
	ROW(t, ".rx.buffer.full", "smc_buffer_events_total", "direction=\"rx\",event=\"full\"", COUNTER, rx_rmb.buf_full), \
	ROW(t, ".rx.buffer.full_peer", "smc_buffer_events_total", "direction=\"rx\",event=\"full_peer\"", COUNTER, rx_rmb.buf_full_peer), \
	ROW(t, ".rx.buffer.too_small", "smc_buffer_events_total", "direction=\"rx\",event=\"too_small\"", COUNTER, rx_rmb.buf_size_small), \
	ROW(t, ".rx.buffer.too_small_peer", "smc_buffer_events_total", "direction=\"rx\",event=\"too_small_peer\"", COUNTER, rx_rmb.buf_size_small_peer), \
	ROW(t, ".rx.buffer.alloc", "smc_buffer_events_total", "direction=\"rx\",event=\"alloc\"", COUNTER, rx_rmb.alloc), \
	ROW(t, ".rx.buffer.reuse", "smc_buffer_events_total", "direction=\"rx\",event=\"reuse\"", COUNTER, rx_rmb.reuse), \
	ROW(t, ".rx.buffer.downgrade", "smc_buffer_events_total", "direction=\"rx\",event=\"downgrade\"", COUNTER, rx_rmb.downgrade), \
	ROW(t, ".rx.buffer_sizes.8k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"8k\"", COUNTER, rx_rmb_size[0]), \
	ROW(t, ".rx.buffer_sizes.16k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"16k\"", COUNTER, rx_rmb_size[1]), \
	ROW(t, ".rx.buffer_sizes.32k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"32k\"", COUNTER, rx_rmb_size[2]), \
	ROW(t, ".rx.buffer_sizes.64k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"64k\"", COUNTER, rx_rmb_size[3]), \
	ROW(t, ".rx.buffer_sizes.128k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"128k\"", COUNTER, rx_rmb_size[4]), \
	ROW(t, ".rx.buffer_sizes.256k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"256k\"", COUNTER, rx_rmb_size[5]), \
	ROW(t, ".rx.buffer_sizes.512k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"512k\"", COUNTER, rx_rmb_size[6]), \
	ROW(t, ".rx.buffer_sizes.1024k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"1024k\"", COUNTER, rx_rmb_size[7]), \
	ROW(t, ".rx.buffer_sizes.over_1024k", "smc_buffer_sizes_total", "direction=\"rx\",size=\"over_1024k\"", COUNTER, rx_rmb_size[8]), \
	ROW(t, ".rx.request_sizes.8k", "smc_request_sizes_total", "direction=\"rx\",size=\"8k\"", COUNTER, rx_pload[0]), \
	ROW(t, ".rx.request_sizes.16k", "smc_request_sizes_total", "direction=\"rx\",size=\"16k\"", COUNTER, rx_pload[1]), \
	ROW(t, ".rx.request_sizes.32k", "smc_request_sizes_total", "direction=\"rx\",size=\"32k\"", COUNTER, rx_pload[2]), \
	ROW(t, ".rx.request_sizes.64k", "smc_request_sizes_total", "direction=\"rx\",size=\"64k\"", COUNTER, rx_pload[3]), \
	ROW(t, ".rx.request_sizes.128k", "smc_request_sizes_total", "direction=\"rx\",size=\"128k\"", COUNTER, rx_pload[4]), \
	ROW(t, ".rx.request_sizes.256k", "smc_request_sizes_total", "direction=\"rx\",size=\"256k\"", COUNTER, rx_pload[5]), \
	ROW(t, ".rx.request_sizes.512k", "smc_request_sizes_total", "direction=\"rx\",size=\"512k\"", COUNTER, rx_pload[6]), \
	ROW(t, ".rx.request_sizes.1024k", "smc_request_sizes_total", "direction=\"rx\",size=\"1024k\"", COUNTER, rx_pload[7]), \
	ROW(t, ".rx.request_sizes.over_1024k", "smc_request_sizes_total", "direction=\"rx\",size=\"over_1024k\"", COUNTER, rx_pload[8]), \
	ROW(t, ".tx.bytes", "smc_bytes_total", "direction=\"tx\"", COUNTER, tx_bytes), \
	ROW(t, ".tx.requests", "smc_requests_total", "direction=\"tx\"", COUNTER, tx_cnt), \
	ROW(t, ".tx.buffer_usage", "smc_buffer_usage_bytes", "direction=\"tx\"", GAUGE, tx_rmb_usage), \
	ROW(t, ".tx.buffer.full", "smc_buffer_events_total", "direction=\"tx\",event=\"full\"", COUNTER, tx_rmb.buf_full), \
	ROW(t, ".tx.buffer.full_peer", "smc_buffer_events_total", "direction=\"tx\",event=\"full_peer\"", COUNTER, tx_rmb.buf_full_peer), \
	ROW(t, ".tx.buffer.too_small", "smc_buffer_events_total", "direction=\"tx\",event=\"too_small\"", COUNTER, tx_rmb.buf_size_small), \
	ROW(t, ".tx.buffer.too_small_peer", "smc_buffer_events_total", "direction=\"tx\",event=\"too_small_peer\"", COUNTER, tx_rmb.buf_size_small_peer), \
	ROW(t, ".tx.buffer.alloc", "smc_buffer_events_total", "direction=\"tx\",event=\"alloc\"", COUNTER, tx_rmb.alloc), \
	ROW(t, ".tx.buffer.reuse", "smc_buffer_events_total", "direction=\"tx\",event=\"reuse\"", COUNTER, tx_rmb.reuse), \
	ROW(t, ".tx.buffer.downgrade", "smc_buffer_events_total", "direction=\"tx\",event=\"downgrade\"", COUNTER, tx_rmb.downgrade), \
	ROW(t, ".tx.buffer_sizes.8k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"8k\"", COUNTER, tx_rmb_size[0]), \
	ROW(t, ".tx.buffer_sizes.16k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"16k\"", COUNTER, tx_rmb_size[1]), \
	ROW(t, ".tx.buffer_sizes.32k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"32k\"", COUNTER, tx_rmb_size[2]), \
	ROW(t, ".tx.buffer_sizes.64k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"64k\"", COUNTER, tx_rmb_size[3]), \
	ROW(t, ".tx.buffer_sizes.128k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"128k\"", COUNTER, tx_rmb_size[4]), \
	ROW(t, ".tx.buffer_sizes.256k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"256k\"", COUNTER, tx_rmb_size[5]), \
	ROW(t, ".tx.buffer_sizes.512k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"512k\"", COUNTER, tx_rmb_size[6]), \
	ROW(t, ".tx.buffer_sizes.1024k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"1024k\"", COUNTER, tx_rmb_size[7]), \
	ROW(t, ".tx.buffer_sizes.over_1024k", "smc_buffer_sizes_total", "direction=\"tx\",size=\"over_1024k\"", COUNTER, tx_rmb_size[8]), \
	ROW(t, ".tx.request_sizes.8k", "smc_request_sizes_total", "direction=\"tx\",size=\"8k\"", COUNTER, tx_pload[0]), \
	ROW(t, ".tx.request_sizes.16k", "smc_request_sizes_total", "direction=\"tx\",size=\"16k\"", COUNTER, tx_pload[1]), \
	ROW(t, ".tx.request_sizes.32k", "smc_request_sizes_total", "direction=\"tx\",size=\"32k\"", COUNTER, tx_pload[2]), \
	ROW(t, ".tx.request_sizes.64k", "smc_request_sizes_total", "direction=\"tx\",size=\"64k\"", COUNTER, tx_pload[3]), \
	ROW(t, ".tx.request_sizes.128k", "smc_request_sizes_total", "direction=\"tx\",size=\"128k\"", COUNTER, tx_pload[4]), \
	ROW(t, ".tx.request_sizes.256k", "smc_request_sizes_total", "direction=\"tx\",size=\"256k\"", COUNTER, tx_pload[5]), \
	ROW(t, ".tx.request_sizes.512k", "smc_request_sizes_total", "direction=\"tx\",size=\"512k\"", COUNTER, tx_pload[6]), \
	ROW(t, ".tx.request_sizes.1024k", "smc_request_sizes_total", "direction=\"tx\",size=\"1024k\"", COUNTER, tx_pload[7]), \
	ROW(t, ".tx.request_sizes.over_1024k", "smc_request_sizes_total", "direction=\"tx\",size=\"over_1024k\"", COUNTER, tx_pload[8]), \
	ROW(t, ".cork", "smc_socket_calls_total", "call=\"cork\"", COUNTER, cork), \
	ROW(t, ".nodelay", "smc_socket_calls_total", "call=\"nodelay\"", COUNTER, ndly), \
	ROW(t, ".sendpage", "smc_socket_calls_total", "call=\"sendpage\"", COUNTER, sendpage), \
	ROW(t, ".splice", "smc_socket_calls_total", "call=\"splice\"", COUNTER, splice), \
	ROW(t, ".urgent_data", "smc_socket_calls_total", "call=\"urgent_data\"", COUNTER, urg_data)

static const struct stats_desc table[] = {
	TECH_ROWS(smcd),
	TECH_ROWS(smcr),
	{ "handshake_errors.client", "smc_handshake_errors_total", "side=\"client\"", STATS_COUNTER,
	  STATS_SRC_STATS, offsetof(struct smc_stats, clnt_hs_err), SIZE_MAX },
	{ "handshake_errors.server", "smc_handshake_errors_total", "side=\"server\"", STATS_COUNTER,
	  STATS_SRC_STATS, offsetof(struct smc_stats, srv_hs_err), SIZE_MAX },
	{ "fallback.client", "smc_fallbacks_total", "side=\"client\"", STATS_COUNTER,
	  STATS_SRC_FBACK, offsetof(struct smc_fback_stats, clnt_total), SIZE_MAX },
	{ "fallback.server", "smc_fallbacks_total", "side=\"server\"", STATS_COUNTER,
	  STATS_SRC_FBACK, offsetof(struct smc_fback_stats, srv_total), SIZE_MAX },
};

/* clang-format on */

const struct stats_desc *stats_table(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(table);
	return table;
}

int stats_table_find(const char *key)
{
	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		if (streq(table[i].key, key))
			return (int)i;
	return -ENOENT;
}

uint64_t stats_desc_value(const struct stats_desc *d, const struct smc_stats *s,
			  const struct smc_fback_stats *f, bool *ret_valid)
{
	const char *base = d->source == STATS_SRC_STATS ? (const char *)s : (const char *)f;
	uint64_t v;

	*ret_valid = true;
	if (d->kind == STATS_GAUGE && d->tech_offset != SIZE_MAX) {
		const struct smc_stats_tech *t = (const void *)((const char *)s + d->tech_offset);

		*ret_valid = t->has_rmb_usage;
	}
	memcpy(&v, base + d->offset, sizeof(v));
	return v;
}
