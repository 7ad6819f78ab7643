// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "power" PMU: the RAPL (running average power limit) energy status
 * counters, which the processor advances by the energy a domain used.
 *
 *   config  event          MSR                              domain
 *   1       energy-cores   MSR_PP0_ENERGY_STATUS            the cores
 *   2       energy-pkg     MSR_PKG_ENERGY_STATUS            the package
 *                          (MSR_AMD_PKG_ENERGY_STATUS)
 *   3       energy-ram     MSR_DRAM_ENERGY_STATUS           its memory
 *   4       energy-gpu     MSR_PP1_ENERGY_STATUS            its graphics
 *   5       energy-psys    MSR_PLATFORM_ENERGY_STATUS       the platform
 *
 * The config numbers are ABI (events/<name>). Each status MSR is a 32-bit
 * count in the energy unit of MSR_RAPL_POWER_UNIT bits 12:8 (2^-ESU J);
 * Xeon servers count DRAM in a fixed 2^-16 J. Counts are reported in
 * 2^-32 J (each event's .scale file) so that one scale serves every
 * domain. Which domains a CPU has comes from its model (Intel SDM vol. 4,
 * the MSR tables) or CPUID (AMD: 0x80000007 EDX bit 14, package only);
 * a domain whose status reads 0 at boot is not listed, as under
 * hypervisors that do not implement it.
 *
 * A domain is shared by the CPUs of a die (Intel) or package (AMD): the
 * core designates one CPU of each (sysfs cpumask). Events are per CPU,
 * counting only, with no privilege filter. A per-CPU hrtimer reads the
 * active counters every RAPL_POLL_MS so that no 32-bit wrap is missed
 * (at 2^-14 J, one wrap is 262 kJ: 43 minutes at 100 W).
 */

#define pr_fmt(fmt)	"perf/rapl: " fmt

#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/cpu_device_id.h>
#include <asm/cpufeature.h>
#include <asm/intel-family.h>
#include <asm/msr.h>

enum rapl_domain {
	RAPL_CORES = 1,
	RAPL_PKG,
	RAPL_RAM,
	RAPL_GPU,
	RAPL_PSYS,
	RAPL_NR,
};

#define RAPL_D(d)		BIT(d)
#define RAPL_CLIENT		(RAPL_D(RAPL_CORES) | RAPL_D(RAPL_PKG) | \
				 RAPL_D(RAPL_RAM) | RAPL_D(RAPL_GPU) | \
				 RAPL_D(RAPL_PSYS))
#define RAPL_SERVER		(RAPL_D(RAPL_PKG) | RAPL_D(RAPL_RAM))
#define RAPL_POLL_MS		60000
/* Xeon servers: DRAM energy in 2^-16 J whatever POWER_UNIT says */
#define RAPL_SERVER_DRAM_ESU	16

struct rapl_model {
	unsigned long	domains;
	bool		server;
};

static const struct rapl_model rapl_client = { .domains = RAPL_CLIENT };
static const struct rapl_model rapl_server = {
	.domains = RAPL_SERVER,
	.server = true,
};

#define RAPL_CPU(vfm, m)	X86_MATCH_VFM(vfm, &(m))

static const struct x86_cpu_id rapl_cpus[] __initconst = {
	RAPL_CPU(INTEL_SKYLAKE_L,	rapl_client),
	RAPL_CPU(INTEL_SKYLAKE,		rapl_client),
	RAPL_CPU(INTEL_KABYLAKE_L,	rapl_client),
	RAPL_CPU(INTEL_KABYLAKE,	rapl_client),
	RAPL_CPU(INTEL_COMETLAKE,	rapl_client),
	RAPL_CPU(INTEL_COMETLAKE_L,	rapl_client),
	RAPL_CPU(INTEL_CANNONLAKE_L,	rapl_client),
	RAPL_CPU(INTEL_ICELAKE,		rapl_client),
	RAPL_CPU(INTEL_ICELAKE_L,	rapl_client),
	RAPL_CPU(INTEL_ROCKETLAKE,	rapl_client),
	RAPL_CPU(INTEL_TIGERLAKE,	rapl_client),
	RAPL_CPU(INTEL_TIGERLAKE_L,	rapl_client),
	RAPL_CPU(INTEL_ALDERLAKE,	rapl_client),
	RAPL_CPU(INTEL_ALDERLAKE_L,	rapl_client),
	RAPL_CPU(INTEL_RAPTORLAKE,	rapl_client),
	RAPL_CPU(INTEL_RAPTORLAKE_P,	rapl_client),
	RAPL_CPU(INTEL_RAPTORLAKE_S,	rapl_client),
	RAPL_CPU(INTEL_METEORLAKE,	rapl_client),
	RAPL_CPU(INTEL_METEORLAKE_L,	rapl_client),
	RAPL_CPU(INTEL_SKYLAKE_X,	rapl_server),
	RAPL_CPU(INTEL_ICELAKE_X,	rapl_server),
	RAPL_CPU(INTEL_ICELAKE_D,	rapl_server),
	RAPL_CPU(INTEL_SAPPHIRERAPIDS_X, rapl_server),
	RAPL_CPU(INTEL_EMERALDRAPIDS_X,	rapl_server),
	{}
};

/* the status MSR of each domain, per vendor */
static u32 rapl_msr[RAPL_NR] __ro_after_init;
/* the domains listed, and the shift that makes each count 2^-32 J */
static unsigned long rapl_present __ro_after_init;
static u8 rapl_shift[RAPL_NR] __ro_after_init;

/* the active events of each CPU, read by the poll timer */
struct rapl_cpu {
	struct list_head	active;
	struct hrtimer		poll;
};
static DEFINE_PER_CPU(struct rapl_cpu, rapl_cpu);

PMU_FORMAT_ATTR(event, "config:0-7");

static struct attribute *rapl_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static struct attribute_group rapl_format_group = {
	.name	= "format",
	.attrs	= rapl_format_attrs,
};

#define RAPL_SCALE	"2.3283064365386962890625e-10"

PMU_EVENT_ATTR_STRING(energy-cores, rapl_cores, "event=0x01")
PMU_EVENT_ATTR_STRING(energy-cores.unit, rapl_cores_unit, "Joules")
PMU_EVENT_ATTR_STRING(energy-cores.scale, rapl_cores_scale, RAPL_SCALE)
PMU_EVENT_ATTR_STRING(energy-pkg, rapl_pkg, "event=0x02")
PMU_EVENT_ATTR_STRING(energy-pkg.unit, rapl_pkg_unit, "Joules")
PMU_EVENT_ATTR_STRING(energy-pkg.scale, rapl_pkg_scale, RAPL_SCALE)
PMU_EVENT_ATTR_STRING(energy-ram, rapl_ram, "event=0x03")
PMU_EVENT_ATTR_STRING(energy-ram.unit, rapl_ram_unit, "Joules")
PMU_EVENT_ATTR_STRING(energy-ram.scale, rapl_ram_scale, RAPL_SCALE)
PMU_EVENT_ATTR_STRING(energy-gpu, rapl_gpu, "event=0x04")
PMU_EVENT_ATTR_STRING(energy-gpu.unit, rapl_gpu_unit, "Joules")
PMU_EVENT_ATTR_STRING(energy-gpu.scale, rapl_gpu_scale, RAPL_SCALE)
PMU_EVENT_ATTR_STRING(energy-psys, rapl_psys, "event=0x05")
PMU_EVENT_ATTR_STRING(energy-psys.unit, rapl_psys_unit, "Joules")
PMU_EVENT_ATTR_STRING(energy-psys.scale, rapl_psys_scale, RAPL_SCALE)

/* three files per domain, in config order (rapl_event_visible()) */
static struct attribute *rapl_event_attrs[] = {
	&rapl_cores.attr.attr, &rapl_cores_unit.attr.attr,
	&rapl_cores_scale.attr.attr,
	&rapl_pkg.attr.attr, &rapl_pkg_unit.attr.attr,
	&rapl_pkg_scale.attr.attr,
	&rapl_ram.attr.attr, &rapl_ram_unit.attr.attr,
	&rapl_ram_scale.attr.attr,
	&rapl_gpu.attr.attr, &rapl_gpu_unit.attr.attr,
	&rapl_gpu_scale.attr.attr,
	&rapl_psys.attr.attr, &rapl_psys_unit.attr.attr,
	&rapl_psys_scale.attr.attr,
	NULL,
};

/* each domain's three files are listed if the domain is */
static umode_t rapl_event_visible(struct kobject *kobj, struct attribute *attr,
				  int i)
{
	return test_bit(i / 3 + RAPL_CORES, &rapl_present) ? attr->mode : 0;
}

static struct attribute_group rapl_event_group = {
	.name		= "events",
	.attrs		= rapl_event_attrs,
	.is_visible	= rapl_event_visible,
};

static const struct attribute_group *rapl_attr_groups[] = {
	&rapl_format_group,
	&rapl_event_group,
	NULL,
};

static u64 rapl_read_msr(struct perf_event *event)
{
	u64 val;

	rdmsrl(event->hw.event_base, val);
	return val & 0xffffffffULL;
}

/* add what the 32-bit counter advanced since the last read */
static void rapl_event_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev, now;

	do {
		prev = local64_read(&hwc->prev_count);
		now = rapl_read_msr(event);
	} while (local64_cmpxchg(&hwc->prev_count, prev, now) != prev);

	local64_add(((now - prev) & 0xffffffffULL) << hwc->config_base,
		    &event->count);
}

static enum hrtimer_restart rapl_poll(struct hrtimer *timer)
{
	struct rapl_cpu *rc = container_of(timer, struct rapl_cpu, poll);
	struct perf_event *event;

	if (list_empty(&rc->active))
		return HRTIMER_NORESTART;
	list_for_each_entry(event, &rc->active, active_entry)
		rapl_event_update(event);
	hrtimer_forward_now(timer, ms_to_ktime(RAPL_POLL_MS));
	return HRTIMER_RESTART;
}

static void rapl_event_start(struct perf_event *event, int flags)
{
	struct rapl_cpu *rc = this_cpu_ptr(&rapl_cpu);

	if (!(event->hw.state & PERF_HES_STOPPED))
		return;
	event->hw.state = 0;
	local64_set(&event->hw.prev_count, rapl_read_msr(event));
	if (list_empty(&rc->active))
		hrtimer_start(&rc->poll, ms_to_ktime(RAPL_POLL_MS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	list_add_tail(&event->active_entry, &rc->active);
}

static void rapl_event_stop(struct perf_event *event, int flags)
{
	struct rapl_cpu *rc = this_cpu_ptr(&rapl_cpu);

	if (event->hw.state & PERF_HES_STOPPED)
		return;
	rapl_event_update(event);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	list_del_init(&event->active_entry);
	if (list_empty(&rc->active))
		hrtimer_try_to_cancel(&rc->poll);
}

static int rapl_event_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		rapl_event_start(event, flags);
	return 0;
}

static void rapl_event_del(struct perf_event *event, int flags)
{
	rapl_event_stop(event, PERF_EF_UPDATE);
}

static void rapl_event_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		rapl_event_update(event);
}

static int rapl_event_init(struct perf_event *event);

static struct pmu rapl_pmu = {
	.module		= THIS_MODULE,
	.attr_groups	= rapl_attr_groups,
	.task_ctx_nr	= perf_invalid_context,
	.event_init	= rapl_event_init,
	.add		= rapl_event_add,
	.del		= rapl_event_del,
	.start		= rapl_event_start,
	.stop		= rapl_event_stop,
	.read		= rapl_event_read,
	.capabilities	= PERF_PMU_CAP_NO_EXCLUDE,
};

static int rapl_event_init(struct perf_event *event)
{
	u64 cfg = event->attr.config;

	if (event->attr.type != rapl_pmu.type)
		return -ENOENT;
	/* counting only, one event per CPU: the counter interrupts nothing */
	if (is_sampling_event(event) || event->cpu < 0)
		return -EINVAL;
	if (cfg >= RAPL_NR || event->attr.config1 || event->attr.config2)
		return -EINVAL;
	cfg = array_index_nospec(cfg, RAPL_NR);
	if (!test_bit(cfg, &rapl_present))
		return -EINVAL;
	event->hw.event_base = rapl_msr[cfg];
	event->hw.config_base = rapl_shift[cfg];
	INIT_LIST_HEAD(&event->active_entry);
	return 0;
}

/* the energy unit in bits 12:8 of the power-unit MSR */
#define RAPL_ESU(units)		(((units) >> 8) & 0x1f)

static int __init rapl_probe_intel(const struct rapl_model *m, u64 *units)
{
	static const u32 msrs[RAPL_NR] = {
		[RAPL_CORES]	= MSR_PP0_ENERGY_STATUS,
		[RAPL_PKG]	= MSR_PKG_ENERGY_STATUS,
		[RAPL_RAM]	= MSR_DRAM_ENERGY_STATUS,
		[RAPL_GPU]	= MSR_PP1_ENERGY_STATUS,
		[RAPL_PSYS]	= MSR_PLATFORM_ENERGY_STATUS,
	};
	int d;

	if (rdmsrl_safe(MSR_RAPL_POWER_UNIT, units))
		return -ENODEV;
	for (d = RAPL_CORES; d < RAPL_NR; d++) {
		rapl_msr[d] = msrs[d];
		rapl_shift[d] = 32 - RAPL_ESU(*units);
	}
	if (m->server)
		rapl_shift[RAPL_RAM] = 32 - RAPL_SERVER_DRAM_ESU;
	rapl_pmu.scope = PERF_PMU_SCOPE_DIE;
	return 0;
}

static int __init rapl_probe_amd(unsigned long *domains, u64 *units)
{
	if (rdmsrl_safe(MSR_AMD_RAPL_POWER_UNIT, units))
		return -ENODEV;
	rapl_msr[RAPL_PKG] = MSR_AMD_PKG_ENERGY_STATUS;
	rapl_shift[RAPL_PKG] = 32 - RAPL_ESU(*units);
	*domains = RAPL_D(RAPL_PKG);
	rapl_pmu.scope = PERF_PMU_SCOPE_PKG;
	return 0;
}

static int __init rapl_pmu_init(void)
{
	const struct x86_cpu_id *id = x86_match_cpu(rapl_cpus);
	unsigned long domains;
	int cpu, d, err;
	u64 units, val;

	if (id) {
		const struct rapl_model *m = (void *)id->driver_data;

		domains = m->domains;
		err = rapl_probe_intel(m, &units);
	} else if (boot_cpu_has(X86_FEATURE_RAPL) &&
		   (boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
		    boot_cpu_data.x86_vendor == X86_VENDOR_HYGON)) {
		err = rapl_probe_amd(&domains, &units);
	} else {
		return -ENODEV;
	}
	if (err)
		return err;
	/* a counter that reads 0 is one the (virtual) CPU does not keep */
	for_each_set_bit(d, &domains, RAPL_NR)
		if (!rdmsrl_safe(rapl_msr[d], &val) && (val & 0xffffffffULL))
			__set_bit(d, &rapl_present);

	for_each_possible_cpu(cpu) {
		struct rapl_cpu *rc = per_cpu_ptr(&rapl_cpu, cpu);

		INIT_LIST_HEAD(&rc->active);
		/* hard: it walks the list add/del change with IRQs off */
		hrtimer_init(&rc->poll, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		rc->poll.function = rapl_poll;
	}
	err = perf_pmu_register(&rapl_pmu, "power", -1);
	if (err)
		return err;
	pr_info("energy unit 2^-%llu J, domains %#lx\n", RAPL_ESU(units),
		rapl_present);
	return 0;
}
module_init(rapl_pmu_init);

static void __exit rapl_pmu_exit(void)
{
	int cpu;

	perf_pmu_unregister(&rapl_pmu);
	/* no event is left (each held the module), so neither is a timer */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu(rapl_cpu, cpu).poll);
}
module_exit(rapl_pmu_exit);

MODULE_DESCRIPTION("RAPL energy counters as the power PMU");
MODULE_LICENSE("GPL");
