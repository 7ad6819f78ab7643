/* SPDX-License-Identifier: GPL-2.0 */
/* pmu-bpf's BPF programs: the ELF object clang built (BPF_OBJ) */
	.section .rodata
	.balign 8
	.globl pmu_bpf_obj, pmu_bpf_obj_end
pmu_bpf_obj:
	.incbin BPF_OBJ
pmu_bpf_obj_end:
	.section .note.GNU-stack, "", @progbits
