// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the smc.yaml loader (config/config.c): any input gives a config or
 * errors with a location, never a crash; a config dumps to YAML that loads back to the same
 * dump.  Built twice: with libFuzzer on request (make fuzz, make fuzz-run), and with
 * tests/fuzz/fuzz-driver.c for a bounded run in make check.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *write_tmp(const void *data, size_t size)
{
	char *path = strdup("/tmp/fuzz-config-XXXXXX");
	int fd;

	if (!path)
		abort();
	fd = mkstemp(path);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) < 0)
		abort();
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_errors errors = {};
	struct config *c = NULL, *d = NULL;
	char *path = write_tmp(data, size), *path2, *dump, *again;

	if (config_load(path, &c, &errors) < 0) {
		if (c || errors.n == 0)
			abort(); /* an error must be said */
		for (size_t i = 0; i < errors.n; i++)
			if (strncmp(errors.lines[i], path, strlen(path)) != 0 ||
			    errors.lines[i][strlen(path)] != ':')
				abort(); /* and located */
		config_errors_clear(&errors);
		unlink(path);
		free(path);
		return 0;
	}
	if (errors.n)
		abort(); /* a config and errors: never both */
	dump = config_dump(c);
	if (!dump)
		abort();
	path2 = write_tmp(dump, strlen(dump));
	if (config_load(path2, &d, &errors) < 0) {
		fprintf(stderr, "the dump does not load back:\n%s\n%s\n", dump,
			errors.n ? errors.lines[0] : "?");
		abort();
	}
	again = config_dump(d);
	if (!again || strcmp(strchr(dump, '\n'), strchr(again, '\n')) != 0) {
		fprintf(stderr, "the dump changed when loaded back:\n%s\n---\n%s\n", dump, again);
		abort();
	}
	free(again);
	free(dump);
	config_free(d);
	config_free(c);
	unlink(path2);
	unlink(path);
	free(path2);
	free(path);
	return 0;
}
