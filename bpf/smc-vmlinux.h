/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel types the BPF programs of bpf/ read, written by hand instead of generated with
 * "bpftool btf dump file /sys/kernel/btf/vmlinux format c".
 *
 * Why by hand: a generated vmlinux.h describes the build host's kernel, which may have no
 * BTF at all (a Debian 12 chroot, a container build), or the wrong one; committing a
 * generated 3 MB header would tie the tree to one kernel release for no gain.  CO-RE needs
 * none of that: every struct below carries preserve_access_index, so clang records each
 * field access by name and libbpf relocates it against the running kernel's BTF at load
 * time.  Only the fields the programs use are declared; their order and the padding between
 * them do not matter.  Nested anonymous unions of the kernel (skc_daddr lives inside
 * sock_common's skc_addrpair union, for example) are matched by name through the
 * anonymous members, so they are declared flat here.
 *
 * The uapi headers of the build host (linux/bpf.h from linux-libc-dev) provide the map
 * types, flags and struct bpf_sock; they are part of the stable ABI, unlike the types here.
 */
#pragma once

#include <linux/types.h>
#include <linux/bpf.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef _Bool bool;
#define true 1
#define false 0

#define __core __attribute__((preserve_access_index))

struct net {
	u64 net_cookie;
} __core;

struct nsproxy {
	struct net *net_ns;
} __core;

struct task_struct {
	unsigned int flags;
	int pid;
	struct task_struct *real_parent; /* __rcu in the kernel; read in an RCU section */
	struct nsproxy *nsproxy;
} __core;

/* task_struct.flags: a kernel thread (a kworker running SMC's listen or connect work). */
#define PF_KTHREAD 0x00200000

struct kernfs_node {
	u64 id;
} __core;

struct cgroup_root {
	int hierarchy_id;
} __core;

struct cgroup {
	struct kernfs_node *kn;
	struct cgroup_root *root;
} __core;

struct sock_cgroup_data {
	struct cgroup *cgroup; /* v2 */
} __core;

struct inode {
	unsigned long i_ino;
} __core;

struct file {
	struct inode *f_inode;
} __core;

struct socket {
	struct file *file;
	struct sock *sk;
} __core;

typedef struct {
	struct net *net;
} possible_net_t;

struct in6_addr {
	union {
		u8 u6_addr8[16];
		__be32 u6_addr32[4];
	} in6_u;
};

struct sock_common {
	__be32 skc_daddr;
	__be32 skc_rcv_saddr;
	__be16 skc_dport;
	__u16 skc_num;
	unsigned short skc_family;
	volatile unsigned char skc_state;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
	possible_net_t skc_net;
} __core;

struct sock {
	struct sock_common __sk_common;
	struct sock_cgroup_data sk_cgrp_data;
	struct socket *sk_socket;
	u16 sk_protocol;
} __core;

struct inet_sock {
	struct sock sk;
	__be16 inet_sport;
} __core;

struct inet_connection_sock {
	struct inet_sock icsk_inet;
} __core;

/* bytes_acked and bytes_received: RFC 4898 tcpEStatsAppHCThruOctetsAcked/Received. */
struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u64 bytes_acked;
	u64 bytes_received;
} __core;

/* include/net/tcp_states.h (stable: the uapi's TCP_* states of tcp_info). */
enum {
	SMCBPF_TCP_ESTABLISHED = 1,
	SMCBPF_TCP_SYN_SENT = 2,
	SMCBPF_TCP_SYN_RECV = 3,
	SMCBPF_TCP_CLOSE = 7,
	SMCBPF_TCP_CLOSE_WAIT = 8,
};

struct request_sock {
	struct sock_common __req_common;
} __core;

struct inet_request_sock {
	struct request_sock req;
} __core;

/*
 * SMC's socket (net/smc/smc.h; in the smc module's BTF when SMC is a module): the sock, the
 * internal TCP socket, and on a server's new socket the listening socket it came from.
 */
struct smc_sock {
	struct sock sk;
	struct socket *clcsock;
	struct smc_sock *listen_smc;
	bool use_fallback; /* the data goes through clcsock (TCP) */
} __core;

struct msghdr;

/*
 * The struct_ops type of smc_hs_ctrl (include/net/smc.h, Linux 6.19+).  libbpf matches it
 * by name against the kernel's type and its members by name; the kernel's private members
 * (list, owner) are left out and stay zero.
 */
#define SMC_HS_CTRL_NAME_MAX 16
#define SMC_HS_CTRL_FLAG_INHERITABLE 0x1

struct smc_hs_ctrl {
	char name[SMC_HS_CTRL_NAME_MAX];
	int flags;
	int (*syn_option)(struct tcp_sock *tp);
	int (*synack_option)(const struct tcp_sock *tp, struct inet_request_sock *ireq);
};
