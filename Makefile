# mmap_miss recovery lab. Each target is one script in scripts/; the
# Makefile only wires them. Caches live in ${XDG_CACHE_HOME:-~/.cache}/mmlab.
S := scripts

.PHONY: demo demo-small bench bench-small trace sharp stress mm-selftests check check-lab fresh-check review matrix arm64 deps base apply export kernels initramfs disks clean
demo:            ## before/after demonstration -> results/demo.{md,json}
	bash $(S)/demo.sh
demo-small:      ## the same on smaller files, for a quick look
	DEMO_SCALE=small bash $(S)/demo.sh
bench:           ## real clients (SQLite, numpy), vm-scalability cases, random readers in a Debian guest -> results/bench.{md,json,png}
	bash $(S)/bench.sh
bench-small:     ## base and the series on small data, fewer runs (under 20 minutes from nothing)
	BENCH_SCALE=small bash $(S)/bench.sh
trace:           ## mmap_miss and each readahead decision per fault (bpftrace), SQLite on base and patched -> results/trace.md
	bash $(S)/trace.sh
sharp:           ## issue 9's cases on base, v1, v2, patched -> results/sharp.{md,json}
	bash $(S)/sharp.sh
stress:          ## data-checking stress on debug kernels -> results/stress.{md,json}
	bash $(S)/stress.sh
mm-selftests:    ## upstream mm selftests (file, readahead, THP) on base and patched -> results/mm-selftests.{md,json}
	bash $(S)/mm-selftests.sh
check:           ## lab tests + the series' selftest on base and patched
	bash $(S)/check.sh
check-lab:       ## only the lab's own tests, before any kernel is built
	CHECK_LAB_ONLY=1 bash $(S)/check.sh
fresh-check:     ## the README's two commands on a new Debian 12 root (as root)
	bash $(S)/fresh-check.sh
deps:
	bash $(S)/deps.sh
base: deps
	bash $(S)/fetch-base.sh
apply: base      ## work tree = lab-base + series/*.patch
	bash $(S)/apply-series.sh
export:          ## work tree commits -> series/ (git format-patch)
	bash $(S)/export-series.sh
kernels: apply
	bash $(S)/build-kernel.sh base
	bash $(S)/build-kernel.sh patched
initramfs: apply
	bash $(S)/make-initramfs.sh patched
disks:
	bash $(S)/make-disk.sh check
	bash $(S)/make-disk.sh demo
clean:           ## remove build/ (the cache outside the checkout stays)
	rm -rf build
review:          ## checkpatch, W=1, sparse, THP/LRU_GEN off, htmldocs
	bash $(S)/review.sh
matrix:          ## W=1 filemap.o/readahead.o, base vs patched: THP off, LRU_GEN off, i386, clang, arm64 64K
	bash $(S)/config-matrix.sh
arm64:           ## the series' selftest on an arm64 64 KiB-page guest -> results/arm64-selftest.md
	bash $(S)/arm64-selftest.sh
