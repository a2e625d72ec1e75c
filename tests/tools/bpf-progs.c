// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bpf-progs: the BPF programs and links the kernel holds, for the VM tests of pinning
 * (tests/vm/guest/restart-7x.sh), where bpftool is not installed:
 *
 *   bpf-progs          one line per loaded program: "prog NAME"
 *   bpf-progs links    one line per link: "link PROG-NAME"
 *   bpf-progs maps     one line per map: "map NAME" (smcctl assess must leave none)
 *
 * Exit status 0, 1 when the kernel refused to list them, 2 on usage errors.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

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

int main(int argc, char **argv)
{
	bool links = argc == 2 && strcmp(argv[1], "links") == 0;
	uint32_t id = 0;
	char name[64];

	if (argc == 2 && strcmp(argv[1], "maps") == 0)
		return list_maps();
	if (argc > 2 || (argc == 2 && !links)) {
		fprintf(stderr, "usage: bpf-progs [links|maps]\n");
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
