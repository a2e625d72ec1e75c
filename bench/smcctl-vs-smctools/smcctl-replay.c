// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl-replay DIR ARGS...: smcctl (the same main as cli/main.c, the same cli/dl.c) with
 * every kernel answer taken from a recorded fixture folder (tests/fixtures/LANE/STEP) and
 * its sysroot, for counting the instructions of a verb on the host with callgrind
 * (bench/smcctl-vs-smctools/README.md).  A bench tool, never installed: smcctl itself has
 * no way to be pointed at recorded replies (see cli/main.c).
 */
#include <limits.h>
#include <stdio.h>

#include "cli/smcctl.h"

int main(int argc, char **argv)
{
	char sysroot[PATH_MAX];
	struct smcnl_options opts = {};

	if (argc < 3) {
		fputs("usage: smcctl-replay FIXTURE_DIR SMCCTL_ARGS...\n", stderr);
		return 2;
	}
	snprintf(sysroot, sizeof(sysroot), "%s/sysroot", argv[1]);
	opts.replay_dir = argv[1];
	opts.sysroot = sysroot;
	argv[1] = argv[0];
	return smcctl_run(argc - 1, argv + 1, &opts, stdout, stderr);
}
