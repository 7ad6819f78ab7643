# SPDX-License-Identifier: GPL-2.0
#
# Debian (included by the Makefile; outside make test: hours on 2 cores
# for Debian's config). Documentation/perf-core/debian.rst says more.
#
#   make distro / distro-stock   Debian's own config on our tree / on the
#                                base tree, built and booted with a demo
#   make distro-check[-stock]    only the perf users of that config, compiled
#   make deb / deb-stock         that kernel as linux-image and linux-headers
#                                packages (build/deb/distro-ours, -stock)
#   make debian-image            a Debian 12 system (debootstrap) with both
#                                kernels' packages installed by dpkg
#   make debian-test             boot it on each kernel, run the checks
#                                (scripts/distro/guest/perf-eco.sh), compare
#   make debian-shell            boot it on ours, log in as root
#
# DISTRO_CONFIG=lean does the same with a small config (defconfig and
# what the system needs, scripts/distro/lean.config) in minutes;
# DISTRO_CONFIG=nomod (make distro, distro-stock) is Debian's config
# without modules and debug information, about 20 minutes cold.
# DEBIAN_QEMU=model boots the PMU model (hardware events) instead of
# Debian's QEMU; PERFECO=boot,bpftrace,bcc,perf,perftest picks checks;
# DEBIAN_PARALLEL=0 boots the two kernels one after the other.

DISTRO_CONFIG ?= debian
DISTRO_TAG    := $(if $(filter lean,$(DISTRO_CONFIG)),lean,distro)
DEBIAN_QEMU   ?= plain
DEBIAN_KIND   ?= ours
DISTRO_ENV     = env JOBS=$(JOBS) DISTRO_CONFIG=$(DISTRO_CONFIG)

distro: deps initramfs
	@$(KLOCK) $(DISTRO_ENV) $(S)/distro/distro.sh ours

distro-stock: deps initramfs
	@$(KLOCK) $(DISTRO_ENV) $(S)/distro/distro.sh stock

distro-check: deps
	@$(KLOCK) $(DISTRO_ENV) $(S)/distro/distro.sh ours check

distro-check-stock: deps
	@$(KLOCK) $(DISTRO_ENV) $(S)/distro/distro.sh stock check

deb: deps
	@$(KLOCK) $(DISTRO_ENV) $(S)/distro/distro.sh ours deb

deb-stock: deps
	@$(KLOCK) $(DISTRO_ENV) $(S)/distro/distro.sh stock deb

debian-image: deps ptests
	@$(S)/distro/debian-image.sh $(DISTRO_TAG)

# Both kernels' boots at once (DEBIAN_PARALLEL=0: one after the other):
# the guests' vCPUs idle much of the time (the tools' start-up, sleeps),
# so two boots side by side take less than two in turn
DEBIAN_PARALLEL ?= 1
debian-test: debian-image $(if $(filter model,$(DEBIAN_QEMU)),pmu-qemu)
ifeq ($(DEBIAN_PARALLEL),1)
	@$(S)/distro/debian-boot.sh $(DISTRO_TAG) ours $(DEBIAN_QEMU) & ours=$$!; \
	$(S)/distro/debian-boot.sh $(DISTRO_TAG) stock $(DEBIAN_QEMU); rs=$$?; \
	wait $$ours; ro=$$?; [ $$ro = 0 ] && [ $$rs = 0 ]
else
	@$(S)/distro/debian-boot.sh $(DISTRO_TAG) ours $(DEBIAN_QEMU)
	@$(S)/distro/debian-boot.sh $(DISTRO_TAG) stock $(DEBIAN_QEMU)
endif
	@$(S)/distro/debian-compare.sh $(DISTRO_TAG) $(DEBIAN_QEMU)

debian-shell:
	@$(S)/distro/debian-boot.sh $(DISTRO_TAG) $(DEBIAN_KIND) $(DEBIAN_QEMU) shell

.PHONY: distro distro-stock distro-check distro-check-stock deb deb-stock \
	debian-image debian-test debian-shell
