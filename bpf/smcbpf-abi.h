/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the BPF programs of bpf/ and their loader (bpf/smcbpf.c) share: map value layouts,
 * limits and counter slots.  Included by both sides; only fixed-size types.
 */
#pragma once

#include <linux/types.h>

/*
 * Constants with our own names.  smc_run.bpf's "#ifndef IPPROTO_SMC / #define IPPROTO_SMC
 * 263" is the trap to avoid: in a BPF program IPPROTO_SMC may be an enum constant the
 * preprocessor cannot see, and an RFC value silently won.  The real value (linux/in.h
 * since 6.11) is 256; smcctl run's preload library and the tests use the same 256.
 */
#define SMCBPF_AF_INET 2
#define SMCBPF_AF_INET6 10
#define SMCBPF_SOCK_STREAM 1
#define SMCBPF_SOCK_TYPE_MASK 0xf /* the type argument of socket() carries NONBLOCK|CLOEXEC */
#define SMCBPF_IPPROTO_TCP 6
#define SMCBPF_IPPROTO_SMC 256
#define SMCBPF_SOL_SOCKET 1
#define SMCBPF_SO_SNDBUF 7
#define SMCBPF_SO_RCVBUF 8

/* Policy rules (cgroups and network namespaces): the value in the rule maps is the index. */
#define SMCBPF_MAX_RULES 64
/* Cgroup ids held at once: one per rule, plus stale ids until the next reconcile. */
#define SMCBPF_MAX_CGROUP_IDS 1024
#define SMCBPF_MAX_NETNS 256
/* cgroup_mkdir gives the path relative to the cgroup2 root; longer paths cannot match. */
#define SMCBPF_CGROUP_PATH_MAX 256
/* Ancestors looked at per socket(): cgroup trees deeper than this match only their top. */
#define SMCBPF_CGROUP_DEPTH 32
/* How many parents smc_select looks at for a task whose copy of the run mark failed. */
#define SMCBPF_RUN_ANCESTORS 8
#define SMCBPF_MAX_EXCL 64
/* Cgroups with buffer sizes of their own (smc_bufs' cgroup_bufs: the autopilot's). */
#define SMCBPF_MAX_CGROUP_BUFS 256

/*
 * Value of smc_bufs' cgroup_bufs map (key: the cgroup v2 id of the task creating the
 * socket, exact, no ancestors): bytes for SO_SNDBUF/SO_RCVBUF, 0 leaves that one alone.
 */
struct smcbpf_bufs {
	__u32 sndbuf;
	__u32 rcvbuf;
};

/* Key of the cgroup path map: the path as cgroup_mkdir reports it, zero-padded. */
struct smcbpf_cgroup_path {
	char path[SMCBPF_CGROUP_PATH_MAX];
};

/* Counter slots of smc_select's counters[]: 0..SMCBPF_MAX_RULES-1 are the rules. */
enum {
	SMCBPF_CNT_RUN = SMCBPF_MAX_RULES, /* sockets of enrolled tasks (smcctl run) */
	SMCBPF_CNT_INHERIT_FAIL,	   /* a fork whose child could not be enrolled */
	SMCBPF_CNT_CGROUP_MAP_FULL,	   /* cgroup_mkdir found a rule but the map was full */
	SMCBPF_N_COUNTERS,
};

/*
 * Task storage of an enrolled task (smcctl run): set through a pidfd by the loader, copied
 * to every child and thread by the sched_process_fork program, freed with the task.
 */
struct smcbpf_run_mark {
	__u32 run_id;
	__u32 sndbuf; /* bytes for SO_SNDBUF on its SMC sockets; 0: leave */
	__u32 rcvbuf;
	__u32 flags;
};

/*
 * One exclusion: the server end of a connection (the destination of a SYN, our own end of
 * a SYN-ACK) matches when (address & mask) == addr and the port is port (0: any).  family
 * 0 matches either family (a port-only rule).  Addresses and masks in network byte order,
 * IPv4 in word 0.
 */
struct smcbpf_excl_rule {
	__u16 family;
	__u16 port; /* host byte order */
	__u32 addr[4];
	__u32 mask[4];
};

/*
 * One switch to TCP (smc_fallback.bpf.c's ring buffer, read by the agent).  pid and comm
 * are the current task's when it is no kernel thread (0 and "" when SMC's listen or
 * connect work ran it in a kworker); cgroup_id is the cgroup v2 id (kernfs id) of the
 * socket's creator, on the server side the listening socket's; sock_ino is the inode of
 * the socket a process holds: the SMC socket on the client side, the listening socket on
 * the server side (the new socket has no file yet), 0 when it has none.
 */
#define SMCBPF_FALLBACK_RING_BYTES (256 * 1024)
#define SMCBPF_COMM_LEN 16
struct smcbpf_fallback_event {
	__u64 netns_cookie;
	__u64 cgroup_id;
	__u64 sock_ino;
	__u32 pid;    /* tgid */
	__s32 reason; /* SMC_CLC_DECL_* */
	__u8 server;  /* 1: the accepting side */
	__u8 pad;
	__u16 family; /* of the internal TCP socket */
	__u16 lport;  /* host byte order */
	__u16 rport;
	__u32 laddr[4]; /* network byte order, IPv4 in word 0 */
	__u32 raddr[4];
	char comm[SMCBPF_COMM_LEN];
};

/*
 * One TCP connection end as smc_assess.bpf.c saw it (smcctl assess): kept in a hash map
 * keyed by the socket's address while it is open, sent through the ring buffer when it
 * closes.  Times are CLOCK_MONOTONIC ns; start_ns 0: open before the program was loaded
 * (first seen sending or receiving).  bytes_acked/bytes_received are tcp_sock's, read at
 * the last send, receive or the close; hist counts sendmsg sizes in the kernel's SMC
 * statistics buckets (fls((len-1) >> 13), capped at 8).  pid/comm: the connecting task,
 * or the first to send or receive on an accepted socket; 0 and "" until then.
 *
 * On a connection SMC carries, the TCP socket (SMC's clcsock) moves only the CLC handshake;
 * the data goes through smc_sendmsg/smc_recvmsg, whose fexit programs add what they
 * returned to smc_bytes_sent/smc_bytes_received of the clcsock's record, count each
 * smc_sendmsg in sends and hist, and set smc.  Those two programs are optional (SMC not
 * loaded, or its functions not traceable): all of these stay 0 without them.  A connection
 * that fell back to TCP is counted by the TCP programs only (smc stays 0).
 */
#define SMCBPF_ASSESS_BUCKETS 9
#define SMCBPF_ASSESS_MAX_OPEN 16384
#define SMCBPF_ASSESS_RING_BYTES (4 * 1024 * 1024)
struct smcbpf_assess_rec {
	__u64 sk;
	__u64 start_ns;
	__u64 established_ns;
	__u64 end_ns; /* 0: still open */
	__u64 netns_cookie;
	__u64 cgroup_id;
	__u64 bytes_acked;
	__u64 bytes_received;
	__u64 sends;
	__u32 hist[SMCBPF_ASSESS_BUCKETS];
	__u32 pid;
	__u32 laddr[4]; /* network byte order, IPv4 in word 0 */
	__u32 raddr[4];
	__u16 family;
	__u16 lport; /* host byte order */
	__u16 rport;
	__u8 passive;
	__u8 established;
	char comm[SMCBPF_COMM_LEN];
	/* appended (SMC's own send and receive) */
	__u64 smc_bytes_sent;
	__u64 smc_bytes_received;
	__u8 smc; /* 1: SMC carried data (or an end of file) on it */
	__u8 pad2[7];
};
