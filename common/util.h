/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Remove trailing whitespace in place; returns s. */
char *strstrip_trailing(char *s);
