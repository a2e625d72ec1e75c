// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * net.smc sysctls: the table (every sysctl of 7.3 with its kernel range and default),
 * and reading/writing under a sysroot temp tree; the named network namespaces under a
 * sysroot (netns.c) and a namespace's handle, which refuses the caller's sysctls.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "netlink/smcnl-internal.h"
#include "tests/unit/netlink-test-util.h"

static void test_table(void **state)
{
	static const char *const names[] = {
		"autocorking_size",
		"smcr_buf_type",
		"smcr_testlink_time",
		"wmem",
		"rmem",
		"smcr_max_links_per_lgr",
		"smcr_max_conns_per_lgr",
		"limit_smc_hs",
		"smcr_max_send_wr",
		"smcr_max_recv_wr",
		"hs_ctrl",
	};
	const struct smc_sysctl_desc *t, *d;
	size_t n;

	t = smc_sysctl_table(&n);
	assert_int_equal(n, ELEMENTSOF(names));
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(t[i].name, names[i]);
		assert_ptr_equal(smc_sysctl_find(names[i]), &t[i]);
		assert_true(t[i].min <= t[i].def && t[i].def <= t[i].max);
		assert_non_null(t[i].since);
		assert_non_null(t[i].help);
		assert_null(strchr(t[i].help, '\n'));
		assert_true((t[i].unit == SMC_UNIT_ENUM) == (t[i].enum_names != NULL));
	}
	d = smc_sysctl_find("wmem");
	assert_int_equal(d->unit, SMC_UNIT_BYTES);
	assert_int_equal(d->min, 16384);
	assert_int_equal(d->max, INT_MAX / 2);
	assert_int_equal(d->def, 65536);
	d = smc_sysctl_find("smcr_max_conns_per_lgr");
	assert_int_equal(d->min, 16);
	assert_int_equal(d->max, 255);
	assert_string_equal(d->since, "6.8");
	d = smc_sysctl_find("smcr_buf_type");
	assert_string_equal(d->enum_names[2], "mixed");
	assert_null(d->enum_names[3]);
	assert_int_equal(smc_sysctl_find("limit_smc_hs")->unit, SMC_UNIT_BOOL);
	assert_string_equal(smc_sysctl_find("smcr_max_send_wr")->since, "6.19");
	assert_null(smc_sysctl_find("nope"));
	assert_null(smc_sysctl_find(NULL));
}

static void test_sysroot_rw(void **state)
{
	char *root = tmpdir_new(), dir[PATH_MAX], buf[64], **names;
	struct smcnl_options o = { .sysroot = root, .replay_dir = root };
	struct smcnl *nl;
	int64_t v;
	size_t n;

	assert_int_equal(smcnl_open(&o, &nl), 0);
	/* no /proc/sys/net/smc: smc not loaded */
	assert_int_equal(smc_sysctl_get(nl, "wmem", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(smc_sysctl_list_present(nl, &names, &n), -ENOENT);

	snprintf(dir, sizeof(dir), "%s/proc", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/proc/sys", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/proc/sys/net", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/proc/sys/net/smc", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_text(dir, "wmem", "65536\n");
	write_text(dir, "limit_smc_hs", "0\n");
	write_text(dir, "hs_ctrl", "\n");
	write_text(dir, "some_future_one", "7\n");

	assert_int_equal(smc_sysctl_get(nl, "wmem", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "65536");
	assert_int_equal(smc_sysctl_get_int(nl, "wmem", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(smc_sysctl_get(nl, "hs_ctrl", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(smc_sysctl_get_int(nl, "hs_ctrl", &v), -EINVAL);
	/* a sysctl this kernel does not have, and names that are not file names */
	assert_int_equal(smc_sysctl_get(nl, "rmem", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(smc_sysctl_set(nl, "rmem", "65536"), -ENOENT);
	assert_int_equal(smc_sysctl_get(nl, "../../kernel/osrelease", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(smc_sysctl_set(nl, "..", "1"), -EINVAL);
	assert_int_equal(smc_sysctl_set(nl, "wmem", NULL), -EINVAL);

	/* writes go through as they are: range checks are the caller's, errors the kernel's */
	assert_int_equal(smc_sysctl_set(nl, "wmem", "1048576"), 0);
	assert_int_equal(smc_sysctl_get_int(nl, "wmem", &v), 0);
	assert_int_equal(v, 1048576);
	assert_int_equal(smc_sysctl_set(nl, "limit_smc_hs", "1"), 0);
	assert_int_equal(smc_sysctl_get_int(nl, "limit_smc_hs", &v), 0);
	assert_int_equal(v, 1);

	assert_int_equal(smc_sysctl_list_present(nl, &names, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(names[0], "hs_ctrl");
	assert_string_equal(names[1], "limit_smc_hs");
	assert_string_equal(names[2], "some_future_one");
	assert_string_equal(names[3], "wmem");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);

	smcnl_close(nl);
	tmpdir_remove(root);
}

/* The recorded trees of the real kernels read back like /proc. */
static void test_recorded(void **state)
{
	struct smcnl *nl = replay_open("7x/idle");
	char **names;
	int64_t v;
	size_t n, known = 0;

	assert_int_equal(smc_sysctl_list_present(nl, &names, &n), 0);
	assert_int_equal(n, 10); /* 7.3 without CONFIG_SMC_HS_CTRL_BPF: no hs_ctrl */
	for (size_t i = 0; i < n; i++) {
		const struct smc_sysctl_desc *d = smc_sysctl_find(names[i]);

		if (d) {
			known++;
			/* a fresh kernel has the defaults of the table */
			assert_int_equal(smc_sysctl_get_int(nl, names[i], &v), 0);
			assert_int_equal(v, d->def);
		}
		free(names[i]);
	}
	free(names);
	assert_int_equal(known, 10);
	smcnl_close(nl);

	nl = replay_open("612/idle");
	assert_int_equal(smc_sysctl_list_present(nl, &names, &n), 0);
	assert_int_equal(n, 8); /* 6.12: no smcr_max_send_wr/recv_wr yet */
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	assert_int_equal(smc_sysctl_get_int(nl, "smcr_max_send_wr", &v), -ENOENT);
	smcnl_close(nl);
}

/* /run/netns: sorted, dotfiles skipped, an identity each; a handle only on that identity. */
static void test_netns(void **state)
{
	char *root = tmpdir_new(), dir[PATH_MAX], path[PATH_MAX + 16], buf[64];
	struct smcnl_options o = { .sysroot = root, .replay_dir = root };
	struct smc_netns *v = NULL, self, other;
	struct smcnl *nl, *ns;
	struct stat st;
	size_t n = 7;

	assert_int_equal(smcnl_open(&o, &nl), 0);
	/* no /run/netns: none, not an error */
	assert_int_equal(smc_netns_list(nl, &v, &n), 0);
	assert_int_equal(n, 0);
	snprintf(dir, sizeof(dir), "%s/run", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/run/netns", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_text(dir, "ctr2", "");
	write_text(dir, "ctr1", "");
	write_text(dir, ".hidden", "");
	assert_int_equal(smc_netns_list(nl, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "ctr1");
	assert_string_equal(v[1].name, "ctr2");
	snprintf(path, sizeof(path), "%s/ctr1", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(v[0].dev, st.st_dev);
	assert_int_equal(v[0].ino, st.st_ino);
	assert_int_not_equal(v[0].ino, v[1].ino);
	assert_int_equal(smc_netns_self(&self), 0);
	assert_int_not_equal(self.ino, 0);

	/* The identity listed: a handle, whose sysctls are not the caller's to read. */
	assert_int_equal(smcnl_open_netns(&o, &v[0], &ns), 0);
	assert_int_equal(smc_sysctl_get(ns, "wmem", buf, sizeof(buf)), -EOPNOTSUPP);
	assert_int_equal(smc_sysctl_set(ns, "wmem", "65536"), -EOPNOTSUPP);
	smcnl_close(ns);
	/* Another namespace under the name since: refused; a name gone: -ENOENT. */
	other = v[0];
	other.ino++;
	assert_int_equal(smcnl_open_netns(&o, &other, &ns), -ESTALE);
	snprintf(other.name, sizeof(other.name), "gone");
	assert_int_equal(smcnl_open_netns(&o, &other, &ns), -ENOENT);
	snprintf(other.name, sizeof(other.name), "../x");
	assert_int_equal(smcnl_open_netns(&o, &other, &ns), -EINVAL);
	free(v);

	/* A folder that cannot be read is an error, not "no namespaces" (root reads anyway). */
	if (geteuid() != 0) {
		assert_int_equal(chmod(dir, 0), 0);
		assert_int_equal(smc_netns_list(nl, &v, &n), -EACCES);
		assert_int_equal(chmod(dir, 0755), 0);
	}
	smcnl_close(nl);
	tmpdir_remove(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_sysroot_rw),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_netns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
