#!/bin/sh
# lanes: 7x 612 debug
# Harness self-test: must be reported "not ok" with this output.
. "$(dirname "$0")/lib.sh"
echo "this line must appear in the failure report"
assert_eq expected-value seen-value "deliberate failure"
