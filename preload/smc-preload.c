// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsmc-preload.so: "smcctl run --method preload".  Interposes socket(3) so that TCP stream
 * sockets (AF_INET/AF_INET6, SOCK_STREAM with any SOCK_NONBLOCK/SOCK_CLOEXEC flags,
 * protocol 0 or IPPROTO_TCP) are created as SMC sockets: socket(AF_INET[6], type,
 * IPPROTO_SMC) where the kernel has it (Linux 6.11+), socket(AF_SMC, type, SMCPROTO_SMC[6])
 * otherwise.  If neither works the program gets the TCP socket it asked for: a program run
 * through this library never fails because of it.
 *
 * What smc-tools' libsmc-preload got wrong and this does not:
 *  - The real socket() is resolved once with pthread_once() and dlsym(RTLD_NEXT): safe when
 *    many threads make their first call at the same time (smc-tools issue #9, a segfault
 *    under MySQL/sysbench, came from an unlocked lazy dlopen), and it keeps the
 *    interposition chain of other preloaded libraries intact (no dlopen of libc by name).
 *  - The type argument is masked before comparing: SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC
 *    is a stream socket too (most modern software passes these flags).
 *  - errno is left as it was when a fallback succeeds.
 *
 * Environment (set by smcctl run; compatible with smc-tools' smc_run):
 *   SMC_SNDBUF, SMC_RCVBUF  setsockopt(SO_SNDBUF/SO_RCVBUF) on every SMC socket; bytes with
 *                           an optional k/K or m/M suffix (capped by net.core.wmem_max /
 *                           rmem_max like any setsockopt)
 *   SMCD_PRELOAD_PROTO      auto (default), ipproto or afsmc
 *   SMC_DEBUG               non-empty and not 0: one line per converted socket on stderr
 *
 * It cannot help static binaries, programs that make the system call themselves (Go), or
 * set-user-ID programs (the dynamic loader ignores LD_PRELOAD for them; the library is
 * deliberately not installed set-user-ID): the BPF path covers those.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif
#define PRELOAD_IPPROTO_SMC 256 /* linux/in.h since 6.11; not in every libc's headers */
#define PRELOAD_SMCPROTO_SMC 0
#define PRELOAD_SMCPROTO_SMC6 1
#define PRELOAD_SOCK_TYPE_MASK 0xf
#define PRELOAD_IPPROTO_TCP 6

#define EXPORT __attribute__((visibility("default")))

typedef int (*socket_fn)(int domain, int type, int protocol);

enum proto_mode {
	MODE_AUTO,
	MODE_IPPROTO,
	MODE_AFSMC,
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static socket_fn real_socket;
static enum proto_mode mode;
static int sndbuf, rcvbuf;
static bool debug;
/* MODE_AUTO: 0 not known yet, 1 IPPROTO_SMC works, -1 it does not (use AF_SMC). */
static int ipproto_state;

static int preload_parse_size(const char *s)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s)
		return 0;
	if (*end == 'k' || *end == 'K')
		v *= 1024, end++;
	else if (*end == 'm' || *end == 'M')
		v *= 1024 * 1024, end++;
	if (*end || v > 0x7fffffff / 2)
		return 0;
	return (int)v;
}

static void init(void)
{
	const char *p = getenv("SMCD_PRELOAD_PROTO");
	const char *d = getenv("SMC_DEBUG");
	int saved = errno;

	real_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if (p && strcmp(p, "ipproto") == 0)
		mode = MODE_IPPROTO;
	else if (p && strcmp(p, "afsmc") == 0)
		mode = MODE_AFSMC;
	sndbuf = preload_parse_size(getenv("SMC_SNDBUF"));
	rcvbuf = preload_parse_size(getenv("SMC_RCVBUF"));
	debug = d && *d && strcmp(d, "0") != 0;
	errno = saved;
}

/* The real socket(), or the system call if dlsym found nothing (a static libc, say). */
static int call_real(int domain, int type, int protocol)
{
	if (real_socket)
		return real_socket(domain, type, protocol);
	return (int)syscall(SYS_socket, domain, type, protocol);
}

#ifndef SMC_PRELOAD_NO_CONSTRUCTOR
/* Resolve before main() so that no thread ever waits on the once; socket() checks again
 * for calls from other libraries' constructors that run before this one. */
__attribute__((constructor)) static void preload_init(void)
{
	pthread_once(&init_once, init);
}
#endif

static int try_ipproto(int domain, int type)
{
	return call_real(domain, type, PRELOAD_IPPROTO_SMC);
}

static int try_afsmc(int domain, int type)
{
	return call_real(AF_SMC, type,
			 domain == AF_INET6 ? PRELOAD_SMCPROTO_SMC6 : PRELOAD_SMCPROTO_SMC);
}

static int preload_smc_socket(int domain, int type, const char **ret_how)
{
	int fd, state;

	switch (mode) {
	case MODE_IPPROTO:
		*ret_how = "IPPROTO_SMC";
		return try_ipproto(domain, type);
	case MODE_AFSMC:
		*ret_how = "AF_SMC";
		return try_afsmc(domain, type);
	default:
		break;
	}
	state = __atomic_load_n(&ipproto_state, __ATOMIC_RELAXED);
	if (state >= 0) {
		fd = try_ipproto(domain, type);
		if (fd >= 0) {
			__atomic_store_n(&ipproto_state, 1, __ATOMIC_RELAXED);
			*ret_how = "IPPROTO_SMC";
			return fd;
		}
		/* Only "this kernel has no IPPROTO_SMC" makes us stop trying it. */
		if (errno == EPROTONOSUPPORT || errno == ESOCKTNOSUPPORT || errno == EINVAL)
			__atomic_store_n(&ipproto_state, -1, __ATOMIC_RELAXED);
		else
			return -1;
	}
	*ret_how = "AF_SMC";
	return try_afsmc(domain, type);
}

static void preload_set_buf(int fd, int opt, int bytes, const char *name)
{
	if (bytes && setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof(bytes)) < 0 && debug)
		dprintf(STDERR_FILENO, "libsmc-preload: setsockopt(%s, %d): %s\n", name, bytes,
			strerror(errno));
}

EXPORT int socket(int domain, int type, int protocol)
{
	const char *how = "TCP";
	int saved = errno, fd;

	pthread_once(&init_once, init);
	if ((domain != AF_INET && domain != AF_INET6) ||
	    (type & PRELOAD_SOCK_TYPE_MASK) != SOCK_STREAM ||
	    (protocol != 0 && protocol != PRELOAD_IPPROTO_TCP))
		return call_real(domain, type, protocol);
	fd = preload_smc_socket(domain, type, &how);
	if (fd < 0) {
		if (debug)
			dprintf(STDERR_FILENO, "libsmc-preload: %s socket failed (%s), using TCP\n",
				how, strerror(errno));
		errno = saved;
		return call_real(domain, type, protocol);
	}
	preload_set_buf(fd, SO_SNDBUF, sndbuf, "SO_SNDBUF");
	preload_set_buf(fd, SO_RCVBUF, rcvbuf, "SO_RCVBUF");
	if (debug)
		dprintf(STDERR_FILENO, "libsmc-preload: socket(%s, %#x, %d) -> %s, fd %d\n",
			domain == AF_INET ? "AF_INET" : "AF_INET6", (unsigned)type, protocol, how,
			fd);
	errno = saved;
	return fd;
}
