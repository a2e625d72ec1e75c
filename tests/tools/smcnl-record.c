// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcnl-record: drive libsmcnl against the real kernel with record_dir set, so that every
 * reply stream lands in OUTDIR as a fixture for the unit tests (tests/fixtures/record runs
 * it inside the QEMU lanes).  One invocation = one library handle = one fixture folder.
 *
 *   smcnl-record OUTDIR STEP [ARG...]
 *
 *   read                   call every read function once, then snapshot the sysfs/procfs
 *                          files the library reads into OUTDIR/sysroot
 *   ueid-add UEID          smc_ueid_add()            (validated like the kernel)
 *   ueid-add-raw STRING    ADD_UEID with STRING + NUL as is (no validation, no padding)
 *   ueid-del UEID | ueid-flush
 *   seid-enable | seid-disable | hs-enable | hs-disable
 *   pnet-add PNETID eth NETDEV | pnet-add PNETID ib DEVICE [PORT]
 *   pnet-del PNETID | pnet-flush
 *   sysctl-set NAME VALUE  smc_sysctl_set() (not netlink: only result.txt, for the record)
 *   smclo-get | smclo-activate (smclo_activate_clean(), as smcctl does; smclo-get
 *                          without the family also lists the SMC-D devices, as smcctl
 *                          then looks for a built-in loopback-ism)
 *   smclo-set dmb-type|nocopy|max-dmbs VALUE     (virtual and out-of-range values are sent)
 *   smclo-shutdown DRAIN_MS REMOVAL_MS            the deactivation protocol (smclo_shutdown())
 *   smclo-raw CMD [TYPE=U32]...                   any SMC_LO command, no local checks
 *   smclo-monitor COUNT SECONDS   the "state" group's notifications until COUNT arrived
 *                                 (exit 0) or SECONDS passed (exit 1); one line each, also
 *                                 for the kmod guest tests (tests/vm/guest/lib-kmod.sh)
 *
 * OUTDIR/result.txt (also on stdout) says what every call returned and what the library
 * made of the replies: the human-readable side of the fixture, and the check that the
 * parsers understand the real kernel.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/macro.h"
#include "netlink/smcnl.h"
#include "netlink/smcnl-internal.h"
#include "netlink/smclo.h"
#include "netlink/uapi/smc_lo.h"

static FILE *out;

_printf_(1, 2) static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

static void result(struct smcnl *nl, const char *what, enum smc_op op, int r)
{
	char buf[512];

	if (r >= 0) {
		say("%s: %d\n", what, r);
		return;
	}
	say("%s: %d (%s) extack=\"%s\"\n  -> %s\n", what, r, strerror(-r), smcnl_extack(nl) ?: "",
	    smc_strerror(op, r, smcnl_extack(nl), buf, sizeof(buf)));
}

/* ---- sysroot snapshot -------------------------------------------------------------------- */

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static void copy_file(const char *from, const char *dir, const char *name)
{
	char buf[4096], path[PATH_MAX];
	FILE *f;
	int n;

	n = smcnl_read_file(from, buf, sizeof(buf));
	if (n < 0)
		return;
	if (mkdir_p(dir) < 0)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f)
		return;
	fprintf(f, "%s\n", buf);
	fclose(f);
}

/* /sys/class/infiniband/DEV/ports/N/gid_attrs/types/I: the used GID slots only (reading
 * an empty slot fails, so copy_file() skips it). */
static void snapshot_infiniband(const char *outdir)
{
	char dir[PATH_MAX], from[PATH_MAX + 300];
	struct dirent *dev, *port, *slot;
	DIR *d, *p, *t;

	d = opendir("/sys/class/infiniband");
	if (!d)
		return;
	while ((dev = readdir(d))) {
		if (dev->d_name[0] == '.')
			continue;
		snprintf(from, sizeof(from), "/sys/class/infiniband/%s/ports", dev->d_name);
		p = opendir(from);
		while (p && (port = readdir(p))) {
			if (port->d_name[0] == '.')
				continue;
			snprintf(from, sizeof(from),
				 "/sys/class/infiniband/%s/ports/%s/gid_attrs/types", dev->d_name,
				 port->d_name);
			t = opendir(from);
			snprintf(dir, sizeof(dir),
				 "%s/sysroot/sys/class/infiniband/%s/ports/%s/gid_attrs/types",
				 outdir, dev->d_name, port->d_name);
			while (t && (slot = readdir(t))) {
				char file[PATH_MAX + 600];

				if (slot->d_name[0] == '.')
					continue;
				snprintf(file, sizeof(file), "%s/%s", from, slot->d_name);
				copy_file(file, dir, slot->d_name);
			}
			if (t)
				closedir(t);
		}
		if (p)
			closedir(p);
	}
	closedir(d);
}

static void snapshot(const char *outdir)
{
	char dir[PATH_MAX], from[PATH_MAX], link[PATH_MAX], path[PATH_MAX + 16];
	struct dirent *de;
	DIR *d;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s/sysroot/proc/sys/kernel", outdir);
	copy_file("/proc/sys/kernel/osrelease", dir, "osrelease");
	d = opendir("/proc/sys/net/smc");
	if (d) {
		snprintf(dir, sizeof(dir), "%s/sysroot/proc/sys/net/smc", outdir);
		while ((de = readdir(d)))
			if (de->d_name[0] != '.') {
				snprintf(from, sizeof(from), "/proc/sys/net/smc/%s", de->d_name);
				copy_file(from, dir, de->d_name);
			}
		closedir(d);
	}
	if (access("/sys/module/smc", F_OK) == 0) {
		/* git keeps no empty folders: a marker file stands for the module folder */
		snprintf(dir, sizeof(dir), "%s/sysroot/sys/module/smc", outdir);
		copy_file("/proc/sys/kernel/osrelease", dir, "present");
	}
	if (access("/sys/module/smc_lo", F_OK) == 0) {
		snprintf(dir, sizeof(dir), "%s/sysroot/sys/module/smc_lo", outdir);
		copy_file("/proc/sys/kernel/osrelease", dir, "present");
	}
	snapshot_infiniband(outdir);
	d = opendir("/sys/class/dibs");
	if (!d)
		return;
	snprintf(dir, sizeof(dir), "%s/sysroot/sys/class/dibs", outdir);
	mkdir_p(dir);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/sysroot/sys/class/dibs/%s", outdir, de->d_name);
		snprintf(from, sizeof(from), "/sys/class/dibs/%s/gid", de->d_name);
		copy_file(from, dir, "gid");
		snprintf(from, sizeof(from), "/sys/class/dibs/%s/fabric_id", de->d_name);
		copy_file(from, dir, "fabric_id");
		snprintf(from, sizeof(from), "/sys/class/dibs/%s/device", de->d_name);
		n = readlink(from, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			snprintf(path, sizeof(path), "%s/device", dir);
			if (symlink(link, path) < 0)
				fprintf(stderr, "symlink %s: %m\n", path);
		}
	}
	closedir(d);
}

/* ---- the reads --------------------------------------------------------------------------- */

static void show_v2(const struct smc_lgr_v2 *v2)
{
	if (v2->present)
		say("    v2: ver=%u rel=%u os=%u(%s) neg_eid=\"%s\" peer_host=\"%s\"\n", v2->ver,
		    v2->rel, v2->os, smc_os_name(v2->os) ?: "?", v2->neg_eid, v2->peer_host);
}

static void read_caps(struct smcnl *nl)
{
	struct smc_caps c;
	int r = smc_caps_probe(nl, &c);

	result(nl, "smc_caps_probe", SMC_OP_QUERY, r);
	if (r < 0)
		return;
	say("  release=%s smc_genl=%d pnet_genl=%d smc_diag=%d af_smc=%d ipproto_smc=%d "
	    "dibs=%d loopback=%d smc_module=%d smcd_v2=%d smcr_v2=%d ver=%u.%u seid=%d\n",
	    c.kernel_release, c.smc_genl, c.pnet_genl, c.smc_diag, c.af_smc, c.ipproto_smc, c.dibs,
	    c.loopback, c.smc_module, c.smcd_v2, c.smcr_v2, c.smc_ver, c.smc_rel, c.seid_supported);
}

static void read_sysinfo(struct smcnl *nl)
{
	struct smc_sysinfo i;
	int r = smc_sysinfo_get(nl, &i);

	result(nl, "smc_sysinfo_get", SMC_OP_QUERY, r);
	if (r == 0)
		say("  ver=%u rel=%u ism_v2=%d smcr_v2=%d host=\"%s\" has_seid=%d seid=\"%s\"\n",
		    i.ver, i.rel, i.ism_v2, i.smcr_v2, i.hostname, i.has_seid, i.seid);
}

static void read_smcd_devices(struct smcnl *nl)
{
	_cleanup_(freep) struct smcd_device *d = NULL;
	size_t n;
	int r;

	r = smcd_device_list(nl, &d, &n);
	result(nl, "smcd_device_list", SMC_OP_QUERY, r);
	for (size_t i = 0; r == 0 && i < n; i++)
		say("  %s seen=%u loopback=%d fabric=%d/0x%04x gid=%s use_cnt=%u crit=%d "
		    "pci=%s fid=%u chid=%u pnet=%s%s lgrs=%u conns=%u\n",
		    d[i].name, d[i].seen, d[i].loopback, d[i].has_fabric_id, d[i].fabric_id,
		    d[i].gid, d[i].use_cnt, d[i].is_crit, d[i].pci_id, d[i].pci_fid, d[i].pci_chid,
		    d[i].port.user_defined ? "*" : "", d[i].port.pnetid, d[i].linkgroups, d[i].conns);
}

static void read_devices(struct smcnl *nl)
{
	_cleanup_(freep) struct smcr_device *rd = NULL;
	size_t n;
	int r;

	read_smcd_devices(nl);
	r = smcr_device_list(nl, &rd, &n);
	result(nl, "smcr_device_list", SMC_OP_QUERY, r);
	for (size_t i = 0; r == 0 && i < n; i++)
		say("  %s crit=%d pci=%s port1 valid=%d active=%d netdev=%u(%s) pnet=%s%s links=%u "
		    "gid_types=%d/v1=%d/v2=%d\n",
		    rd[i].ib_name, rd[i].is_crit, rd[i].pci_id, rd[i].ports[0].valid,
		    rd[i].ports[0].active, rd[i].ports[0].netdev_ifindex, rd[i].ports[0].netdev,
		    rd[i].ports[0].pnet.user_defined ? "*" : "", rd[i].ports[0].pnet.pnetid,
		    rd[i].ports[0].link_cnt, rd[i].ports[0].has_gid_types, rd[i].ports[0].roce_v1,
		    rd[i].ports[0].roce_v2);
}

static void read_linkgroups(struct smcnl *nl)
{
	_cleanup_(freep) struct smcd_linkgroup *d = NULL;
	struct smcr_linkgroup *rl = NULL;
	size_t n;
	int r;

	r = smcd_linkgroup_list(nl, &d, &n);
	result(nl, "smcd_linkgroup_list", SMC_OP_QUERY, r);
	for (size_t i = 0; r == 0 && i < n; i++) {
		char gid[33], peer[33];

		smcd_gid_format(d[i].gid, d[i].ext_gid, gid);
		smcd_gid_format(d[i].peer_gid, d[i].peer_ext_gid, peer);
		say("  id=%08x gid=%s peer=%s has_ext=%d vlan=%u conns=%u chid=0x%x pnet=\"%s\" "
		    "alloc=%d/%" PRIu64 "/%" PRIu64 " device=%s\n",
		    d[i].id, gid, peer, d[i].has_ext_gid, d[i].vlan_id, d[i].conns, d[i].chid,
		    d[i].pnetid, d[i].has_alloc, d[i].sndbuf_alloc, d[i].dmb_alloc, d[i].device);
		show_v2(&d[i].v2);
	}
	for (int links = 0; links < 2; links++) {
		r = smcr_linkgroup_list(nl, links, &rl, &n);
		result(nl, links ? "smcr_linkgroup_list(links)" : "smcr_linkgroup_list",
		       SMC_OP_QUERY, r);
		for (size_t i = 0; r == 0 && i < n; i++) {
			say("  id=%08x role=%u type=%u conns=%u pnet=\"%s\" cookie=%d/%" PRIu64
			    " links=%zu\n",
			    rl[i].id, rl[i].role, rl[i].type, rl[i].conns, rl[i].pnetid,
			    rl[i].has_net_cookie, rl[i].net_cookie, rl[i].n_links);
			show_v2(&rl[i].v2);
			for (size_t j = 0; j < rl[i].n_links; j++) {
				const struct smcr_link *l = &rl[i].links[j];

				say("    link %u state=%u conns=%u %s/%u netdev=%u(%s) gid=%s peer=%s\n",
				    l->id, l->state, l->conn_cnt, l->ib_dev, l->ib_port,
				    l->netdev_ifindex, l->netdev, l->gid, l->peer_gid);
			}
		}
		if (r == 0)
			smcr_linkgroup_list_free(rl, n);
	}
}

static void show_tech(const char *name, const struct smc_stats_tech *t)
{
	say("  %s: clnt v1/v2=%" PRIu64 "/%" PRIu64 " srv v1/v2=%" PRIu64 "/%" PRIu64 " rx=%" PRIu64
	    "B/%" PRIu64 " tx=%" PRIu64 "B/%" PRIu64 " tx_full=%" PRIu64 " usage=%d rx/tx=%" PRIu64
	    "/%" PRIu64 "\n",
	    name, t->clnt_v1_succ, t->clnt_v2_succ, t->srv_v1_succ, t->srv_v2_succ, t->rx_bytes,
	    t->rx_cnt, t->tx_bytes, t->tx_cnt, t->tx_rmb.buf_full, t->has_rmb_usage,
	    t->rx_rmb_usage, t->tx_rmb_usage);
}

static void read_stats(struct smcnl *nl)
{
	struct smc_fback_stats f;
	struct smc_stats s;
	int r;

	r = smc_stats_get(nl, &s);
	result(nl, "smc_stats_get", SMC_OP_QUERY, r);
	if (r == 0) {
		show_tech("smcd", &s.smcd);
		show_tech("smcr", &s.smcr);
		say("  hs_err clnt/srv=%" PRIu64 "/%" PRIu64 "\n", s.clnt_hs_err, s.srv_hs_err);
	}
	r = smc_fback_stats_get(nl, &f);
	result(nl, "smc_fback_stats_get", SMC_OP_QUERY, r);
	if (r < 0)
		return;
	say("  totals srv=%" PRIu64 " clnt=%" PRIu64 "\n", f.srv_total, f.clnt_total);
	for (size_t i = 0; i < f.n; i++)
		say("  %s 0x%08x %s x%u\n", f.entries[i].server ? "srv " : "clnt", f.entries[i].code,
		    smc_decline_name(f.entries[i].code) ?: "?", f.entries[i].count);
}

static void read_eids(struct smcnl *nl)
{
	char ueids[SMC_UEID_MAX][SMC_EID_LEN + 1];
	struct smc_seid seid;
	bool hs;
	size_t n;
	int r;

	r = smc_ueid_list(nl, ueids, &n);
	result(nl, "smc_ueid_list", SMC_OP_QUERY, r);
	for (size_t i = 0; r == 0 && i < n; i++)
		say("  \"%s\"\n", ueids[i]);
	r = smc_seid_get(nl, &seid);
	result(nl, "smc_seid_get", SMC_OP_QUERY, r);
	if (r == 0)
		say("  present=%d seid=\"%s\" enabled=%d\n", seid.present, seid.seid, seid.enabled);
	r = smc_hs_limitation_get(nl, &hs);
	result(nl, "smc_hs_limitation_get", SMC_OP_QUERY, r);
	if (r == 0)
		say("  enabled=%d\n", hs);
}

static void read_pnet(struct smcnl *nl)
{
	_cleanup_(freep) struct smc_pnet_entry *e = NULL;
	size_t n;
	int r = smc_pnet_list(nl, NULL, &e, &n);

	result(nl, "smc_pnet_list", SMC_OP_QUERY, r);
	for (size_t i = 0; r == 0 && i < n; i++)
		say("  %s eth=\"%s\" ib=\"%s\" port=%u\n", e[i].pnetid, e[i].eth_name, e[i].ib_name,
		    e[i].ib_port);
}

static void read_sockets(struct smcnl *nl, unsigned want)
{
	_cleanup_(freep) struct smc_socket *s = NULL;
	char name[64];
	size_t n;
	int r = smc_socket_list(nl, want, &s, &n);

	snprintf(name, sizeof(name), "smc_socket_list(want=%u)", want);
	result(nl, name, SMC_OP_SOCKET_DIAG, r);
	for (size_t i = 0; r == 0 && i < n; i++) {
		char src[INET6_ADDRSTRLEN] = "*", dst[INET6_ADDRSTRLEN] = "*";

		if (s[i].addr_family != AF_UNSPEC) {
			inet_ntop(s[i].addr_family, &s[i].src, src, sizeof(src));
			inet_ntop(s[i].addr_family, &s[i].dst, dst, sizeof(dst));
		}
		say("  fam=%u %s %s %s:%u -> %s:%u uid=%u ino=%u fb=%d 0x%x/0x%x conn=%d "
		    "dmb=%d/%d\n",
		    s[i].diag_family, smc_sock_state_name(s[i].state) ?: "?",
		    smc_sock_mode_name(s[i].mode) ?: "?", src, s[i].sport, dst, s[i].dport,
		    s[i].uid, s[i].inode, s[i].has_fallback, s[i].fallback_reason,
		    s[i].peer_diagnosis, s[i].has_conninfo, s[i].has_dmbinfo, s[i].dmb.has_ext);
	}
}

static void read_sysctls(struct smcnl *nl)
{
	char **names = NULL, buf[128];
	size_t n;
	int r = smc_sysctl_list_present(nl, &names, &n);

	result(nl, "smc_sysctl_list_present", SMC_OP_QUERY, r);
	for (size_t i = 0; r == 0 && i < n; i++) {
		if (smc_sysctl_get(nl, names[i], buf, sizeof(buf)) == 0)
			say("  %s = %s\n", names[i], buf);
		free(names[i]);
	}
	free(names);
}

static void show_smclo(const struct smclo_device *d)
{
	const struct smclo_counters *c = &d->counters;

	say("  name=%s state=%s pending=%d settings=%s/%d/%u", d->name,
	    smclo_state_name(d->state) ?: "?", d->pending,
	    smclo_dmb_type_name(d->settings.dmb_type) ?: "?", d->settings.nocopy,
	    d->settings.max_dmbs);
	if (d->registered)
		say(" gid=%s uuid=%s fabric=0x%04x generation=%u active=%s/%d/%u", d->gid_hex,
		    d->gid_uuid, d->fabric_id, d->generation,
		    smclo_dmb_type_name(d->active.dmb_type) ?: "?", d->active.nocopy,
		    d->active.max_dmbs);
	if (d->state == SMCLO_STATE_DRAINING)
		say(" drain=%u remaining=%d/%u removing=%d", d->drain_timeout_ms,
		    d->has_drain_remaining, d->drain_remaining_ms, d->removing);
	if (d->has_apply)
		say(" apply=%s", d->apply_next_activation ? "next-activation" : "now");
	if (d->has_event)
		say(" event=%s", smclo_event_name(d->event) ?: "?");
	/* every counter of SMCLO_COUNTERS, named by its JSON key */
	say("\n  counters");
#define COUNTER_SAY(f, bits, attr, bus, kind, line, label) say(" " #f "=%" PRIu64, (uint64_t)c->f);
	SMCLO_COUNTERS(COUNTER_SAY)
#undef COUNTER_SAY
	say("\n");
}

/* The module's device, when smc_lo is loaded (what smcctl's device views do). */
static void read_smclo(struct smcnl *nl)
{
	struct smclo_device d;
	int r;

	if (!smclo_module_loaded(nl))
		return;
	r = smclo_get(nl, &d);
	result(nl, "smclo_get", SMC_OP_LOOPBACK_QUERY, r);
	if (r == 0)
		show_smclo(&d);
}

static int step_smclo(struct smcnl *nl, const char *step, int argc, char **argv)
{
	struct smclo_device d = {};
	int r;

	if (streq(step, "smclo-get")) {
		r = smclo_get(nl, &d);
		result(nl, "smclo_get", SMC_OP_LOOPBACK_QUERY, r);
		/* smcctl's loopback views then look for smc.ko's built-in loopback-ism. */
		if (r == -EPROTONOSUPPORT)
			read_smcd_devices(nl);
	} else if (streq(step, "smclo-activate")) {
		r = smclo_activate_clean(nl, &d, NULL);
		result(nl, "smclo_activate_clean", SMC_OP_LOOPBACK_ACTIVATE, r);
	} else if (streq(step, "smclo-set") && argc == 2) {
		struct smclo_set_request q = {};
		uint8_t cmd = SMC_LO_CMD_SET;
		uint16_t type;
		uint32_t v;

		if (streq(argv[0], "dmb-type")) {
			q.set_dmb_type = true;
			q.dmb_type = streq(argv[1], "virtual") ? 1 : (uint8_t)atoi(argv[1]);
		} else if (streq(argv[0], "nocopy")) {
			q.set_nocopy = true;
			q.nocopy = streq(argv[1], "on");
		} else if (streq(argv[0], "max-dmbs")) {
			q.set_max_dmbs = true;
			q.max_dmbs = (uint32_t)strtoul(argv[1], NULL, 0);
		} else {
			return -EINVAL;
		}
		r = smclo_set(nl, &q, &d);
		if (r == -EINVAL) {
			/* Refused here already: send it anyway, the kernel's answer is the fixture. */
			struct nl_msg *msg;
			struct nlattr *nest;
			char key[96];

			type = q.set_max_dmbs ? SMC_LO_S_MAX_DMBS : SMC_LO_S_DMB_TYPE;
			v = q.set_max_dmbs ? q.max_dmbs : q.dmb_type;
			r = smcnl_genl_msg_new(nl, SMCNL_FAM_SMCLO, cmd, NLM_F_ACK, &msg);
			if (r < 0)
				return r;
			nest = nla_nest_start(msg, SMC_LO_A_SETTINGS);
			if (type == SMC_LO_S_MAX_DMBS)
				nla_put_u32(msg, type, v);
			else
				nla_put_u8(msg, type, (uint8_t)v);
			nla_nest_end(msg, nest);
			r = smcnl_request(nl, SMCNL_PROTO_GENL, msg,
					  smcnl_genl_key(SMCNL_FAM_SMCLO, cmd, key, sizeof(key)),
					  NULL, NULL);
		}
		result(nl, "smclo_set", SMC_OP_LOOPBACK_SET, r);
	} else if (streq(step, "smclo-shutdown") && argc == 2) {
		struct smclo_shutdown_result res;

		r = smclo_shutdown(nl, (uint32_t)atoi(argv[0]), (uint32_t)atoi(argv[1]), &res);
		result(nl, "smclo_shutdown", SMC_OP_LOOPBACK_DEACTIVATE, r);
		say("  was_active=%d pnet_added=%d removed=%d pnet_removed=%d\n", res.was_active,
		    res.pnet_added, res.removed, res.pnet_removed);
		d = res.last;
	} else if (streq(step, "smclo-monitor") && argc == 2) {
		struct smclo_monitor *m;
		int want = atoi(argv[0]), seen = 0;
		time_t end = time(NULL) + atoi(argv[1]);

		r = smclo_monitor_open(nl, &m);
		result(nl, "smclo_monitor_open", SMC_OP_LOOPBACK_QUERY, r);
		if (r < 0)
			return r;
		/* The caller starts its request after this line. */
		say("monitoring\n");
		fflush(stdout);
		while (seen < want && time(NULL) < end) {
			struct pollfd p = { .fd = smclo_monitor_fd(m), .events = POLLIN };

			(void)poll(&p, 1, 200);
			while (seen < want && (r = smclo_monitor_read(m, &d)) > 0) {
				seen++;
				show_smclo(&d);
			}
			fflush(stdout);
		}
		smclo_monitor_close(m);
		say("notifications: %d of %d\n", seen, want);
		return seen < want ? -ETIMEDOUT : 0;
	} else if (streq(step, "smclo-raw") && argc >= 1) {
		uint16_t types[8];
		uint32_t values[8];
		size_t n = 0;

		for (int i = 1; i < argc && n < ELEMENTSOF(types); i++) {
			unsigned t, v;

			if (sscanf(argv[i], "%u=%u", &t, &v) != 2)
				return -EINVAL;
			types[n] = (uint16_t)t;
			values[n++] = v;
		}
		r = smcnl_smclo_raw(nl, (uint8_t)atoi(argv[0]), types, values, n, &d);
		result(nl, "smclo_raw", SMC_OP_LOOPBACK_QUERY, r);
	} else {
		return -EINVAL;
	}
	if (d.name[0])
		show_smclo(&d);
	return 0;
}

static int step_read(struct smcnl *nl, const char *outdir)
{
	read_caps(nl);
	read_sysinfo(nl);
	read_devices(nl);
	read_linkgroups(nl);
	read_stats(nl);
	read_eids(nl);
	read_pnet(nl);
	read_sockets(nl, 0);
	read_sockets(nl, SMC_DIAG_WANT_CONNINFO | SMC_DIAG_WANT_LGRINFO | SMC_DIAG_WANT_DMBINFO);
	read_sysctls(nl);
	read_smclo(nl);
	/* After the reads: on a modular kernel they loaded smc (sysctls, /sys/module/smc). */
	snapshot(outdir);
	return 0;
}

/* ---- main -------------------------------------------------------------------------------- */

static int step_pnet_add(struct smcnl *nl, int argc, char **argv)
{
	struct smc_pnet_entry e = {};

	if (argc < 3)
		return -EINVAL;
	snprintf(e.pnetid, sizeof(e.pnetid), "%s", argv[0]);
	if (streq(argv[1], "eth"))
		snprintf(e.eth_name, sizeof(e.eth_name), "%s", argv[2]);
	else
		snprintf(e.ib_name, sizeof(e.ib_name), "%s", argv[2]);
	if (argc > 3)
		e.ib_port = (uint8_t)atoi(argv[3]);
	return smc_pnet_add(nl, &e);
}

static int run(struct smcnl *nl, const char *outdir, int argc, char **argv)
{
	const char *step = argv[0];
	const char *arg = argc > 1 ? argv[1] : NULL;
	int r;

	if (streq(step, "read"))
		return step_read(nl, outdir);
	if (streq(step, "ueid-add") && arg) {
		result(nl, "smc_ueid_add", SMC_OP_UEID_ADD, r = smc_ueid_add(nl, arg));
	} else if (streq(step, "ueid-add-raw") && arg) {
		r = smcnl_ueid_add_raw(nl, arg, strlen(arg) + 1);
		result(nl, "ueid_add_raw", SMC_OP_UEID_ADD, r);
	} else if (streq(step, "ueid-del") && arg) {
		result(nl, "smc_ueid_del", SMC_OP_UEID_DEL, r = smc_ueid_del(nl, arg));
	} else if (streq(step, "ueid-flush")) {
		result(nl, "smc_ueid_flush", SMC_OP_UEID_FLUSH, r = smc_ueid_flush(nl));
	} else if (streq(step, "seid-enable") || streq(step, "seid-disable")) {
		bool on = streq(step, "seid-enable");

		r = smc_seid_set(nl, on);
		result(nl, step, on ? SMC_OP_SEID_ENABLE : SMC_OP_SEID_DISABLE, r);
	} else if (streq(step, "hs-enable") || streq(step, "hs-disable")) {
		r = smc_hs_limitation_set(nl, streq(step, "hs-enable"));
		result(nl, step, SMC_OP_HS_LIMITATION_SET, r);
	} else if (streq(step, "pnet-add")) {
		result(nl, "smc_pnet_add", SMC_OP_PNET_ADD,
		       r = step_pnet_add(nl, argc - 1, argv + 1));
	} else if (streq(step, "pnet-del") && arg) {
		result(nl, "smc_pnet_del", SMC_OP_PNET_DEL, r = smc_pnet_del(nl, arg));
	} else if (streq(step, "sysctl-set") && argc > 2) {
		/* not netlink: nothing is recorded, result.txt tells what the kernel said */
		result(nl, "smc_sysctl_set", SMC_OP_SYSCTL_SET, r = smc_sysctl_set(nl, arg, argv[2]));
	} else if (strncmp(step, "smclo-", 6) == 0) {
		r = step_smclo(nl, step, argc - 1, argv + 1);
		if (r == -EINVAL) {
			fprintf(stderr, "bad arguments for %s\n", step);
			return r;
		}
		if (r < 0)
			return r;
	} else if (streq(step, "pnet-flush")) {
		result(nl, "smc_pnet_flush", SMC_OP_PNET_FLUSH, r = smc_pnet_flush(nl));
	} else {
		fprintf(stderr, "unknown step or missing argument: %s\n", step);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct smcnl_options o = {};
	struct smcnl *nl;
	char path[PATH_MAX];
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: %s OUTDIR STEP [ARG...]  (see the source)\n", argv[0]);
		return 2;
	}
	if (mkdir_p(argv[1]) < 0) {
		fprintf(stderr, "%s: %m\n", argv[1]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/result.txt", argv[1]);
	out = fopen(path, "ae");
	if (!out) {
		fprintf(stderr, "%s: %m\n", path);
		return 1;
	}
	o.record_dir = argv[1];
	r = smcnl_open(&o, &nl);
	if (r < 0) {
		fprintf(stderr, "smcnl_open: %s\n", strerror(-r));
		return 1;
	}
	r = run(nl, argv[1], argc - 2, argv + 2);
	smcnl_close(nl);
	fclose(out);
	return r < 0 ? 2 : 0;
}
