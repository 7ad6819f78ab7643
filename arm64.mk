# SPDX-License-Identifier: GPL-2.0
#
# arm64 (included by the Makefile): our tree and the stock tree cross-built
# for arm64 with Debian's gcc-aarch64-linux-gnu, our selftests cross-built
# static, an initramfs of Debian's arm64 busybox-static, each kernel booted
# on qemu-system-aarch64 (virt, GICv3, -cpu max with its PMUv3, pseudo-NMI
# on) under TCG. The arm64 PMU driver is upstream's (drivers/perf/arm_pmuv3.c),
# so the boots test our core under a driver we did not write.
# Documentation/perf-core/arm64.rst says what runs and what is skipped.
#
#   make arm64-test     build, boot ours and stock, print both results
#   make arm64-run      build and boot ours interactively (Ctrl-A X quits)

A64          := $(B)/arm64
A64_FRAGS    := $(C)/base.config $(C)/arm64.config $(C)/test.config
A64_IMAGE    := arch/arm64/boot/Image
A64_HDRS     := $(B)/headers-arm64
A64_PTESTS   := $(B)/ptests-arm64
A64_INITRD   := $(B)/initramfs-arm64.cpio
# the stock kernel's image: the same, with the test modules built
# against the stock tree (a module is built for one kernel's structs)
A64_INITRD_STOCK := $(B)/initramfs-arm64-stock.cpio
A64_MODS     := $(B)/testmods-arm64
A64_MODS_STOCK := $(B)/testmods-arm64-stock
# QEMU for the boots: Debian's 7.2 with the CHAIN event in its PMUv3
# (tools/testing/pmu-model/patches/series.aarch64), virt board alone
A64_QEMU     := $(B)/pmu-qemu-aarch64/qemu-system-aarch64
# CPUs of the boot that runs every test (scripts/arm64/run.sh)
ARM64_SMPS   ?= 2
# tests of tests.list that are x86's alone (their reason beside each):
# left out of the arm64 list
ARM64_SKIP   ?= \
	x86_msr \
	ptrace_dr \
	bpftrace_tool \
	distro_modules
# x86_msr        the msr PMU and x86's PERF_CAPABILITIES
# ptrace_dr      x86's debug registers through PTRACE_POKEUSER
# bpftrace_tool  the image has Debian's arm64 perf and gdb, not bpftrace
#                (arm64's with its LLVM: about 65 MiB more to unpack at
#                each boot); bpftrace is tested on x86
# distro_modules x86's device PMU modules (idxd, RAPL)

.PHONY: arm64-deps arm64-kernel arm64-stock arm64-headers arm64-ptests \
	arm64-runas arm64-testmods arm64-initramfs arm64-qemu arm64-test \
	_arm64-test arm64-run

arm64-deps: deps
	@$(S)/arm64/deps.sh

arm64-kernel: arm64-deps
	@$(KLOCK) env KARCH=arm64 JOBS=$(JOBS) $(S)/kernel/kbuild.sh ours \
		$(B)/obj-arm64 $(A64_FRAGS) -- Image modules

arm64-stock: arm64-deps
	@$(KLOCK) env KARCH=arm64 JOBS=$(JOBS) $(S)/kernel/kbuild.sh stock \
		$(B)/obj-stock-arm64 $(A64_FRAGS) -- Image modules

arm64-headers: arm64-deps
	@$(KLOCK) env KARCH=arm64 JOBS=$(JOBS) $(S)/kernel/kbuild.sh ours \
		$(B)/obj-arm64 -- headers_install INSTALL_HDR_PATH=$(A64_HDRS)

arm64-ptests: arm64-headers
	@MAKEFLAGS= $(TLOCK) $(MAKE) --no-print-directory -C $(PTEST_DIR) \
		OUTPUT=$(A64_PTESTS) CC=aarch64-linux-gnu-gcc \
		KHDR_INCLUDES="-isystem $(A64_HDRS)/include -isystem $(A64)/root/usr/include/aarch64-linux-gnu" \
		SELFTEST_DIR=$(B)/linux/tools/testing/selftests \
		$(addprefix $(A64_PTESTS)/,$(filter-out $(ARM64_SKIP), \
			$(shell cat $(PTEST_DIR)/tests.list $(PTEST_DIR)/tests-arm64.list | \
				awk '!/^\#/ && NF { print $$1 }')))

arm64-runas: arm64-deps
	@[ $(A64)/runas -nt $(S)/guest/runas.c ] || \
		aarch64-linux-gnu-gcc -static -O2 -Wall -o $(A64)/runas $(S)/guest/runas.c

# The test modules (device_pmu, aux_area) against each arm64 kernel that
# was built (modules need its Module.symvers): ours always, stock for
# make arm64-test (not when ARM64_KINDS leaves stock out, as make test
# does); PERF_TEST_STOCK=1 as for x86's stock builds.
# $(call a64_mods,TREE,OBJ,OUT,EXTRA): the modules into OUT, or none
a64_mods = rm -rf $(3); [ ! -f $(2)/Module.symvers ] || { \
	mkdir -p $(3) && cp $(TESTMOD_DIR)/Makefile $(TESTMOD_DIR)/*.c $(3)/ && \
	echo "  MODULES $(3)" && \
	$(KLOCK) env -u MAKEFLAGS -u MAKELEVEL $(MAKE) -s -C $(1) O=$(2) \
		ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- M=$(3) $(4) modules; }

arm64-testmods: arm64-deps
	@$(call a64_mods,$(B)/linux,$(B)/obj-arm64,$(A64_MODS),)
ifneq ($(filter stock,$(or $(ARM64_KINDS),stock)),)
	@$(call a64_mods,$(B)/linux-stock,$(B)/obj-stock-arm64,$(A64_MODS_STOCK),PERF_TEST_STOCK=1)
else
	@rm -rf $(A64_MODS_STOCK)
endif

arm64-initramfs: arm64-ptests arm64-runas arm64-testmods
	@{ awk -v skip=" $(ARM64_SKIP) " '/^#/ || !NF || !index(skip, " " $$1 " ")' \
		$(PTEST_DIR)/tests.list; cat $(PTEST_DIR)/tests-arm64.list; } > $(A64)/tests.list
	@$(TLOCK) $(S)/guest/mkinitramfs.sh -a arm64 -o $(A64_INITRD) \
		$(foreach m,$(wildcard $(A64_MODS)/*.ko),-m $(m)) \
		-t $(A64)/tests.list:$(A64_PTESTS)
	@rm -f $(A64_INITRD_STOCK)
	@[ ! -d $(A64_MODS_STOCK) ] || $(TLOCK) $(S)/guest/mkinitramfs.sh -a arm64 \
		-o $(A64_INITRD_STOCK) $(patsubst %,-m %,$(wildcard $(A64_MODS_STOCK)/*.ko)) \
		-t $(A64)/tests.list:$(A64_PTESTS)

arm64-qemu: arm64-deps
	@PMU_QEMU_TARGET=aarch64 $(PMU_DIR)/build.sh $(dir $(A64_QEMU))

arm64-test: arm64-deps
	-@nice -n 19 $(MAKE) --no-print-directory arm64-qemu & \
	$(MAKE) --no-print-directory arm64-kernel arm64-stock; wait
	@$(TLOCK) $(MAKE) --no-print-directory _arm64-test

_arm64-test: arm64-initramfs arm64-qemu
	@mkdir -p $(B)/logs
	@ARM64_SMPS=$(ARM64_SMPS) A64_QEMU=$(A64_QEMU) \
	A64_INITRD_STOCK=$(A64_INITRD_STOCK) $(S)/arm64/run.sh \
		$(B)/obj-arm64/$(A64_IMAGE) $(B)/obj-stock-arm64/$(A64_IMAGE) \
		$(A64_INITRD) $(B)/logs/arm64.result

arm64-run: arm64-kernel arm64-initramfs arm64-qemu
	@A64_QEMU=$(A64_QEMU) $(S)/arm64/run.sh --interactive \
		$(B)/obj-arm64/$(A64_IMAGE) $(A64_INITRD)
