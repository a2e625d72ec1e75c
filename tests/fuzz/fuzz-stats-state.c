// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the statistics state file (smcd-agent/stats-state.c), which the agent
 * reads at every start from /var/lib/smcd-agent: any input is loaded or refused, never a
 * crash; a refused one leaves nothing in the engine (never a state in part); what was
 * loaded saves to a file that loads back and saves to the same text.  The
 * boot id is "fuzz" (the seeds carry it, so that the lines past the header are parsed).
 * Built like fuzz-config.c: libFuzzer on request, fuzz-driver.c in make check.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smcd-agent/stats-engine.h"

/* The agent writes only into a directory no one else may write (not /tmp itself). */
static char dir[] = "/tmp/fuzz-state-XXXXXX";

static void remove_dir(void)
{
	(void)rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int ch;

	if (!f || !m)
		abort();
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(f);
	fclose(m);
	return buf;
}

static bool kept_something(const struct stats_engine *e)
{
	bool kept = e->n_reasons || e->n_lgrs || e->n_devices || e->have_raw || e->reset_real_usec;

	for (size_t i = 0; i < e->n_counters; i++)
		kept |= e->counters[i].total || e->counters[i].baseline || e->counters[i].raw;
	for (size_t i = 0; i < _STATS_AGENT_MAX; i++)
		kept |= e->agent[i].total || e->agent[i].baseline;
	return kept;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool made;
	char path[64], saved[64];
	struct stats_engine *e = NULL, *e2 = NULL;
	char *one, *two;
	int fd, r;

	if (!made && (!mkdtemp(dir) || atexit(remove_dir) != 0))
		abort();
	made = true;
	snprintf(path, sizeof(path), "%s/input", dir);
	snprintf(saved, sizeof(saved), "%s/stats.state", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) < 0)
		abort();
	if (stats_engine_new(100, &e) < 0 || stats_engine_new(100, &e2) < 0)
		abort();
	r = stats_state_load(e, path, "fuzz", NULL);
	if (r <= 0 && kept_something(e))
		abort(); /* refused, yet something was kept */
	if (r > 0) {
		if (stats_state_save(e, saved, "fuzz", NULL) < 0)
			abort();
		one = read_all(saved);
		if (stats_state_load(e2, saved, "fuzz", NULL) <= 0)
			abort(); /* what the agent wrote, it must read */
		if (stats_state_save(e2, saved, "fuzz", NULL) < 0)
			abort();
		two = read_all(saved);
		if (strcmp(one, two) != 0) {
			fprintf(stderr, "the state changed when loaded back:\n%s\n---\n%s\n", one,
				two);
			abort();
		}
		free(one);
		free(two);
	}
	stats_engine_free(e);
	stats_engine_free(e2);
	unlink(path);
	unlink(saved);
	return 0;
}
