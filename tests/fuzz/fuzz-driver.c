// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A bounded run of a libFuzzer target without libFuzzer, for make check (gcc, no clang
 * needed): every file of the target's seed corpus ($top_srcdir/tests/fuzz/corpus-NAME),
 * then SMCD_FUZZ_RUNS (default 3000) inputs made from them by a fixed-seed mutator (one to
 * eight bytes flipped, inserted or overwritten, runs deleted, blocks of up to 4 KiB
 * duplicated; at most 512 KiB).  A crash prints the seed's file or the input's number; the
 * same number reproduces it.  Prints TAP.  For coverage-guided runs: make fuzz-run.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (512 * 1024)

static volatile long current = -1; /* the input being run: -1 for the seeds */
static const char *volatile current_seed;

static void on_crash(int sig)
{
	char msg[4200];
	int n = current < 0
			? snprintf(msg, sizeof(msg), "\nBail out! seed %s crashed: signal %d\n",
				   current_seed ? current_seed : "?", sig)
			: snprintf(msg, sizeof(msg),
				   "\nBail out! input %ld (SMCD_FUZZ_RUNS order) crashed: signal %d\n",
				   (long)current, sig);

	if (n > 0)
		(void)!write(1, msg, (size_t)n);
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static const char interesting[] = ":-[]{},\"'&*!|>#%@\n \t0123456789aAzZ~\\\x01\xff";

static size_t mutate(uint8_t *buf, size_t len)
{
	size_t n = 1 + rng() % 8;

	for (size_t k = 0; k < n; k++) {
		size_t pos = len ? rng() % len : 0;

		switch (rng() % 5) {
		case 0: /* flip a byte */
			if (len)
				buf[pos] ^= (uint8_t)(1u << (rng() % 8));
			break;
		case 1: /* insert an interesting byte */
			if (len + 1 < FUZZ_MAX_INPUT) {
				memmove(buf + pos + 1, buf + pos, len - pos);
				buf[pos] = (uint8_t)interesting[rng() % (sizeof(interesting) - 1)];
				len++;
			}
			break;
		case 2: /* delete a run */
			if (len) {
				size_t d = 1 + rng() % 16;

				if (d > len - pos)
					d = len - pos;
				memmove(buf + pos, buf + pos + d, len - pos - d);
				len -= d;
			}
			break;
		case 3: /* duplicate a block */
			if (len) {
				size_t d = 1 + rng() % (len - pos < 4096 ? len - pos : 4096);

				if (len + d < FUZZ_MAX_INPUT) {
					memmove(buf + pos + d, buf + pos, len - pos);
					len += d;
				}
			}
			break;
		default: /* overwrite with an interesting byte */
			if (len)
				buf[pos] = (uint8_t)interesting[rng() % (sizeof(interesting) - 1)];
			break;
		}
	}
	return len;
}

int main(void)
{
	const char *top = getenv("top_srcdir"), *env = getenv("SMCD_FUZZ_RUNS");
	unsigned long runs = env ? strtoul(env, NULL, 10) : 3000;
	char dir[4096];
	uint8_t **seeds = NULL, *buf = malloc(FUZZ_MAX_INPUT);
	size_t *lens = NULL, n_seeds = 0;
	struct dirent *de;
	DIR *d;

	signal(SIGABRT, on_crash);
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus-%s", top ? top : TOP_SRCDIR, FUZZ_NAME);
	d = opendir(dir);
	if (!d || !buf) {
		printf("Bail out! cannot open %s\n", dir);
		return 1;
	}
	while ((de = readdir(d))) {
		char path[8192];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		seeds = realloc(seeds, (n_seeds + 1) * sizeof(*seeds));
		lens = realloc(lens, (n_seeds + 1) * sizeof(*lens));
		seeds[n_seeds] = malloc(FUZZ_MAX_INPUT);
		lens[n_seeds] = fread(seeds[n_seeds], 1, FUZZ_MAX_INPUT, f);
		fclose(f);
		current_seed = de->d_name;
		LLVMFuzzerTestOneInput(seeds[n_seeds], lens[n_seeds]);
		n_seeds++;
	}
	closedir(d);
	if (!n_seeds) {
		printf("Bail out! no seeds in %s\n", dir);
		return 1;
	}
	printf("ok 1 - %s: %zu seeds of %s\n", FUZZ_NAME, n_seeds, dir);
	for (unsigned long i = 0; i < runs; i++) {
		size_t s = rng() % n_seeds, len = lens[s];

		memcpy(buf, seeds[s], len);
		len = mutate(buf, len);
		current = (long)i;
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("ok 2 - %s: %lu mutated inputs (SMCD_FUZZ_RUNS), none crashed or broke a round trip\n",
	       FUZZ_NAME, runs);
	printf("1..2\n");
	for (size_t i = 0; i < n_seeds; i++)
		free(seeds[i]);
	free(seeds);
	free(lens);
	free(buf);
	return 0;
}
