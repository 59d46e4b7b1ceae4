#!/bin/sh
# Lab self-test: the runner must time out a guest that never finishes.
sleep 100000
