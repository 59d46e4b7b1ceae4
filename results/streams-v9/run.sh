#!/bin/bash
# three boots each of base and the series as at this commit (2/6 reading its own folio only for a refault at the edge of a hole), streams after 100 random faults and control
cd /work/main || exit 1
export MMLAB_LOCK_HELD=/root/.cache/mmlab/lab.lock
one() { # kernel boot
  scripts/run-guest.sh -k build/$1/bzImage -j sharp -a "streams 0 0 0 0 1024" -d /root/.cache/mmlab/disks/demo-ext4.img -f ext4 -m 512M -t 1200 -o /tmp/streams9/$1-$2.log > /tmp/streams9/$1-$2.out 2>&1
  echo "$1 $2 rc=$?"
}
for b in 1 2 3; do
  one base $b & one patched $b; wait
done
