// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fake SMC kernel kept in plain files, so tests can set it up and "break it by hand" with
 * echo and rm, as an operator would on a real host.  Layout under DIR:
 *
 *   no-smc               exists: the kernel has no SMC (every request -EPROTONOSUPPORT)
 *   ueid                 one UEID per line (the table, at most 4; insertion order)
 *   seid                 "SEIDSTRING 0|1" (absent: no SEID, as on x86)
 *   hs_limitation        0 or 1
 *   sysctl/NAME          value of net.smc.NAME (absent: this kernel lacks it)
 *   pnet                 "PNETID eth NETDEV" or "PNETID ib DEVICE PORT" per line
 *   modules/NAME         exists: loaded;  modules-available/NAME: loadable
 *   no-dibs              exists: a kernel before 6.18 (no DIBS; with smcd-devices: 6.10-6.17
 *                        with loopback-ism); absent: DIBS (6.18+)
 *   smcd-devices         "NAME" per line (loopback if NAME is "lo")
 *   smcd-linkgroups      "ID CONNS DEVICE" per line (hex ID)
 *   stats                "KEY VALUE" per line, KEY as in stats.c's table ("smcd.client_v2",
 *                        "fallback.client", "smcd.rx.buffer_usage"); absent keys are 0
 *   fallback             "server|client CODE COUNT" per line (CODE hex; COUNT taken modulo
 *                        65536, as the kernel's u16)
 *   sockets              "smcd|smcr|listen|init COUNT" or "fallback COUNT CODE" per line
 *   smclo/...            our loopback module's device: kernel-fake-smclo.c
 *   fail-dump            "ERRNO": every device and link-group dump fails with it
 *   fail-stats           "ERRNO": every statistics and socket read fails with it
 *   fail-sockets         "ERRNO": the socket dump alone fails with it (the counters read)
 *   netns/NAME/          a named network namespace (/run/netns/NAME): its own stats,
 *                        fallback, sockets, no-smc, fail-stats and fail-sockets files as
 *                        above; its
 *                        identity is the directory's device and inode (a name removed and
 *                        made again is a new namespace), and a handle holds the directory
 *                        open as a netns fd holds the namespace.  A symbolic link to DIR
 *                        is the agent's own namespace under a name.
 *   netns/NAME/fail-open "ERRNO": entering it fails with it (EPERM: not allowed)
 *   cgroup/              the cgroup2 tree (cgroup/machine.slice/...); absent: none known
 *
 * The same errnos as the real kernel: -ERANGE table full, -EEXIST duplicate, -ENOENT absent.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/util.h"
#include "smcd-agent/kernel.h"
#include "smcd-agent/stats-engine.h"
#include "smcd-agent/loopback-reconcile.h"

struct kernel_fake {
	struct kernel base;
	char *dir;
};

#define FAKE_MAX_LINES 64

static void fake_path(struct kernel *k, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", ((struct kernel_fake *)k)->dir, name);
}

static bool fake_exists(struct kernel *k, const char *name)
{
	char p[1024];

	fake_path(k, name, p, sizeof(p));
	return access(p, F_OK) == 0;
}

static bool fake_no_smc(struct kernel *k)
{
	return fake_exists(k, "no-smc");
}

/* A file such as "fail-dump" holding an errno number: the reads it names fail with it while
 * the file exists (a kernel error, not "nothing there"). */
static int fake_fault(struct kernel *k, const char *name)
{
	char p[1024];
	FILE *f;
	int e = 0;

	if (!fake_exists(k, name))
		return 0;
	fake_path(k, name, p, sizeof(p));
	f = fopen(p, "re");
	if (f) {
		if (fscanf(f, "%d", &e) != 1)
			e = EIO;
		fclose(f);
	}
	return e > 0 ? -e : -EIO;
}

/* Read up to FAKE_MAX_LINES lines; a missing file is an empty one. */
static int fake_read_lines(struct kernel *k, const char *name, char lines[][128], size_t *ret_n)
{
	char p[1024], buf[128];
	_cleanup_(fclosep) FILE *f = NULL;
	size_t n = 0;

	fake_path(k, name, p, sizeof(p));
	f = fopen(p, "re");
	if (!f) {
		*ret_n = 0;
		return errno == ENOENT ? 0 : negative_errno();
	}
	while (n < FAKE_MAX_LINES && fgets(buf, sizeof(buf), f)) {
		strstrip_trailing(buf);
		if (buf[0])
			snprintf(lines[n++], 128, "%s", buf);
	}
	*ret_n = n;
	return 0;
}

/* What every read of the fake passes: no SMC at all, then the fault file FAULT (NULL: none),
 * then the lines of NAME (NULL: none, an empty dump). */
static int fake_load(struct kernel *k, const char *fault, const char *name, char lines[][128],
		     size_t *ret_n)
{
	int r;

	*ret_n = 0;
	if (fake_no_smc(k))
		return -EPROTONOSUPPORT;
	if (fault && (r = fake_fault(k, fault)) < 0)
		return r;
	return name ? fake_read_lines(k, name, lines, ret_n) : 0;
}

static int fake_write_lines(struct kernel *k, const char *name, char lines[][128], size_t n)
{
	char p[1024];
	_cleanup_(fclosep) FILE *f = NULL;

	fake_path(k, name, p, sizeof(p));
	f = fopen(p, "we");
	if (!f)
		return negative_errno();
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", lines[i]);
	return fflush(f) == 0 ? 0 : negative_errno();
}

/* Remove the lines of NAME whose first word is key (-ENOENT when there was none). */
static int fake_remove_lines(struct kernel *k, const char *name, const char *key)
{
	char lines[FAKE_MAX_LINES][128];
	size_t n, o = 0, len = strlen(key);
	int r = fake_load(k, NULL, name, lines, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (strcspn(lines[i], " ") != len || strncmp(lines[i], key, len) != 0)
			memmove(lines[o++], lines[i], 128);
	if (o == n)
		return -ENOENT;
	return fake_write_lines(k, name, lines, o);
}

static int fake_flush(struct kernel *k, const char *name)
{
	if (fake_no_smc(k))
		return -EPROTONOSUPPORT;
	return fake_write_lines(k, name, NULL, 0);
}

static int fake_caps(struct kernel *k, struct smc_caps *ret)
{
	bool smc = !fake_no_smc(k);

	memset(ret, 0, sizeof(*ret));
	snprintf(ret->kernel_release, sizeof(ret->kernel_release), "fake");
	ret->smc_genl = ret->pnet_genl = ret->smc_diag = ret->af_smc = smc;
	ret->smc_module = smc;
	/* A DIBS kernel (6.18+) unless the file "no-dibs" says 6.10-6.17 (loopback-ism, when
	 * "smcd-devices" exists too) or older. */
	ret->dibs = smc && !fake_exists(k, "no-dibs");
	ret->loopback = smc && fake_exists(k, "smcd-devices");
	ret->smcd_v2 = ret->smcr_v2 = smc;
	ret->smc_ver = smc ? 2 : 0;
	ret->smc_rel = smc ? 1 : 0;
	ret->seid_supported = smc && fake_exists(k, "seid");
	return 0;
}

static int fake_module_loaded(struct kernel *k, const char *name)
{
	char p[256];

	snprintf(p, sizeof(p), "modules/%s", name);
	return fake_exists(k, p);
}

static int fake_module_load(struct kernel *k, const char *name, char *msg, size_t len)
{
	char p[256], full[1024];
	_cleanup_(closep) int fd = -1;

	snprintf(p, sizeof(p), "modules-available/%s", name);
	if (!fake_exists(k, p)) {
		snprintf(msg, len,
			 "no module %s for this kernel (not built, or not installed under /lib/modules)",
			 name);
		return -ENOENT;
	}
	snprintf(p, sizeof(p), "modules/%s", name);
	fake_path(k, p, full, sizeof(full));
	fd = open(full, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	return fd < 0 ? negative_errno() : 0;
}

static int fake_ueid_list(struct kernel *k, char ret[SMC_UEID_MAX][SMC_EID_LEN + 1], size_t *ret_n)
{
	char lines[FAKE_MAX_LINES][128];
	size_t n;
	int r;

	r = fake_load(k, NULL, "ueid", lines, &n);
	if (r < 0)
		return r;
	*ret_n = 0;
	for (size_t i = 0; i < n && i < SMC_UEID_MAX; i++)
		snprintf(ret[(*ret_n)++], SMC_EID_LEN + 1, "%s", lines[i]);
	return 0;
}

static int fake_ueid_add(struct kernel *k, const char *ueid)
{
	char lines[FAKE_MAX_LINES][128], padded[SMC_EID_LEN + 1];
	const char *reason;
	size_t n;
	int r;

	if (fake_no_smc(k))
		return -EPROTONOSUPPORT;
	if (smc_ueid_validate(ueid, padded, &reason) < 0)
		return -EINVAL;
	strstrip_trailing(padded);
	r = fake_read_lines(k, "ueid", lines, &n);
	if (r < 0)
		return r;
	if (n >= SMC_UEID_MAX)
		return -ERANGE;
	for (size_t i = 0; i < n; i++)
		if (streq(lines[i], padded))
			return -EEXIST;
	snprintf(lines[n++], 128, "%s", padded);
	return fake_write_lines(k, "ueid", lines, n);
}

static int fake_ueid_del(struct kernel *k, const char *ueid)
{
	return fake_remove_lines(k, "ueid", ueid);
}

static int fake_ueid_flush(struct kernel *k)
{
	return fake_flush(k, "ueid");
}

static int fake_seid_get(struct kernel *k, struct smc_seid *ret)
{
	char lines[FAKE_MAX_LINES][128];
	size_t n;
	int r;

	if (fake_no_smc(k))
		return -EPROTONOSUPPORT;
	memset(ret, 0, sizeof(*ret));
	r = fake_read_lines(k, "seid", lines, &n);
	if (r < 0 || n == 0)
		return r;
	ret->present = true;
	if (sscanf(lines[0], "%32s", ret->seid) != 1)
		return -EBADMSG;
	ret->enabled = strstr(lines[0], " 1") != NULL;
	return 0;
}

static int fake_seid_set(struct kernel *k, bool enable)
{
	struct smc_seid s;
	char line[1][128];
	int r = fake_seid_get(k, &s);

	if (r < 0)
		return r;
	if (!s.present)
		return -EOPNOTSUPP;
	snprintf(line[0], 128, "%s %d", s.seid, enable);
	return fake_write_lines(k, "seid", line, 1);
}

static int fake_hs_get(struct kernel *k, bool *ret)
{
	char lines[FAKE_MAX_LINES][128];
	size_t n;
	int r;

	r = fake_load(k, NULL, "hs_limitation", lines, &n);
	*ret = r == 0 && n > 0 && streq(lines[0], "1");
	return r;
}

static int fake_hs_set(struct kernel *k, bool enable)
{
	char line[1][128] = { "0" };

	if (fake_no_smc(k))
		return -EPROTONOSUPPORT;
	line[0][0] = enable ? '1' : '0';
	return fake_write_lines(k, "hs_limitation", line, 1);
}

static int fake_sysctl_get(struct kernel *k, const char *name, char *buf, size_t len)
{
	char p[256], lines[FAKE_MAX_LINES][128];
	size_t n;
	int r;

	snprintf(p, sizeof(p), "sysctl/%s", name);
	if (fake_no_smc(k) || !fake_exists(k, p))
		return -ENOENT;
	r = fake_read_lines(k, p, lines, &n);
	if (r < 0)
		return r;
	snprintf(buf, len, "%s", n ? lines[0] : "");
	return 0;
}

static int fake_sysctl_set(struct kernel *k, const char *name, const char *value)
{
	char p[256], line[1][128];

	snprintf(p, sizeof(p), "sysctl/%s", name);
	if (fake_no_smc(k) || !fake_exists(k, p))
		return -ENOENT;
	snprintf(line[0], 128, "%s", value);
	return fake_write_lines(k, p, line, 1);
}

static int fake_pnet_list(struct kernel *k, struct smc_pnet_entry **ret, size_t *ret_n)
{
	char lines[FAKE_MAX_LINES][128];
	struct smc_pnet_entry *v;
	size_t n, o = 0;
	int r;

	r = fake_load(k, NULL, "pnet", lines, &n);
	if (r < 0)
		return r;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char id[SMC_PNETID_LEN + 1], type[8], dev[SMC_IB_NAME_LEN];
		unsigned port = 0;

		if (sscanf(lines[i], "%16s %7s %63s %u", id, type, dev, &port) < 3)
			continue;
		memcpy(v[o].pnetid, id, sizeof(id));
		if (streq(type, "eth"))
			snprintf(v[o].eth_name, sizeof(v[o].eth_name), "%.15s", dev);
		else {
			memcpy(v[o].ib_name, dev, sizeof(dev));
			v[o].ib_port = (uint8_t)port;
		}
		o++;
	}
	*ret = v;
	*ret_n = o;
	return 0;
}

static int fake_pnet_add(struct kernel *k, const struct smc_pnet_entry *e)
{
	char lines[FAKE_MAX_LINES][128], line[128];
	size_t n;
	int r;

	r = fake_load(k, NULL, "pnet", lines, &n);
	if (r < 0)
		return r;
	if (e->eth_name[0])
		snprintf(line, sizeof(line), "%s eth %s", e->pnetid, e->eth_name);
	else
		snprintf(line, sizeof(line), "%s ib %s %u", e->pnetid, e->ib_name, e->ib_port);
	for (size_t i = 0; i < n; i++)
		if (streq(lines[i], line))
			return -EEXIST;
	if (n >= FAKE_MAX_LINES)
		return -ENOSPC;
	snprintf(lines[n++], 128, "%s", line);
	return fake_write_lines(k, "pnet", lines, n);
}

static int fake_pnet_del(struct kernel *k, const char *pnetid)
{
	return fake_remove_lines(k, "pnet", pnetid);
}

static int fake_pnet_flush(struct kernel *k)
{
	return fake_flush(k, "pnet");
}

static int fake_smcd_devices(struct kernel *k, struct smcd_device **ret, size_t *ret_n)
{
	char lines[FAKE_MAX_LINES][128];
	struct smcd_device *v;
	size_t n;
	int r;

	r = fake_load(k, "fail-dump", "smcd-devices", lines, &n);
	if (r < 0)
		return r;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		snprintf(v[i].name, sizeof(v[i].name), "%s", lines[i]);
		v[i].seen = SMCD_SEEN_DIBS;
		v[i].loopback = streq(lines[i], "lo");
		v[i].has_fabric_id = true;
		v[i].fabric_id = v[i].loopback ? 0xffff : (uint16_t)i;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static int fake_smcr_devices(struct kernel *k, struct smcr_device **ret, size_t *ret_n)
{
	*ret = NULL;
	return fake_load(k, "fail-dump", NULL, NULL, ret_n);
}

static int fake_smcd_linkgroups(struct kernel *k, struct smcd_linkgroup **ret, size_t *ret_n)
{
	char lines[FAKE_MAX_LINES][128];
	struct smcd_linkgroup *v;
	size_t n, o = 0;
	int r;

	r = fake_load(k, "fail-dump", "smcd-linkgroups", lines, &n);
	if (r < 0)
		return r;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char dev[64] = "";

		if (sscanf(lines[i], "%x %u %63s", &v[o].id, &v[o].conns, dev) < 2)
			continue;
		snprintf(v[o].device, sizeof(v[o].device), "%s", dev);
		v[o].chid = streq(dev, "lo") ? 0xffff : 0;
		o++;
	}
	*ret = v;
	*ret_n = o;
	return 0;
}

static int fake_smcr_linkgroups(struct kernel *k, struct smcr_linkgroup **ret, size_t *ret_n)
{
	*ret = NULL;
	return fake_load(k, "fail-dump", NULL, NULL, ret_n);
}

static int fake_stats(struct kernel *k, struct smc_stats *ret)
{
	char lines[FAKE_MAX_LINES][128];
	size_t n, n_table;
	const struct stats_desc *t = stats_table(&n_table);
	int r;

	memset(ret, 0, sizeof(*ret));
	r = fake_load(k, "fail-stats", "stats", lines, &n);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		char key[100];
		uint64_t v;
		int row;

		if (sscanf(lines[i], "%99s %" SCNu64, key, &v) != 2 ||
		    (row = stats_table_find(key)) < 0 || t[row].source != STATS_SRC_STATS)
			continue;
		memcpy((char *)ret + t[row].offset, &v, sizeof(v));
		if (t[row].kind == STATS_GAUGE)
			((struct smc_stats_tech *)((char *)ret + t[row].tech_offset))->has_rmb_usage =
				true;
	}
	return r;
}

static int fake_fback_stats(struct kernel *k, struct smc_fback_stats *ret)
{
	char lines[FAKE_MAX_LINES][128];
	size_t n;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = fake_load(k, "fail-stats", "stats", lines, &n);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		uint64_t v;

		if (sscanf(lines[i], "fallback.client %" SCNu64, &v) == 1)
			ret->clnt_total = v;
		else if (sscanf(lines[i], "fallback.server %" SCNu64, &v) == 1)
			ret->srv_total = v;
	}
	if (r >= 0)
		r = fake_read_lines(k, "fallback", lines, &n);
	for (size_t i = 0; r >= 0 && i < n && ret->n < ELEMENTSOF(ret->entries); i++) {
		char side[16];
		uint32_t code;
		uint64_t count;

		if (sscanf(lines[i], "%15s %" SCNx32 " %" SCNu64, side, &code, &count) != 3)
			continue;
		ret->entries[ret->n++] = (struct smc_fback_entry){ .server = streq(side, "server"),
								   .code = code,
								   .count = (uint16_t)count };
	}
	return r;
}

static int fake_sockets(struct kernel *k, smc_socket_fn fn, void *userdata)
{
	char lines[FAKE_MAX_LINES][128];
	size_t n;
	int r;

	if (fake_no_smc(k))
		return -EPROTONOSUPPORT;
	r = fake_fault(k, "fail-stats");
	if (r >= 0)
		r = fake_fault(k, "fail-sockets");
	if (r < 0)
		return r;
	r = fake_read_lines(k, "sockets", lines, &n);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		char kind[16];
		unsigned count;
		uint32_t code = 0;
		struct smc_socket s = { .state = 1 };

		if (sscanf(lines[i], "%15s %u %" SCNx32, kind, &count, &code) < 2 || count > 100000)
			continue;
		s.mode = streq(kind, "smcd") ? 2 : streq(kind, "fallback") ? 1 : 0;
		s.state = streq(kind, "listen") ? 10 : streq(kind, "init") ? 2 : 1;
		s.has_fallback = true;
		s.fallback_reason = streq(kind, "fallback") ? code : 0;
		for (unsigned j = 0; r >= 0 && j < count; j++)
			r = fn(&s, userdata);
	}
	return r < 0 ? r : 0;
}

static const char *fake_extack(struct kernel *k)
{
	return NULL;
}

/* ---- other network namespaces: DIR/netns/NAME ------------------------------------------ */

static int fake_netns_list(struct kernel *k, struct smc_netns *ret_self, struct smc_netns **ret,
			   size_t *ret_n)
{
	_cleanup_(freep) struct smc_netns *v = NULL;
	char p[1024];
	struct dirent *de;
	struct stat st;
	size_t n = 0;
	DIR *d;

	if (stat(((struct kernel_fake *)k)->dir, &st) < 0)
		return negative_errno();
	*ret_self = (struct smc_netns){ .dev = st.st_dev, .ino = st.st_ino };
	fake_path(k, "netns", p, sizeof(p));
	d = opendir(p);
	if (!d && errno != ENOENT)
		return negative_errno();
	while (d && (de = readdir(d))) {
		struct smc_netns *nv;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(v->name) ||
		    fstatat(dirfd(d), de->d_name, &st, 0) < 0)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			closedir(d);
			return -ENOMEM;
		}
		v = nv;
		v[n] = (struct smc_netns){ .dev = st.st_dev, .ino = st.st_ino };
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		n++;
	}
	if (d)
		closedir(d);
	/* Sorted as smc_netns_list() sorts. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(v[j - 1].name, v[j].name) > 0; j--) {
			struct smc_netns t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}

/* A namespace's handle: a fake kernel over the directory, held open (/proc/self/fd/N). */
struct fake_netns {
	struct kernel_netns base;
	struct kernel_fake *k;
	int fd;
};

static int fake_ns_stats(struct kernel_netns *n, struct smc_stats *ret)
{
	return fake_stats(&((struct fake_netns *)n)->k->base, ret);
}

static int fake_ns_fback_stats(struct kernel_netns *n, struct smc_fback_stats *ret)
{
	return fake_fback_stats(&((struct fake_netns *)n)->k->base, ret);
}

static int fake_ns_sockets(struct kernel_netns *n, smc_socket_fn fn, void *userdata)
{
	return fake_sockets(&((struct fake_netns *)n)->k->base, fn, userdata);
}

static void fake_free(struct kernel *k);

static void fake_ns_free(struct kernel_netns *n)
{
	struct fake_netns *f = (struct fake_netns *)n;

	if (f->k)
		fake_free(&f->k->base);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

static const struct kernel_netns_ops fake_netns_ops = {
	.stats = fake_ns_stats,
	.fback_stats = fake_ns_fback_stats,
	.sockets = fake_ns_sockets,
	.free = fake_ns_free,
};

static int fake_netns_open(struct kernel *k, const struct smc_netns *ns, struct kernel_netns **ret)
{
	struct fake_netns *f;
	struct kernel *nk;
	char p[1024], name[300];
	struct stat st;
	int r;

	if (!ns->name[0] || strchr(ns->name, '/'))
		return -EINVAL;
	snprintf(name, sizeof(name), "netns/%s", ns->name);
	fake_path(k, name, p, sizeof(p));
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->base.ops = &fake_netns_ops;
	f->fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) < 0) {
		r = negative_errno();
		goto fail;
	}
	if ((uint64_t)st.st_dev != ns->dev || (uint64_t)st.st_ino != ns->ino) {
		r = -ESTALE;
		goto fail;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", f->fd);
	r = kernel_fake_new(p, &nk);
	if (r < 0)
		goto fail;
	f->k = (struct kernel_fake *)nk;
	r = fake_fault(&f->k->base, "fail-open");
	if (r < 0)
		goto fail;
	*ret = &f->base;
	return 0;
fail:
	fake_ns_free(&f->base);
	return r;
}

/* smc_lo: kernel-fake-smclo.c, in files under DIR/smclo/ (see there). */
static int fake_smclo_get(struct kernel *k, struct smclo_device *ret)
{
	return fake_smclo_get_dir(((struct kernel_fake *)k)->dir, ret);
}

static int fake_smclo_activate(struct kernel *k, struct smclo_device *ret, bool *ret_changed)
{
	return fake_smclo_activate_dir(((struct kernel_fake *)k)->dir, ret, ret_changed);
}

static int fake_smclo_shutdown(struct kernel *k, uint32_t drain_ms, uint32_t removal_ms,
			       struct smclo_shutdown_result *res)
{
	return fake_smclo_shutdown_dir(((struct kernel_fake *)k)->dir, drain_ms, res);
}

static int fake_smclo_set(struct kernel *k, const struct smclo_set_request *q,
			  struct smclo_device *ret)
{
	return fake_smclo_set_dir(((struct kernel_fake *)k)->dir, q, ret);
}

static int fake_smclo_monitor(struct kernel *k, struct smclo_monitor **ret)
{
	return -EOPNOTSUPP;
}

static int fake_cgroup_root(struct kernel *k, char *buf, size_t len)
{
	struct stat st;

	fake_path(k, "cgroup", buf, len);
	if (stat(buf, &st) < 0)
		return negative_errno();
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static void fake_free(struct kernel *k)
{
	free(((struct kernel_fake *)k)->dir);
	free(k);
}

static const struct kernel_ops fake_ops = {
	.caps = fake_caps,
	.module_loaded = fake_module_loaded,
	.module_load = fake_module_load,
	.ueid_list = fake_ueid_list,
	.ueid_add = fake_ueid_add,
	.ueid_del = fake_ueid_del,
	.ueid_flush = fake_ueid_flush,
	.seid_get = fake_seid_get,
	.seid_set = fake_seid_set,
	.hs_get = fake_hs_get,
	.hs_set = fake_hs_set,
	.sysctl_get = fake_sysctl_get,
	.sysctl_set = fake_sysctl_set,
	.pnet_list = fake_pnet_list,
	.pnet_add = fake_pnet_add,
	.pnet_del = fake_pnet_del,
	.pnet_flush = fake_pnet_flush,
	.smcd_devices = fake_smcd_devices,
	.smcr_devices = fake_smcr_devices,
	.smcd_linkgroups = fake_smcd_linkgroups,
	.smcr_linkgroups = fake_smcr_linkgroups,
	.stats = fake_stats,
	.fback_stats = fake_fback_stats,
	.sockets = fake_sockets,
	.extack = fake_extack,
	.netns_list = fake_netns_list,
	.netns_open = fake_netns_open,
	.smclo_get = fake_smclo_get,
	.smclo_activate = fake_smclo_activate,
	.smclo_shutdown = fake_smclo_shutdown,
	.smclo_set = fake_smclo_set,
	.smclo_monitor = fake_smclo_monitor,
	.cgroup_root = fake_cgroup_root,
	.free = fake_free,
};

int kernel_fake_new(const char *dir, struct kernel **ret)
{
	struct kernel_fake *kf = calloc(1, sizeof(*kf));

	if (!kf)
		return -ENOMEM;
	kf->base.ops = &fake_ops;
	kf->dir = strdup(dir);
	if (!kf->dir) {
		free(kf);
		return -ENOMEM;
	}
	*ret = &kf->base;
	return 0;
}
