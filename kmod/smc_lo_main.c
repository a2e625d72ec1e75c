// SPDX-License-Identifier: GPL-2.0
/*
 * smc_lo: a controllable SMC-D loopback device for the DIBS layer (Linux 6.18 and later).
 *
 * The built-in DIBS loopback device ("lo") has no controls.  This module registers a
 * second loopback device (fabric 0xffff, default name "smclo") that can be activated,
 * drained and deactivated at run time and whose settings (nocopy, max DMBs) can be
 * chosen, all through the SMC_LO generic netlink family (netlink/uapi/smc_lo.h,
 * man/smc-lo.4).
 *
 * Virtually contiguous DMBs: refused.  SMC-D (net/smc/smc_core.c, smcd_new_buf_create)
 * stores virt_to_page(cpu_addr) of every DMB and smc_rx_splice() hands that one page,
 * with offsets across the whole buffer, to get_page() and the pipe.  For vmalloc memory
 * virt_to_page() is not a valid page: CONFIG_DEBUG_VIRTUAL BUGs at registration, other
 * kernels touch a struct page that does not belong to the buffer.  The guest test
 * tests/vm/guest/kmod-vdmb-proof.sh demonstrates both with a build made only for that
 * purpose (make SMC_LO_UNSAFE_VIRT_DMB=1); such a build taints the kernel as a test
 * module and is never installed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "smc_lo_int.h"

static bool activate;
module_param(activate, bool, 0444);
MODULE_PARM_DESC(activate, "Activate the device at load time (default: no; see smc-lo(4))");

static bool nocopy = true;
module_param(nocopy, bool, 0444);
MODULE_PARM_DESC(nocopy, "Initial nocopy setting (default: yes)");

static uint max_dmbs = SMC_LO_MAX_DMBS_DEFAULT;
module_param(max_dmbs, uint, 0444);
MODULE_PARM_DESC(max_dmbs, "Initial max DMBs, 1..32768 (default: 5000)");

static char *devname = SMC_LO_DEFAULT_DEVNAME;
module_param(devname, charp, 0444);
MODULE_PARM_DESC(devname, "DIBS device name (default: smclo; \"lo\" is the built-in one)");

struct smclo_ctl smclo_ctl = {
	.lock = __MUTEX_INITIALIZER(smclo_ctl.lock),
};

/* The name is a sysfs name and what SMC's pnet table matches as IBNAME (< 64 bytes). */
static bool smclo_devname_valid(const char *name)
{
	size_t len = strlen(name);

	return len && len < 64 && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

static int __init smclo_init(void)
{
	int rc;

	if (max_dmbs < SMC_LO_MAX_DMBS_MIN || max_dmbs > SMC_LO_MAX_DMBS_MAX) {
		pr_err("max_dmbs must be %u..%u\n", SMC_LO_MAX_DMBS_MIN, SMC_LO_MAX_DMBS_MAX);
		return -EINVAL;
	}
	if (!smclo_devname_valid(devname)) {
		pr_err("devname must be 1..63 characters without '/'\n");
		return -EINVAL;
	}
	if (smclo_unsafe_virt_allowed())
		pr_warn("TEST BUILD: accepts virtual DMBs, which corrupt memory with SMC-D\n");

	smclo_ctl.devname = devname;
	smclo_ctl.next.dmb_type = SMC_LO_DMB_PHYS;
	smclo_ctl.next.nocopy = nocopy;
	smclo_ctl.next.max_dmbs = max_dmbs;

	smclo_ctl.wq = alloc_ordered_workqueue("smc_lo", 0);
	if (!smclo_ctl.wq)
		return -ENOMEM;
	rc = smclo_stats_init();
	if (rc)
		goto err_wq;
	rc = smclo_genl_init();
	if (rc)
		goto err_stats;
	if (activate) {
		rc = smclo_activate(NULL);
		if (rc) {
			pr_err("activating device %s failed: %d\n", devname, rc);
			goto err_genl;
		}
	}
	return 0;

err_genl:
	smclo_genl_exit();
err_stats:
	smclo_stats_exit();
err_wq:
	destroy_workqueue(smclo_ctl.wq);
	return rc;
}

/*
 * Runs only when no DMB pins the module (rmmod says "in use" otherwise), so the device
 * can be removed without waiting for applications.
 */
static void __exit smclo_exit(void)
{
	smclo_genl_exit();
	smclo_remove_all();
	destroy_workqueue(smclo_ctl.wq);
	/* DMB free callbacks run module code. */
	rcu_barrier();
	smclo_stats_exit();
}

module_init(smclo_init);
module_exit(smclo_exit);

MODULE_DESCRIPTION("Controllable SMC-D loopback device (DIBS) with the SMC_LO netlink family");
MODULE_LICENSE("GPL");
MODULE_ALIAS_GENL_FAMILY(SMC_LO_GENL_NAME);
#ifdef SMC_LO_UNSAFE_VIRT_DMB
MODULE_INFO(test, "Y");
#endif
