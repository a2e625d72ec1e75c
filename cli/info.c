// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl info: what this kernel offers for SMC, what is missing and what that means, and a
 * verdict per use case ("SMC-D loopback: ready").  It is the first thing to run on a new
 * host, so it must work on a kernel without SMC: then it reports exactly that, prints the
 * whole report, and exits with status 3 (SMC unavailable) so scripts can test for it.
 *
 * Beyond smc-tools' "info": loopback devices are counted (GET_DEV_SMCD never lists them),
 * the UEID count is shown (without one, SMC-Dv2 off s390 always falls back), and every
 * probe that failed says why.  With -d (and in -j) also the advice of the counters, as
 * smcctl stats gives it (gather() says why not by default).
 */
#include <assert.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/verbs.h"
#include "common/output.h"
#include "common/stats-table.h"

struct capability {
	const char *key;     /* JSON key under "capabilities" */
	const char *label;   /* text */
	size_t offset;	     /* bool in struct smc_caps */
	const char *missing; /* what its absence means and how to get it */
};

#define CAP(k, l, f, m)                               \
	{                                             \
		k, l, offsetof(struct smc_caps, f), m \
	}

static const struct capability capabilities[] = {
	CAP("smc_module", "SMC module", smc_module,
	    "the smc module is not loaded and could not be loaded (CONFIG_SMC; since Linux 6.18 "
	    "SMC also needs CONFIG_DIBS)"),
	CAP("smc_gen_netlink", "SMC_GEN_NETLINK", smc_genl,
	    "no SMC netlink family: no link groups, devices, statistics or UEIDs"),
	CAP("smc_pnetid", "SMC_PNETID", pnet_genl,
	    "no PNET table family (it is loaded with smc_diag: modprobe smc_diag)"),
	CAP("smc_diag", "smc_diag", smc_diag,
	    "'smcctl socket' cannot list sockets (CONFIG_SMC_DIAG: modprobe smc_diag)"),
	CAP("af_smc", "AF_SMC", af_smc,
	    "socket(AF_SMC) fails: applications cannot create SMC sockets"),
	CAP("ipproto_smc", "IPPROTO_SMC", ipproto_smc,
	    "socket(AF_INET, SOCK_STREAM, IPPROTO_SMC) fails: needs Linux 6.11 or later"),
	CAP("dibs", "DIBS", dibs,
	    "no /sys/class/dibs: the DIBS device layer arrived in Linux 6.18 (CONFIG_DIBS)"),
	CAP("loopback", "SMC-D loopback device", loopback,
	    "no SMC-D loopback device: needs CONFIG_DIBS_LO (6.18+) or CONFIG_SMC_LO "
	    "(6.10 to 6.17)"),
};

static bool cap_value(const struct smc_caps *caps, const struct capability *c)
{
	/*
	 * The module is there when its netlink family answers, whatever /sys/module says: a
	 * built-in smc without parameters has no /sys/module/smc, and the family lookup may
	 * itself have just loaded the module.
	 */
	if (c->offset == offsetof(struct smc_caps, smc_module) && caps->smc_genl)
		return true;
	return *(const bool *)((const char *)caps + c->offset);
}

/*
 * A capability this kernel does without: DIBS when an SMC-D loopback device exists without
 * it (loopback-ism, inside smc.ko on 6.10 to 6.17).  Shown as such, not as missing, and not
 * in the Missing list: a newcomer would read "MISSING" as something to fix.
 */
static bool cap_not_needed(const char *key, bool has, bool loopback)
{
	return !has && loopback && streq(key, "dibs");
}

static const char *cap_state(const char *key, bool has, bool loopback)
{
	return has ? "yes" : cap_not_needed(key, has, loopback) ? "not needed" : "MISSING";
}

void info_facts_done(struct info_facts *i)
{
	for (size_t k = 0; k < i->n_sysctls; k++)
		free(i->sysctls[k]);
	free(i->sysctls);
	for (size_t k = 0; k < i->n_errors; k++)
		free(i->errors[k]);
}

static void probe_failed(struct smcctl *c, struct info_facts *i, const char *what, int err)
{
	char why[512];

	/* Fewer probes can fail than there are places. */
	if (i->n_errors >= INFO_ERRORS_MAX)
		return;
	smc_strerror(SMC_OP_QUERY, err, smcnl_extack(c->nl), why, sizeof(why));
	/* Out of memory: this one reason is not said; the report is what it can be. */
	if (asprintf(&i->errors[i->n_errors], "%s: %s", what, why) >= 0)
		i->n_errors++;
}

static void probe_devices(struct smcctl *c, struct info_facts *i)
{
	_cleanup_(freep) struct smcd_device *d = NULL;
	_cleanup_(freep) struct smcr_device *r = NULL;
	size_t nd = 0, nr = 0;
	int e;

	/* Counted, not shown per device: no link group dump. */
	if ((e = smcd_device_list_flags(c->nl, 0, &d, &nd)) < 0)
		return probe_failed(c, i, "SMC-D devices", e);
	if ((e = smcr_device_list(c->nl, &r, &nr)) < 0)
		return probe_failed(c, i, "SMC-R devices", e);
	i->has_devices = true;
	i->n_smcr = nr;
	for (size_t k = 0; k < nr; k++) {
		bool known = true, v1 = false, v2 = false;

		for (int p = 0; p < 2; p++) {
			if (!r[k].ports[p].valid)
				continue;
			known &= r[k].ports[p].has_gid_types;
			v1 |= r[k].ports[p].roce_v1;
			v2 |= r[k].ports[p].roce_v2;
		}
		if (known && v2 && !v1)
			i->n_smcr_v2_only++;
	}
	for (size_t k = 0; k < nd; k++) {
		if (!d[k].loopback) {
			i->n_ism++;
			continue;
		}
		i->n_loopback++;
		snprintf(i->loopback_names + strlen(i->loopback_names),
			 sizeof(i->loopback_names) - strlen(i->loopback_names), "%s%s",
			 i->loopback_names[0] ? " " : "", d[k].name);
		if (d[k].port.pnetid[0] && !i->n_loopback_pnetid++)
			snprintf(i->loopback_pnetid, sizeof(i->loopback_pnetid), "%s",
				 d[k].port.pnetid);
	}
}

/* What the counters advise, as in smcctl stats (the kernel's counters since smc loaded). */
static void probe_advice(struct smcctl *c, struct info_facts *i)
{
	_cleanup_(freep) struct smc_fback_stats *f = calloc(1, sizeof(*f));
	_cleanup_(freep) struct stats_num *rows = NULL;
	_cleanup_(freep) struct stats_tree_reason *reasons = NULL;
	struct smc_stats s = {};
	struct advice_env env;
	size_t n;
	int e;

	stats_table(&n);
	rows = calloc(n, sizeof(*rows));
	reasons = calloc(2 * SMC_FBACK_SLOTS, sizeof(*reasons));
	if (!f || !rows || !reasons)
		return probe_failed(c, i, "statistics", -ENOMEM);
	if ((e = smc_stats_get(c->nl, &s)) < 0)
		return probe_failed(c, i, "statistics", e);
	if ((e = smc_fback_stats_get(c->nl, f)) < 0)
		return probe_failed(c, i, "fallback statistics", e);
	n = stats_rows_from_kernel(&s, f, rows, reasons);
	stats_advice_env(c, &env);
	i->n_advice = advice_compute(rows, reasons, n, &env, i->advice, ADVICE_MAX);
}

static int gather(struct smcctl *c, struct info_facts *i)
{
	char ueids[SMC_UEID_MAX][SMC_EID_LEN + 1];
	int e;

	e = smc_caps_probe(c->nl, &i->caps);
	if (e < 0)
		return e;
	if (!i->caps.smc_genl)
		goto sysctls;
	/* The probe's answer if it got one; asked again only for the reason it failed. */
	if (i->caps.has_sysinfo) {
		i->sys = i->caps.sysinfo;
		e = 0;
	} else if ((e = smc_sysinfo_get(c->nl, &i->sys)) < 0) {
		probe_failed(c, i, "system information", e);
	}
	i->has_sysinfo = e >= 0;
	if ((e = smc_ueid_list(c->nl, ueids, &i->n_ueids)) < 0)
		probe_failed(c, i, "UEIDs", e);
	i->has_ueids = e >= 0;
	/*
	 * The SEID is in the system information too (the same string): when that says there
	 * is none (off s390), the SEID dump could only say the same, and there is nothing to
	 * be enabled.  Asked when there is one (for whether it is enabled) or no answer.
	 */
	if (!i->has_sysinfo || i->sys.seid[0]) {
		if ((e = smc_seid_get(c->nl, &i->seid)) < 0)
			probe_failed(c, i, "SEID", e);
		i->has_seid = e >= 0;
	}
	probe_devices(c, i);
	/*
	 * The advice of the counters is shown with -d (and is always in -j), not by default.
	 * It is about traffic, not about what this kernel offers: no verdict depends on it,
	 * 'smcctl stats' shows the same advice by default, and reading it (two statistics
	 * dumps, their parsing and the rules) was a third of what info asked the kernel
	 * beyond smc-tools' 'smcd info' (bench/smcctl-vs-smctools).  Every probe a verdict
	 * needs stays (SMC family, system information, DIBS and devices with the PNET table,
	 * UEIDs, SEID), and so do the capability probes and the sysctls, which say what the
	 * kernel offers.
	 */
	if (c->json || c->detail)
		probe_advice(c, i);
sysctls:
	if ((e = smc_sysctl_list_present(c->nl, &i->sysctls, &i->n_sysctls)) < 0 && e != -ENOENT)
		probe_failed(c, i, "net.smc sysctls", e);
	return 0;
}

int info_gather(struct smcctl *c, struct info_facts *i)
{
	int e;

	/* One report: the capability probe and the device list read the DIBS class once. */
	smcnl_snapshot_begin(c->nl);
	e = gather(c, i);
	smcnl_snapshot_end(c->nl);
	return e;
}

/* ---------------------------------------------------------------------------------- */
/* Document                                                                            */

static json_object *features(bool has, bool v2)
{
	json_object *a;

	if (!has)
		return NULL;
	a = json_object_new_array();
	json_append_str(a, "v1");
	if (v2)
		json_append_str(a, "v2");
	return a;
}

static int add_opt(json_object *o, const char *key, json_object *v)
{
	return v ? json_add(o, key, v) : json_add_null(o, key);
}

static json_object *caps_json(const struct info_facts *i, json_object **ret_missing)
{
	json_object *o = json_object_new_object(), *missing = json_object_new_array();

	for (size_t k = 0; o && missing && k < ELEMENTSOF(capabilities); k++) {
		const struct capability *cap = &capabilities[k];
		bool v = cap_value(&i->caps, cap);

		json_add_bool(o, cap->key, v);
		if (!v && !cap_not_needed(cap->key, v, i->caps.loopback)) {
			json_object *m = json_object_new_object();

			json_add_str(m, "capability", cap->key);
			json_add_str(m, "effect", cap->missing);
			json_append(missing, m);
		}
	}
	*ret_missing = missing;
	return o;
}

static json_object *sysctls_json(const struct info_facts *i)
{
	json_object *o = json_object_new_object(), *present = json_object_new_array(),
		    *absent = json_object_new_array(), *unknown = json_object_new_array();
	size_t n_known = 0;
	const struct smc_sysctl_desc *t = smc_sysctl_table(&n_known);

	json_add(o, "present", present);
	json_add(o, "absent", absent);
	json_add(o, "unknown", unknown);
	for (size_t k = 0; k < i->n_sysctls; k++) {
		json_append_str(present, i->sysctls[k]);
		if (!smc_sysctl_find(i->sysctls[k]))
			json_append_str(unknown, i->sysctls[k]);
	}
	for (size_t k = 0; k < n_known; k++) {
		bool found = false;

		for (size_t m = 0; m < i->n_sysctls; m++)
			found |= streq(i->sysctls[m], t[k].name);
		if (!found)
			json_append_str(absent, t[k].name);
	}
	return o;
}

/* A use case's verdict: the text and JSON both come from it. */
struct verdict {
	const char *subject;
	bool ready;
	char text[160];
	char advice[224]; /* "" for none */
};

/*
 * The one next step that gets SMC-D loopback working, by kernel release and by what is
 * missing: the first row whose range holds the kernel and whose need is the first thing
 * missing.  README.md's Requirements table says the same (test-cli-info-steps checks that
 * each step is there word for word).  Facts: loopback-ism (CONFIG_SMC_LO, inside smc.ko)
 * came in 6.10 and moved to the DIBS layer in 6.18 (CONFIG_DIBS_LO), where SMC itself
 * needs CONFIG_DIBS; Debian 12's 6.1 has no loopback, Debian 13's 6.12 has SMC_LO off and
 * Debian's 7.x have DIBS off (../shared/reference/kernel-smc.md, the VM lanes 61 and 612).
 */
enum smcd_need {
	SMCD_NEED_SMC,	    /* no SMC in this kernel */
	SMCD_NEED_LOOPBACK, /* SMC, but no loopback device */
};

struct smcd_step {
	unsigned from, to; /* kernel major * 1000 + minor, both included */
	enum smcd_need need;
	const char *step;
};

static const struct smcd_step smcd_steps[] = {
	{ 0, 6009, SMCD_NEED_SMC,
	  "SMC-D loopback needs Linux 6.10 or later: install a 6.10-6.17 kernel with "
	  "CONFIG_SMC_LO=y or a 6.18+ kernel with CONFIG_DIBS_LO=y" },
	{ 0, 6009, SMCD_NEED_LOOPBACK,
	  "SMC-D loopback needs Linux 6.10 or later: install a 6.10-6.17 kernel with "
	  "CONFIG_SMC_LO=y or a 6.18+ kernel with CONFIG_DIBS_LO=y" },
	{ 6010, 6017, SMCD_NEED_SMC, "build this kernel with CONFIG_SMC=m and CONFIG_SMC_LO=y" },
	{ 6010, 6017, SMCD_NEED_LOOPBACK,
	  "rebuild the smc module with CONFIG_SMC_LO=y: Debian 13's 6.12 has it off" },
	{ 6018, ~0u, SMCD_NEED_SMC,
	  "build this kernel with CONFIG_DIBS=y, CONFIG_DIBS_LO=y and CONFIG_SMC=m: Debian's 7.x "
	  "kernels have CONFIG_DIBS off, so no SMC" },
	{ 6018, ~0u, SMCD_NEED_LOOPBACK,
	  "install smc-lo-dkms and run smcctl device loopback-ism activate, or build with "
	  "CONFIG_DIBS_LO=y" },
};
static const size_t smcd_steps_n = sizeof(smcd_steps) / sizeof(smcd_steps[0]);

/* "6.12.118+deb13-amd64" -> 6012; 0 when the release does not start with N.N. */
static unsigned kernel_version(const char *release)
{
	unsigned major, minor;

	if (sscanf(release, "%u.%u", &major, &minor) != 2 || minor > 999)
		return 0;
	return major * 1000 + minor;
}

const char *smcd_next_step(const char *kernel_release, bool smc, bool loopback)
{
	unsigned v = kernel_version(kernel_release);
	enum smcd_need need = !smc ? SMCD_NEED_SMC : SMCD_NEED_LOOPBACK;

	if (smc && loopback)
		return NULL;
	for (size_t k = 0; k < smcd_steps_n; k++)
		if (smcd_steps[k].need == need && v >= smcd_steps[k].from && v <= smcd_steps[k].to)
			return smcd_steps[k].step;
	return NULL;
}

static void verdict(struct verdict *v, const char *subject, bool ready, const char *text,
		    const char *advice)
{
	v->subject = subject;
	v->ready = ready;
	snprintf(v->text, sizeof(v->text), "%s", text);
	snprintf(v->advice, sizeof(v->advice), "%s", advice ? advice : "");
}

/*
 * The SMC-D loopback verdict, in the order a connection would fail: no SMC, no device,
 * every loopback device excluded by a PNET ID, no EID.  The PNET rule, read in the kernel
 * source: SMC-Dv2 offers only devices without a PNET ID or with one the netns' netdevs
 * carry in hardware, and off s390 there are no hardware PNET IDs.  Measured in the SMC-R
 * VM lane (tests/vm/guest/smcr-7x.sh): with a UEID, a connection runs as SMC-D loopback
 * until lo gets a PNET ID, then as SMC-R.  Limit: lo's PNET ID comes from an IB entry,
 * which only the initial netns' PNET table shows; from another netns this says "ready".
 */
static void loopback_verdict(const struct info_facts *i, struct verdict *v)
{
	char pnet_text[128], pnet_advice[64];
	bool seid = i->has_seid && i->seid.present && i->seid.seid[0] && i->seid.enabled;

	if (!i->caps.smc_genl || !i->caps.loopback)
		return verdict(v, "SMC-D loopback", false,
			       !i->caps.smc_genl ? "SMC is not available in this kernel"
						 : "no loopback device in this kernel",
			       smcd_next_step(i->caps.kernel_release, i->caps.smc_genl, false));
	if (i->n_loopback && i->n_loopback_pnetid == i->n_loopback) {
		snprintf(pnet_text, sizeof(pnet_text),
			 "connections will fall back to TCP: the loopback device has PNET ID %s",
			 i->loopback_pnetid);
		snprintf(pnet_advice, sizeof(pnet_advice), "run smcctl pnet del %s",
			 i->loopback_pnetid);
		return verdict(v, "SMC-D loopback", false, pnet_text, pnet_advice);
	}
	if (!i->has_ueids)
		return verdict(v, "SMC-D loopback", false, "UEIDs could not be read", NULL);
	if (i->n_ueids == 0 && !seid)
		return verdict(v, "SMC-D loopback", false,
			       "connections will fall back to TCP: no UEID configured",
			       "run smcctl ueid derive --apply");
	verdict(v, "SMC-D loopback", true, "ready", NULL);
}

static void smcr_verdict(const struct info_facts *i, struct verdict *v)
{
	if (!i->caps.smc_genl)
		return verdict(v, "SMC-R", false, "SMC is not available in this kernel", NULL);
	if (!i->has_devices)
		return verdict(v, "SMC-R", false, "devices could not be listed", NULL);
	if (i->n_smcr == 0)
		return verdict(v, "SMC-R", false, "no RDMA device", NULL);
	/*
	 * SMC-Rv1 needs a RoCE v1 GID (net/smc/smc_ib.c): RDMA devices with RoCE v2 GIDs only
	 * (soft-RoCE, rdma_rxe) can do SMC-Rv2 alone, which needs a UEID and IPv4 (seen in the
	 * SMC-R VM lane, tests/vm/README.md).
	 */
	if (i->n_smcr_v2_only == i->n_smcr) {
		if (i->has_ueids && i->n_ueids == 0)
			return verdict(v, "SMC-R", false,
				       "connections will fall back to TCP: the RDMA devices have no "
				       "RoCE v1 GIDs (SMC-Rv2 only), and SMC-Rv2 needs a UEID",
				       "run smcctl ueid add UEID with the same UEID on both hosts");
		return verdict(v, "SMC-R", true,
			       "ready for SMC-Rv2 only (no RoCE v1 GIDs): IPv4 connections only",
			       NULL);
	}
	if (i->has_ueids && i->n_ueids == 0)
		return verdict(v, "SMC-R", true, "ready for SMC-Rv1 (SMC-Rv2 needs a UEID)",
			       "run smcctl ueid add UEID with the same UEID on both hosts");
	verdict(v, "SMC-R", true, "ready", NULL);
}

static void verdicts(const struct info_facts *i, struct verdict v[2])
{
	loopback_verdict(i, &v[0]);
	smcr_verdict(i, &v[1]);
}

static json_object *verdict_json(const struct verdict *v)
{
	json_object *o = json_object_new_object();

	json_add_str(o, "subject", v->subject);
	json_add_bool(o, "ready", v->ready);
	json_add_str(o, "text", v->text);
	json_add_str(o, "advice", v->advice[0] ? v->advice : NULL);
	return o;
}

json_object *info_json(const struct info_facts *i)
{
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *missing = NULL, *v, *ueid, *dev, *errors;
	struct verdict vs[2];
	char ver[16];
	bool s = i->has_sysinfo;
	int r = 0;

	if (!o)
		return NULL;
	snprintf(ver, sizeof(ver), "%u.%u", i->sys.ver, i->sys.rel);
	r |= json_add_str(o, "kernel_release", i->caps.kernel_release);
	r |= json_add_bool(o, "smc_available", i->caps.smc_genl);
	r |= json_add_str(o, "smc_version", s ? ver : NULL);
	r |= json_add_str(o, "hostname", s ? i->sys.hostname : NULL);
	r |= add_opt(o, "smcd_features", features(s, i->sys.ism_v2));
	r |= add_opt(o, "smcr_features", features(s, i->sys.smcr_v2));
	r |= json_add(o, "capabilities", caps_json(i, &missing));
	r |= json_add(o, "missing", missing);

	ueid = json_object_new_object();
	r |= json_add(o, "ueids", ueid);
	r |= i->has_ueids ? json_add_u64(ueid, "configured", i->n_ueids)
			  : json_add_null(ueid, "configured");
	r |= json_add_u64(ueid, "max", SMC_UEID_MAX);

	v = json_object_new_object();
	r |= json_add(o, "seid", v);
	r |= json_add_bool(v, "supported", i->caps.seid_supported);
	r |= json_add_str(v, "value", i->has_seid && i->seid.seid[0] ? i->seid.seid : NULL);
	r |= json_add_bool(v, "enabled", i->has_seid && i->seid.seid[0] && i->seid.enabled);

	dev = json_object_new_object();
	r |= json_add(o, "devices", dev);
	r |= json_add_u64(dev, "ism", i->n_ism);
	r |= json_add_u64(dev, "loopback", i->n_loopback);
	r |= json_add_u64(dev, "rdma", i->n_smcr);
	r |= json_add_str(dev, "loopback_names", i->loopback_names[0] ? i->loopback_names : NULL);

	r |= json_add(o, "sysctls", sysctls_json(i));
	v = json_object_new_array();
	r |= json_add(o, "verdicts", v);
	verdicts(i, vs);
	for (size_t k = 0; k < ELEMENTSOF(vs); k++)
		r |= json_append(v, verdict_json(&vs[k]));
	errors = json_object_new_array();
	r |= json_add(o, "errors", errors);
	for (size_t k = 0; k < i->n_errors; k++)
		r |= json_append_str(errors, i->errors[k]);
	r |= json_add(o, "advice", advice_json(i->advice, i->n_advice));
	return r < 0 ? NULL : TAKE_PTR(o);
}

/* ---------------------------------------------------------------------------------- */
/* Text                                                                                */

static const struct out_column kernel_fields[] = {
	OUT_COL("kernel_release", "Kernel release", OUT_STR),
	OUT_COL("smc_version", "SMC version", OUT_STR),
	OUT_COL("hostname", "SMC hostname", OUT_STR),
	OUT_COL("smcd_features", "SMC-D features", OUT_LIST),
	OUT_COL("smcr_features", "SMC-R features", OUT_LIST),
	OUT_COL("seid.value", "SEID", OUT_STR),
	OUT_COL("ueids.configured", "UEIDs configured", OUT_U64),
	OUT_COL("devices.ism", "ISM devices", OUT_U64),
	OUT_COL("devices.loopback", "Loopback devices", OUT_U64),
	OUT_COL("devices.loopback_names", "Loopback names", OUT_STR, .detail = 1),
	OUT_COL("devices.rdma", "RDMA devices", OUT_U64),
};

/* "  label:   a b c", wrapped at 80 columns under the first item. */
static void print_list(struct smcctl *c, const char *label, json_object *arr)
{
	size_t n = arr ? json_object_array_length(arr) : 0, col = 18;

	fprintf(c->out, "  %-15s", label);
	if (n == 0)
		fputs(" -", c->out);
	for (size_t i = 0; i < n; i++) {
		const char *w = json_object_get_string(json_object_array_get_idx(arr, i));

		if (col > 18 && col + 1 + strlen(w) > 80) {
			fprintf(c->out, "\n%17s", "");
			col = 17;
		}
		fprintf(c->out, " %s", w);
		col += 1 + strlen(w);
	}
	fputc('\n', c->out);
}

void info_text(struct smcctl *c, json_object *doc)
{
	json_object *caps = out_get(doc, "capabilities"), *missing = out_get(doc, "missing");
	json_object *verdicts = out_get(doc, "verdicts"), *errors = out_get(doc, "errors");

	fputs("Kernel\n", c->out);
	out_kv(c->out, kernel_fields, ELEMENTSOF(kernel_fields), doc, c->detail, 2);

	fputs("\nCapabilities\n", c->out);
	for (size_t k = 0; k < ELEMENTSOF(capabilities); k++)
		fprintf(c->out, "  %-22s %s\n", capabilities[k].label,
			cap_state(capabilities[k].key, out_get_bool(caps, capabilities[k].key, false),
				  out_get_bool(caps, "loopback", false)));

	fputs("\nSysctls (net.smc)\n", c->out);
	print_list(c, "present:", out_get(doc, "sysctls.present"));
	print_list(c, "not in kernel:", out_get(doc, "sysctls.absent"));
	if (json_object_array_length(out_get(doc, "sysctls.unknown")))
		print_list(c, "unknown:", out_get(doc, "sysctls.unknown"));

	if (missing && json_object_array_length(missing)) {
		/* Without the module everything else is missing too: one line says it all. */
		bool no_module = !out_get_bool(caps, "smc_module", true) &&
				 !out_get_bool(caps, "smc_gen_netlink", false);

		fputs("\nMissing\n", c->out);
		for (size_t k = 0; k < json_object_array_length(missing); k++) {
			json_object *m = json_object_array_get_idx(missing, k);

			fprintf(c->out, "  %s: %s\n", out_get_str(m, "capability", "?"),
				out_get_str(m, "effect", ""));
			if (no_module) {
				fputs("  (and everything that depends on it)\n", c->out);
				break;
			}
		}
	}
	for (size_t k = 0; errors && k < json_object_array_length(errors); k++)
		fprintf(c->out, "%s  could not read %s\n", k ? "" : "\nErrors\n",
			json_object_get_string(json_object_array_get_idx(errors, k)));

	fputc('\n', c->out);
	for (size_t k = 0; verdicts && k < json_object_array_length(verdicts); k++) {
		json_object *v = json_object_array_get_idx(verdicts, k);
		const char *advice = out_get_str(v, "advice", NULL);

		fprintf(c->out, "%s: %s", out_get_str(v, "subject", "?"), out_get_str(v, "text", ""));
		if (advice)
			fprintf(c->out, " (%s)", advice);
		fputc('\n', c->out);
	}
	advice_print_json(c->out, out_get(doc, "advice"));
}

/* print_list()'s lines for a list of strings, each line written in one call. */
static void print_words(struct smcctl *c, const char *label, const char *const *w, size_t n)
{
	char buf[1024];
	size_t col = 18, len;

	len = (size_t)snprintf(buf, sizeof(buf), "  %-15s", label);
	if (n == 0)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, " -");
	for (size_t k = 0; k < n; k++) {
		size_t lw = strlen(w[k]);

		if (col > 18 && col + 1 + lw > 80) {
			buf[len++] = '\n';
			fwrite(buf, 1, len, c->out);
			len = (size_t)snprintf(buf, sizeof(buf), "%17s", "");
			col = 17;
		}
		/* A word longer than the buffer: what is there first, then the word. */
		if (len + 1 + lw + 1 > sizeof(buf)) {
			fwrite(buf, 1, len, c->out);
			len = 0;
			fprintf(c->out, " %s", w[k]);
		} else {
			buf[len++] = ' ';
			memcpy(buf + len, w[k], lw);
			len += lw;
		}
		col += 1 + lw;
	}
	buf[len++] = '\n';
	fwrite(buf, 1, len, c->out);
}

/*
 * "smcctl info" as it is mostly run (no -j): info_text() of info_json(), drawn from the
 * facts, so that the verb needs no json-c (cli/dl.c loads it on first use: a fifth of the
 * verb's instructions, bench/smcctl-vs-smctools).  test-cli-rows-text holds the two equal
 * for every recording and the synthetic hosts of test-cli-render, at both detail levels.
 */
int info_facts_text(struct smcctl *c, const struct info_facts *i)
{
	size_t n_known = 0, n_present = 0, n_absent = 0, n_unknown = 0;
	const struct smc_sysctl_desc *t = smc_sysctl_table(&n_known);
	const char **present = NULL, **absent = NULL, **unknown = NULL;
	char ver[16], smcd[8], smcr[8], seid[SMC_EID_LEN + 1], ueids[24], ism[24], lo[24], rdma[24];
	bool s = i->has_sysinfo, no_module, any_missing = false;
	struct verdict vs[2];
	const char *values[ELEMENTSOF(kernel_fields)];

	static_assert(ELEMENTSOF(kernel_fields) == 11, "info_facts_text() knows the fields");
	snprintf(ver, sizeof(ver), "%u.%u", i->sys.ver, i->sys.rel);
	snprintf(smcd, sizeof(smcd), "v1%s", i->sys.ism_v2 ? " v2" : "");
	snprintf(smcr, sizeof(smcr), "v1%s", i->sys.smcr_v2 ? " v2" : "");
	snprintf(seid, sizeof(seid), "%s", i->has_seid ? i->seid.seid : "");
	snprintf(ueids, sizeof(ueids), "%zu", i->n_ueids);
	values[0] = i->caps.kernel_release;
	values[1] = s ? ver : NULL;
	values[2] = s ? i->sys.hostname : NULL;
	values[3] = s ? smcd : NULL;
	values[4] = s ? smcr : NULL;
	values[5] = seid;
	values[6] = i->has_ueids ? ueids : NULL;
	values[7] = out_fmt_uint(i->n_ism, OUT_U64, ism, sizeof(ism));
	values[8] = out_fmt_uint(i->n_loopback, OUT_U64, lo, sizeof(lo));
	values[9] = i->loopback_names;
	values[10] = out_fmt_uint(i->n_smcr, OUT_U64, rdma, sizeof(rdma));
	fputs("Kernel\n", c->out);
	out_kv_cells(c->out, kernel_fields, ELEMENTSOF(kernel_fields), values, c->detail, 2);

	fputs("\nCapabilities\n", c->out);
	for (size_t k = 0; k < ELEMENTSOF(capabilities); k++) {
		bool v = cap_value(&i->caps, &capabilities[k]);

		/* "  %-22s %s\n", without printf (the labels are shorter than 22). */
		char line[40] = "                         "; /* 25 blanks */
		const char *state = cap_state(capabilities[k].key, v, i->caps.loopback);
		size_t ll = strnlen(capabilities[k].label, 22), lv = strlen(state);

		memcpy(line + 2, capabilities[k].label, ll);
		memcpy(line + 25, state, lv);
		line[25 + lv] = '\n';
		fwrite(line, 1, 25 + lv + 1, c->out);
		any_missing |= !v && !cap_not_needed(capabilities[k].key, v, i->caps.loopback);
	}

	/* The sysctl lists of sysctls_json(), pointing into the facts and the table. */
	present = calloc(i->n_sysctls + 1, sizeof(*present));
	unknown = calloc(i->n_sysctls + 1, sizeof(*unknown));
	absent = calloc(n_known + 1, sizeof(*absent));
	if (!present || !unknown || !absent) {
		/* Never "no sysctls": out of memory is said as such. */
		free(present);
		free(absent);
		free(unknown);
		return smcctl_oom(c);
	}
	for (size_t k = 0; k < i->n_sysctls; k++) {
		present[n_present++] = i->sysctls[k];
		if (!smc_sysctl_find(i->sysctls[k]))
			unknown[n_unknown++] = i->sysctls[k];
	}
	for (size_t k = 0; k < n_known; k++) {
		bool found = false;

		for (size_t m = 0; m < i->n_sysctls; m++)
			found |= streq(i->sysctls[m], t[k].name);
		if (!found)
			absent[n_absent++] = t[k].name;
	}
	fputs("\nSysctls (net.smc)\n", c->out);
	print_words(c, "present:", present, n_present);
	print_words(c, "not in kernel:", absent, n_absent);
	if (n_unknown)
		print_words(c, "unknown:", unknown, n_unknown);
	free(present);
	free(absent);
	free(unknown);

	if (any_missing) {
		/* Without the module everything else is missing too: one line says it all. */
		no_module = !cap_value(&i->caps, &capabilities[0]) && !i->caps.smc_genl;
		fputs("\nMissing\n", c->out);
		for (size_t k = 0; k < ELEMENTSOF(capabilities); k++) {
			bool v = cap_value(&i->caps, &capabilities[k]);

			if (v || cap_not_needed(capabilities[k].key, v, i->caps.loopback))
				continue;
			fprintf(c->out, "  %s: %s\n", capabilities[k].key, capabilities[k].missing);
			if (no_module) {
				fputs("  (and everything that depends on it)\n", c->out);
				break;
			}
		}
	}
	for (size_t k = 0; k < i->n_errors; k++)
		fprintf(c->out, "%s  could not read %s\n", k ? "" : "\nErrors\n", i->errors[k]);

	fputc('\n', c->out);
	verdicts(i, vs);
	for (size_t k = 0; k < ELEMENTSOF(vs); k++) {
		fprintf(c->out, "%s: %s", vs[k].subject, vs[k].text);
		if (vs[k].advice[0])
			fprintf(c->out, " (%s)", vs[k].advice);
		fputc('\n', c->out);
	}
	advice_print(c->out, i->advice, i->n_advice);
	return SMCCTL_EXIT_OK;
}

int info_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(info_facts_done) struct info_facts i = {};
	_cleanup_(json_object_putp) json_object *doc = NULL;
	struct smcnl *nl;
	int e, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	e = info_gather(c, &i);
	if (e < 0)
		return smcctl_fail(c, SMC_OP_QUERY, e, "cannot probe the kernel");
	if (!c->json) {
		s = info_facts_text(c, &i);
		if (s == SMCCTL_EXIT_OK)
			s = smcctl_emit(c, NULL, NULL);
	} else {
		doc = info_json(&i);
		if (!doc)
			return smcctl_oom(c);
		s = smcctl_emit(c, doc, info_text);
	}
	if (s == SMCCTL_EXIT_OK && !i.caps.smc_genl)
		return SMCCTL_EXIT_UNAVAILABLE;
	return s;
}
