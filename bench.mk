# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks of our perf_event core against the stock kernel
# (Documentation/perf-core/benchmarks.rst).  Included by the top-level
# Makefile ("include bench.mk"); does not change its default goal.
#
#   make bench        build both lean kernels (config/bench.config), boot
#                     each under QEMU with deterministic virtual time, run
#                     tools/testing/perf-bench, print ours vs stock
#   make bench-run    the same without (re)building the kernels
#
# Both run once per vendor of BENCH_VENDORS (intel amd): the Skylake and
# the EPYC model CPU, one table each (build/logs/bench.txt, bench-amd.txt).
#
# Knobs (make variables or environment): BENCH_REPS (7), BENCH_SCALE (1),
# BENCH_SETTLE (20 ms idle before each repetition),
# BENCH_METRICS (subset, space separated), BENCH_PARALLEL (1: both guests
# at once), BENCH_TIMEOUT (600 s per boot), QUIET=1.

_bench_saved_goal := $(.DEFAULT_GOAL)
BENCH_ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
BENCH_NICE ?= 10
BENCH_VARS := BENCH_REPS BENCH_SCALE BENCH_SETTLE BENCH_METRICS BENCH_PARALLEL BENCH_TIMEOUT QUIET BENCH_SMPS BENCH_CPU
BENCH_ENV   = $(foreach v,$(BENCH_VARS),$(if $(value $(v)),$(v)='$(subst ','\'',$($(v)))'))

.PHONY: bench bench-run bench-kernels

# Both lean kernels, one after the other (each build takes
# build/.kbuild.lock itself), at low CPU priority.
bench-kernels:
	@nice -n $(BENCH_NICE) $(MAKE) --no-print-directory -C $(BENCH_ROOT) \
		bench-kernel stock-bench

# One table per vendor's model CPU (BENCH_VENDORS, default both)
BENCH_VENDORS ?= intel amd

bench: bench-kernels
	@$(MAKE) --no-print-directory -f $(BENCH_ROOT)/Makefile -C $(BENCH_ROOT) bench-run

bench-run:
	@rc=0; for v in $(BENCH_VENDORS); do \
		env $(BENCH_ENV) BENCH_VENDOR=$$v $(BENCH_ROOT)/scripts/bench/bench.sh || rc=1; \
	done; exit $$rc

.DEFAULT_GOAL := $(_bench_saved_goal)
