#!/bin/sh
# Lab self-test: a workload that fails must fail the run.
echo "@@LAB-ERROR deliberate failure"
exit 3
