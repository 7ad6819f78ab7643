// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-kvm: samples taken while a KVM guest runs belong to the guest.
 *
 * Starts a one-vCPU KVM guest in real mode whose only instruction is a
 * jump to itself at guest address 0x1000, and runs it for 200 ms (of the
 * model's virtual time) under two sampling events of this thread: the
 * cpu-clock software event (its hrtimer interrupts the guest) and the
 * instructions hardware event (its PMI, an NMI, interrupts the guest).
 * KVM registers its guest callbacks with perf: a sample whose interrupt
 * hit the guest has PERF_RECORD_MISC_GUEST_KERNEL (the guest is at CPL
 * 0) and the guest's IP, 0x1000.
 *
 * Checks, for each event: at least one sample; more than half of them
 * GUEST_KERNEL at 0x1000 (the rest are the host's, around KVM_RUN); no
 * guest sample at another IP. Needs /dev/kvm (pmu-kvm.sh loads KVM).
 * Exit 0 on success, 1 on a failed check, 2 without /dev/kvm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <linux/kvm.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define GUEST_IP	0x1000
#define RB_PAGES	64

static void on_alarm(int sig)
{
}

struct sampler {
	const char *name;
	int fd;
	void *rb;
};

static void sampler_open(struct sampler *s, const char *name, __u32 type,
			 __u64 config, __u64 period)
{
	struct perf_event_attr attr;
	long pg = sysconf(_SC_PAGESIZE);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	attr.disabled = 1;
	s->name = name;
	s->fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (s->fd < 0) {
		printf("not ok %s: open: %s\n", name, strerror(errno));
		exit(1);
	}
	s->rb = mmap(NULL, (RB_PAGES + 1) * pg, PROT_READ | PROT_WRITE,
		     MAP_SHARED, s->fd, 0);
	if (s->rb == MAP_FAILED) {
		printf("not ok %s: mmap: %s\n", name, strerror(errno));
		exit(1);
	}
}

static void sampler_check(struct sampler *s)
{
	struct perf_event_mmap_page *pc = s->rb;
	char *data = (char *)s->rb + sysconf(_SC_PAGESIZE);
	__u64 head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	__u64 size = pc->data_size, off;
	int total = 0, guest = 0, guest_other = 0, host = 0, other = 0;
	char what[128];

	for (off = pc->data_tail; off < head;) {
		struct perf_event_header *h = (void *)(data + off % size);
		__u64 ip;
		__u16 mode;

		if (h->type == PERF_RECORD_SAMPLE) {
			memcpy(&ip, (char *)h + sizeof(*h), sizeof(ip));
			mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
			total++;
			if (mode == PERF_RECORD_MISC_GUEST_KERNEL &&
			    ip == GUEST_IP)
				guest++;
			else if (mode == PERF_RECORD_MISC_GUEST_KERNEL ||
				 mode == PERF_RECORD_MISC_GUEST_USER)
				guest_other++;
			else if (mode == PERF_RECORD_MISC_KERNEL ||
				 mode == PERF_RECORD_MISC_USER)
				host++;
			else
				other++;
		}
		off += h->size;
	}
	printf("%s: %s samples, guest at 0x%x: %s, host: %s\n", s->name,
	       total ? "some" : "no", GUEST_IP,
	       guest * 2 > total ? "most" : "few", host ? "some" : "none");
	snprintf(what, sizeof(what), "%s: samples taken", s->name);
	check(total > 0, what);
	snprintf(what, sizeof(what),
		 "%s: most are GUEST_KERNEL at the guest's IP", s->name);
	check(guest * 2 > total, what);
	snprintf(what, sizeof(what),
		 "%s: no guest sample at another IP or mode", s->name);
	check(!guest_other && !other, what);
}

int main(void)
{
	static const unsigned char code[] = { 0xeb, 0xfe };	/* jmp . */
	struct kvm_userspace_memory_region region;
	struct sampler s[2];
	struct sigaction sa;
	struct itimerval it;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int kvm, vm, vcpu, i, ret;
	void *mem;
	long sz;

	setvbuf(stdout, NULL, _IONBF, 0);
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		printf("not ok /dev/kvm: %s\n", strerror(errno));
		return 2;
	}
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (vm < 0 || mem == MAP_FAILED) {
		printf("not ok KVM_CREATE_VM: %s\n", strerror(errno));
		return 1;
	}
	memcpy(mem, code, sizeof(code));
	region = (struct kvm_userspace_memory_region) {
		.slot = 0, .guest_phys_addr = GUEST_IP, .memory_size = 0x1000,
		.userspace_addr = (uintptr_t)mem,
	};
	vcpu = -1;
	if (!ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region))
		vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	sz = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vcpu < 0 || sz <= 0) {
		printf("not ok KVM_CREATE_VCPU: %s\n", strerror(errno));
		return 1;
	}
	run = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	ioctl(vcpu, KVM_GET_SREGS, &sregs);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	ioctl(vcpu, KVM_SET_SREGS, &sregs);
	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_IP;
	regs.rflags = 2;
	if (run == MAP_FAILED || ioctl(vcpu, KVM_SET_REGS, &regs)) {
		printf("not ok vCPU setup: %s\n", strerror(errno));
		return 1;
	}

	sampler_open(&s[0], "cpu-clock", PERF_TYPE_SOFTWARE,
		     PERF_COUNT_SW_CPU_CLOCK, 1000000);
	sampler_open(&s[1], "instructions", PERF_TYPE_HARDWARE,
		     PERF_COUNT_HW_INSTRUCTIONS, 1000000);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: KVM_RUN returns */
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 200000;
	for (i = 0; i < 2; i++)
		ioctl(s[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	setitimer(ITIMER_REAL, &it, NULL);
	do {
		ret = ioctl(vcpu, KVM_RUN, 0);
	} while (!ret && run->exit_reason == KVM_EXIT_INTR);
	for (i = 0; i < 2; i++)
		ioctl(s[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	check(ret < 0 && errno == EINTR,
	      "the guest ran until the timer's signal (KVM_RUN: EINTR)");
	if (!ret)
		printf("exit reason %u\n", run->exit_reason);

	for (i = 0; i < 2; i++)
		sampler_check(&s[i]);
	return fails ? 1 : 0;
}
