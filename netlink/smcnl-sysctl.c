// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * net.smc.* sysctls (net/smc/smc_sysctl.c): per network namespace, present only while
 * smc.ko is loaded, reset to the defaults for every new netns.
 *
 * The table is what the agent and smcctl validate against before writing; this file only
 * reads and writes /proc/sys/net/smc/<name> (under the sysroot) and returns the kernel's
 * errno: -EINVAL from the proc handler for a value out of range or not a number, -ENOENT
 * for a sysctl this kernel does not have, -EACCES/-EPERM without privileges.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netlink/smcnl-internal.h"

static const char *const buf_type_names[] = { "physical", "virtual", "mixed", NULL };

/*
 * min/max: the range the kernel accepts (7.3).  For SMC_UNIT_STRING they are the length
 * bounds.  Defaults are 7.3's; "since" is the first mainline release with the sysctl.
 */
static const struct smc_sysctl_desc table[] = {
	{
		.name = "autocorking_size",
		.unit = SMC_UNIT_BYTES,
		.min = 0,
		.max = UINT32_MAX,
		.def = 65536,
		.since = "5.18",
		.help = "most bytes an SMC socket corks before sending (0 disables autocorking)",
	},
	{
		.name = "smcr_buf_type",
		.unit = SMC_UNIT_ENUM,
		.min = 0,
		.max = 2,
		.def = 0,
		.since = "6.0",
		.enum_names = buf_type_names,
		.help = "SMC-R buffers for new link groups: physically or virtually contiguous, "
			"or mixed (physical first)",
	},
	{
		.name = "smcr_testlink_time",
		.unit = SMC_UNIT_SECONDS,
		.min = 0,
		/* proc_dointvec_jiffies: seconds * HZ must fit an int; HZ=1000 is the worst case.
		 * (The kernel also takes negative numbers; they mean nothing useful.) */
		.max = INT_MAX / 1000,
		.def = 30,
		.since = "6.1",
		.help = "seconds of SMC-R link inactivity before a TEST_LINK probe (0 disables)",
	},
	{
		.name = "wmem",
		.unit = SMC_UNIT_BYTES,
		.min = 16384,
		.max = INT_MAX / 2,
		.def = 65536,
		.since = "6.1",
		.help = "initial send buffer of SMC sockets (the buffer is this, rounded up to a "
			"power of two; early 6.1 releases defaulted to 16384)",
	},
	{
		.name = "rmem",
		.unit = SMC_UNIT_BYTES,
		.min = 16384,
		.max = INT_MAX / 2,
		.def = 65536,
		.since = "6.1",
		.help = "initial receive buffer (RMB/DMB) of SMC sockets (early 6.1 releases defaulted to 131072)",
	},
	{
		.name = "smcr_max_links_per_lgr",
		.unit = SMC_UNIT_COUNT,
		.min = 1,
		.max = 2,
		.def = 2,
		.since = "6.8",
		.help = "preferred maximum of links per SMC-R link group (SMC-R v2.1)",
	},
	{
		.name = "smcr_max_conns_per_lgr",
		.unit = SMC_UNIT_COUNT,
		.min = 16,
		.max = 255,
		.def = 255,
		.since = "6.8",
		.help = "preferred maximum of connections per SMC-R link group (SMC-R v2.1)",
	},
	{
		.name = "limit_smc_hs",
		.unit = SMC_UNIT_BOOL,
		.min = 0,
		.max = 1,
		.def = 0,
		.since = "6.12",
		.help = "fall back to TCP for new connections while the SMC handshake queue is "
			"congested (same switch as smcctl hs-limit)",
	},
	{
		.name = "smcr_max_send_wr",
		.unit = SMC_UNIT_COUNT,
		.min = 2,
		.max = 2048,
		.def = 16,
		.since = "6.19",
		.help = "work requests per SMC-R send queue",
	},
	{
		.name = "smcr_max_recv_wr",
		.unit = SMC_UNIT_COUNT,
		.min = 2,
		.max = 2048,
		.def = 48,
		.since = "6.19",
		.help = "work requests per SMC-R receive queue",
	},
	{
		.name = "hs_ctrl",
		.unit = SMC_UNIT_STRING,
		.min = 0,
		.max = 15,
		.def = 0,
		.since = "6.19",
		.help = "name of the smc_hs_ctrl BPF struct_ops deciding per connection whether to "
			"offer SMC (empty: none; needs CONFIG_SMC_HS_CTRL_BPF)",
	},
};

const struct smc_sysctl_desc *smc_sysctl_table(size_t *ret_n)
{
	if (ret_n)
		*ret_n = ELEMENTSOF(table);
	return table;
}

const struct smc_sysctl_desc *smc_sysctl_find(const char *name)
{
	for (size_t i = 0; name && i < ELEMENTSOF(table); i++)
		if (streq(table[i].name, name))
			return &table[i];
	return NULL;
}

static int sysctl_path(struct smcnl *nl, const char *name, char *buf, size_t len)
{
	/* A file name, nothing that walks out of /proc/sys/net/smc. */
	if (!name || !*name || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
		return -EINVAL;
	if (nl->netns_fd >= 0)
		return -EOPNOTSUPP; /* /proc/sys/net is the caller's namespace's */
	return smcnl_path(nl, buf, len, "/proc/sys/net/smc/%s", name);
}

int smc_sysctl_get(struct smcnl *nl, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int r;

	r = sysctl_path(nl, name, path, sizeof(path));
	if (r < 0)
		return r;
	r = smcnl_read_file(path, buf, len);
	return r < 0 ? r : 0;
}

int smc_sysctl_get_int(struct smcnl *nl, const char *name, int64_t *ret)
{
	char buf[64], *end;
	long long v;
	int r;

	r = smc_sysctl_get(nl, name, buf, sizeof(buf));
	if (r < 0)
		return r;
	errno = 0;
	v = strtoll(buf, &end, 10);
	/* A string sysctl (hs_ctrl) or something odd: not an integer. */
	if (errno != 0 || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	*ret = v;
	return 0;
}

int smc_sysctl_set(struct smcnl *nl, const char *name, const char *value)
{
	char path[PATH_MAX];
	_cleanup_(closep) int fd = -1;
	size_t len;
	ssize_t n;
	int r;

	if (!value)
		return -EINVAL;
	r = sysctl_path(nl, name, path, sizeof(path));
	if (r < 0)
		return r;
	/* No O_CREAT: a sysctl this kernel lacks is -ENOENT.  O_TRUNC for sysroot files. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return negative_errno();
	len = strlen(value);
	/* One write: the proc handler parses what one write() brings. */
	n = write(fd, value, len);
	if (n < 0)
		return negative_errno();
	return (size_t)n == len ? 0 : -EIO;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int smc_sysctl_list_present(struct smcnl *nl, char ***ret_names, size_t *ret_n)
{
	char path[PATH_MAX];
	char **v = NULL;
	struct dirent *de;
	size_t n = 0;
	DIR *dir;
	int r;

	if (nl->netns_fd >= 0)
		return -EOPNOTSUPP;
	r = smcnl_path(nl, path, sizeof(path), "/proc/sys/net/smc");
	if (r < 0)
		return r;
	dir = opendir(path);
	if (!dir)
		return negative_errno(); /* -ENOENT: smc is not loaded (or not in this kernel) */
	while ((de = readdir(dir))) {
		char **nv, *name;

		if (de->d_name[0] == '.')
			continue;
		name = strdup(de->d_name);
		nv = name ? realloc(v, (n + 1) * sizeof(*v)) : NULL;
		if (!nv) {
			free(name);
			for (size_t i = 0; i < n; i++)
				free(v[i]);
			free(v);
			closedir(dir);
			return -ENOMEM;
		}
		v = nv;
		v[n++] = name;
	}
	closedir(dir);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret_names = v;
	*ret_n = n;
	return 0;
}
