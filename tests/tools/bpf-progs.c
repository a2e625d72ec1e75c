// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bpf-progs: the BPF programs and links the kernel holds, for the VM tests of pinning
 * (tests/vm/guest/restart-7x.sh), where bpftool is not installed:
 *
 *   bpf-progs          one line per loaded program: "prog NAME"
 *   bpf-progs links    one line per link: "link PROG-NAME"
 *   bpf-progs maps     one line per map: "map NAME" (smcctl assess must leave none)
 *   bpf-progs unmark DIR PID
 *                      what smc_select's fork program does when it cannot copy a run mark:
 *                      the mark of task PID is deleted from DIR/run_tasks (a pinned
 *                      selection layout) and the inherit-failure counter of DIR/bss goes up
 *                      by one (tests/vm/guest/run-7x.sh).  The counter is read, changed and
 *                      written back whole: other counters that move meanwhile may lose a
 *                      count, which no test reads.
 *
 * Exit status 0, 1 when the kernel refused to list them, 2 on usage errors.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "bpf/smcbpf-abi.h"

static int prog_name(uint32_t id, char *buf, size_t len)
{
	struct bpf_prog_info info = {};
	uint32_t info_len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0) {
		close(fd);
		return -errno;
	}
	close(fd);
	snprintf(buf, len, "%s", info.name);
	return 0;
}

static int list_maps(void)
{
	uint32_t id = 0;

	while (bpf_map_get_next_id(id, &id) == 0) {
		struct bpf_map_info info = {};
		uint32_t info_len = sizeof(info);
		int fd = bpf_map_get_fd_by_id(id);

		if (fd < 0)
			continue; /* gone meanwhile */
		if (bpf_obj_get_info_by_fd(fd, &info, &info_len) == 0)
			printf("map %s\n", info.name);
		close(fd);
	}
	if (errno == ENOENT)
		return 0;
	fprintf(stderr, "bpf-progs: cannot list maps: %s\n", strerror(errno));
	return 1;
}

/* The byte offset of the variable NAME in the .bss map FD, from the map's BTF. */
static long bss_var_offset(int fd, const char *name)
{
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info);
	const struct btf_var_secinfo *v;
	const struct btf_type *sec;
	struct btf *btf;
	long off = -1;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0 || !info.btf_id)
		return -1;
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return -1;
	sec = btf__type_by_id(btf, info.btf_value_type_id);
	if (sec && btf_is_datasec(sec)) {
		v = btf_var_secinfos(sec);
		for (unsigned int i = 0; i < btf_vlen(sec); i++, v++)
			if (strcmp(btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off),
				   name) == 0)
				off = v->offset;
	}
	btf__free(btf);
	return off;
}

static int unmark(const char *dir, const char *pid_arg)
{
	char path[4096], value[4096];
	struct bpf_map_info info = {};
	uint32_t info_len = sizeof(info), zero = 0;
	int tasks, bss, pidfd;
	uint64_t *counter;
	long off;

	snprintf(path, sizeof(path), "%s/run_tasks", dir);
	tasks = bpf_obj_get(path);
	pidfd = (int)syscall(SYS_pidfd_open, atoi(pid_arg), 0);
	if (tasks < 0 || pidfd < 0 || bpf_map_delete_elem(tasks, &pidfd) < 0) {
		fprintf(stderr, "bpf-progs: cannot delete the run mark of %s in %s: %s\n", pid_arg,
			path, strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/bss", dir);
	bss = bpf_obj_get(path);
	if (bss < 0 || bpf_obj_get_info_by_fd(bss, &info, &info_len) < 0 ||
	    info.value_size > sizeof(value) || bpf_map_lookup_elem(bss, &zero, value) < 0) {
		fprintf(stderr, "bpf-progs: cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	off = bss_var_offset(bss, "counters");
	if (off < 0 || (size_t)off + sizeof(uint64_t) * SMCBPF_N_COUNTERS > info.value_size) {
		fprintf(stderr, "bpf-progs: no counters[] in the BTF of %s\n", path);
		return 1;
	}
	counter = (uint64_t *)(value + off) + SMCBPF_CNT_INHERIT_FAIL;
	(*counter)++;
	if (bpf_map_update_elem(bss, &zero, value, BPF_ANY) < 0) {
		fprintf(stderr, "bpf-progs: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool links = argc == 2 && strcmp(argv[1], "links") == 0;
	uint32_t id = 0;
	char name[64];

	if (argc == 2 && strcmp(argv[1], "maps") == 0)
		return list_maps();
	if (argc == 4 && strcmp(argv[1], "unmark") == 0)
		return unmark(argv[2], argv[3]);
	if (argc > 2 || (argc == 2 && !links)) {
		fprintf(stderr, "usage: bpf-progs [links|maps|unmark DIR PID]\n");
		return 2;
	}
	for (;;) {
		int r = links ? bpf_link_get_next_id(id, &id) : bpf_prog_get_next_id(id, &id);

		if (r < 0) {
			if (errno == ENOENT)
				return 0;
			fprintf(stderr, "bpf-progs: cannot list: %s\n", strerror(errno));
			return 1;
		}
		if (links) {
			struct bpf_link_info info = {};
			uint32_t info_len = sizeof(info);
			int fd = bpf_link_get_fd_by_id(id);

			if (fd < 0)
				continue; /* gone meanwhile */
			r = bpf_obj_get_info_by_fd(fd, &info, &info_len);
			close(fd);
			if (r < 0 || prog_name(info.prog_id, name, sizeof(name)) < 0)
				continue;
			printf("link %s\n", name);
		} else if (prog_name(id, name, sizeof(name)) == 0)
			printf("prog %s\n", name);
	}
}
