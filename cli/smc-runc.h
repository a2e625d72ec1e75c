/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smc-runc, the OCI runtime wrapper of docker's per-container opt-in (docker run --runtime
 * smc): what it makes of runc's command line and of the bundle's config.json, pure, for
 * tests/unit/test-cli-smc-runc.c.  The program is cli/smc-runc.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The largest config.json edited (the hook reads no more either: cli/oci-hook.c). */
#define SMC_RUNC_CONFIG_MAX (8 * 1024 * 1024)

/* The option (only as the first argument) naming the runtime run in the end. */
#define SMC_RUNC_RUNTIME_OPT "--smc-runtime="

struct smc_runc_args {
	const char *runtime; /* --smc-runtime=PATH, or NULL: runc in $PATH */
	int first;	     /* argv[first] is what the runtime is given as its argv[1] */
	const char *command; /* runc's command (create, start, ...), NULL if none */
	bool creates;	     /* create or run: the bundle gets the hooks */
	const char *bundle;  /* --bundle/-b, or "." (runc's default, its working directory) */
};

/* argv as runc parses it (global options, the command, its --bundle); 0, or -EINVAL for an
 * empty --smc-runtime=. */
int smc_runc_args_parse(int argc, char **argv, struct smc_runc_args *ret);

/*
 * config.json's text with the annotation org.smcd.smc=true and the hooks createRuntime and
 * poststop running "SMCCTL oci-hook createRuntime|poststop" (appended after the bundle's own
 * hooks, each once): 1 with *ret the new text, 0 (*ret NULL) when it has them all already,
 * -EINVAL with why when the text is not a JSON object, or its annotations, hooks or a hook
 * stage has the wrong type, -ENOMEM.  Text beyond the object (but blanks) or a NUL in it is
 * -EINVAL: what is not understood whole is never rewritten.
 */
int smc_runc_config_edit(const char *text, size_t len, const char *smcctl, char **ret, char *why,
			 size_t why_len);
