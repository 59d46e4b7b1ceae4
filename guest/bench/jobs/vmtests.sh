#!/bin/bash
# make vmtests (scripts/vmtests.sh): the series' selftest as the mm CI
# runs it, through run_vmtests.sh -t mmap_miss (and its ksft_ wrapper),
# from the mm selftest directory the data disk carries (/mnt/mm: the
# patched tree's run_vmtests.sh, ksft_mmap_miss.sh and a static
# mmap_miss_recovery). Output between markers; the host judges it.
cd /mnt/mm || { echo "@@LAB-ERROR no /mnt/mm on the data disk"; exit 1; }
echo "@@VMT-BEGIN run_vmtests"
./run_vmtests.sh -t mmap_miss
echo "@@VMT-END run_vmtests rc=$?"
echo "@@VMT-BEGIN ksft_mmap_miss"
./ksft_mmap_miss.sh
echo "@@VMT-END ksft_mmap_miss rc=$?"
exit 0
