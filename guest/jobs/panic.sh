#!/bin/sh
# Lab self-test: the runner must notice a kernel panic and fail fast.
echo c > /proc/sysrq-trigger
sleep 600
