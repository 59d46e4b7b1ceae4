#!/bin/sh
# scratch: misses just after 8-page cached runs, the run ending at page 16
# (a fault-around block boundary) or 8 (inside the miss's block)
cd /mnt || exit 1
fail=0
for at in 16 8; do
	echo "@@RUN cost -c 2 -w next-at-$at -m next-to-run -f sparse.bin -z 4096 -n 8192 -b 8 -p 300 -k 128 -o $at"
	cost -c 2 -w next-at-$at -m next-to-run -f sparse.bin -z 4096 -n 8192 -b 8 -p 300 -k 128 -o $at || fail=1
done
exit $fail
