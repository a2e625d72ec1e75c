#!/bin/sh
# lanes: 7x 612 debug
# Harness self-test: passes by itself, but logs a kernel WARNING at warning level (which the
# "quiet" console does not show): must be reported "not ok" with the line.
echo "<4>WARNING: CPU: 0 PID: 1 at selftest/warn.sh:1 deliberate warning" >/dev/kmsg
exit 0
