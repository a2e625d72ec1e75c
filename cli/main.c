// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl: query and configure Linux SMC.  Everything is in smcctl_run(); main() only binds
 * it to the process.  The installed binary has no way to be pointed at recorded kernel
 * replies (no hidden option, no environment variable): the golden tests call smcctl_run()
 * with replay options from a test program instead.  A privileged tool that believes an
 * environment variable about what "the kernel" said would be a trap under sudo.
 *
 * No setlocale(): numbers and decimal points stay in the C locale, so output is stable.
 */
#include <stdio.h>

#include "cli/smcctl.h"

int main(int argc, char **argv)
{
	return smcctl_run(argc, argv, NULL, stdout, stderr);
}
