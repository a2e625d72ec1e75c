#!/bin/sh
# lanes: 7x 612 debug
# timeout: 25
# Harness self-test: hangs; vm-run must kill the VM at the timeout and report "not ok".
echo "about to hang"
sleep 100000
