#!/bin/sh
# lanes: 7x 612 debug
# Harness self-test: crashes the kernel; must be reported "not ok" (kernel panic).
echo "crashing the kernel via sysrq"
echo 1 >/proc/sys/kernel/sysrq
echo c >/proc/sysrq-trigger
sleep 30
