// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config-keys: every row of smc.yaml's key table (config/keys.c) as "PATH|TYPE|DEFAULT",
 * for tests/integration/man-coverage.test and agent-man-lint.test (every key in smc.yaml(5)
 * with its default).  A test program, not installed.
 */
#include <stdio.h>

#include "config/keys.h"

int main(void)
{
	config_keys_list(&config_key_table, stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
