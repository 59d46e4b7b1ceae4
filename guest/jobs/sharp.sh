#!/bin/sh
# make sharp (scripts/side-by-side.sh sharp): readers that are not
# sequential, streams, 16 KiB blocks, VM_HUGEPAGE; one part per boot.
# $1 = the part:
#   main     demo disk (ext4; big.bin 4 GiB, thp.bin 2 GiB), 2 GiB guest:
#            adversarial, every-other, records (+ probe), recovery after
#            100 random faults, VM_HUGEPAGE after random faults,
#            read_ahead_kb 0 VM_HUGEPAGE
#   lbs      check disk on xfs with 16 KiB blocks (big.bin 1 GiB; mkfs.xfs
#            -p of Debian 12 cannot copy a file over 2 GiB, so there is no
#            demo disk on it): records (+ probe), recovery
#   random   demo disk, 1 GiB guest: the plain random reader (sparse file)
#   streams  demo disk, small guest: four threads streaming after random
#            faults, and without them
# $2 = the VM_HUGEPAGE passes in MiB (main); $3 the random reader's reads,
# $4 its sparse file in MiB, $5 its runs (random); $6 the MiB the four
# streams read (streams).
part=${1:?part}
thp_mib=${2:-512} reads=${3:-524288} sparse_mib=${4:-4096} runs=${5:-5}
stream_mib=${6:-1024}
cd /mnt || exit 1
fail=0
run() { echo "@@RUN $*"; "$@" || { echo "@@LAB-ERROR workload failed: $*"; fail=1; }; }

# 300 random faults in [768 MiB, 1 GiB) first, read_ahead_kb 128; the
# records' probe: 50 isolated faults in [512 MiB, 768 MiB) afterwards.
# $1 the case, $2 the record in KiB (16), $3 the region in MiB (256), $4
# the records (2000)
records() {
	run after-random -f big.bin -m records -n 300 -k 128 -r 768 -R 256 \
		-s 0 -l "${3:-256}" -a "${4:-2000}" -b "${2:-16}" -p 512 -P 50 \
		-w "$1"
}

case $part in
main)
	run after-random -f big.bin -m adversarial -n 300 -k 128 -r 768 -R 256 \
		-s 0 -l 64 -a 2000
	# every other page of a cold region, and the same starting just after
	# a cached page
	run after-random -f big.bin -m every-other -n 300 -k 128 -r 768 -R 256 \
		-s 128 -l 64
	run after-random -f big.bin -m every-other -n 300 -k 128 -r 768 -R 256 \
		-s 128 -l 64 -W -w every-other-warm
	records records-ext4
	# records of 32 KiB: the first probe's flag is inside the record
	records records32-ext4 32
	# 1024 records of 16 KiB in 64 MiB: many lie next to another
	records records-dense-ext4 16 64 1024
	# records through MADV_HUGEPAGE, in 2 GiB: of 64 KiB (past the run of
	# eight and the fault after it: 2/2's way back reads large folios) and
	# of 32 KiB (not)
	for b in 64 32; do
		run after-random -f big.bin -m records -n 300 -k 128 -r 768 -R 256 \
			-s 1024 -l 2048 -a 200 -b $b -H \
			-w records$b-thp-ext4
	done
	# 100 random faults in [3 GiB, 4 GiB), then [2 GiB, 3 GiB) in order
	run seq-after-random -f big.bin -n 100 -k 128 -s 2048 -l 1024 -r 3072 \
		-w recovery-ext4
	for n in 0 300; do
		run thp-late -f big.bin -n $n -k 128 -r 3072 -R 1024 -s 2048 -l "$thp_mib"
		run thp-late -f big.bin -n $n -D -k 128 -r 3072 -R 1024 -s 2048 -l "$thp_mib"
	done
	run thp-order -f thp.bin -k 0 -l 1024 -w thp-ra0-ascending
	;;
lbs)
	records records-xfs16k
	# 100 random faults in [768 MiB, 1 GiB), then [0, 768 MiB) in order;
	# with 16 KiB blocks some of 100 random faults hit and mmap_miss may
	# stay at the limit, so 300 as well
	for n in 100 300; do
		run seq-after-random -f big.bin -n $n -k 128 -s 0 -l 768 -r 768 \
			-w recovery-xfs16k
	done
	;;
random)
	run random-private -f sparse.bin -z "$sparse_mib" -n "$reads" -c "$runs" -k 128
	;;
streams)
	for n in 0 100; do
		run streams -f big.bin -n $n -k 128 -r 3072 -R 1024 -s 0 \
			-l "$stream_mib" -t 4
	done
	;;
*)
	echo "@@LAB-ERROR unknown part $part"
	fail=1
	;;
esac
exit $fail
