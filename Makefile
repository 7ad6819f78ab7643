# SPDX-License-Identifier: GPL-2.0
#
# Build/test harness for our perf_event subsystem on Linux 6.12.
# See README.  Main targets: "make run", "make test".

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
B    := $(ROOT)/build
S    := $(ROOT)/scripts
C    := $(ROOT)/config

# Knobs
SMP              ?= 2
TEST_SMPS        ?= 2 1
# On a host of 3 CPUs or more, the single-CPU boot of TEST_SMPS runs
# beside the PMU model's boots, which use one host CPU each (BOOT_SLOTS,
# scripts/host/slots.sh). On 2 CPUs it gained nothing (a cold run, stop 49:
# the boots beside each other each ran slower by what they overlapped),
# so there the boots take turns as before.
TEST_BESIDE      ?= $(if $(filter-out 1 2,$(shell nproc)),$(filter 1,$(TEST_SMPS)))
# Where it does not, the single-CPU boot runs beside the arm64 boots
# instead: their tests are mostly one thread, and the two CPUs were 125%
# busy on average through them (a clean-clone run, stop 67).
ARM64_BESIDE     ?= $(if $(TEST_BESIDE),,$(if $(filter 1,$(ARM64_IN_TEST)),$(filter 1,$(TEST_SMPS))))
CMD              ?=
PTEST_DIR        ?= $(ROOT)/tools/testing/selftests/perf_events
UPSTREAM_TESTS   := sigtrap_threads remove_on_exec watermark_signal mmap
# Upstream selftests also run by make test, as upstream:<name>;
# UPSTREAM_ARGS_<name> are passed to one (e.g. harness filters "-T test").
UPSTREAM_IN_TEST ?= sigtrap_threads mmap watermark_signal
# Built at -O0: at -O2 gcc 12 loads sigtrap_threads' non-volatile
# signal_count before the volatile write whose signal it then checks
# for (enable_event, modify_and_enable_event fail on any kernel).
UPSTREAM_O0      := sigtrap_threads
# Built with a per-test timeout of UPSTREAM_TMO s instead of the harness's
# 30: under KASAN and lockdep in TCG on one vCPU, sigtrap_threads'
# signal_stress_with_disable takes 10-12 s on ours and on stock alike,
# and on a loaded host three times that (stop 49's CI timed it out).
UPSTREAM_SLOW    := sigtrap_threads
UPSTREAM_TMO     := 90
UPSTREAM_KERNEL  ?= ours
JOBS             ?= 3
# TCG PMU model (tools/testing/pmu-model): the kernel its tests boot (a
# make target: stock-bench, stock, kernel, bench-kernel) and whether make
# test runs them (PMU_IN_TEST=0: no); make test runs them on PMU_KERNEL
# (the model's conformance: upstream's drivers) and on our test kernel
# (our drivers: results <test>@pmu-ours-<vendor>-smp<N>)
PMU_KERNEL       ?= stock-bench
PMU_IN_TEST      ?= 1
# make test boots the model once per vendor; make pmu-test also boots it
# a second time and requires byte-identical logs (PMU_TEST_REPEAT=1 does
# that in make test too)
PMU_TEST_REPEAT  ?= 0
# model tests our drivers cannot pass yet (none)
PMU_SKIP_OURS    ?=
# CPU models ours alone boots: a hybrid Atom with a shallower branch
# stack than the Core's, which the stock driver does not size per kind
# (its MSR accesses past the Atom's depth fault; pmu-model.rst)
PMU_OURS_CPUS    ?= AlderLake-PMU,pmu-atom-lbr-depth=16
# perf test's whole sequence is compared with stock's table
# (tools/testing/pmu-model/stock-results/perf-test-*.txt, made by make
# pmu-perf-test-table), not with itself
PMU_SKIP_STOCK   ?= pmu-perf-test-all.sh
# make test reuses the model's results on the stock lean kernel when none
# of their inputs changed (scripts/test/pmu-stock-cache.sh; PMU_STOCK_CACHE=0:
# always boot it)
# make test also cross-builds our tree for arm64 and boots it (arm64.mk,
# scripts/arm64/run.sh: three boots, our kernel only; make arm64-test
# boots the stock arm64 kernel beside it)
ARM64_IN_TEST    ?= 1
PMU_STOCK_HIT     = $(if $(filter stock-bench,$(PMU_KERNEL)),$(shell $(S)/test/pmu-stock-cache.sh hit))

# Debian's own kernel config (package linux-config-6.12): make distro
# builds it; make test checks that ours has its perf-touching options
DEBIAN_CONFIG := /usr/src/linux-config-6.12/config.amd64_none_amd64.xz

TEST_FRAGS  := $(C)/base.config $(C)/test.config
BENCH_FRAGS := $(C)/base.config $(C)/bench.config
BZ          := arch/x86/boot/bzImage
HDRS        := $(B)/headers
PTEST_OUT   := $(B)/ptests
UP_OUT      := $(B)/upstream-tests
UP_SRC      := $(B)/linux-stock/tools/testing/selftests/perf_events

# Every kernel build (and headers_install) runs under flock
# build/.kbuild.lock: only one kernel build at a time fits on this machine.
# Building the test userspace/initramfs and booting it for tests runs under
# build/.test.lock: those outputs are shared by everyone using this checkout.
KLOCK = $(S)/host/locked.sh kbuild
TLOCK = $(S)/host/locked.sh test

.PHONY: all help deps tree stock-tree kernel stock bench-kernel stock-bench \
	check-layers \
	headers ptests runas upstream-bins initramfs initramfs-upstream testmods \
	test _test test-build check stock-test _stock-test upstream-selftests \
	_upstream-selftests run pmu-qemu pmu-test pmu-perf-test-table _pmu-test _pmu-result \
	fuzz-kernel fuzz diff clean distclean

all: help

help:
	@echo 'make run [CMD=...] [SMP=n]  build our kernel, boot it (perf stat demo + shell,'
	@echo '                             or run CMD and power off)'
	@echo 'make test                    build + run all tests at smp 2 and 1, checkpatch'
	@echo 'make check                   checkpatch over our sources, and check-layers'
	@echo 'make check-layers            kernel/events against design.rst'\''s layer order'
	@echo 'make test T="NAME..."        only those selftests (T_SMPS="2 1": CPU counts)'
	@echo 'make kernel|stock            build our / the unmodified test kernel'
	@echo 'make testmods                the test modules, against the test kernel'
	@echo 'make distro / distro-stock   Debian'"'"'s own config on our tree / on the base'
	@echo '                             tree, built and booted (hours; not in make test)'
	@echo 'make distro-check[-stock]    only the perf users of that config, compiled'
	@echo 'make deb / deb-stock         that kernel as Debian packages (build/deb)'
	@echo 'make debian-image            a Debian 12 system with both installed'
	@echo 'make debian-test             boot it on each, perf/bcc/bpftrace checks'
	@echo 'make stock-test              run the tests on the unmodified kernel'
	@echo 'make upstream-selftests      run upstream 6.12 perf_events selftests'
	@echo 'make bench-kernel|stock-bench  lean kernels (config/bench.config)'
	@echo 'make pmu-qemu                QEMU with the TCG PMU model (build/pmu-qemu)'
	@echo 'make pmu-test                its tests, on the stock lean kernel (PMU_KERNEL)'
	@echo 'make pmu-perf-test-table     stock'"'"'s perf test tables on the model'
	@echo 'make fuzz [FUZZ_KERNEL=stock] [FUZZ_CPU=Skylake-PMU]  fuzzing (fuzzing.rst)'
	@echo 'make arm64-test              our and the stock tree on arm64 (qemu-system-aarch64)'
	@echo 'make arm64-run               our arm64 kernel with a shell on the console'
	@echo 'make deps|clean|distclean'

deps:
	@$(S)/host/deps.sh

# ---- source trees -------------------------------------------------------
tree: deps
	@$(S)/kernel/prepare-tree.sh ours
	@$(S)/kernel/check-tree.sh

stock-tree: deps
	@$(S)/kernel/prepare-tree.sh stock

# ---- kernels ------------------------------------------------------------
kernel: deps
	@$(KLOCK) env JOBS=$(JOBS) $(S)/kernel/kbuild.sh ours $(B)/obj-test $(TEST_FRAGS) -- bzImage modules

stock: deps
	@$(KLOCK) env JOBS=$(JOBS) $(S)/kernel/kbuild.sh stock $(B)/obj-stock $(TEST_FRAGS) -- bzImage modules

bench-kernel: deps
	@$(KLOCK) env JOBS=$(JOBS) $(S)/kernel/kbuild.sh ours $(B)/obj-bench $(BENCH_FRAGS) -- bzImage modules

stock-bench: deps
	@$(KLOCK) env JOBS=$(JOBS) $(S)/kernel/kbuild.sh stock $(B)/obj-stock-bench $(BENCH_FRAGS) -- bzImage modules

# uapi headers from OUR tree (our include/uapi/linux/perf_event.h)
headers: deps
	@$(KLOCK) env JOBS=$(JOBS) $(S)/kernel/kbuild.sh ours $(B)/obj-test -- \
		headers_install INSTALL_HDR_PATH=$(HDRS)

# ---- guest userspace ----------------------------------------------------
runas: deps
	@mkdir -p $(B)
	@[ $(B)/runas -nt $(S)/guest/runas.c ] || \
		gcc -static -O2 -Wall -o $(B)/runas $(S)/guest/runas.c

# Our selftests (owned by the tests engineer): their Makefile builds one
# static binary per test into OUTPUT; $(PTEST_DIR)/tests.list lists them.
ptests: headers
	@if [ -f $(PTEST_DIR)/Makefile ]; then \
		MAKEFLAGS= $(TLOCK) $(MAKE) --no-print-directory -C $(PTEST_DIR) \
			OUTPUT=$(PTEST_OUT) \
			KHDR_INCLUDES="-isystem $(HDRS)/include" \
			SELFTEST_DIR=$(B)/linux/tools/testing/selftests; \
	else \
		echo "  WARN    no $(PTEST_DIR)/Makefile: no tests"; \
	fi

# Upstream 6.12 perf_events selftests, built against our uapi headers.
upstream-bins: headers stock-tree
	@$(TLOCK) sh -ec 'mkdir -p $(UP_OUT); for t in $(UPSTREAM_TESTS); do \
		echo "  CC      upstream-tests/$$t"; \
		opt=-O2; case " $(UPSTREAM_O0) " in *" $$t "*) opt=-O0 ;; esac; \
		tmo="s/^TEST_F(\(.*\))$$/TEST_F_TIMEOUT(\1, $(UPSTREAM_TMO))/"; \
		case " $(UPSTREAM_SLOW) " in *" $$t "*) ;; *) tmo= ;; esac; \
		sed "$$tmo" $(UP_SRC)/$$t.c | \
		gcc -static -pthread $$opt -Wall -Wl,-no-as-needed \
			-isystem $(HDRS)/include -I $(B)/linux-stock/tools/testing/selftests \
			-I $(UP_SRC) -o $(UP_OUT)/$$t -x c -; \
	done'

# Test modules (tools/testing/selftests/perf_events/modules), built out of
# tree against the test kernel; the initramfs carries them when built.
TESTMOD_DIR := $(PTEST_DIR)/modules
TESTMOD_OUT := $(B)/testmods
testmods: kernel
	@rm -rf $(TESTMOD_OUT); mkdir -p $(TESTMOD_OUT)
	@cp $(TESTMOD_DIR)/Makefile $(TESTMOD_DIR)/*.c $(TESTMOD_OUT)/
	@echo "  MODULES $(TESTMOD_OUT)"
	@$(KLOCK) env -u MAKEFLAGS -u MAKELEVEL $(MAKE) -s -C $(B)/linux \
		O=$(B)/obj-test ARCH=x86_64 M=$(TESTMOD_OUT) modules

# device PMU drivers of Debian's config built as modules of the test
# kernel (test distro_modules loads them)
KMODS_IN_TEST := drivers/dma/idxd/idxd_bus.ko drivers/dma/idxd/idxd.ko \
	arch/x86/platform/intel/iosf_mbi.ko drivers/powercap/intel_rapl_common.ko \
	drivers/powercap/intel_rapl_msr.ko

initramfs: ptests runas $(if $(UPSTREAM_IN_TEST),upstream-bins)
	@$(TLOCK) $(S)/guest/mkinitramfs.sh -B -o $(B)/initramfs-test.cpio \
		$(foreach m,$(wildcard $(TESTMOD_OUT)/*.ko),-m $(m)) \
		$(foreach m,$(wildcard $(addprefix $(B)/obj-test/,$(KMODS_IN_TEST))),-m $(m)) \
		$(if $(wildcard $(PTEST_DIR)/tests.list),-t $(PTEST_DIR)/tests.list:$(PTEST_OUT)) \
		$(foreach l,$(EXTRA_LISTS),-t $(PTEST_DIR)/$(l):$(PTEST_OUT)) \
		$(foreach t,$(UPSTREAM_IN_TEST),-u '$(UP_OUT):$(t)$(if $(UPSTREAM_ARGS_$(t)),:$(UPSTREAM_ARGS_$(t)))')

initramfs-upstream: upstream-bins runas
	@$(TLOCK) $(S)/guest/mkinitramfs.sh -o $(B)/initramfs-upstream.cpio \
		$(foreach t,$(UPSTREAM_TESTS),-u $(UP_OUT):$(t))

# ---- checks and tests ---------------------------------------------------
check: stock-tree check-layers
	@$(S)/check/checkpatch.sh

# kernel/events against the layer order of design.rst: fails on a call up
# a layer, a cycle of files, or lock tables that differ (make test too)
check-layers: kernel
	@python3 $(S)/check/check-layers.py $(B)/obj-test/kernel/events

test-build: kernel testmods initramfs

# The kernel is built before taking build/.test.lock (so a long build
# doesn't block others' test runs), with the model's QEMU beside it at
# nice 19 (on a fresh machine: the CPU time the kernel's link and serial
# steps leave); _test runs under the lock and re-checks the kernel (an
# incremental no-op).  A build failure still ends in the "N passed, N failed" line.
ifneq ($(strip $(T)),)
# make test T="NAME...": only those selftests (tests.list names), at each
# CPU count of T_SMPS, in a small initramfs: scripts/test/quick-test.sh
test: deps
	@$(S)/test/quick-test.sh -s "$(or $(T_SMPS),2)" $(T)
else
test: deps
ifeq ($(PMU_IN_TEST),1)
	-@nice -n 19 $(MAKE) --no-print-directory pmu-qemu & \
	$(MAKE) --no-print-directory kernel $(if $(PMU_STOCK_HIT),,$(PMU_KERNEL)); \
	wait
else
	-@$(MAKE) --no-print-directory kernel
endif
ifeq ($(ARM64_IN_TEST),1)
	-@nice -n 19 $(MAKE) --no-print-directory arm64-qemu & \
	$(MAKE) --no-print-directory arm64-kernel; \
	wait
endif
	@$(TLOCK) $(MAKE) --no-print-directory _test
endif

_test:
	@mkdir -p $(B)/logs; rm -f $(B)/logs/build.result $(B)/logs/test.summary
	@$(MAKE) --no-print-directory test-build || \
		echo "FAIL build: kernel, tests or initramfs failed to build (see above)" \
			> $(B)/logs/build.result
	@$(S)/check/checkpatch.sh $(B)/logs/checkpatch.result
	@python3 $(S)/check/check-layers.py --report --result $(B)/logs/check-layers.result \
		$(B)/obj-test/kernel/events || \
		echo "FAIL check-layers: no objects" > $(B)/logs/check-layers.result
	@python3 $(S)/check/perf-options.py $(DEBIAN_CONFIG) $(B)/obj-test/.config \
		$(B)/linux-stock $(B)/logs/perf-options.result | tail -1
	@if [ -f $(B)/logs/build.result ]; then \
		python3 $(S)/test/parse-results.py --result $(B)/logs/build.result \
			--result $(B)/logs/checkpatch.result \
			--result $(B)/logs/perf-options.result \
			--result $(B)/logs/check-layers.result \
			--summary $(B)/logs/test.summary; \
		exit 1; \
	fi
ifeq ($(PMU_IN_TEST),1)
	@# no result of an earlier run may stand in for one this run lost
	@rm -rf $(B)/.boot-slots $(B)/logs/test-beside.out \
		$(B)/logs/pmu.result $(B)/logs/pmu-ours.result
	@export BOOT_SLOTS=$(B)/.boot-slots; \
	$(if $(TEST_BESIDE),RUN_TESTS_BOOT_ONLY=1 QUIET=1 $(S)/test/run-selftests.sh test \
		$(B)/obj-test/$(BZ) $(B)/initramfs-test.cpio "$(TEST_BESIDE)" \
		> $(B)/logs/test-beside.out 2>&1 &) \
	$(MAKE) --no-print-directory _pmu-result; wait
	@[ ! -f $(B)/logs/test-beside.out ] || cat $(B)/logs/test-beside.out
endif
ifeq ($(ARM64_IN_TEST),1)
	@# our arm64 kernel's boots (scripts/arm64/run.sh); make arm64-test
	@# also boots the stock arm64 kernel
	@rm -f $(B)/logs/arm64.result $(B)/logs/test-beside-arm64.out
	-@$(if $(ARM64_BESIDE),RUN_TESTS_BOOT_ONLY=1 QUIET=1 $(S)/test/run-selftests.sh test \
		$(B)/obj-test/$(BZ) $(B)/initramfs-test.cpio "$(ARM64_BESIDE)" \
		> $(B)/logs/test-beside-arm64.out 2>&1 &) \
	ARM64_KINDS=ours $(MAKE) --no-print-directory _arm64-test | \
		grep -v -E '^[0-9]+ passed, [0-9]+ failed$$'; wait
	@[ ! -f $(B)/logs/test-beside-arm64.out ] || cat $(B)/logs/test-beside-arm64.out
	@[ -s $(B)/logs/arm64.result ] || \
		echo "FAIL arm64: no results (arm64 kernel, tests or initramfs failed to build?)" \
			> $(B)/logs/arm64.result
endif
	@RUN_TESTS_BOOTED="$(if $(filter 1,$(PMU_IN_TEST)),$(TEST_BESIDE)) $(ARM64_BESIDE)" \
	$(S)/test/run-selftests.sh test $(B)/obj-test/$(BZ) $(B)/initramfs-test.cpio \
		"$(TEST_SMPS)" $(B)/logs/checkpatch.result $(B)/logs/perf-options.result \
		$(B)/logs/check-layers.result \
		$(if $(filter 1,$(PMU_IN_TEST)),$(B)/logs/pmu.result $(B)/logs/pmu-ours.result) \
		$(if $(filter 1,$(ARM64_IN_TEST)),$(B)/logs/arm64.result)

stock-test: deps
	-@$(MAKE) --no-print-directory stock
	@$(TLOCK) $(MAKE) --no-print-directory _stock-test

_stock-test: stock initramfs
	@$(S)/test/run-selftests.sh stock $(B)/obj-stock/$(BZ) \
		$(B)/initramfs-test.cpio "$(TEST_SMPS)"

UP_KDIR := $(if $(filter stock,$(UPSTREAM_KERNEL)),stock,test)
upstream-selftests: deps
	-@$(MAKE) --no-print-directory $(if $(filter stock,$(UPSTREAM_KERNEL)),stock,kernel)
	@$(TLOCK) $(MAKE) --no-print-directory _upstream-selftests

_upstream-selftests: $(if $(filter stock,$(UPSTREAM_KERNEL)),stock,kernel) initramfs-upstream
	@$(S)/test/run-selftests.sh upstream-$(UPSTREAM_KERNEL) $(B)/obj-$(UP_KDIR)/$(BZ) \
		$(B)/initramfs-upstream.cpio "$(SMP)"

run: kernel initramfs
ifeq ($(strip $(CMD)),)
	@SMP=$(SMP) $(S)/guest/boot.sh $(B)/obj-test/$(BZ) $(B)/initramfs-test.cpio cmd
else
	@$(TLOCK) $(S)/guest/mkinitramfs.sh -o $(B)/initramfs-run.cpio \
		-b $(B)/initramfs-test.cpio -c '$(subst ','\'',$(CMD))'
	@SMP=$(SMP) QEMU_TIMEOUT=$${QEMU_TIMEOUT:-900} $(S)/guest/boot.sh \
		$(B)/obj-test/$(BZ) $(B)/initramfs-run.cpio cmd
endif

# ---- TCG PMU model (tools/testing/pmu-model) ----------------------------
# QEMU with the model, built from Debian's qemu source (cached), and its
# guest tests on PMU_KERNEL (make pmu-test; make test also on ours).
PMU_DIR  := $(ROOT)/tools/testing/pmu-model
PMU_KOBJ_kernel       := test
PMU_KOBJ_bench-kernel := bench
PMU_KOBJ := $(B)/obj-$(or $(PMU_KOBJ_$(PMU_KERNEL)),$(PMU_KERNEL))

pmu-qemu:
	@$(PMU_DIR)/build.sh $(B)/pmu-qemu

# the stock kernel's perf test tables (PERF_TEST_CPUS), into the repo's
# tools/testing/pmu-model/stock-results
PERF_TEST_CPUS ?= Skylake-PMU EPYC-PMU Icelake-PMU
pmu-perf-test-table: deps
	-@nice -n 19 $(MAKE) --no-print-directory pmu-qemu stock-bench
	@$(TLOCK) $(PMU_DIR)/pmu-perf-test-table.sh $(B)/obj-stock-bench/$(BZ) \
		$(PERF_TEST_CPUS)

pmu-test: deps
	-@nice -n 19 $(MAKE) --no-print-directory pmu-qemu $(PMU_KERNEL)
	@$(TLOCK) $(MAKE) --no-print-directory _pmu-test

_pmu-test: runas
	@$(PMU_DIR)/run-tests.sh $(PMU_KOBJ)/$(BZ)

# For make test: the PMU results as a --result file (a FAIL line when the
# model or its kernel did not build)
_pmu-result: runas
	@rm -f $(B)/logs/pmu.result; mkdir -p $(B)/logs
ifneq ($(PMU_STOCK_HIT),)
	@$(S)/test/pmu-stock-cache.sh get $(B)/logs/pmu.result
	@echo "  PMU     $(PMU_KERNEL): the model's results on it are cached ($$(grep -c '^PASS' $(B)/logs/pmu.result) passed; key $$($(S)/test/pmu-stock-cache.sh key))"
else
	-@PMU_REPEAT=$(PMU_TEST_REPEAT) PMU_SKIP="$(PMU_SKIP_STOCK)" \
		$(PMU_DIR)/run-tests.sh $(PMU_KOBJ)/$(BZ) $(B)/logs/pmu.result | \
		grep -v -E '^[0-9]+ passed, [0-9]+ failed$$'
	@[ "$(PMU_KERNEL)" != stock-bench ] || $(S)/test/pmu-stock-cache.sh put $(B)/logs/pmu.result
endif
	@[ -s $(B)/logs/pmu.result ] || \
		echo "FAIL pmu-model: no results (QEMU or $(PMU_KERNEL) build failed?)" \
			> $(B)/logs/pmu.result
	@rm -f $(B)/logs/pmu-ours.result
	-@PMU_TAG=ours PMU_REPEAT=0 PMU_SKIP="$(PMU_SKIP_OURS)" \
		PMU_EXTRA_CPUS="$(PMU_OURS_CPUS)" $(PMU_DIR)/run-tests.sh $(B)/obj-test/$(BZ) \
		$(B)/logs/pmu-ours.result | grep -v -E '^[0-9]+ passed, [0-9]+ failed$$'
	@[ -s $(B)/logs/pmu-ours.result ] || \
		echo "FAIL pmu-model@ours: no results (QEMU or kernel build failed?)" \
			> $(B)/logs/pmu-ours.result

# ---- fuzzing and the differential check (outside make test) -------------
# make fuzz [FUZZ_MIN=30] [FUZZ_SEED=n] [SMP=4] [FUZZ_CPU=Skylake-PMU]:
# trinity and perf_fuzz on the fuzz kernel (test checkers + kmemleak),
# with FUZZ_CPU on the TCG PMU model; see scripts/fuzz/fuzz.sh.
# make diff [DIFF_SEEDS="1 2 3"] [DIFF_N=3000]: the same random attrs on
# our test kernel and the stock one; see scripts/fuzz/perf-diff.sh.
# FUZZ_KERNEL=stock: the same on the stock tree (build/obj-stock-fuzz),
# to tell our bugs from upstream's or QEMU's (log fuzz-stock-*.log).
FUZZ_FRAGS := $(C)/base.config $(C)/test.config $(C)/fuzz.config
FUZZ_SMP   ?= 4
FUZZ_KERNEL ?= ours
FUZZ_OBJ   := $(B)/obj-$(if $(filter stock,$(FUZZ_KERNEL)),stock-fuzz,fuzz)
# FUZZ_TOOLS=DIR: perf_fuzz from DIR (one built from an older commit, to
# replay a seed of its time)
FUZZ_TOOLS ?= $(PTEST_OUT)

fuzz-kernel: deps
	@$(KLOCK) env JOBS=$(JOBS) $(S)/kernel/kbuild.sh \
		$(if $(filter stock,$(FUZZ_KERNEL)),stock,ours) $(FUZZ_OBJ) \
		$(FUZZ_FRAGS) -- bzImage

fuzz: fuzz-kernel ptests runas pmu-qemu
	@dpkg -s trinity >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq trinity; }
	@$(TLOCK) $(S)/guest/mkinitramfs.sh -o $(B)/initramfs-fuzzbase.cpio \
		-t $(PTEST_DIR)/tools.list:$(FUZZ_TOOLS) -x /usr/bin/trinity
	@SMP=$(FUZZ_SMP) FUZZ_CPU=$(FUZZ_CPU) FUZZ_KERNEL=$(FUZZ_KERNEL) \
		$(S)/fuzz/fuzz.sh $(FUZZ_OBJ)/$(BZ) \
		$(B)/initramfs-fuzzbase.cpio

diff: kernel stock ptests runas
	@$(TLOCK) $(S)/guest/mkinitramfs.sh -o $(B)/initramfs-diffbase.cpio \
		-t $(PTEST_DIR)/tools.list:$(PTEST_OUT)
	@$(TLOCK) $(S)/fuzz/perf-diff.sh $(B)/obj-test/$(BZ) $(B)/obj-stock/$(BZ) \
		$(B)/initramfs-diffbase.cpio

# ---- cleaning -----------------------------------------------------------
clean:
	rm -rf $(B)/obj-test $(B)/obj-stock $(B)/obj-bench $(B)/obj-stock-bench \
		$(B)/obj-fuzz $(B)/obj-stock-fuzz \
		$(HDRS) $(PTEST_OUT) $(UP_OUT) $(B)/logs $(B)/runas \
		$(B)/initramfs-*.cpio* $(B)/initramfs-*.list $(B)/.initramfs.* \
		$(B)/pmu-tests

distclean: clean
	rm -rf $(B)/linux $(B)/linux-stock $(B)/linux.tmp.* $(B)/linux-stock.tmp.* \
		$(B)/pmu-qemu
include $(ROOT)/bench.mk
include $(ROOT)/arm64.mk
include $(ROOT)/distro.mk
