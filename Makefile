# mmap_miss recovery lab. Each target is one script in scripts/; the
# Makefile only wires them. `make` alone prints the targets (make help).
#
# A target's help is its "##" comment: WHAT | TIME | NEEDS. TIME is as
# measured on a 2-core machine under TCG (docs/measurements.md); NEEDS
# says root (to install packages with apt, or to make a Debian guest root)
# and network (Debian's archive), as on a first run.
S := scripts
CACHE := $(or $(MMLAB_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/mmlab)

.PHONY: help demo demo-small bench bench-small bench-apps thp-random vmtests trace sharp down fixes stress cost \
	mm-selftests check check-lab fresh-check review matrix arm64 deps base apply \
	export kernels initramfs disks clean distclean

help:            ## this list | instant | nothing
	@echo "make TARGET (on Debian 12; times as measured here, see docs/measurements.md):"
	@awk -F'## ' 'function put(s,   n, w, i, l) { \
		n = split(s, w, " "); l = ""; \
		for (i = 1; i <= n; i++) { \
			if (l != "" && length(l) + 1 + length(w[i]) > 82) { printf "  %-14s %s\n", t, l; t = ""; l = w[i] } \
			else l = (l == "" ? w[i] : l " " w[i]) \
		} \
		printf "  %-14s %s\n", t, l; t = "" \
	} \
	/^[a-z][a-z0-9-]*:.*## / { \
		t = $$1; sub(/:.*/, "", t); n = split($$2, f, / \| /); \
		put(f[1]); if (n > 1) put("time: " f[2] "; needs: " (n > 2 ? f[3] : "nothing")) \
	}' $(firstword $(MAKEFILE_LIST))
demo:            ## the two traps on base and the series, then recovery on 16 KiB blocks -> results/demo{,-lbs}.{md,json} | 23 min from nothing, 8-12 with kernels built | root, network
	bash $(S)/side-by-side.sh demo
demo-small:      ## the same on smaller files, for a quick look -> results/demo-small{,-lbs}.* | 2-4 min with kernels built | root, network
	bash $(S)/side-by-side.sh demo-small
check:           ## lab tests, then the series' selftest on base, patch 1, the series, v4 and five one-line variants of the series (each must fail a case), a quick stress pass and the cost bound | 9 min in CI with the cache, 57 cold | root, network
	bash $(S)/check.sh
check-lab:       ## only the lab's own tests, before any kernel is built; as any user, offline | 15 s to 1 min | nothing
	CHECK_LAB_ONLY=1 bash $(S)/check.sh
bench:           ## real clients (SQLite, numpy), vm-scalability cases, random readers in a Debian guest -> results/bench.{md,json,png} | 67 min from nothing | root, network
	bash $(S)/bench.sh
bench-small:     ## base and the series on small data, fewer runs -> results/bench-small.* | 18 min from nothing | root, network
	BENCH_SCALE=small bash $(S)/bench.sh
bench-apps:      ## llama.cpp, ggufread, GraphicsMagick in a sid guest on base, 0b9c0aeba938 reverted and v4 -> results/apps.{md,json} | 31 min from nothing, 16 of it the boots | root, network
	bash $(S)/bench-apps.sh
trace:           ## mmap_miss and each readahead decision per fault (bpftrace), SQLite on base and patched -> results/trace.md | 41 s with its kernels built, first build 21 min | root, network
	bash $(S)/trace.sh
sharp:           ## readers that are not sequential, four streams, 16 KiB blocks, VM_HUGEPAGE after random faults, on base, v3 and the series -> results/sharp.{md,json} | 49 min with its kernels built | root, network
	bash $(S)/side-by-side.sh sharp
vmtests:         ## the selftest through run_vmtests.sh -t mmap_miss and ksft_mmap_miss.sh, in the Debian bench root, base and the series -> results/v4-vmtests.md | 1 min with the kernels and the root made, 6.5 without the root | root, network
	bash $(S)/vmtests.sh
thp-random:      ## random MADV_HUGEPAGE readers, mmap_miss over and under the limit, on base, v4 and the series -> results/thp-random.{md,json} | 10 min with the kernels built | root, network
	bash $(S)/thp-random.sh
down:            ## readers moving down after random faults, and their control, on base, v4 and the series -> results/down.{md,json} | 10 min with the kernels built | root, network
	bash $(S)/side-by-side.sh down
fixes:           ## which upstream commit made each trap reachable: base and lab kernels undoing one change each -> results/fixes.{md,json} | 8 min with base built | root, network
	bash $(S)/side-by-side.sh fixes
cost:            ## guest instructions per fault (QEMU -icount), -O2 kernels: base, v4, the series (COST_VARIANTS: more) -> results/cost.{md,json} | 4 min with the kernels built (two boots at a time), a first -O2 build 15 min | root, network
	bash $(S)/cost.sh
stress:          ## data-checking stress on KASAN/lockdep debug kernels -> results/stress.{md,json} | 71 min from nothing | root, network
	bash $(S)/stress.sh
mm-selftests:    ## upstream mm selftests (file, readahead, THP) on base and patched -> results/mm-selftests.{md,json} | 9 min with kernels built | root, network
	bash $(S)/mm-selftests.sh
review: apply    ## checkpatch, W=1, sparse, THP/LRU_GEN off (as make matrix), htmldocs -> results/review.txt | 1 min warm, 7 min the first time | root, network (once: sparse's source)
	bash $(S)/review.sh
matrix: apply    ## W=1 filemap.o/readahead.o, base vs patched: THP off, LRU_GEN off, i386, clang, arm64 64K | 24-38 s warm, 5-7 min cold objects | root, network
	bash $(S)/config-matrix.sh
arm64: apply     ## the series' selftest on an arm64 64 KiB-page guest -> results/arm64-selftest.md | 80 s warm, 13 min from a new cache | root, network
	bash $(S)/arm64-selftest.sh
fresh-check:     ## make demo then make check on a new Debian 12 root, from nothing | make demo's 28 min plus make check's | root, network, 35 GiB free
	bash $(S)/fresh-check.sh
deps:            ## install the host packages the lab needs (quiet when they are there) | minutes | root, network
	bash $(S)/deps.sh
base: deps       ## fetch the pinned linux-source and make the base tree (lab-base) | about 1 min | root, network
	bash $(S)/fetch-base.sh
apply: base      ## work tree = lab-base + series/*.patch | seconds | what base needs
	bash $(S)/apply-series.sh
export:          ## work tree commits -> series/ (git format-patch) | seconds | nothing
	bash $(S)/export-series.sh
kernels: apply   ## build base and patched | 12-15 min a cold kernel, seconds when built | what base needs
	bash $(S)/build-kernel.sh base
	bash $(S)/build-kernel.sh patched
initramfs: apply ## the guest's initramfs with the workloads and the selftest | seconds | what base needs
	bash $(S)/make-initramfs.sh patched
disks:           ## the check and demo data disks | minutes, 6 GiB staged | nothing
	bash $(S)/make-disk.sh check
	bash $(S)/make-disk.sh demo
clean:           ## remove build/ (not the cache) | instant | nothing
	rm -rf build
	@s=$$(du -sh '$(CACHE)' 2>/dev/null | cut -f1); \
	echo "removed build/; left the cache $(CACHE) ($${s:-not there}: base and kernel trees, ccache, disk images, guest roots); make distclean removes it"
distclean:       ## remove build/ and the cache (${XDG_CACHE_HOME:-~/.cache}/mmlab, or MMLAB_CACHE) | seconds | nothing
	rm -rf build
	@c='$(CACHE)'; \
	if [ ! -e "$$c" ]; then echo "no cache at $$c: nothing more to remove"; exit 0; fi; \
	for l in lab fresh; do \
		[ ! -e "$$c/$$l.lock" ] || flock -n "$$c/$$l.lock" true || \
			{ echo "a lab run holds $$c/$$l.lock ($$(cat "$$c/$$l.lock")): not removing the cache"; exit 1; }; \
	done; \
	m=$$(awk -v d="$$c" 'index($$2, d "/") == 1 {print $$2}' /proc/self/mounts); \
	[ -z "$$m" ] || { echo "mounted under $$c (an interrupted make fresh-check?): $$m; unmount, then retry"; exit 1; }; \
	echo "removing the cache $$c ($$(du -sh "$$c" 2>/dev/null | cut -f1)): $$(ls "$$c" | tr '\n' ' ')"; \
	rm -rf --one-file-system "$$c"
