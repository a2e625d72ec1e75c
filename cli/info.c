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
#include "common/smc-caps-names.h"
#include "common/stats-table.h"

/*
 * The capabilities info shows, in its order: the rows of common/smc-caps-names.c marked
 * info (they come first), one spelling with the agent's Capabilities property.
 */
static const struct smc_cap_name *info_caps(size_t *ret_n)
{
	size_t n, k = 0;
	const struct smc_cap_name *t = smc_caps_names(&n);

	while (k < n && t[k].info)
		k++;
	*ret_n = k;
	return t;
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
/* Verdicts                                                                            */

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

/* ---------------------------------------------------------------------------------- */
/* The answer: each field once, into a sink (common/output.h)                          */

/*
 * The text's sections, in their order (out_text_part()): the JSON has its keys in another
 * (the capabilities and what is missing before the UEIDs, SEID and devices the Kernel block
 * shows, the errors after the verdicts).
 */
enum {
	PART_KERNEL,
	PART_CAPS,
	PART_SYSCTLS,
	PART_MISSING,
	PART_ERRORS,
	PART_VERDICTS,
	PART_ADVICE,
};

enum {
	F_KERNEL_RELEASE,
	F_SMC_VERSION,
	F_HOSTNAME,
	F_SMCD_FEATURES,
	F_SMCR_FEATURES,
	F_SEID,
	F_UEIDS,
	F_ISM,
	F_LOOPBACK,
	F_LOOPBACK_NAMES,
	F_RDMA,
};

static const struct out_column kernel_fields[] = {
	[F_KERNEL_RELEASE] = OUT_COL("kernel_release", "Kernel release", OUT_STR),
	[F_SMC_VERSION] = OUT_COL("smc_version", "SMC version", OUT_STR),
	[F_HOSTNAME] = OUT_COL("hostname", "SMC hostname", OUT_STR),
	[F_SMCD_FEATURES] = OUT_COL("smcd_features", "SMC-D features", OUT_LIST),
	[F_SMCR_FEATURES] = OUT_COL("smcr_features", "SMC-R features", OUT_LIST),
	[F_SEID] = OUT_COL("seid.value", "SEID", OUT_STR),
	[F_UEIDS] = OUT_COL("ueids.configured", "UEIDs configured", OUT_U64),
	[F_ISM] = OUT_COL("devices.ism", "ISM devices", OUT_U64),
	[F_LOOPBACK] = OUT_COL("devices.loopback", "Loopback devices", OUT_U64),
	[F_LOOPBACK_NAMES] =
		OUT_COL("devices.loopback_names", "Loopback names", OUT_STR, .detail = 1),
	[F_RDMA] = OUT_COL("devices.rdma", "RDMA devices", OUT_U64),
};

/* "smcd_features": ["v1", "v2"], null without the system information; text "v1 v2". */
static void features_emit(struct out_sink *o, const char *key, int col, bool has, bool v2)
{
	if (!has) {
		out_null(o, key, col);
		return;
	}
	out_array_begin(o, key);
	out_str(o, NULL, OUT_NO_COL, "v1");
	if (v2)
		out_str(o, NULL, OUT_NO_COL, "v2");
	out_array_end(o);
	out_cell(o, col, v2 ? "v1 v2" : "v1");
}

/* "  label:   a b c", wrapped at 80 columns under the first item, each line one write. */
static void print_words(struct out_sink *o, const char *label, const char *const *w, size_t n)
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
			out_text_put(o, buf, len);
			len = (size_t)snprintf(buf, sizeof(buf), "%17s", "");
			col = 17;
		}
		/* A word longer than the buffer: what is there first, then the word. */
		if (len + 1 + lw + 1 > sizeof(buf)) {
			out_text_put(o, buf, len);
			len = 0;
			out_text(o, " %s", w[k]);
		} else {
			buf[len++] = ' ';
			memcpy(buf + len, w[k], lw);
			len += lw;
		}
		col += 1 + lw;
	}
	buf[len++] = '\n';
	out_text_put(o, buf, len);
}

/* A list of sysctl names: the JSON array key, the text's wrapped line. */
static void words_emit(struct out_sink *o, const char *key, const char *label, const char *const *w,
		       size_t n)
{
	out_array_begin(o, key);
	for (size_t k = 0; k < n; k++)
		out_str(o, NULL, OUT_NO_COL, w[k]);
	out_array_end(o);
	if (out_is_text(o))
		print_words(o, label, w, n);
}

/* "sysctls": present, absent (those of the table this kernel lacks), unknown (present, not
 * in the table); text: the Sysctls section. */
static int sysctls_emit(struct out_sink *o, const struct info_facts *i)
{
	size_t n_known = 0, n_present = 0, n_absent = 0, n_unknown = 0;
	const struct smc_sysctl_desc *t = smc_sysctl_table(&n_known);
	_cleanup_(freep) const char **present = calloc(i->n_sysctls + 1, sizeof(*present));
	_cleanup_(freep) const char **unknown = calloc(i->n_sysctls + 1, sizeof(*unknown));
	_cleanup_(freep) const char **absent = calloc(n_known + 1, sizeof(*absent));

	/* Never "no sysctls": out of memory is said as such. */
	if (!present || !unknown || !absent)
		return -ENOMEM;
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
	out_text_part(o, PART_SYSCTLS);
	out_puts(o, "\nSysctls (net.smc)\n");
	out_object_begin(o, "sysctls");
	words_emit(o, "present", "present:", present, n_present);
	words_emit(o, "absent", "not in kernel:", absent, n_absent);
	/* text: only when there are any */
	if (n_unknown || !out_is_text(o))
		words_emit(o, "unknown", "unknown:", unknown, n_unknown);
	out_object_end(o);
	return 0;
}

/* "capabilities" and "missing"; text: the Capabilities and Missing sections. */
static void caps_emit(struct out_sink *o, const struct info_facts *i)
{
	size_t n_caps;
	const struct smc_cap_name *caps = info_caps(&n_caps);
	/* Without the module everything else is missing too: one line says it all. */
	bool no_module = !smc_caps_value(&i->caps, &caps[0]) && !i->caps.smc_genl;
	size_t n_missing = 0;

	out_text_part(o, PART_CAPS);
	out_puts(o, "\nCapabilities\n");
	out_object_begin(o, "capabilities");
	for (size_t k = 0; k < n_caps; k++) {
		bool v = smc_caps_value(&i->caps, &caps[k]);

		out_bool(o, caps[k].key, OUT_NO_COL, v);
		if (out_is_text(o)) {
			/* "  %-22s %s\n" without printf (the labels are shorter than 22) */
			char line[40] = "                         "; /* 25 blanks */
			const char *state = cap_state(caps[k].key, v, i->caps.loopback);
			size_t ll = strnlen(caps[k].label, 22), lv = strlen(state);

			memcpy(line + 2, caps[k].label, ll);
			memcpy(line + 25, state, lv);
			line[25 + lv] = '\n';
			out_text_put(o, line, 25 + lv + 1);
		}
	}
	out_object_end(o);

	out_text_part(o, PART_MISSING);
	out_array_begin(o, "missing");
	for (size_t k = 0; k < n_caps; k++) {
		bool v = smc_caps_value(&i->caps, &caps[k]);

		if (v || cap_not_needed(caps[k].key, v, i->caps.loopback))
			continue;
		out_object_begin(o, NULL);
		out_str(o, "capability", OUT_NO_COL, caps[k].key);
		out_str(o, "effect", OUT_NO_COL, caps[k].missing);
		out_object_end(o);
		if (!no_module || n_missing == 0)
			out_text(o, "%s  %s: %s\n", n_missing ? "" : "\nMissing\n", caps[k].key,
				 caps[k].missing);
		if (no_module && n_missing == 0)
			out_puts(o, "  (and everything that depends on it)\n");
		n_missing++;
	}
	out_array_end(o);
}

int info_emit(struct out_sink *o, const struct info_facts *i)
{
	struct verdict vs[2];
	char ver[16], ueids[24];
	bool s = i->has_sysinfo, seid = i->has_seid && i->seid.seid[0];
	int r;

	snprintf(ver, sizeof(ver), "%u.%u", i->sys.ver, i->sys.rel);
	snprintf(ueids, sizeof(ueids), "%zu", i->n_ueids);
	out_object_begin(o, NULL);
	out_text_part(o, PART_KERNEL);
	out_puts(o, "Kernel\n");
	out_kv_begin(o, kernel_fields, ELEMENTSOF(kernel_fields), 2);
	out_str(o, "kernel_release", F_KERNEL_RELEASE, i->caps.kernel_release);
	out_bool(o, "smc_available", OUT_NO_COL, i->caps.smc_genl);
	out_str(o, "smc_version", F_SMC_VERSION, s ? ver : NULL);
	out_str(o, "hostname", F_HOSTNAME, s ? i->sys.hostname : NULL);
	features_emit(o, "smcd_features", F_SMCD_FEATURES, s, i->sys.ism_v2);
	features_emit(o, "smcr_features", F_SMCR_FEATURES, s, i->sys.smcr_v2);
	caps_emit(o, i);

	out_object_begin(o, "ueids");
	if (i->has_ueids)
		out_u64(o, "configured", F_UEIDS, i->n_ueids);
	else
		out_null(o, "configured", F_UEIDS);
	out_u64(o, "max", OUT_NO_COL, SMC_UEID_MAX);
	out_object_end(o);

	out_object_begin(o, "seid");
	out_bool(o, "supported", OUT_NO_COL, i->caps.seid_supported);
	out_str(o, "value", F_SEID, seid ? i->seid.seid : NULL);
	out_bool(o, "enabled", OUT_NO_COL, seid && i->seid.enabled);
	out_object_end(o);

	out_object_begin(o, "devices");
	out_u64(o, "ism", F_ISM, i->n_ism);
	out_u64(o, "loopback", F_LOOPBACK, i->n_loopback);
	out_u64(o, "rdma", F_RDMA, i->n_smcr);
	out_str(o, "loopback_names", F_LOOPBACK_NAMES,
		i->loopback_names[0] ? i->loopback_names : NULL);
	out_object_end(o);
	out_text_part(o, PART_KERNEL);
	out_kv_end(o);

	if ((r = sysctls_emit(o, i)) < 0) {
		out_sink_done(o);
		return r;
	}

	out_text_part(o, PART_VERDICTS);
	out_puts(o, "\n");
	out_array_begin(o, "verdicts");
	verdicts(i, vs);
	for (size_t k = 0; k < ELEMENTSOF(vs); k++) {
		out_object_begin(o, NULL);
		out_str(o, "subject", OUT_NO_COL, vs[k].subject);
		out_bool(o, "ready", OUT_NO_COL, vs[k].ready);
		out_str(o, "text", OUT_NO_COL, vs[k].text);
		out_str(o, "advice", OUT_NO_COL, vs[k].advice[0] ? vs[k].advice : NULL);
		out_object_end(o);
		out_text(o, "%s: %s%s%s%s\n", vs[k].subject, vs[k].text,
			 vs[k].advice[0] ? " (" : "", vs[k].advice, vs[k].advice[0] ? ")" : "");
	}
	out_array_end(o);

	out_text_part(o, PART_ERRORS);
	out_array_begin(o, "errors");
	for (size_t k = 0; k < i->n_errors; k++) {
		out_str(o, NULL, OUT_NO_COL, i->errors[k]);
		out_text(o, "%s  could not read %s\n", k ? "" : "\nErrors\n", i->errors[k]);
	}
	out_array_end(o);

	out_text_part(o, PART_ADVICE);
	advice_emit(o, "advice", i->advice, i->n_advice);
	out_object_end(o);
	return out_sink_done(o);
}

int info_show(struct smcctl *c, const struct verb_args *a)
{
	_cleanup_(info_facts_done) struct info_facts i = {};
	struct out_sink o;
	struct smcnl *nl;
	int e, s;

	if ((s = smcctl_nl(c, &nl)))
		return s;
	e = info_gather(c, &i);
	if (e < 0)
		return smcctl_fail(c, SMC_OP_QUERY, e, "cannot probe the kernel");
	/* -j streamed, the text laid out: no document, no json-c (cli/dl.c loads it on
	 * first use: a fifth of the verb's instructions, bench/smcctl-vs-smctools). */
	if (c->json)
		out_sink_json(&o, c->out, c->pretty);
	else
		out_sink_text(&o, c->out, c->detail);
	if (info_emit(&o, &i) == -ENOMEM)
		return smcctl_oom(c);
	s = smcctl_flush(c);
	if (s == SMCCTL_EXIT_OK && !i.caps.smc_genl)
		return SMCCTL_EXIT_UNAVAILABLE;
	return s;
}
