#!/bin/sh
# lanes: 7x 612 debug
# Harness self-test: must be reported "ok ... # SKIP deliberate skip".
. "$(dirname "$0")/lib.sh"
skip "deliberate skip"
