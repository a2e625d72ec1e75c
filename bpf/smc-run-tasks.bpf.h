/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run_tasks map, defined alike in every program that reads it: the tasks "smcctl run"
 * enrolled (task storage, struct smcbpf_run_mark).  smc_select owns it; the loader hands
 * its fd to the others (smc_bufs), so a second definition must match this one exactly.
 */
#pragma once

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct smcbpf_run_mark);
} run_tasks SEC(".maps");
