// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * polkit-actions: the agent's table of polkit actions (smcd-agent/bus-access.c), one
 * "INTERFACE MEMBER ACTION" line per method that asks polkit, as the agent itself resolves
 * them.  For tests/integration/agent-polkit-actions.test, which holds the table to the
 * vtables and to the shipped .policy file.
 */
#include <stdio.h>

#include "smcd-agent/bus-access.h"
#include "smcd-agent/manager.h"

int main(void)
{
	bus_actions_print(stdout);
	return fflush(stdout) == 0 ? 0 : 1;
}
