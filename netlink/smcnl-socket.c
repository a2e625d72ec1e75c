// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The socket and error layer: one libnl socket per netlink protocol, one request/reply
 * exchange function for all three kernel interfaces, the kernel's errno and extended ACK
 * kept intact, and record/replay of the raw reply streams.
 *
 * libnl does the socket work, the message building and the dispatch (nl_recvmsgs), but
 * every callback on the socket is ours:
 *   - the error callback stores the kernel's errno (libnl would fold it into NLE_*) and
 *     parses the NLMSGERR_ATTR_MSG TLV itself (libnl 3.7 knows nothing of extended ACKs);
 *   - NLMSG_DONE is inspected for the dump's own error code (netlink_dump() reports a
 *     failing dumpit that way, with its extack);
 *   - the sequence check matches the request we sent and skips anything stale;
 *   - send and receive are overridden so that a reply stream can be written to a file
 *     (record) or read from one (replay) while libnl still does all of the parsing: the
 *     unit tests drive the very same code path as the real kernel.
 *
 * Record/replay files: <dir>/<key>.bin holds the raw netlink messages exactly as received
 * for one request, concatenated, NLMSG_DONE / NLMSG_ERROR included.  The n-th request with
 * the same key in one handle uses <key>-<n>.bin (n >= 2), so a scenario that adds the same
 * UEID twice records both answers; a replay asked more often than recorded reuses the last
 * answer (a read step's repeated dumps of a quiet system are all the same).
 * Keys: smc-genl-<command> ("smc-genl-get-sys-info"), pnet-<command>, smclo-<command>
 * (our module's SMC_LO family, smclo.c), sock-diag-<ext as two hex digits>, rdma-dev-get /
 * rdma-port-get (RDMA netlink, rdma.c), genl-ctrl-<family name> (family resolution; optional when
 * replaying: without it the family is taken as present).  The replay feeds libnl one message per
 * recv() call, so every multi-batch path is exercised.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "netlink/smcnl-internal.h"
#include "netlink/uapi/smc_lo.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct smcnl_req {
	smcnl_msg_fn fn;
	void *userdata;
	int err;   /* first error: the kernel's, or a parser's */
	bool done; /* NLMSG_DONE, ACK or error seen */
	bool intr; /* NLM_F_DUMP_INTR seen */
};

/*
 * libnl's send/recv override hooks get the nl_sock only, no user pointer, and nl_sock is
 * opaque: the socket in use is published here for the duration of each exchange (every
 * libnl call that can reach the hooks runs inside this file, synchronously).
 */
static _Thread_local struct smcnl_sock *tls_sock;

static const char *const family_names[_SMCNL_FAM_MAX] = {
	[SMCNL_FAM_SMC] = SMC_GENL_FAMILY_NAME,
	[SMCNL_FAM_PNET] = SMCR_GENL_FAMILY_NAME,
	[SMCNL_FAM_SMCLO] = SMC_LO_GENL_NAME,
};

/* ---- errors ------------------------------------------------------------------------------ */

int smcnl_errno_from_nle(int nle)
{
	static const int map[] = {
		[NLE_FAILURE] = EIO,
		[NLE_INTR] = EINTR,
		[NLE_BAD_SOCK] = EBADF,
		[NLE_AGAIN] = EAGAIN,
		[NLE_NOMEM] = ENOMEM,
		[NLE_EXIST] = EEXIST,
		[NLE_INVAL] = EINVAL,
		[NLE_RANGE] = ERANGE,
		[NLE_MSGSIZE] = EMSGSIZE,
		[NLE_OPNOTSUPP] = EOPNOTSUPP,
		[NLE_AF_NOSUPPORT] = EAFNOSUPPORT,
		[NLE_OBJ_NOTFOUND] = ENOENT,
		[NLE_NOATTR] = EBADMSG,
		[NLE_MISSING_ATTR] = EBADMSG,
		[NLE_AF_MISMATCH] = EBADMSG,
		[NLE_SEQ_MISMATCH] = EBADMSG,
		[NLE_MSG_OVERFLOW] = ENOBUFS, /* NLMSG_OVERRUN: the kernel dropped messages */
		[NLE_MSG_TRUNC] = EBADMSG,
		[NLE_NOADDR] = EADDRNOTAVAIL,
		[NLE_SRCRT_NOSUPPORT] = EOPNOTSUPP,
		[NLE_MSG_TOOSHORT] = EBADMSG,
		[NLE_MSGTYPE_NOSUPPORT] = EBADMSG,
		[NLE_OBJ_MISMATCH] = EINVAL,
		[NLE_NOCACHE] = ENOENT,
		[NLE_BUSY] = EBUSY,
		[NLE_PROTO_MISMATCH] = EPROTONOSUPPORT,
		[NLE_NOACCESS] = EACCES,
		[NLE_PERM] = EPERM,
		[NLE_PKTLOC_FILE] = ENOENT,
		[NLE_PARSE_ERR] = EBADMSG,
		[NLE_NODEV] = ENODEV,
		[NLE_IMMUTABLE] = EPERM,
		[NLE_DUMP_INTR] = EAGAIN,
		[NLE_ATTRSIZE] = EMSGSIZE,
	};
	int e = nle < 0 ? -nle : nle;

	if (e == 0)
		return 0;
	if ((size_t)e < ELEMENTSOF(map) && map[e])
		return -map[e];
	return -EIO;
}

void smcnl_set_extack(struct smcnl *nl, const char *msg, size_t len)
{
	free(nl->extack);
	nl->extack = NULL;
	if (!msg)
		return;
	len = strnlen(msg, len);
	/* Kernel messages end without a newline; be safe with odd ones. */
	while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		len--;
	if (len > 0)
		nl->extack = strndup(msg, len);
}

const char *smcnl_extack(const struct smcnl *nl)
{
	return nl ? nl->extack : NULL;
}

/* TLVs of an extended ACK start at tlv (inside nlh); keep NLMSGERR_ATTR_MSG. */
static void extack_parse(struct smcnl *nl, const struct nlmsghdr *nlh, size_t offset)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	char *payload = (char *)nlmsg_data(nlh);
	int plen = nlmsg_datalen(nlh);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	offset = NLMSG_ALIGN(offset);
	if (plen < 0 || offset >= (size_t)plen)
		return;
	if (smcnl_parse_attrs(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)(payload + offset),
			      plen - (int)offset) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0)
		smcnl_set_extack(nl, nla_data(tb[NLMSGERR_ATTR_MSG]), nla_len(tb[NLMSGERR_ATTR_MSG]));
}

static int errno_from_kernel(int e)
{
	/* A sane errno from a NLMSG_ERROR/DONE payload; anything else is a broken reply. */
	if (e < 0 && e > -4096)
		return e;
	return -EBADMSG;
}

/* ---- libnl callbacks (arg: the smcnl_sock) -------------------------------------------------- */

static int cb_valid(struct nl_msg *msg, void *arg)
{
	struct smcnl_sock *s = arg;
	struct smcnl_req *req = s->req;
	int r;

	if (!req || !req->fn || req->err < 0)
		return NL_SKIP; /* after an error: drain the rest of the dump */
	r = req->fn(nlmsg_hdr(msg), req->userdata);
	if (r < 0)
		req->err = r;
	return NL_OK;
}

static int cb_finish(struct nl_msg *msg, void *arg)
{
	struct smcnl_sock *s = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int e;

	if (!s->req)
		return NL_STOP;
	s->req->done = true;
	/* Since 4.x the DONE payload is the dump's return code (int), then extack TLVs. */
	if (nlmsg_datalen(nlh) >= (int)sizeof(int)) {
		memcpy(&e, nlmsg_data(nlh), sizeof(e));
		if (e != 0) {
			if (s->req->err == 0)
				s->req->err = errno_from_kernel(e);
			extack_parse(s->nl, nlh, sizeof(int));
		}
	}
	return NL_STOP;
}

static int cb_ack(struct nl_msg *msg, void *arg)
{
	struct smcnl_sock *s = arg;

	if (s->req)
		s->req->done = true;
	return NL_STOP;
}

static int cb_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct smcnl_sock *s = arg;
	/* libnl hands us nlmsg_data() of a copy of the whole message: the header is in front. */
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);
	size_t offset = sizeof(*e);

	if (s->req) {
		s->req->done = true;
		if (s->req->err == 0)
			s->req->err = errno_from_kernel(e->error);
	}
	/* Without NETLINK_CAP_ACK the original request follows the header copy. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len >= NLMSG_HDRLEN)
		offset += e->msg.nlmsg_len - NLMSG_HDRLEN;
	extack_parse(s->nl, nlh, offset);
	return NL_STOP;
}

static int cb_seq(struct nl_msg *msg, void *arg)
{
	struct smcnl_sock *s = arg;

	/* Replayed streams carry the sequence numbers of the recording. */
	if (smcnl_replaying(s->nl) || !s->have_seq)
		return NL_OK;
	return nlmsg_hdr(msg)->nlmsg_seq == s->expect_seq ? NL_OK : NL_SKIP;
}

static int cb_dump_intr(struct nl_msg *msg, void *arg)
{
	struct smcnl_sock *s = arg;

	if (s->req)
		s->req->intr = true;
	return NL_OK;
}

/* ---- record / replay ----------------------------------------------------------------- */

bool smcnl_replaying(const struct smcnl *nl)
{
	return nl->replay_dir != NULL;
}

/* The file for the n-th occurrence of key (counted per handle). */
static int stream_path(struct smcnl *nl, const char *dir, const char *key, bool count, char *buf,
		       size_t len)
{
	struct smcnl_occurrence *o = NULL;
	int n;

	for (size_t i = 0; i < nl->n_occ; i++)
		if (streq(nl->occ[i].key, key))
			o = &nl->occ[i];
	if (!o) {
		struct smcnl_occurrence *v = realloc(nl->occ, (nl->n_occ + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		nl->occ = v;
		o = &v[nl->n_occ++];
		snprintf(o->key, sizeof(o->key), "%s", key);
		o->count = 0;
	}
	if (count)
		o->count++;
	if (o->count <= 1)
		n = snprintf(buf, len, "%s/%s.bin", dir, key);
	else
		n = snprintf(buf, len, "%s/%s-%u.bin", dir, key, o->count);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static unsigned replay_occurrence(const struct smcnl_sock *s)
{
	for (size_t i = 0; i < s->nl->n_occ; i++)
		if (streq(s->nl->occ[i].key, s->key))
			return s->nl->occ[i].count;
	return 1;
}

int smcnl_replay_mem(struct smcnl *nl, const char *key, const void *data, size_t len)
{
	struct smcnl_mem_stream *v;

	if (!smcnl_replaying(nl) || !key || strlen(key) >= sizeof(v->key))
		return -EINVAL;
	v = realloc(nl->mem, (nl->n_mem + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	nl->mem = v;
	v = &nl->mem[nl->n_mem++];
	snprintf(v->key, sizeof(v->key), "%s", key);
	v->data = data;
	v->len = len;
	return 0;
}

static int replay_load(struct smcnl_sock *s)
{
	char path[4096];
	struct stat st;
	int r;

	free(s->replay);
	s->replay = NULL;
	s->replay_len = s->replay_pos = 0;
	for (size_t i = 0; i < s->nl->n_mem; i++)
		if (streq(s->nl->mem[i].key, s->key)) {
			s->replay = malloc(s->nl->mem[i].len ?: 1);
			if (!s->replay)
				return -ENOMEM;
			if (s->nl->mem[i].len)
				memcpy(s->replay, s->nl->mem[i].data, s->nl->mem[i].len);
			s->replay_len = s->nl->mem[i].len;
			return 0;
		}
	r = stream_path(s->nl, s->nl->replay_dir, s->key, true, path, sizeof(path));
	if (r < 0)
		return r;
	_cleanup_(fclosep) FILE *f = fopen(path, "re");
	/* Asked more often than recorded: the last recorded answer stands (a quiet system). */
	for (unsigned n = replay_occurrence(s) - 1; !f && n >= 1; n--) {
		if (n == 1)
			snprintf(path, sizeof(path), "%s/%s.bin", s->nl->replay_dir, s->key);
		else
			snprintf(path, sizeof(path), "%s/%s-%u.bin", s->nl->replay_dir, s->key, n);
		f = fopen(path, "re");
	}
	if (!f)
		return -ENODATA; /* no recorded reply for this request: a test setup error */
	if (fstat(fileno(f), &st) < 0)
		return negative_errno();
	if (st.st_size > 64 << 20)
		return -EFBIG;
	s->replay = malloc(st.st_size ? st.st_size : 1);
	if (!s->replay)
		return -ENOMEM;
	if (fread(s->replay, 1, st.st_size, f) != (size_t)st.st_size)
		return -EIO;
	s->replay_len = st.st_size;
	return 0;
}

static int record_open(struct smcnl_sock *s)
{
	char path[4096];
	int r;

	if (s->record)
		fclose(s->record);
	s->record = NULL;
	r = stream_path(s->nl, s->nl->record_dir, s->key, true, path, sizeof(path));
	if (r < 0)
		return r;
	s->record = fopen(path, "we");
	return s->record ? 0 : negative_errno();
}

static int hook_send(struct nl_sock *sk, struct nl_msg *msg)
{
	struct smcnl_sock *s = tls_sock;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct iovec iov = { .iov_base = nlh, .iov_len = nlh->nlmsg_len };
	int r;

	if (!s || s->sk != sk)
		return -NLE_BAD_SOCK;
	s->expect_seq = nlh->nlmsg_seq;
	s->have_seq = true;
	if (smcnl_replaying(s->nl)) {
		r = replay_load(s);
		if (r < 0) {
			s->send_err = r;
			return -NLE_OBJ_NOTFOUND;
		}
		return nlh->nlmsg_len;
	}
	if (s->nl->record_dir) {
		r = record_open(s);
		if (r < 0) {
			s->send_err = r;
			return -NLE_FAILURE;
		}
	}
	return nl_send_iovec(sk, msg, &iov, 1);
}

static int hook_recv(struct nl_sock *sk, struct sockaddr_nl *nla, unsigned char **buf,
		     struct ucred **creds)
{
	struct smcnl_sock *s = tls_sock;
	const struct nlmsghdr *nlh;
	size_t rest, n;
	int r;

	if (!s || s->sk != sk)
		return -NLE_BAD_SOCK;
	if (!smcnl_replaying(s->nl)) {
		r = nl_recv(sk, nla, buf, creds);
		if (r > 0 && s->record && fwrite(*buf, 1, r, s->record) != (size_t)r)
			s->send_err = -EIO;
		return r;
	}
	/* Replay: one message per call; a truncated tail is handed over as it is. */
	rest = s->replay_len - s->replay_pos;
	if (rest == 0)
		return 0;
	nlh = (const struct nlmsghdr *)(s->replay + s->replay_pos);
	n = rest;
	if (rest >= sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) && nlh->nlmsg_len <= rest)
		n = NLMSG_ALIGN(nlh->nlmsg_len) < rest ? NLMSG_ALIGN(nlh->nlmsg_len) : rest;
	*buf = malloc(n);
	if (!*buf)
		return -NLE_NOMEM;
	memcpy(*buf, s->replay + s->replay_pos, n);
	s->replay_pos += n;
	memset(nla, 0, sizeof(*nla));
	nla->nl_family = AF_NETLINK;
	return (int)n;
}

/* ---- sockets ------------------------------------------------------------------------------ */

/*
 * Set when a handle of another namespace could not bring the thread back to its own one
 * after creating a socket there: from then on the thread's namespace is the wrong one, a
 * new socket of any handle would be created in it, and a /proc/sys/net read would read it.
 * Every handle refuses to open a socket; the caller is told to stop (smcnl.h).
 */
static atomic_bool netns_lost;

bool smcnl_netns_lost(void)
{
	return atomic_load(&netns_lost);
}

/*
 * Connect sk in the handle's namespace: enter it, create the socket (nl_connect() is
 * socket(), bind() and getsockname(); a socket keeps the namespace it was created in), come
 * back.  Only the calling thread moves.
 */
static int sock_connect(struct smcnl *nl, struct nl_sock *sk, int protocol)
{
	_cleanup_(closep) int self = -1;
	int r;

	if (nl->netns_fd < 0) {
		r = nl_connect(sk, protocol);
		return r < 0 ? smcnl_errno_from_nle(r) : 0;
	}
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return negative_errno();
	if (setns(nl->netns_fd, CLONE_NEWNET) < 0)
		return negative_errno();
	r = nl_connect(sk, protocol);
	if (setns(self, CLONE_NEWNET) < 0) {
		atomic_store(&netns_lost, true);
		return -ENOTRECOVERABLE;
	}
	return r < 0 ? smcnl_errno_from_nle(r) : 0;
}

/* The request's recording or replay, if any, is over. */
static void record_replay_end(struct smcnl_sock *s)
{
	if (s->record)
		fclose(s->record);
	s->record = NULL;
	free(s->replay);
	s->replay = NULL;
	s->replay_len = s->replay_pos = 0;
}

static void sock_close(struct smcnl_sock *s)
{
	if (s->sk)
		nl_socket_free(s->sk);
	s->sk = NULL;
	s->broken = false;
	record_replay_end(s);
}

static int sock_setup_cb(struct smcnl_sock *s)
{
	struct nl_cb *cb = nl_socket_get_cb(s->sk);
	int r = 0;

	if (!cb)
		return -ENOMEM;
	r = r ?: nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, cb_valid, s);
	r = r ?: nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, cb_finish, s);
	r = r ?: nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, cb_ack, s);
	r = r ?: nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, cb_seq, s);
	r = r ?: nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, cb_dump_intr, s);
	r = r ?: nl_cb_err(cb, NL_CB_CUSTOM, cb_error, s);
	nl_cb_overwrite_send(cb, hook_send);
	nl_cb_overwrite_recv(cb, hook_recv);
	nl_cb_put(cb);
	return r < 0 ? smcnl_errno_from_nle(r) : 0;
}

static int sock_get(struct smcnl *nl, enum smcnl_proto proto, struct smcnl_sock **ret)
{
	struct smcnl_sock *s = &nl->socks[proto];
	int one = 1, r;

	if (s->sk && !s->broken) {
		*ret = s;
		return 0;
	}
	sock_close(s);
	if (atomic_load(&netns_lost))
		return -ENOTRECOVERABLE;
	s->sk = nl_socket_alloc();
	if (!s->sk)
		return -ENOMEM;
	/* Acks are requested explicitly per message (do-commands only; dumps end in DONE). */
	nl_socket_disable_auto_ack(s->sk);
	/*
	 * One recvmsg per batch into a buffer that holds any: the kernel's dump batches are at
	 * most 32 KiB (netlink_dump() caps them there whatever the reader offers), and no reply
	 * of ours comes near 64 KiB.  MSG_PEEK (libnl's way of sizing its buffer) read every
	 * batch twice.  Should a message ever not fit, libnl says NLE_MSG_TRUNC (EBADMSG here):
	 * an error, never a silently shortened answer.
	 */
	nl_socket_disable_msg_peek(s->sk);
	r = nl_socket_set_msg_buf_size(s->sk, 64 * 1024);
	if (r < 0) {
		r = smcnl_errno_from_nle(r);
		goto fail;
	}
	r = sock_setup_cb(s);
	if (r < 0)
		goto fail;
	if (!smcnl_replaying(nl)) {
		static const int protocols[_SMCNL_PROTO_MAX] = {
			[SMCNL_PROTO_GENL] = NETLINK_GENERIC,
			[SMCNL_PROTO_SOCK_DIAG] = NETLINK_SOCK_DIAG,
			[SMCNL_PROTO_RDMA] = NETLINK_RDMA,
			[SMCNL_PROTO_ROUTE] = NETLINK_ROUTE,
		};

		r = sock_connect(nl, s->sk, protocols[proto]);
		if (r < 0)
			goto fail;
		/*
		 * Extended ACK (4.12+) for the kernel's reason text; CAP_ACK keeps the
		 * request out of error messages, so the TLVs follow the header copy
		 * directly.  Older kernels refuse the options: then there is no text.
		 */
		(void)setsockopt(nl_socket_get_fd(s->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
				 sizeof(one));
		(void)setsockopt(nl_socket_get_fd(s->sk), SOL_NETLINK, NETLINK_CAP_ACK, &one,
				 sizeof(one));
	}
	*ret = s;
	return 0;
fail:
	nl_socket_free(s->sk);
	s->sk = NULL;
	return r;
}

int smcnl_open(const struct smcnl_options *opts, struct smcnl **ret)
{
	_cleanup_(freep) struct smcnl *nl = calloc(1, sizeof(*nl));
	const char *record_dir = opts ? opts->record_dir : NULL;

	if (!ret)
		return -EINVAL;
	if (!nl)
		return -ENOMEM;
	if (!record_dir)
		record_dir = secure_getenv("SMCNL_RECORD_DIR");
	if (record_dir && !*record_dir)
		record_dir = NULL;
	/* Recording needs the real kernel; a replay cannot be recorded again. */
	if (opts && opts->replay_dir && record_dir)
		return -EINVAL;
	if ((opts && opts->sysroot && !(nl->sysroot = strdup(opts->sysroot))) ||
	    (opts && opts->replay_dir && !(nl->replay_dir = strdup(opts->replay_dir))) ||
	    (record_dir && !(nl->record_dir = strdup(record_dir)))) {
		free(nl->sysroot);
		free(nl->replay_dir);
		return -ENOMEM;
	}
	for (int i = 0; i < _SMCNL_PROTO_MAX; i++) {
		nl->socks[i].nl = nl;
		nl->socks[i].proto = i;
	}
	nl->netns_fd = -1;
	*ret = TAKE_PTR(nl);
	return 0;
}

void smcnl_close(struct smcnl *nl)
{
	if (!nl)
		return;
	for (int i = 0; i < _SMCNL_PROTO_MAX; i++)
		sock_close(&nl->socks[i]);
	if (nl->netns_fd >= 0)
		close(nl->netns_fd);
	free(nl->sysroot);
	free(nl->replay_dir);
	free(nl->record_dir);
	free(nl->extack);
	free(nl->occ);
	free(nl->mem);
	free(nl->dibs);
	free(nl);
}

/* ---- exchanges ---------------------------------------------------------------------------- */

bool smcnl_keyed(const struct smcnl *nl)
{
	return nl->replay_dir || nl->record_dir;
}

static void exchange_begin(struct smcnl_sock *s, struct smcnl_req *req, const char *key)
{
	/* The key names record and replay files; a live exchange does not need it. */
	if (smcnl_keyed(s->nl))
		snprintf(s->key, sizeof(s->key), "%s", key);
	else
		s->key[0] = '\0';
	s->req = req;
	s->have_seq = false;
	s->send_err = 0;
	tls_sock = s;
}

static void exchange_end(struct smcnl_sock *s)
{
	tls_sock = NULL;
	s->req = NULL;
	record_replay_end(s);
}

static int request_once(struct smcnl *nl, enum smcnl_proto proto, struct nl_msg *msg,
			const char *key, smcnl_msg_fn fn, void *userdata)
{
	struct smcnl_req req = { .fn = fn, .userdata = userdata };
	struct nl_cb *cb = NULL;
	struct smcnl_sock *s;
	int r;

	smcnl_set_extack(nl, NULL, 0);
	r = sock_get(nl, proto, &s);
	if (r < 0)
		return r;
	exchange_begin(s, &req, key);
	r = nl_send_auto(s->sk, msg);
	if (r < 0) {
		r = s->send_err ?: smcnl_errno_from_nle(r);
		goto out;
	}
	cb = nl_socket_get_cb(s->sk);
	for (;;) {
		/* _report: the number of messages read, 0 only when nothing came (EOF). */
		r = nl_recvmsgs_report(s->sk, cb);
		if (req.done)
			break;
		if (r < 0 || s->send_err < 0) {
			/* Not the kernel's answer: the socket state is unknown now. */
			s->broken = true;
			r = req.err ?: s->send_err ?: smcnl_errno_from_nle(r);
			goto out;
		}
		if (r == 0) {
			/* End of a replayed stream (or of the socket) before DONE/ACK. */
			s->broken = true;
			r = req.err ?: -EBADMSG;
			goto out;
		}
	}
	r = req.err;
	if (r == 0 && s->send_err < 0)
		r = s->send_err;
	if (r == 0 && req.intr)
		r = -EAGAIN; /* dump interrupted (never set by SMC: no cb->seq), retry */
out:
	if (cb)
		nl_cb_put(cb);
	exchange_end(s);
	return r;
}

/* The family whose resolved id a genl message is addressed to, or -1. */
static int family_of(const struct smcnl *nl, enum smcnl_proto proto, struct nl_msg *msg)
{
	if (proto != SMCNL_PROTO_GENL)
		return -1;
	for (int f = 0; f < _SMCNL_FAM_MAX; f++)
		if (nl->family_id[f] > 0 && nl->family_id[f] == nlmsg_hdr(msg)->nlmsg_type)
			return f;
	return -1;
}

void smcnl_family_forget(struct smcnl *nl, enum smcnl_family fam)
{
	/* A replay's recorded "family missing" stays (negative ids). */
	if (nl->family_id[fam] > 0)
		nl->family_id[fam] = 0;
}

/*
 * After an -ENOENT: is fam still registered under the id the message used?  The kernel
 * answers -ENOENT for an unknown family id (genl_rcv_msg()), and a family that was
 * unregistered and registered again (modprobe -r smc_lo; modprobe smc_lo) has a new id.
 * Returns the new id (> 0) to retry with, 0 when the id is the same (the -ENOENT was the
 * command's own), or -EPROTONOSUPPORT when the family is gone.  The first answer's
 * extended ack is kept unless the family changed.
 */
static int family_reresolve(struct smcnl *nl, enum smcnl_family fam)
{
	_cleanup_(freep) char *ack = nl->extack ? strdup(nl->extack) : NULL;
	int old = nl->family_id[fam], r;

	nl->family_id[fam] = 0;
	r = smcnl_family_resolve(nl, fam);
	if (r > 0 && r != old)
		return r;
	if (r == -EPROTONOSUPPORT)
		return r;
	if (r < 0)
		nl->family_id[fam] = old;
	smcnl_set_extack(nl, ack, ack ? strlen(ack) : 0);
	return 0;
}

int smcnl_request(struct smcnl *nl, enum smcnl_proto proto, struct nl_msg *msg, const char *key,
		  smcnl_msg_fn fn, void *userdata)
{
	int fam = family_of(nl, proto, msg);
	int r, id;

	r = request_once(nl, proto, msg, key, fn, userdata);
	if (r == -ENOENT && fam >= 0) {
		id = family_reresolve(nl, (enum smcnl_family)fam);
		if (id < 0)
			r = id;
		if (id > 0) {
			/*
			 * The same message again: nl_send_auto() filled in the port and the
			 * sequence number, which it fills in anew when they are back at AUTO.
			 */
			nlmsg_hdr(msg)->nlmsg_type = (uint16_t)id;
			nlmsg_hdr(msg)->nlmsg_pid = NL_AUTO_PORT;
			nlmsg_hdr(msg)->nlmsg_seq = NL_AUTO_SEQ;
			r = request_once(nl, proto, msg, key, fn, userdata);
		}
	}
	nlmsg_free(msg);
	return r;
}

const char *smcnl_genl_key(enum smcnl_family fam, uint8_t cmd, char *buf, size_t len)
{
	static const char *const smc_cmds[] = {
		[SMC_NETLINK_GET_SYS_INFO] = "get-sys-info",
		[SMC_NETLINK_GET_LGR_SMCR] = "get-lgr-smcr",
		[SMC_NETLINK_GET_LINK_SMCR] = "get-link-smcr",
		[SMC_NETLINK_GET_LGR_SMCD] = "get-lgr-smcd",
		[SMC_NETLINK_GET_DEV_SMCD] = "get-dev-smcd",
		[SMC_NETLINK_GET_DEV_SMCR] = "get-dev-smcr",
		[SMC_NETLINK_GET_STATS] = "get-stats",
		[SMC_NETLINK_GET_FBACK_STATS] = "get-fback-stats",
		[SMC_NETLINK_DUMP_UEID] = "dump-ueid",
		[SMC_NETLINK_ADD_UEID] = "add-ueid",
		[SMC_NETLINK_REMOVE_UEID] = "remove-ueid",
		[SMC_NETLINK_FLUSH_UEID] = "flush-ueid",
		[SMC_NETLINK_DUMP_SEID] = "dump-seid",
		[SMC_NETLINK_ENABLE_SEID] = "enable-seid",
		[SMC_NETLINK_DISABLE_SEID] = "disable-seid",
		[SMC_NETLINK_DUMP_HS_LIMITATION] = "dump-hs-limitation",
		[SMC_NETLINK_ENABLE_HS_LIMITATION] = "enable-hs-limitation",
		[SMC_NETLINK_DISABLE_HS_LIMITATION] = "disable-hs-limitation",
	};
	static const char *const pnet_cmds[] = {
		[SMC_PNETID_GET] = "get",
		[SMC_PNETID_ADD] = "add",
		[SMC_PNETID_DEL] = "del",
		[SMC_PNETID_FLUSH] = "flush",
	};
	static const char *const smclo_cmds[] = {
		[SMC_LO_CMD_GET] = "get",
		[SMC_LO_CMD_ACTIVATE] = "activate",
		[SMC_LO_CMD_DEACTIVATE] = "deactivate",
		[SMC_LO_CMD_SET] = "set",
		[SMC_LO_CMD_NOTIFY] = "notify",
	};
	const char *prefix = "smclo";
	const char *const *names = smclo_cmds;
	size_t n = ELEMENTSOF(smclo_cmds);

	if (fam == SMCNL_FAM_SMC) {
		prefix = "smc-genl";
		names = smc_cmds;
		n = ELEMENTSOF(smc_cmds);
	} else if (fam == SMCNL_FAM_PNET) {
		prefix = "pnet";
		names = pnet_cmds;
		n = ELEMENTSOF(pnet_cmds);
	}

	if (cmd < n && names[cmd]) {
		size_t lp = strlen(prefix), ln = strlen(names[cmd]);

		/* Every request names its key: no snprintf() for it (a few hundred each). */
		if (lp + 1 + ln < len) {
			memcpy(buf, prefix, lp);
			buf[lp] = '-';
			memcpy(buf + lp + 1, names[cmd], ln + 1);
		} else if (len) {
			buf[0] = '\0';
		}
	} else {
		snprintf(buf, len, "%s-cmd%u", prefix, cmd);
	}
	return buf;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

struct nl_msg *smcnl_msg_new(int type, int flags)
{
	struct nl_msg *msg = nlmsg_alloc_size(SMCNL_MSG_SIZE);

	if (msg && !nlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, type, 0, flags)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* A genl request: the netlink and genl headers (version 1, no user header). */
static struct nl_msg *genl_msg_new(int family, int flags, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc_size(SMCNL_MSG_SIZE);

	if (msg && !smcnl_genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, flags, cmd, 1)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* CTRL_CMD_GETFAMILY's answer: the id alone (ops, groups and policies are not needed). */
static int parse_family_id(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *a;
	int *id = userdata;

	if (nlh->nlmsg_type != GENL_ID_CTRL || !smcnl_genl_valid(nlh))
		return 0;
	a = nlmsg_find_attr(nlh, GENL_HDRLEN, CTRL_ATTR_FAMILY_ID);
	if (a && nla_len(a) >= (int)sizeof(uint16_t))
		*id = nla_get_u16(a);
	return 0;
}

int smcnl_family_resolve(struct smcnl *nl, enum smcnl_family fam)
{
	_cleanup_(nlmsg_freep) struct nl_msg *msg = NULL;
	char key[96], path[4096];
	struct smcnl_sock *s;
	struct nl_cb *cb;
	int r, id = 0;
	struct smcnl_req req = { .fn = parse_family_id, .userdata = &id };

	/* Positive: resolved; negative: a replayed "family missing" answer, kept. */
	if (nl->family_id[fam] != 0)
		return nl->family_id[fam];
	/* smcnl_family_prefetch() asked the kernel a moment ago: its answer, once. */
	if (nl->family_absent[fam]) {
		r = nl->family_absent[fam];
		nl->family_absent[fam] = 0;
		return r;
	}
	key[0] = '\0';
	if (smcnl_keyed(nl))
		snprintf(key, sizeof(key), "genl-ctrl-%s", family_names[fam]);
	if (smcnl_replaying(nl)) {
		/* Replay never touches the kernel; without a recorded answer: present. */
		r = stream_path(nl, nl->replay_dir, key, false, path, sizeof(path));
		if (r < 0)
			return r;
		bool mem = false;

		for (size_t i = 0; i < nl->n_mem; i++)
			mem |= streq(nl->mem[i].key, key);
		if (!mem && access(path, R_OK) < 0) {
			nl->family_id[fam] = GENL_MIN_ID + 0x100 + fam;
			return nl->family_id[fam];
		}
	}
	smcnl_set_extack(nl, NULL, 0);
	r = sock_get(nl, SMCNL_PROTO_GENL, &s);
	if (r < 0)
		return r;
	/*
	 * What genl_ctrl_resolve() sends (version 1, no ACK asked: the answer is one message,
	 * the family or an error), without what it does with the answer: it parses every
	 * operation, multicast group and policy of the family into a cache object, a tenth of
	 * a read verb's instructions (bench/smcctl-vs-smctools).
	 */
	msg = genl_msg_new(GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	if (!msg || nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, family_names[fam]) < 0)
		return -ENOMEM;
	/*
	 * The kernel runs request_module("net-pf-16-proto-16-family-SMC_GEN_NETLINK") for an
	 * unknown family, so this is what loads smc.ko on demand.
	 */
	exchange_begin(s, &req, key);
	r = nl_send_auto(s->sk, msg);
	if (r >= 0) {
		cb = nl_socket_get_cb(s->sk);
		r = cb ? nl_recvmsgs_report(s->sk, cb) : -NLE_NOMEM;
		nl_cb_put(cb);
	}
	if (req.err < 0) {
		/* The kernel's answer: ENOENT is "no such family" (its module cannot load). */
		r = req.err == -ENOENT ? -EPROTONOSUPPORT : req.err;
	} else if (s->send_err < 0) {
		r = s->send_err;
	} else if (id > 0) {
		r = id;
	} else {
		/* No answer (r <= 0) or one without an id. */
		r = r < 0 ? smcnl_errno_from_nle(r) : -EBADMSG;
	}
	/* Failed without the kernel's word: the socket state is unknown. */
	if (r < 0 && req.err == 0)
		s->broken = true;
	if (r > 0) {
		nl->family_id[fam] = r;
	} else if (smcnl_replaying(nl) && r == -EPROTONOSUPPORT) {
		/*
		 * Live: ask again next time (smc.ko may get loaded meanwhile).  Replay: the
		 * recording has one answer, keep it for the handle's lifetime.
		 */
		nl->family_id[fam] = r;
	}
	exchange_end(s);
	return r;
}

struct mcast_group {
	const char *name;
	int id;
};

/* CTRL_ATTR_MCAST_GROUPS of a CTRL_CMD_GETFAMILY answer: the id of the group named. */
static int parse_mcast_group(struct nlmsghdr *nlh, void *userdata)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *g[CTRL_ATTR_MCAST_GRP_MAX + 1], *grp;
	struct mcast_group *want = userdata;
	uint8_t cmd;
	int rem, r;

	if (nlh->nlmsg_type != GENL_ID_CTRL)
		return 0;
	r = smcnl_parse_genl(nlh, tb, CTRL_ATTR_MAX, &cmd);
	if (r < 0 || !tb[CTRL_ATTR_MCAST_GROUPS])
		return r;
	nla_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS], rem)
	{
		char name[GENL_NAMSIZ];
		uint32_t id = 0;

		r = smcnl_parse_nested(g, CTRL_ATTR_MCAST_GRP_MAX, grp);
		r = r ?: attr_str(g[CTRL_ATTR_MCAST_GRP_NAME], name, sizeof(name));
		r = r ?: attr_u32(g[CTRL_ATTR_MCAST_GRP_ID], &id);
		if (r < 0)
			return r;
		if (g[CTRL_ATTR_MCAST_GRP_NAME] && streq(name, want->name) && id > 0 &&
		    id <= INT32_MAX)
			want->id = (int)id;
	}
	return 0;
}

int smcnl_genl_mcast_group(struct smcnl *nl, const char *family, const char *group)
{
	struct mcast_group want = { .name = group };
	/* Acknowledged: the answer is the family, then the ACK that ends the exchange. */
	struct nl_msg *msg = genl_msg_new(GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
	char key[96];
	int r;

	if (!msg || nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, family) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	snprintf(key, sizeof(key), "genl-ctrl-groups-%s", family);
	r = smcnl_request(nl, SMCNL_PROTO_GENL, msg, key, parse_mcast_group, &want);
	if (r == -ENOENT)
		return -EPROTONOSUPPORT; /* the kernel's answer for a family it does not have */
	if (r < 0)
		return r;
	return want.id > 0 ? want.id : -ENOENT;
}

void smcnl_family_prefetch(struct smcnl *nl, unsigned mask)
{
	struct nl_msg *msgs[_SMCNL_FAM_MAX] = {};
	uint32_t seq[_SMCNL_FAM_MAX] = {};
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	size_t len = 0, pending = 0;
	struct smcnl_sock *s;
	int fd;

	if (smcnl_keyed(nl) || sock_get(nl, SMCNL_PROTO_GENL, &s) < 0)
		return;
	for (int f = 0; f < _SMCNL_FAM_MAX; f++) {
		struct nlmsghdr *h;

		if (!(mask & (1u << f)) || nl->family_id[f] != 0)
			continue;
		msgs[f] = genl_msg_new(GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
		if (!msgs[f] || nla_put_string(msgs[f], CTRL_ATTR_FAMILY_NAME, family_names[f]) < 0)
			goto out;
		nl_complete_msg(s->sk, msgs[f]); /* our port, the socket's next sequence number */
		h = nlmsg_hdr(msgs[f]);
		if (len + NLMSG_ALIGN(h->nlmsg_len) > sizeof(buf))
			goto out;
		memcpy(buf + len, h, h->nlmsg_len);
		len += NLMSG_ALIGN(h->nlmsg_len);
		seq[f] = h->nlmsg_seq;
		pending |= 1u << f;
	}
	if (pending == 0 || nl_sendto(s->sk, buf, len) < 0)
		goto out;
	/* One answer per request, the family or an error, in the order asked. */
	fd = nl_socket_get_fd(s->sk);
	while (pending) {
		/* MSG_TRUNC: the whole datagram's length, so that one larger than buf (none is
		 * today) is seen, not parsed in part and waited for ever. */
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_TRUNC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (size_t)n > sizeof(buf)) {
			s->broken = true; /* the answers are not all read: a fresh socket next */
			goto out;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			const struct nlmsgerr *e = NLMSG_DATA(h);
			int id = 0;

			for (int f = 0; f < _SMCNL_FAM_MAX; f++) {
				if (!(pending & (1u << f)) || h->nlmsg_seq != seq[f])
					continue;
				pending &= ~(1u << f);
				if (h->nlmsg_type == NLMSG_ERROR &&
				    h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) && e->error == -ENOENT)
					nl->family_absent[f] = -EPROTONOSUPPORT;
				else if (h->nlmsg_type == GENL_ID_CTRL &&
					 parse_family_id(h, &id) == 0 && id > 0)
					nl->family_id[f] = id;
				/* anything else: the family is resolved on its own when used */
			}
		}
	}
out:
	for (int f = 0; f < _SMCNL_FAM_MAX; f++)
		nlmsg_free(msgs[f]);
}

int smcnl_genl_msg_new(struct smcnl *nl, enum smcnl_family fam, uint8_t cmd, int flags,
		       struct nl_msg **ret)
{
	struct nl_msg *msg;
	int id = smcnl_family_resolve(nl, fam);

	if (id < 0)
		return id;
	/* All three families: version 1, no user header. */
	msg = genl_msg_new(id, flags, cmd);
	if (!msg)
		return -ENOMEM;
	*ret = msg;
	return 0;
}

int smcnl_genl_dump(struct smcnl *nl, enum smcnl_family fam, uint8_t cmd, smcnl_msg_fn fn,
		    void *userdata)
{
	struct nl_msg *msg;
	char key[96];
	int r;

	r = smcnl_genl_msg_new(nl, fam, cmd, NLM_F_DUMP, &msg);
	if (r < 0)
		return r;
	return smcnl_request(nl, SMCNL_PROTO_GENL, msg, smcnl_genl_key(fam, cmd, key, sizeof(key)),
			     fn, userdata);
}

int smcnl_genl_do(struct smcnl *nl, enum smcnl_family fam, uint8_t cmd, int attr_type,
		  const void *data, size_t len)
{
	struct nl_msg *msg;
	char key[96];
	int r;

	r = smcnl_genl_msg_new(nl, fam, cmd, NLM_F_ACK, &msg);
	if (r < 0)
		return r;
	if (attr_type > 0 && nla_put(msg, attr_type, (int)len, data) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return smcnl_request(nl, SMCNL_PROTO_GENL, msg, smcnl_genl_key(fam, cmd, key, sizeof(key)),
			     NULL, NULL);
}

/*
 * Non-netlink probes (socket(2) in caps.c) recorded as "<name>.errno" holding the errno
 * (0 for success), so that a replayed capability probe never touches the kernel either.
 */
int smcnl_probe_result(struct smcnl *nl, const char *name, int (*probe)(void))
{
	char path[4096], buf[32];
	int r;

	if (smcnl_replaying(nl)) {
		snprintf(path, sizeof(path), "%s/%s.errno", nl->replay_dir, name);
		r = smcnl_read_file(path, buf, sizeof(buf));
		if (r < 0)
			return -ENODATA;
		return -abs(atoi(buf));
	}
	r = probe();
	if (nl->record_dir) {
		snprintf(path, sizeof(path), "%s/%s.errno", nl->record_dir, name);
		_cleanup_(fclosep) FILE *f = fopen(path, "we");
		if (f)
			fprintf(f, "%d\n", -r);
	}
	return r;
}
