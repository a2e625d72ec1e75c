// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <string.h>

#include "common/util.h"

char *strstrip_trailing(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}
