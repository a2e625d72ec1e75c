// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * THE table: every object and verb of smcctl.  Dispatch, "smcctl help", "smcctl OBJECT
 * help" with each verb's examples, the man page's synopsis and EXAMPLES (checked by
 * tests/unit/test-cli-verbs.c, which also parses every example) and completion come from
 * here.
 *
 * Words may be abbreviated to any unambiguous prefix; unlike smc-tools, an ambiguous
 * prefix is an error that lists the candidates instead of silently taking the first entry
 * in table order ("s" is stats? seid? socket? sysctl?).
 *
 * "stats reset" needs smcd-agent.  The kernel has no reset: smc-tools fakes one with a
 * per-UID baseline file in /tmp, which is shared across network namespaces, breaks on
 * upgrades and is unsafe in a world-writable directory.  The baseline belongs to the agent
 * (cli/stats-agent.c, smcd-agent/stats-engine.c); without it the verb says so.
 */
/*
 * One short letter, one meaning, in every verb and among the global options
 * (tests/unit/test-cli-verbs.c test_short_letters fails otherwise).  Where two verbs
 * wanted a letter, the meaning users already know from the tools they come from kept it:
 *   -a --all, -l --listening, -D --smcd, -R --smcr: smcss; -I --eth, -P --port: smc_pnet
 *      (whose -D is the device: "pnet add --ib" is -i here, as -D is --smcd everywhere);
 *   -A --absolute: smcd stats (-a there, but -a is --all here, as in smcss);
 *   -p --processes: ss -p (pretty JSON is --json=pretty; --pretty stays as its alias);
 *   -c --count: ping -c; --cgroup (assess, enable), a path typed rarely, is long-only;
 *   -t --duration: iperf3 -t, sockperf -t: how long to measure is what a user of
 *      "assess" sets; a timeout is a safety net rarely changed, long-only as systemctl's
 *      and busctl's --timeout ("check --timeout");
 *   --all-netns and --agent (assess) are long-only: rare, and their letters were taken.
 */
#include <getopt.h>
#include <limits.h>

#include "cli/agent.h"
#include "cli/bundle.h"
#include "cli/loopback.h"
#include "cli/oci-hook.h"
#include "cli/verbs.h"
#include "cli/run.h"

/* The handlers only the table calls (cli/smcctl.h, verb_fn): */
verb_fn assess_run;
verb_fn auto_verb_explain;
verb_fn auto_verb_forget;
verb_fn auto_verb_freeze;
verb_fn auto_verb_list;
verb_fn auto_verb_thaw;
verb_fn check_run;
verb_fn hslimit_show;
verb_fn seid_show;
verb_fn sysctl_show;
verb_fn ueid_derive_verb;
verb_fn ueid_list;
verb_fn unit_disable;
verb_fn unit_enable;

/* Tables read better aligned by hand: */
/* clang-format off */

/* A verb's examples (struct verb_example), terminated. */
#define EXAMPLES(...) ((const struct verb_example[]){ __VA_ARGS__, {} })

static const struct verb status_verbs[] = {
	{ .name = "show", .flags = VERB_DEFAULT | VERB_PAGER, .run = agent_status,
	  .help = "smcd-agent: state, config, reconcile, drift",
	  .examples = EXAMPLES({ "smcctl status", "is smcd-agent running, and is smc.yaml applied?" }) },
	{}
};

static const struct verb config_verbs[] = {
	{ .name = "show", .flags = VERB_DEFAULT | VERB_PAGER, .run = agent_config_show,
	  .help = "the effective smc.yaml, defaults filled in",
	  .examples = EXAMPLES({ "smcctl config", "the settings smcd-agent applies, defaults filled in" }) },
	{ .name = "check", .synopsis = "[FILE]", .max_args = 1, .run = agent_config_check,
	  .help = "validate smc.yaml without applying it",
	  .examples = EXAMPLES({ "smcctl config check", "validate /etc/smc/smc.yaml (none: the defaults)" },
				{ "smcctl config check /tmp/smc.yaml", "validate a new file before installing it" }) },
	{ .name = "reload", .flags = VERB_ADMIN, .run = agent_config_reload,
	  .help = "make smcd-agent apply its file again",
	  .examples = EXAMPLES({ "smcctl config reload", "apply the edited /etc/smc/smc.yaml now" }) },
	{ .name = "diff", .synopsis = "[FILE]", .max_args = 1, .flags = VERB_PAGER,
	  .run = agent_config_diff,
	  .help = "what applying FILE would change, dry run",
	  .examples = EXAMPLES({ "smcctl config diff /tmp/smc.yaml", "what installing this file would change" }) },
	{}
};

static const struct verb_opt ueid_derive_opts[] = {
	[UEID_DERIVE_OPT_FILE] = { "machine-id-file", 0, "FILE",
				   "read the machine ID from FILE (default /etc/machine-id)" },
	[UEID_DERIVE_OPT_APPLY] = { "apply", 0, NULL,
				    "add the UEID unless present (needs CAP_NET_ADMIN)" },
	[UEID_DERIVE_OPT_DERIVE] = { "derive", 0, "app-specific|machine-id",
				     "how (default app-specific; smc.yaml(5) ueid.derive)" },
	{}
};

static const struct verb_opt filter_opts[] = {
	[FILTER_OPT_SMCD] = { "smcd", 'D', NULL, "SMC-D only" },
	[FILTER_OPT_SMCR] = { "smcr", 'R', NULL, "SMC-R only" },
	{}
};

static const struct verb_opt socket_opts[] = {
	[SOCKET_OPT_ALL] = { "all", 'a', NULL, "all sockets, including listening and new ones" },
	[SOCKET_OPT_LISTENING] = { "listening", 'l', NULL, "listening sockets only" },
	[SOCKET_OPT_SMCD] = { "smcd", 'D', NULL, "SMC-D sockets only" },
	[SOCKET_OPT_SMCR] = { "smcr", 'R', NULL, "SMC-R sockets only" },
	/* 'p' as in `ss -p` */
	[SOCKET_OPT_PROCESSES] = { "processes", 'p', NULL,
				   "the processes holding each socket, with their unit" },
	{}
};

static const struct verb_opt pnet_add_opts[] = {
	[PNET_ADD_OPT_ETH] = { "eth", 'I', "IFACE", "an Ethernet interface (per netns)" },
	[PNET_ADD_OPT_IB] = { "ib", 'i', "DEV", "an RDMA or SMC-D (DIBS) device: mlx5_0, lo" },
	[PNET_ADD_OPT_PORT] = { "port", 'P', "1|2", "the RDMA device port",
				.type = VERB_OPT_COUNT, .min = 1, .max = 2, .def = 1 },
	{}
};

static const struct verb_opt loopback_opts[] = {
	/* The module's bound (netlink/smclo.h), with or without the agent: cli/loopback.c. */
	[LOOPBACK_OPT_WAIT] = { "wait", 'w', "S", "deactivate: drain for at most S",
				.type = VERB_OPT_SECONDS, .min = 1, .max = SMCLO_WAIT_MAX_S,
				.def = 10, .unit = "seconds",
				.why = "0 (no drain) can hang in SMC 7.3, see smc-lo(4)" },
	{}
};

static const struct verb_opt stats_opts[] = {
	[STATS_OPT_ALL] = { "all", 'a', NULL, "both technologies and every counter, even zero" },
	[STATS_OPT_SMCD] = { "smcd", 'D', NULL, "SMC-D only" },
	[STATS_OPT_SMCR] = { "smcr", 'R', NULL, "SMC-R only" },
	[STATS_OPT_KERNEL] = { "kernel", 'K', NULL, "read the kernel directly, not smcd-agent" },
	[STATS_OPT_ABSOLUTE] = { "absolute", 'A', NULL,
				 "counts since smc was loaded, not since 'stats reset'" },
	{}
};

static const struct verb info_verbs[] = {
	{ .name = "show", .flags = VERB_DEFAULT | VERB_PAGER, .run = info_show,
	  .help = "SMC version, features, what is missing",
	  .examples = EXAMPLES({ "smcctl info", "what this kernel offers for SMC and the next step" }) },
	{}
};

static const struct verb ueid_verbs[] = {
	{ .name = "list", .alias = "show", .flags = VERB_DEFAULT | VERB_PAGER, .run = ueid_list,
	  .help = "the User Defined EIDs (global, at most 4)",
	  .examples = EXAMPLES({ "smcctl ueid", "the UEIDs this host offers" }) },
	{ .name = "add", .synopsis = "UEID", .min_args = 1, .max_args = 1,
	  .flags = VERB_ADMIN, .run = agent_ueid_add, .help = "add a UEID",
	  .examples = EXAMPLES({ "smcctl ueid add SHOP-PROD", "use SMC-Dv2 with every host that adds it too" }) },
	{ .name = "del", .alias = "delete", .synopsis = "UEID", .min_args = 1, .max_args = 1,
	  .flags = VERB_ADMIN, .run = agent_ueid_del, .help = "remove a UEID",
	  .examples = EXAMPLES({ "smcctl ueid del SHOP-PROD", "stop offering this UEID" }) },
	{ .name = "flush", .flags = VERB_ADMIN, .run = agent_ueid_flush,
	  .help = "remove every UEID",
	  .examples = EXAMPLES({ "smcctl ueid flush", "remove every UEID" }) },
	{ .name = "derive", .synopsis = "[--machine-id-file FILE] [--derive HOW] [--apply]",
	  .opts = ueid_derive_opts, .run = ueid_derive_verb,
	  .help = "print the machine's UEID; --apply adds it",
	  .examples = EXAMPLES({ "smcctl ueid derive", "the UEID this machine would use" },
				{ "smcctl ueid derive --apply", "add it, unless present (safe at every boot)" }) },
	{}
};

static const struct verb seid_verbs[] = {
	{ .name = "show", .flags = VERB_DEFAULT, .run = seid_show,
	  .help = "the System EID (s390 only)",
	  .examples = EXAMPLES({ "smcctl seid", "the System EID and whether it is offered" }) },
	{ .name = "enable", .flags = VERB_ADMIN, .run = agent_seid_enable,
	  .help = "offer the SEID (s390 only)",
	  .examples = EXAMPLES({ "smcctl seid enable", "offer the SEID again" }) },
	{ .name = "disable", .flags = VERB_ADMIN, .run = agent_seid_disable,
	  .help = "stop offering it (s390; needs a UEID)",
	  .examples = EXAMPLES({ "smcctl seid disable", "SMC-Dv2 by UEID only (add a UEID first)" }) },
	{}
};

static const struct verb device_verbs[] = {
	{ .name = "list", .synopsis = "[--smcd|--smcr]", .opts = filter_opts,
	  .flags = VERB_DEFAULT | VERB_PAGER, .run = device_list,
	  .help = "SMC-D and SMC-R devices and their use",
	  .examples = EXAMPLES({ "smcctl device", "every SMC-D and SMC-R device and its use" },
				{ "smcctl device list --smcd", "SMC-D devices only" }) },
	{ .name = "show", .synopsis = "NAME", .min_args = 1, .max_args = 1, .flags = VERB_PAGER,
	  .run = device_show,
	  .help = "one SMC-D, RDMA or network device",
	  .examples = EXAMPLES({ "smcctl device show smclo", "the smc_lo device in detail" }) },
	{ .name = "loopback-ism",
	  .synopsis = "[activate|deactivate|set|show] [SETTING VALUE] [--wait S]",
	  .max_args = 3, .opts = loopback_opts, .flags = VERB_ADMIN, .run = loopback_ism,
	  .help = "smc_lo's device: activate, drain, settings",
	  .examples = EXAMPLES({ "smcctl device loopback-ism show", "smclo's state and settings" },
				{ "smcctl device loopback-ism deactivate --wait 30", "drain smclo for up to 30 seconds, then stop it" }) },
	{}
};

static const struct verb linkgroup_verbs[] = {
	{ .name = "list", .synopsis = "[--smcd|--smcr]", .opts = filter_opts,
	  .flags = VERB_DEFAULT | VERB_PAGER, .run = agent_linkgroup_list,
	  .help = "link groups (-d: in detail)",
	  .examples = EXAMPLES({ "smcctl linkgroup --smcd", "the SMC-D link groups" },
				{ "smcctl -d linkgroup", "every link group in detail" }) },
	{ .name = "show", .synopsis = "[ID|all]", .max_args = 1, .flags = VERB_PAGER,
	  .run = agent_linkgroup_show,
	  .help = "link groups in detail, with links",
	  .examples = EXAMPLES({ "smcctl linkgroup show 00000100", "one link group with its links" }) },
	{}
};

static const struct verb socket_verbs[] = {
	{ .name = "list", .synopsis = "[-a|-l] [--smcd|--smcr] [-p]", .opts = socket_opts,
	  .flags = VERB_DEFAULT | VERB_PAGER, .run = socket_list,
	  .help = "SMC sockets, mode and fallback reason",
	  .examples = EXAMPLES({ "smcctl socket", "SMC sockets, their mode and why TCP" },
				{ "smcctl socket -p", "with the process and unit holding each" }) },
	{}
};

static const struct verb pnet_verbs[] = {
	{ .name = "list", .alias = "show", .synopsis = "[PNETID]", .max_args = 1,
	  .flags = VERB_DEFAULT | VERB_PAGER, .run = pnet_list,
	  .help = "the PNET table (this netns)",
	  .examples = EXAMPLES({ "smcctl pnet", "the PNET table of this network namespace" }) },
	{ .name = "add", .synopsis = "PNETID --eth IFACE | --ib DEV [--port 1|2]",
	  .min_args = 1, .max_args = 1, .opts = pnet_add_opts, .flags = VERB_ADMIN,
	  .run = agent_pnet_add, .help = "map a device to a PNET ID",
	  .examples = EXAMPLES({ "smcctl pnet add NET1 --eth eth0", "eth0 is on the network NET1" },
				{ "smcctl pnet add NET1 --ib mlx5_0 --port 1", "and so is port 1 of RDMA device mlx5_0" }) },
	{ .name = "del", .alias = "delete", .synopsis = "PNETID", .min_args = 1, .max_args = 1,
	  .flags = VERB_ADMIN, .run = agent_pnet_del, .help = "remove every entry of a PNET ID",
	  .examples = EXAMPLES({ "smcctl pnet del NET1", "remove every entry of NET1" }) },
	{ .name = "flush", .flags = VERB_ADMIN, .run = agent_pnet_flush,
	  .help = "remove every entry",
	  .examples = EXAMPLES({ "smcctl pnet flush", "empty the PNET table of this namespace" }) },
	{}
};

static const struct verb sysctl_verbs[] = {
	{ .name = "show", .alias = "list", .synopsis = "[NAME]", .max_args = 1,
	  .flags = VERB_DEFAULT | VERB_PAGER, .run = sysctl_show,
	  .help = "net.smc.* with unit and default",
	  .examples = EXAMPLES({ "smcctl sysctl", "every net.smc.* sysctl with unit and default" },
				{ "smcctl sysctl show wmem", "one of them" }) },
	{ .name = "set", .synopsis = "NAME VALUE", .min_args = 2, .max_args = 2,
	  .flags = VERB_ADMIN, .run = agent_sysctl_set,
	  .help = "set a net.smc.* sysctl (this netns)",
	  .examples = EXAMPLES({ "smcctl sysctl set wmem 1MiB", "bigger send buffers for new SMC sockets" }) },
	{}
};

static const struct verb hslimit_verbs[] = {
	{ .name = "show", .flags = VERB_DEFAULT, .run = hslimit_show,
	  .help = "handshake limitation (this netns)",
	  .examples = EXAMPLES({ "smcctl hs-limit", "is handshake limitation on here?" }) },
	{ .name = "enable", .flags = VERB_ADMIN, .run = agent_hslimit_enable,
	  .help = "fall back to TCP when handshakes queue",
	  .examples = EXAMPLES({ "smcctl hs-limit enable", "fall back to TCP while handshakes queue" }) },
	{ .name = "disable", .flags = VERB_ADMIN, .run = agent_hslimit_disable,
	  .help = "never limit SMC handshakes",
	  .examples = EXAMPLES({ "smcctl hs-limit disable", "never limit SMC handshakes" }) },
	{}
};

static const struct verb stats_verbs[] = {
	{ .name = "show", .synopsis = "[-a] [--smcd|--smcr] [--kernel] [--absolute]",
	  .opts = stats_opts, .flags = VERB_DEFAULT | VERB_PAGER, .run = agent_stats_show,
	  .help = "counters, fallback reasons and advice",
	  .examples = EXAMPLES({ "smcctl stats", "counters and fallback reasons since stats reset" },
				{ "smcctl stats --kernel --absolute", "the kernel's counters since smc was loaded" }) },
	{ .name = "reset", .flags = VERB_ADMIN, .run = agent_stats_reset,
	  .help = "count from 0 again (smcd-agent)",
	  .examples = EXAMPLES({ "smcctl stats reset", "count from 0 again" }) },
	{}
};

static const struct verb monitor_verbs[] = {
	{ .name = "events", .flags = VERB_DEFAULT, .run = monitor_events,
	  .help = "link groups, fallbacks, drift as they happen",
	  .examples = EXAMPLES({ "smcctl monitor", "follow link groups, fallbacks and drift" },
				{ "smcctl -j monitor", "the same, one JSON document a line" }) },
	{}
};

static const struct verb_opt run_opts[] = {
	[RUN_OPT_METHOD] = { "method", 'm', "auto|bpf|preload",
			     "BPF (IPPROTO_SMC) or LD_PRELOAD; default auto" },
	[RUN_OPT_SNDBUF] = { "sndbuf", 0, "SIZE", "SO_SNDBUF of its SMC sockets, e.g. 1MiB" },
	[RUN_OPT_RCVBUF] = { "rcvbuf", 0, "SIZE", "SO_RCVBUF of its SMC sockets" },
	[RUN_OPT_QUIET] = { "quiet", 'q', NULL, "do not say which method was used" },
	{}
};

static const struct verb_opt check_opts[] = {
	[CHECK_OPT_LISTEN] = { "listen", 'L', "PORT", "answer checks from other hosts on PORT",
			       .type = VERB_OPT_COUNT, .min = 1, .max = 65535 },
	[CHECK_OPT_ADDRESS] = { "address", 0, "ADDR",
				"with --listen: the IPv4 address to answer on (0.0.0.0: all)" },
	[CHECK_OPT_COUNT] = { "count", 'c', "N", "with --listen: stop after N checks",
			      .type = VERB_OPT_COUNT, .min = 1, .max = 1000000, .unit = "checks" },
	[CHECK_OPT_TIMEOUT] = { "timeout", 0, "S", "give up a wait after S",
				.type = VERB_OPT_SECONDS, .min = 1, .max = 3600, .def = 10,
				.unit = "seconds" },
	{}
};

static const struct verb check_verbs[] = {
	{ .name = "connection", .synopsis = "[HOST PORT | -L PORT --address ADDR [-c N]] [--timeout S]",
	  .max_args = 2, .opts = check_opts, .flags = VERB_DEFAULT | VERB_ARGS, .run = check_run,
	  .help = "test one SMC connection, say what it used",
	  .examples = EXAMPLES({ "smcctl check", "SMC-D loopback on this host: used, or why not" },
				{ "smcctl check -L 5000 --address 192.0.2.5", "answer checks from other hosts on port 5000" },
				{ "smcctl check 192.0.2.7 5000", "one connection to that host: SMC-D, SMC-R or TCP" }) },
	{}
};

static const struct verb_opt assess_opts[] = {
	[ASSESS_OPT_DURATION] = { "duration", 't', "S", "observe for S",
				  .type = VERB_OPT_SECONDS, .min = 1, .max = 86400, .def = 30,
				  .unit = "seconds" },
	[ASSESS_OPT_ALL_NETNS] = { "all-netns", 0, NULL, "every network namespace, not only this one" },
	[ASSESS_OPT_CGROUP] = { "cgroup", 0, "PATH", "only processes of cgroup PATH and below" },
	[ASSESS_OPT_METHOD] = { "method", 'm', "auto|bpf|sock_diag",
				"BPF tracing, or inet_diag samples; default auto" },
	[ASSESS_OPT_AGENT] = { "agent", 0, NULL,
			       "show smcd-agent's last window (assess.interval) instead" },
	{}
};

static const struct verb assess_verbs[] = {
	{ .name = "observe",
	  .synopsis = "[-t S] [--all-netns] [--cgroup PATH] [-m METHOD] | --agent",
	  .opts = assess_opts, .flags = VERB_DEFAULT, .run = assess_run,
	  .help = "watch TCP, say where SMC would pay off",
	  .examples = EXAMPLES({ "smcctl assess", "watch TCP for 30 seconds: would SMC pay off?" },
				{ "smcctl assess -t 5m --cgroup /system.slice/nginx.service", "nginx's connections, for five minutes" },
				{ "smcctl assess --agent", "smcd-agent's last window instead" }) },
	{}
};

static const struct verb run_verbs[] = {
	{ .name = "exec", .synopsis = "[-m METHOD] [--sndbuf SIZE] [--rcvbuf SIZE] [-q] [--] COMMAND...",
	  .min_args = 1, .max_args = UINT_MAX, .opts = run_opts,
	  .flags = VERB_DEFAULT | VERB_COMMAND, .run = run_command,
	  .help = "run COMMAND with its TCP sockets as SMC",
	  .examples = EXAMPLES({ "smcctl run sockperf sr --tcp", "a program's TCP sockets as SMC, unchanged" },
				{ "smcctl run -m preload -- redis-server", "the same with LD_PRELOAD" }) },
	{}
};

static const struct verb policy_verbs[] = {
	{ .name = "list", .alias = "show", .flags = VERB_DEFAULT | VERB_PAGER, .run = policy_list,
	  .help = "smc.yaml policies as smcd-agent applies them",
	  .examples = EXAMPLES({ "smcctl policy", "which cgroups and netns smcd-agent switched" }) },
	{ .name = "flush", .flags = VERB_ADMIN, .run = policy_flush,
	  .help = "remove the programs smcd-agent left pinned",
	  .examples = EXAMPLES({ "smcctl policy flush", "remove the programs smcd-agent left pinned" }) },
	{}
};

static const struct verb auto_verbs[] = {
	{ .name = "list", .alias = "show", .flags = VERB_DEFAULT | VERB_PAGER, .run = auto_verb_list,
	  .help = "workloads the autopilot follows, its decisions",
	  .examples = EXAMPLES({ "smcctl auto", "what the autopilot decided for each workload, and why" }) },
	{ .name = "explain", .synopsis = "WORKLOAD", .min_args = 1, .max_args = 1,
	  .flags = VERB_PAGER, .run = auto_verb_explain,
	  .help = "one workload's decision and its evidence",
	  .examples = EXAMPLES({ "smcctl auto explain redis.service", "why redis is on SMC: its baseline and windows" },
				{ "smcctl auto explain /system.slice/redis.service", "the same, named by its cgroup" }) },
	{ .name = "freeze", .synopsis = "WORKLOAD", .min_args = 1, .max_args = 1,
	  .flags = VERB_ADMIN, .run = auto_verb_freeze,
	  .help = "keep a workload as it is: no more changes",
	  .examples = EXAMPLES({ "smcctl auto freeze redis.service", "the autopilot leaves redis as it is now" }) },
	{ .name = "thaw", .synopsis = "WORKLOAD", .min_args = 1, .max_args = 1,
	  .flags = VERB_ADMIN, .run = auto_verb_thaw,
	  .help = "let the autopilot decide for it again",
	  .examples = EXAMPLES({ "smcctl auto thaw redis.service", "undo freeze: the autopilot decides again" }) },
	{ .name = "forget", .synopsis = "WORKLOAD", .min_args = 1, .max_args = 1,
	  .flags = VERB_ADMIN, .run = auto_verb_forget,
	  .help = "drop its evidence and decision, start over",
	  .examples = EXAMPLES({ "smcctl auto forget redis.service", "start over with redis after it changed" }) },
	{}
};

static const struct verb_opt enable_opts[] = {
	[UNIT_OPT_CGROUP] = { "cgroup", 0, "PATH",
			      "this cgroup, without asking systemd (e.g. /system.slice/x.service)" },
	[UNIT_OPT_CONFIG] = { "config", 0, "FILE",
			      "without smcd-agent: the drop-ins of FILE (default /etc/smc/smc.yaml)" },
	{}
};

static const struct verb_opt disable_opts[] = {
	[DISABLE_OPT_CONFIG] = { "config", 0, "FILE",
			      "without smcd-agent: the drop-ins of FILE (default /etc/smc/smc.yaml)" },
	{}
};

/* "unit" is the only verb: "smcctl enable nginx" is "smcctl enable unit nginx". */
static const struct verb enable_verbs[] = {
	{ .name = "unit", .synopsis = "UNIT [--cgroup PATH] [--config FILE]", .min_args = 1,
	  .max_args = 1, .opts = enable_opts, .flags = VERB_DEFAULT | VERB_ARGS | VERB_ADMIN,
	  .run = unit_enable, .help = "switch UNIT's sockets to SMC (a drop-in)",
	  .examples = EXAMPLES({ "smcctl enable nginx", "nginx.service's new sockets use SMC" },
				{ "smcctl enable myapp --cgroup /myapp", "without systemd: name the cgroup" }) },
	{}
};

static const struct verb disable_verbs[] = {
	{ .name = "unit", .synopsis = "UNIT [--config FILE]", .min_args = 1, .max_args = 1,
	  .opts = disable_opts, .flags = VERB_DEFAULT | VERB_ARGS | VERB_ADMIN,
	  .run = unit_disable, .help = "remove UNIT's drop-in: TCP again",
	  .examples = EXAMPLES({ "smcctl disable nginx", "nginx.service's sockets are TCP again" }) },
	{}
};

static const struct verb_opt oci_hook_opts[] = {
	[OCI_HOOK_OPT_TIMEOUT] = { "timeout", 0, "S", "give up asking smcd-agent after S",
				   .type = VERB_OPT_SECONDS, .min = 1, .max = 30, .def = 2,
				   .unit = "seconds" },
	{}
};

/* Run by the container runtime (hooks.d), the container's OCI state on stdin. */
static const struct verb oci_hook_verbs[] = {
	{ .name = "createRuntime", .synopsis = "[--timeout S]", .opts = oci_hook_opts,
	  .run = oci_hook_create_runtime,
	  .help = "an annotated container's scope into SMC",
	  .examples = EXAMPLES({ "smcctl oci-hook createRuntime", "as the runtime runs it: the OCI state on stdin" }) },
	{ .name = "poststop", .synopsis = "[--timeout S]", .opts = oci_hook_opts,
	  .run = oci_hook_poststop, .help = "remove its scope's drop-in again",
	  .examples = EXAMPLES({ "smcctl oci-hook poststop --timeout 5", "after the container stopped, waiting up to 5 s" }) },
	{}
};

static const struct verb_opt bundle_opts[] = {
	[BUNDLE_OPT_OUTPUT] = { "output", 'o', "FILE",
				"write to FILE (- for stdout); default smc-bundle-HOST-DATE.tar.gz" },
	{}
};

static const struct verb bundle_verbs[] = {
	{ .name = "create", .synopsis = "[-o FILE]", .opts = bundle_opts,
	  .flags = VERB_DEFAULT, .run = bundle_create,
	  .help = "one tar.gz for a bug report, no machine ID",
	  .examples = EXAMPLES({ "smcctl support-bundle", "smc-bundle-HOST-DATE.tar.gz for a bug report" },
				{ "smcctl support-bundle -o /tmp/smc.tar.gz", "written to that file instead" }) },
	{}
};

const struct object smcctl_objects[] = {
	{ .name = "info", .verbs = info_verbs,
	  .help = "what this kernel offers for SMC and what is missing" },
	{ .name = "ueid", .verbs = ueid_verbs,
	  .help = "User Defined EIDs: needed for SMC-Dv2 (and loopback) off s390" },
	{ .name = "seid", .verbs = seid_verbs,
	  .help = "the System EID (s390 only)" },
	{ .name = "device", .verbs = device_verbs,
	  .help = "SMC-D and SMC-R devices" },
	{ .name = "linkgroup", .verbs = linkgroup_verbs,
	  .help = "SMC-D and SMC-R link groups" },
	{ .name = "socket", .verbs = socket_verbs,
	  .help = "SMC sockets (AF_SMC and IPPROTO_SMC)" },
	{ .name = "pnet", .verbs = pnet_verbs,
	  .help = "the PNET table: which interfaces and devices share a network" },
	{ .name = "sysctl", .verbs = sysctl_verbs,
	  .help = "net.smc.* sysctls" },
	{ .name = "hs-limit", .verbs = hslimit_verbs,
	  .help = "SMC handshake limitation (net.smc.limit_smc_hs)" },
	{ .name = "check", .verbs = check_verbs,
	  .help = "a live SMC connection: SMC-D, SMC-R or why TCP" },
	{ .name = "assess", .verbs = assess_verbs,
	  .help = "will SMC pay off here? observe TCP, changing nothing" },
	{ .name = "run", .verbs = run_verbs,
	  .help = "run a program with its TCP sockets switched to SMC" },
	{ .name = "policy", .verbs = policy_verbs,
	  .help = "smcd-agent's policies: cgroups and netns on SMC, exclusions" },
	{ .name = "auto", .verbs = auto_verbs,
	  .help = "smcd-agent's autopilot: SMC where it measurably pays off" },
	{ .name = "enable", .verbs = enable_verbs,
	  .help = "switch a systemd unit's sockets to SMC, kept in smc.yaml.d" },
	{ .name = "disable", .verbs = disable_verbs,
	  .help = "undo enable: the unit's sockets are TCP again" },
	{ .name = "oci-hook", .verbs = oci_hook_verbs,
	  .help = "the OCI hook: annotated containers on SMC (org.smcd.smc=true)" },
	{ .name = "status", .verbs = status_verbs,
	  .help = "smcd-agent: the daemon keeping smc.yaml",
	  .note = "Exit status, as systemctl is-system-running: 0 running, 1 degraded,\n"
		  "starting or stopping, 3 unavailable (no SMC in the kernel), 5 the agent\n"
		  "is not running, 6 no system bus." },
	{ .name = "config", .verbs = config_verbs,
	  .help = "smcd-agent's configuration, /etc/smc/smc.yaml",
	  .note = "Exit status 7 when the file is invalid (check, diff, show, reload alike);\n"
		  "diff: 0 nothing would change, 1 something would." },
	{ .name = "stats", .verbs = stats_verbs,
	  .help = "SMC statistics and TCP fallback reasons" },
	{ .name = "monitor", .verbs = monitor_verbs,
	  .help = "follow smcd-agent's events until Ctrl-C" },
	{ .name = "support-bundle", .verbs = bundle_verbs,
	  .help = "collect everything a bug report needs into one tar.gz" },
	{}
};

/* clang-format on */

/* The options every verb takes (cli/smcctl.c parses them; completion offers them). */
const struct option smcctl_global_options[SMCCTL_N_GLOBAL_OPTIONS] = {
	/* --json=pretty|short|off (cli/smcctl.c json_option()) */
	{ "json", optional_argument, NULL, 'j' },
	/* long-only: -p is --processes (socket); --pretty is --json=pretty, kept for scripts */
	{ "pretty", no_argument, NULL, SMCCTL_OPT_PRETTY },
	{ "details", no_argument, NULL, 'd' },
	{ "netns", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "no-pager", no_argument, NULL, SMCCTL_OPT_NO_PAGER },
	/* no letter, as systemctl's */
	{ "no-legend", no_argument, NULL, SMCCTL_OPT_NO_LEGEND },
	{},
};

/* Lookups in the table, for dispatch (cli/smcctl.c) and completion (cli/complete.c). */
const struct object *object_find(const char *name)
{
	for (size_t i = 0; smcctl_objects[i].name; i++)
		if (streq(smcctl_objects[i].name, name))
			return &smcctl_objects[i];
	return NULL;
}

const struct verb *verb_find(const struct object *o, const char *name)
{
	for (const struct verb *v = o->verbs; v->name; v++)
		if (streq(v->name, name) || streq_ptr(v->alias, name))
			return v;
	return NULL;
}

const struct verb *object_default_verb(const struct object *o)
{
	for (const struct verb *v = o->verbs; v->name; v++)
		if (v->flags & VERB_DEFAULT)
			return v;
	return NULL;
}
