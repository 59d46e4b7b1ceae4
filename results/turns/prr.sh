#!/bin/sh
# scratch: vm-scalability's mmap-pread-rand as make cost runs it
cd /mnt || exit 1
fail=0
sync; echo 3 > /proc/sys/vm/drop_caches
echo "@@RUN cost -u 1 -c 3 -w mmap-pread-rand -m random -f pread.bin -z 512 -n 131072 -k 128 -S"
cost -u 1 -c 3 -w mmap-pread-rand -m random -f pread.bin -z 512 -n 131072 -k 128 -S || fail=1
rm -f pread.bin
exit $fail
