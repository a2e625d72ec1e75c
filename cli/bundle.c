// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smcctl support-bundle: what smc-tools' smc_dbg collects and more, in one tar.gz.
 *
 * Every item is one file in a private staging directory (mkdtemp, mode 0700) and one entry
 * of manifest.json: its name, size, what produced it and its status ("ok" or why it
 * failed).  A failed item keeps its (possibly empty) file and its reason: nothing is left
 * out silently, and a collector that fails never fails the bundle.  Writing the bundle
 * does: the archive goes to a temporary name next to FILE and is renamed onto FILE only when
 * tar succeeded, so no half-written FILE is ever left behind.
 *
 * smcctl's objects are collected by running the in-process handlers (smcctl_run() with one
 * output FILE per item), not by executing smcctl again: the same code, the same JSON, no
 * PATH lookup of a possibly different smcctl.
 *
 * The archive is written by tar -czf from the staging directory, not by our own ustar and
 * gzip writer: gzip needs deflate, i.e. zlib, which is no dependency of ours (it would be a
 * new build dependency in scripts/setup-deps, debian/control and configure.ac for one verb),
 * while tar and gzip are Essential in Debian (and busybox has both in the test guests).  A
 * deflate-less gzip (stored blocks) would be valid but not compressed, which a .tar.gz
 * reader does not expect.
 *
 * Nothing secret: the machine ID (/etc/machine-id, and the file smc.yaml's
 * ueid.machine-id-file names if that is another), its application-specific ID and both UEIDs
 * derived from it (common/ueid-derive.h: "MID-" shows 27 of its 32 digits, and "APP-" names
 * the host as well as the ID does) are replaced, in every collected file and in the
 * manifest, by placeholders that say what was there: "<machine-id>", "<app-specific-id>",
 * "<ueid:machine-id>" and "<ueid:app-specific>" (with "-2" for a second machine ID).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "cli/bundle.h"
#include "common/output.h"
#include "common/ueid-derive.h"
#include "common/util.h"
#include "config/config.h"

extern char **environ;

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define AGENT_UNIT "smcd-agent.service"
#define JOURNAL_LINES 200
#define NETNS_RUN_DIR "/run/netns"
#define SECRETS_MAX 2

/* One machine ID, the forms of it that are scrubbed and their placeholders. */
struct secret {
	char id[MACHINE_ID_LEN + 1];
	char app_id[MACHINE_ID_LEN + 1]; /* its app-specific ID for UEID_APP_ID */
	char ueids[_UEID_DERIVATION_MAX][UEID_DERIVED_MAX + 1]; /* by derivation */
	char id_placeholder[24], app_id_placeholder[24];
	char ueid_placeholders[_UEID_DERIVATION_MAX][24];
	char path[PATH_MAX];
	size_t occurrences;
};

struct bundle {
	struct smcctl *c;
	char dir[PATH_MAX]; /* the staging directory */
	int dirfd;
	json_object *files; /* the manifest's entries, in collection order */
	json_object *netns;
	size_t n_failed;
	int self_netns_fd;
	size_t netns_unreadable; /* processes whose network namespace we may not read */
	char fatal[512];	 /* why the bundle stopped (collect() returned an error) */
	bool agent_running;
	char config_path[PATH_MAX];
	struct secret secrets[SECRETS_MAX];
	size_t n_secrets;
	json_object *machine_id; /* the manifest's account of the scrubbing */
	json_object *agent;	 /* running, status, config_path */
};

/* ---------------------------------------------------------------------------------- */
/* Scrubbing                                                                           */

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* The length of the machine ID's match at p (32 plain, 36 as a UUID), or 0. */
static size_t match_id(const char *p, size_t left, const char *id)
{
	size_t i = 0, k = 0;
	bool dashed = left > 8 && p[8] == '-';

	while (k < MACHINE_ID_LEN) {
		if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
			if (i >= left || p[i] != '-')
				return 0;
			i++;
			continue;
		}
		if (i >= left || hexval(p[i]) != hexval(id[k]))
			return 0;
		i++;
		k++;
	}
	return i;
}

/* The length of word's match at p, in any case, or 0 (a NUL of the buffer is data). */
static size_t match_word(const char *p, size_t left, const char *word)
{
	size_t wl = strlen(word);

	if (wl == 0 || wl > left)
		return 0;
	for (size_t k = 0; k < wl; k++)
		if (p[k] == '\0' || tolower((unsigned char)p[k]) != tolower((unsigned char)word[k]))
			return 0;
	return wl;
}

/* Copy buf with every match of what (per match()) replaced by replacement. */
static char *scrub(const char *buf, size_t len, const char *what,
		   size_t (*match)(const char *p, size_t left, const char *what),
		   const char *replacement, size_t *ret_len, size_t *ret_n)
{
	size_t rl = strlen(replacement), n = 0, o = 0;
	/* The replacement is no longer than what it replaces (bundle.h). */
	char *out = malloc(len + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t m = match(buf + i, len - i, what);

		if (m) {
			memcpy(out + o, replacement, rl);
			o += rl;
			i += m;
			n++;
		} else {
			out[o++] = buf[i++];
		}
	}
	out[o] = '\0';
	*ret_len = o;
	*ret_n = n;
	return out;
}

char *bundle_scrub(const char *buf, size_t len, const char *machine_id, const char *replacement,
		   size_t *ret_len, size_t *ret_n)
{
	return scrub(buf, len, machine_id, match_id, replacement, ret_len, ret_n);
}

char *bundle_scrub_word(const char *buf, size_t len, const char *word, const char *replacement,
			size_t *ret_len, size_t *ret_n)
{
	return scrub(buf, len, word, match_word, replacement, ret_len, ret_n);
}

/* Read a whole staged file (NUL-terminated); NULL with errno on failure. */
static char *read_staged(struct bundle *b, const char *name, size_t *ret_len)
{
	_cleanup_(closep) int fd = openat(b->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = 0, cap = 4096;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		ssize_t k;

		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		k = read(fd, buf + len, cap - len - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		if (k == 0) {
			buf[len] = '\0';
			*ret_len = len;
			return buf;
		}
		len += (size_t)k;
	}
	free(buf);
	return NULL;
}

/* One pass of scrubbing over text: an ID (bundle_scrub) or a word (bundle_scrub_word). */
static int scrub_pass(char **text, size_t *len, bool id, const char *what, const char *by,
		      size_t *occurrences)
{
	size_t n, nl;
	char *out = id ? bundle_scrub(*text, *len, what, by, &nl, &n)
		       : bundle_scrub_word(*text, *len, what, by, &nl, &n);

	if (!out)
		return -ENOMEM;
	free(*text);
	*text = out;
	*len = nl;
	*occurrences += n;
	return 0;
}

/* Scrub text in place (it is replaced); counts into the secrets. */
static int scrub_text(struct bundle *b, char **text, size_t *len)
{
	for (size_t i = 0; i < b->n_secrets; i++) {
		struct secret *s = &b->secrets[i];
		int r;

		/* The IDs first: the UEIDs hold a part of their digits. */
		r = scrub_pass(text, len, true, s->id, s->id_placeholder, &s->occurrences);
		if (r == 0)
			r = scrub_pass(text, len, true, s->app_id, s->app_id_placeholder,
				       &s->occurrences);
		for (size_t d = 0; r == 0 && d < _UEID_DERIVATION_MAX; d++)
			r = scrub_pass(text, len, false, s->ueids[d], s->ueid_placeholders[d],
				       &s->occurrences);
		if (r < 0)
			return r;
	}
	return 0;
}

static int scrub_file(struct bundle *b, const char *name)
{
	size_t len, before;
	char *text = read_staged(b, name, &len);
	_cleanup_(closep) int fd = -1;
	int r;

	if (!text)
		return negative_errno();
	before = len;
	r = scrub_text(b, &text, &len);
	if (r == 0 && len != before) {
		fd = openat(b->dirfd, name, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
		r = fd < 0 ? negative_errno() : fd_write_all(fd, text, len);
	}
	free(text);
	return r;
}

/* ---------------------------------------------------------------------------------- */
/* Staging and the manifest                                                            */

/* Create NAME (with its folders) in the staging directory, mode 0600. */
static int stage_open(struct bundle *b, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s", name);
	for (char *p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdirat(b->dirfd, path, 0700) < 0 && errno != EEXIST)
			return negative_errno();
		*p = '/';
	}
	return openat(b->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
}

/* One entry of the manifest; status NULL is "ok". */
static int record(struct bundle *b, const char *name, const char *source, const char *status)
{
	json_object *e = json_object_new_object();
	int r = 0;

	if (!e)
		return -ENOMEM;
	r |= json_add_str(e, "name", name);
	r |= json_add_str(e, "source", source);
	r |= json_add_str(e, "status", status ? status : "ok");
	r |= json_append(b->files, e);
	if (status)
		b->n_failed++;
	return r < 0 ? -ENOMEM : 0;
}

/* A native item: write text (may be empty) to NAME and record it. */
static int record_text(struct bundle *b, const char *name, const char *source, const char *text,
		       size_t len, const char *status)
{
	_cleanup_(closep) int fd = stage_open(b, name);
	char why[256];

	if (fd < 0 || fd_write_all(fd, text ? text : "", text ? len : 0) < 0) {
		snprintf(why, sizeof(why), "cannot stage the file: %s", strerror(errno));
		return record(b, name, source, why);
	}
	return record(b, name, source, status);
}

/* ---------------------------------------------------------------------------------- */
/* smcctl's own objects                                                                */

#define WORDS_MAX 12

/* "smcctl: x\nsmcctl: y\n" as "x; y". */
static void error_text(const char *err, int status, bool answered, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	while (err && *err && o + 1 < len) {
		const char *nl = strchrnul(err, '\n');
		int k;

		if (startswith(err, "smcctl: "))
			err += strlen("smcctl: ");
		if (nl > err) {
			k = snprintf(buf + o, len - o, "%s%.*s", o ? "; " : "", (int)(nl - err), err);
			if (k > 0)
				o += (size_t)k;
		}
		err = *nl ? nl + 1 : nl;
	}
	if (o == 0)
		snprintf(buf, len, "exit status %d%s", status,
			 answered ? ": the file holds the answer, which says why" : "");
}

/*
 * Run "smcctl -j WORDS..." in process into NAME.  Returns the exit status; *status gets
 * NULL (ok) or the error line.  in names the network namespace for the manifest (NULL: the
 * one smcctl runs in).
 */
static int run_smcctl(struct bundle *b, const char *name, const char *in, const char *const *words,
		      char *status, size_t status_len, char *source, size_t source_len)
{
	char *argv[WORDS_MAX + 3], *err = NULL;
	size_t n = 0, errlen = 0, o;
	FILE *out, *errf;
	struct stat st = {};
	int fd, s;

	argv[n++] = (char *)"smcctl";
	argv[n++] = (char *)"-j";
	o = (size_t)snprintf(source, source_len, "smcctl -j");
	for (size_t i = 0; words[i] && n < ELEMENTSOF(argv) - 1; i++) {
		argv[n++] = (char *)words[i];
		o += (size_t)snprintf(source + o, o < source_len ? source_len - o : 0, " %s",
				      words[i]);
	}
	if (in)
		snprintf(source + o, o < source_len ? source_len - o : 0,
			 " (in network namespace %s)", in);
	argv[n] = NULL;

	fd = stage_open(b, name);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	errf = open_memstream(&err, &errlen);
	if (!out || !errf) {
		snprintf(status, status_len, "cannot stage the file: %s", strerror(errno));
		if (out)
			fclose(out);
		else if (fd >= 0)
			close(fd);
		if (errf)
			fclose(errf);
		free(err);
		return SMCCTL_EXIT_FAILURE;
	}
	s = smcctl_run((int)n, argv, NULL, out, errf);
	fflush(out);
	fstat(fd, &st);
	if (fclose(out) != 0 && s == 0)
		s = SMCCTL_EXIT_FAILURE;
	fclose(errf);
	if (s)
		error_text(err, s, st.st_size > 0, status, status_len);
	else
		status[0] = '\0';
	free(err);
	return s;
}

static int item_smcctl(struct bundle *b, const char *name, const char *in, const char *const *words)
{
	char status[1024], source[512];
	int s = run_smcctl(b, name, in, words, status, sizeof(status), source, sizeof(source));

	return record(b, name, source, s ? status : NULL);
}

#define ITEM(b, name, in, ...) item_smcctl(b, name, in, (const char *const[]){ __VA_ARGS__, NULL })

/* The objects whose scope is one network namespace, into netns/DIR/. */
static void collect_netns_objects(struct bundle *b, const char *dir, const char *in)
{
	static const struct {
		const char *file;
		const char *words[6];
	} items[] = {
		{ "info.json", { "info", "show" } },
		{ "pnet.json", { "pnet", "list" } },
		{ "sysctl.json", { "sysctl", "show" } },
		{ "hs-limit.json", { "hs-limit", "show" } },
		/* The kernel's own counters: the agent's view (since reset, rates) is apart. */
		{ "stats.json", { "stats", "show", "-a", "--kernel" } },
	};
	char name[PATH_MAX];

	for (size_t i = 0; i < ELEMENTSOF(items); i++) {
		if (!object_find(items[i].words[0]))
			continue;
		snprintf(name, sizeof(name), "%s/%s", dir, items[i].file);
		item_smcctl(b, name, in, items[i].words);
	}
}

/* Buffer sysctls outside net.smc that SMC's throughput depends on (smc_run raises them). */
static void collect_net_sysctls(struct bundle *b, const char *dir)
{
	static const char *const keys[] = {
		"net/core/wmem_max",	 "net/core/rmem_max", "net/core/wmem_default",
		"net/core/rmem_default", "net/ipv4/tcp_wmem", "net/ipv4/tcp_rmem",
	};
	_cleanup_(freep) char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	char name[PATH_MAX];

	if (!f) {
		snprintf(name, sizeof(name), "%s/sysctl-net.txt", dir);
		record_text(b, name, "/proc/sys/net/{core,ipv4} buffer sysctls", NULL, 0,
			    "out of memory");
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
		char path[128], value[256] = "", key[64];
		FILE *in;

		snprintf(path, sizeof(path), "/proc/sys/%s", keys[i]);
		snprintf(key, sizeof(key), "%s", keys[i]);
		for (char *p = key; *p; p++)
			if (*p == '/')
				*p = '.';
		in = fopen(path, "re");
		if (in && fgets(value, sizeof(value), in))
			fprintf(f, "%s = %s", key, value);
		else
			fprintf(f, "%s: %s\n", key, strerror(errno));
		if (in)
			fclose(in);
	}
	fclose(f);
	snprintf(name, sizeof(name), "%s/sysctl-net.txt", dir);
	record_text(b, name, "/proc/sys/net/{core,ipv4} buffer sysctls", text, len, NULL);
}

/* The number of sockets in a staged "socket list" document, or -1. */
static ssize_t count_sockets(struct bundle *b, const char *name)
{
	size_t len;
	_cleanup_(freep) char *text = read_staged(b, name, &len);
	_cleanup_(json_object_putp) json_object *doc = text ? json_tokener_parse(text) : NULL;
	json_object *arr = doc ? out_get(doc, "sockets") : NULL;

	return arr && json_object_is_type(arr, json_type_array)
		       ? (ssize_t)json_object_array_length(arr)
		       : -1;
}

/* ---------------------------------------------------------------------------------- */
/* Network namespaces                                                                  */

/* The processes listed with their command per namespace in the manifest; the rest counted. */
#define NETNS_PIDS_LISTED 16

static int bundle_netns_cmp(const void *x, const void *y)
{
	const struct bundle_netns *a = x, *b = y;

	if (!a->name[0] != !b->name[0])
		return a->name[0] ? -1 : 1;
	if (a->name[0])
		return strcmp(a->name, b->name);
	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

static int pid_cmp(const void *x, const void *y)
{
	pid_t a = *(const pid_t *)x, b = *(const pid_t *)y;

	return a < b ? -1 : a > b;
}

/* The entry of the namespace st is the nsfs file of, added when new; NULL when out of memory. */
static struct bundle_netns *netns_get(struct bundle_netns_list *l, const struct stat *st)
{
	struct bundle_netns *ns;

	for (size_t i = 0; i < l->n; i++)
		if (l->ns[i].dev == st->st_dev && l->ns[i].ino == st->st_ino)
			return &l->ns[i];
	ns = reallocarray(l->ns, l->n + 1, sizeof(*ns));
	if (!ns)
		return NULL;
	l->ns = ns;
	ns = &l->ns[l->n++];
	*ns = (struct bundle_netns){ .dev = st->st_dev, .ino = st->st_ino };
	return ns;
}

static int netns_add_pid(struct bundle_netns *ns, pid_t pid)
{
	pid_t *p = reallocarray(ns->pids, ns->n_pids + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	ns->pids = p;
	ns->pids[ns->n_pids++] = pid;
	return 0;
}

/* The names in run_netns, sorted: a namespace with two names is known by the first. */
static int scan_run_netns(const char *run_netns, struct bundle_netns_list *l)
{
	struct dirent **names = NULL;
	int n = scandir(run_netns, &names, NULL, alphasort), r = 0;

	if (n < 0) {
		if (errno != ENOENT)
			l->run_netns_errno = errno;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct bundle_netns *ns;
		struct stat st;

		/* A stale file (ip netns add failed halfway) is listed too: entering it fails,
		 * and the manifest says what it is. */
		snprintf(path, sizeof(path), "%s/%s", run_netns, names[i]->d_name);
		if (r == 0 && names[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    !S_ISDIR(st.st_mode)) {
			ns = netns_get(l, &st);
			if (!ns)
				r = -ENOMEM;
			else if (ns->n_names++ == 0)
				snprintf(ns->name, sizeof(ns->name), "%s", names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int bundle_netns_scan(const char *proc, const char *run_netns, struct bundle_netns_list *ret)
{
	struct bundle_netns_list l = {};
	_cleanup_(closedirp) DIR *d = opendir(proc);
	char path[PATH_MAX];
	struct dirent *de;
	struct stat self;
	bool has_self;
	int r;

	if (!d)
		return negative_errno();
	snprintf(path, sizeof(path), "%s/self/ns/net", proc);
	has_self = stat(path, &self) == 0;
	r = scan_run_netns(run_netns, &l);
	while (r == 0 && (de = readdir(d))) {
		struct bundle_netns *ns;
		struct stat st;

		if (!str_all_digits(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/ns/net", proc, de->d_name);
		if (stat(path, &st) < 0) {
			/* ENOENT: it ended, or a zombie (no namespaces left). */
			if (errno == EACCES || errno == EPERM)
				l.unreadable++;
			continue;
		}
		ns = netns_get(&l, &st);
		if (!ns || netns_add_pid(ns, (pid_t)atol(de->d_name)) < 0)
			r = -ENOMEM;
	}
	if (r < 0) {
		bundle_netns_list_done(&l);
		return r;
	}
	for (size_t i = 0; i < l.n; i++) {
		l.ns[i].self = has_self && l.ns[i].dev == self.st_dev && l.ns[i].ino == self.st_ino;
		if (l.ns[i].n_pids > 1)
			qsort(l.ns[i].pids, l.ns[i].n_pids, sizeof(pid_t), pid_cmp);
	}
	/* qsort's array may not be NULL, even for no elements (an empty list has none). */
	if (l.n > 1)
		qsort(l.ns, l.n, sizeof(*l.ns), bundle_netns_cmp);
	*ret = l;
	return 0;
}

void bundle_netns_list_done(struct bundle_netns_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->ns[i].pids);
	free(l->ns);
	*l = (struct bundle_netns_list){};
}

/* The directory of a namespace in the archive, and its label in the manifest and sources. */
static void bundle_netns_label(const struct bundle_netns *ns, char *label, size_t label_len,
			       char *dir, size_t dir_len)
{
	if (ns->name[0]) {
		snprintf(label, label_len, "%s", ns->name);
		snprintf(dir, dir_len, "netns/named/%s", ns->name);
	} else {
		snprintf(label, label_len, "netns-%ju", (uintmax_t)ns->ino);
		snprintf(dir, dir_len, "netns/netns-%ju", (uintmax_t)ns->ino);
	}
}

/* The first processes of a namespace, with their command. */
static int netns_procs_json(json_object *e, const struct bundle_netns *ns)
{
	json_object *pids = json_object_new_array();
	int r = 0;

	if (!pids)
		return -ENOMEM;
	for (size_t i = 0; i < ns->n_pids && i < NETNS_PIDS_LISTED; i++) {
		json_object *p = json_object_new_object();
		char path[64], comm[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)ns->pids[i]);
		f = fopen(path, "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		if (!p) {
			json_object_put(pids);
			return -ENOMEM;
		}
		r |= json_add_u64(p, "pid", (uint64_t)ns->pids[i]);
		r |= json_add_name(p, "command", comm[0] ? comm : NULL);
		r |= json_append(pids, p);
	}
	r |= json_add(e, "pids", pids);
	return r < 0 ? -ENOMEM : 0;
}

/* One entry of the manifest's netns; ns NULL: no namespace (the listing failed). */
static int netns_note(struct bundle *b, const char *name, const char *path,
		      const struct bundle_netns *ns, const char *dir, const char *reason)
{
	json_object *e = json_object_new_object();
	int r = 0;

	if (!e)
		return -ENOMEM;
	r |= json_add_str(e, "name", name);
	r |= json_add_str(e, "path", path);
	if (ns) {
		r |= json_add_u64(e, "inode", (uint64_t)ns->ino);
		if (ns->n_names > 1)
			r |= json_add_u64(e, "names", ns->n_names);
	}
	r |= json_add_bool(e, "collected", dir != NULL);
	if (dir)
		r |= json_add_str(e, "dir", dir);
	if (reason)
		r |= json_add_str(e, "reason", reason);
	if (ns)
		r |= json_add_u64(e, "processes", ns->n_pids);
	/* smcctl's own: every process of the host, most likely; a count says enough. */
	if (ns && !ns->self)
		r |= netns_procs_json(e, ns);
	r |= json_append(b->netns, e);
	return r < 0 ? -ENOMEM : 0;
}

/*
 * Open the namespace: its bind mount in /run/netns, else the nsfs file of one of its
 * processes, checked to be that namespace still (a pid may have ended and been reused).
 */
static int bundle_netns_open(const struct bundle_netns *ns, char *path, size_t len)
{
	int err = ESRCH;

	for (size_t i = 0; i <= ns->n_pids; i++) {
		struct stat st;
		int fd;

		if (i == 0 && !ns->name[0])
			continue;
		if (i == 0)
			snprintf(path, len, NETNS_RUN_DIR "/%s", ns->name);
		else
			snprintf(path, len, "/proc/%d/ns/net", (int)ns->pids[i - 1]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (err == ESRCH && errno != ENOENT)
				err = errno;
			continue;
		}
		if (fstat(fd, &st) == 0 && st.st_dev == ns->dev && st.st_ino == ns->ino)
			return fd;
		close(fd);
	}
	return -err;
}

/*
 * Back into smcctl's own namespace.  Everything after a visit is collected where smcctl
 * started, and a bundle with the rest taken from another namespace would say what is not
 * so: a failure here ends the bundle.
 */
static int netns_return(struct bundle *b, const char *label)
{
	int r;

	if (setns(b->self_netns_fd, CLONE_NEWNET) == 0)
		return 0;
	r = negative_errno();
	snprintf(b->fatal, sizeof(b->fatal),
		 "cannot return to smcctl's own network namespace after visiting %s: %s (nothing "
		 "more was collected)",
		 label, strerror(-r));
	return r;
}

/* One namespace other than smcctl's: entered, collected when it has SMC sockets, left. */
static int collect_other_netns(struct bundle *b, const struct bundle_netns *ns)
{
	char label[NAME_MAX + 32], dir[NAME_MAX + 64], path[PATH_MAX], name[NAME_MAX + 96];
	char status[1024], source[512], why[1400];
	_cleanup_(closep) int fd = -1;
	ssize_t n;
	int s, r;

	bundle_netns_label(ns, label, sizeof(label), dir, sizeof(dir));
	fd = bundle_netns_open(ns, path, sizeof(path));
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot open it: %s%s",
			 fd == -ESRCH ? "its processes ended" : strerror(-fd),
			 fd == -EACCES || fd == -EPERM ? " (run as root)" : "");
		return netns_note(b, label, path, ns, NULL, why);
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		snprintf(why, sizeof(why), "cannot enter it: %s%s", strerror(errno),
			 errno == EPERM ? " (needs CAP_SYS_ADMIN: run as root)"
			 : errno == EINVAL
				 ? " (not a network namespace: a stale file in /run/netns, "
				   "left by an ip netns add that failed; ip netns delete it)"
				 : "");
		return netns_note(b, label, path, ns, NULL, why);
	}
	snprintf(name, sizeof(name), "%s/socket.json", dir);
	s = run_smcctl(b, name, label,
		       (const char *const[]){ "socket", "list", "-a", "-d", "-p", NULL }, status,
		       sizeof(status), source, sizeof(source));
	n = s ? -1 : count_sockets(b, name);
	if (n > 0) {
		record(b, name, source, NULL);
		collect_netns_objects(b, dir, label);
		collect_net_sysctls(b, dir);
	} else {
		unlinkat(b->dirfd, name, 0);
		unlinkat(b->dirfd, dir, AT_REMOVEDIR);
	}
	r = netns_return(b, label);
	if (r < 0)
		return r;
	if (s)
		snprintf(why, sizeof(why), "cannot list its SMC sockets: %s", status);
	else if (n < 0)
		snprintf(why, sizeof(why), "cannot read its socket list");
	else
		snprintf(why, sizeof(why), "no SMC sockets");
	return netns_note(b, label, path, ns, n > 0 ? dir : NULL, n > 0 ? NULL : why);
}

static int collect_netns(struct bundle *b)
{
	_cleanup_(bundle_netns_list_done) struct bundle_netns_list l = {};
	const struct bundle_netns *self = NULL;
	char why[256], path[PATH_MAX];
	int r, scan;

	ITEM(b, "netns/init/socket.json", NULL, "socket", "list", "-a", "-d", "-p");
	collect_netns_objects(b, "netns/init", NULL);
	collect_net_sysctls(b, "netns/init");
	scan = bundle_netns_scan("/proc", NETNS_RUN_DIR, &l);
	for (size_t i = 0; i < l.n; i++)
		if (l.ns[i].self)
			self = &l.ns[i];
	r = netns_note(b, "init", NULL, self, "netns/init", NULL);
	if (r < 0)
		return r;
	if (scan < 0) {
		snprintf(why, sizeof(why), "cannot list the network namespaces of /proc: %s",
			 strerror(-scan));
		return netns_note(b, "/proc", "/proc", NULL, NULL, why);
	}
	b->netns_unreadable = l.unreadable;
	if (l.run_netns_errno) {
		snprintf(why, sizeof(why), "cannot list " NETNS_RUN_DIR ": %s",
			 strerror(l.run_netns_errno));
		r = netns_note(b, NETNS_RUN_DIR, NETNS_RUN_DIR, NULL, NULL, why);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (l.ns[i].self && l.ns[i].name[0]) {
			snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", l.ns[i].name);
			r = netns_note(b, l.ns[i].name, path, &l.ns[i], NULL,
				       "the network namespace smcctl runs in (collected as init)");
		} else if (!l.ns[i].self) {
			r = collect_other_netns(b, &l.ns[i]);
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---------------------------------------------------------------------------------- */
/* The kernel                                                                          */

static void collect_uname(struct bundle *b, struct utsname *u)
{
	_cleanup_(freep) char *text = NULL;

	if (asprintf(&text, "sysname: %s\nnodename: %s\nrelease: %s\nversion: %s\nmachine: %s\n",
		     u->sysname, u->nodename, u->release, u->version, u->machine) < 0)
		text = NULL;
	record_text(b, "kernel/uname.txt", "uname(2)", text, text ? strlen(text) : 0,
		    text ? NULL : "out of memory");
}

/* The options SMC and smcd-agent depend on (CONFIG_ + a prefix, then '=', '_' or ' '). */
static const char *const config_prefixes[] = {
	"SMC",	      /* SMC, SMC_DIAG, SMC_LO (before 6.18) */
	"DIBS",	      /* DIBS, DIBS_LO: SMC-D devices since 6.18 */
	"ISM",	      /* s390 ISM */
	"INFINIBAND", /* SMC depends on it; SMC-R's devices */
	"RDMA_RXE",   /* soft-RoCE */
	"MLX5_INFINIBAND",
	"MLX4_INFINIBAND",
	"BPF",		  /* BPF, BPF_SYSCALL, BPF_JIT...: smcctl run, policies */
	"CGROUP_BPF",	  /* cgroup policies */
	"DEBUG_INFO_BTF", /* CO-RE */
	"MPTCP",	  /* update_socket_protocol is allow-listed for fmod_ret by MPTCP */
	"NET_NS",
};

static bool config_line_wanted(const char *line)
{
	const char *name = startswith(line, "CONFIG_")	   ? line + 7
			   : startswith(line, "# CONFIG_") ? line + 9
							   : NULL;

	if (!name)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(config_prefixes); i++) {
		size_t l = strlen(config_prefixes[i]);

		if (strncmp(name, config_prefixes[i], l) == 0 &&
		    (name[l] == '=' || name[l] == '_' || name[l] == ' '))
			return true;
	}
	return false;
}

/* Run argv with stdout on out_fd (stdin /dev/null); its exit status, or -errno. */
static int spawn(char *const *argv, int out_fd)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int r, st;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (out_fd != 1)
		posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0)
		return -r;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void filter_config(struct bundle *b, FILE *in, const char *source)
{
	_cleanup_(freep) char *text = NULL, *line = NULL;
	size_t len = 0, cap = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		record(b, "kernel/config.txt", source, "out of memory");
		return;
	}
	while (getline(&line, &cap, in) > 0)
		if (config_line_wanted(line))
			fputs(line, f);
	fclose(f);
	record_text(b, "kernel/config.txt", source, text, len, NULL);
}

static void collect_kernel_config(struct bundle *b, const char *release)
{
	char boot[PATH_MAX], source[PATH_MAX + 128], why[PATH_MAX + 256];
	_cleanup_(fclosep) FILE *in = NULL;
	int proc_err;

	if (access("/proc/config.gz", R_OK) == 0) {
		char *argv[] = { (char *)"gzip", (char *)"-dc", (char *)"/proc/config.gz", NULL };
		_cleanup_(closep) int fd = stage_open(b, ".config.raw");
		int s = fd < 0 ? negative_errno() : spawn(argv, fd);

		snprintf(source, sizeof(source), "/proc/config.gz (gzip -dc), SMC-relevant lines");
		if (s == 0 && lseek(fd, 0, SEEK_SET) == 0) {
			int rfd = openat(b->dirfd, ".config.raw", O_RDONLY | O_CLOEXEC);

			in = rfd >= 0 ? fdopen(rfd, "re") : NULL;
		}
		unlinkat(b->dirfd, ".config.raw", 0);
		if (in) {
			filter_config(b, in, source);
			return;
		}
		snprintf(why, sizeof(why), "cannot read /proc/config.gz: %s",
			 s < 0 ? strerror(-s) : "gzip -dc failed");
		record_text(b, "kernel/config.txt", source, NULL, 0, why);
		return;
	}
	proc_err = errno;
	snprintf(boot, sizeof(boot), "/boot/config-%s", release);
	in = fopen(boot, "re");
	if (in) {
		snprintf(source, sizeof(source), "%s, SMC-relevant lines", boot);
		filter_config(b, in, source);
		return;
	}
	snprintf(why, sizeof(why), "no kernel config found (/proc/config.gz: %s; %s: %s)",
		 strerror(proc_err), boot, strerror(errno));
	record_text(b, "kernel/config.txt", "/proc/config.gz or /boot/config-RELEASE", NULL, 0, why);
}

static void collect_modules(struct bundle *b)
{
	static const char *const prefixes[] = { "smc", "dibs", "ism", "ib_", "rdma", "mlx", "siw" };
	_cleanup_(freep) char *text = NULL, *line = NULL;
	_cleanup_(fclosep) FILE *in = fopen("/proc/modules", "re");
	size_t len = 0, cap = 0;
	FILE *f;

	if (!in) {
		char why[256];

		snprintf(why, sizeof(why), "cannot read /proc/modules: %s", strerror(errno));
		record_text(b, "kernel/modules.txt", "/proc/modules", NULL, 0, why);
		return;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		record_text(b, "kernel/modules.txt", "/proc/modules", NULL, 0, "out of memory");
		return;
	}
	while (getline(&line, &cap, in) > 0)
		for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
			if (startswith(line, prefixes[i])) {
				fputs(line, f);
				break;
			}
	fclose(f);
	record_text(b, "kernel/modules.txt", "/proc/modules, SMC and RDMA modules", text, len, NULL);
}

/* A kernel message about SMC, its DIBS devices or our smc_lo ("smc" covers "smc_lo"). */
static bool kmsg_wanted(const char *msg)
{
	/* The boot's banner too: which kernel, built when, since when the log runs. */
	return startswith(msg, "Linux version ") || strcasestr(msg, "smc") || strcasestr(msg, "dibs");
}

static void collect_kmsg(struct bundle *b)
{
	static const char source[] =
		"/dev/kmsg, the boot banner and the lines about smc, dibs and smc_lo";
	_cleanup_(closep) int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	_cleanup_(freep) char *text = NULL;
	char rec[16384], why[256];
	size_t len = 0;
	FILE *f;

	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot read /dev/kmsg: %s%s", strerror(errno),
			 errno == EPERM || errno == EACCES
				 ? " (kernel.dmesg_restrict: needs CAP_SYSLOG, run as root)"
				 : "");
		record_text(b, "kernel/dmesg.txt", source, NULL, 0, why);
		return;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		record_text(b, "kernel/dmesg.txt", source, NULL, 0, "out of memory");
		return;
	}
	for (;;) {
		/* One record per read: "PRI,SEQ,USEC,FLAGS;MESSAGE\n" and " KEY=VALUE" lines. */
		ssize_t k = read(fd, rec, sizeof(rec) - 1);
		unsigned long long usec = 0;
		char *msg, *end;

		if (k < 0 && (errno == EINTR || errno == EPIPE))
			continue; /* EPIPE: records were overwritten while we read; go on */
		if (k <= 0)
			break; /* EAGAIN: the end of the buffer */
		rec[k] = '\0';
		msg = strchr(rec, ';');
		if (!msg || sscanf(rec, "%*u,%*u,%llu", &usec) != 1)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		if (kmsg_wanted(msg))
			fprintf(f, "[%5llu.%06llu] %s\n", usec / 1000000, usec % 1000000, msg);
	}
	fclose(f);
	record_text(b, "kernel/dmesg.txt", source, text, len, NULL);
}

/* ---------------------------------------------------------------------------------- */
/* The agent                                                                           */

static void fmt_usec(uint64_t usec, char *buf, size_t len)
{
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;
	size_t k;

	if (!gmtime_r(&t, &tm) || (k = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm)) == 0) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf + k, len - k, ".%06uZ", (unsigned)(usec % 1000000));
}

static void journal_field(sd_journal *j, const char *field, char *buf, size_t len)
{
	const void *data;
	size_t l, fl = strlen(field);

	buf[0] = '\0';
	if (sd_journal_get_data(j, field, &data, &l) < 0 || l <= fl + 1)
		return;
	snprintf(buf, len, "%.*s", (int)(l - fl - 1), (const char *)data + fl + 1);
}

static void collect_journal(struct bundle *b)
{
	static const char source[] = "sd-journal: the last 200 entries of " AGENT_UNIT;
	static const char name[] = "agent/journal.txt";
	_cleanup_(freep) char *text = NULL;
	sd_journal *j = NULL;
	char why[512];
	size_t len = 0;
	FILE *f;
	int r;

	r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
	if (r < 0) {
		snprintf(why, sizeof(why), "cannot open the journal: %s", strerror(-r));
		record_text(b, name, source, NULL, 0, why);
		return;
	}
	if (sd_journal_has_runtime_files(j) <= 0 && sd_journal_has_persistent_files(j) <= 0) {
		sd_journal_close(j);
		record_text(b, name, source, NULL, 0,
			    geteuid() == 0 ? "no journal files (systemd-journald does not run here)"
					   : "no journal files readable (run as root, or as a "
					     "member of group systemd-journal or adm)");
		return;
	}
	/* What journalctl -u matches: the unit's processes, and PID 1 about the unit. */
	if ((r = sd_journal_add_match(j, "_SYSTEMD_UNIT=" AGENT_UNIT, 0)) < 0 ||
	    (r = sd_journal_add_disjunction(j)) < 0 ||
	    (r = sd_journal_add_match(j, "_PID=1", 0)) < 0 ||
	    (r = sd_journal_add_match(j, "UNIT=" AGENT_UNIT, 0)) < 0 ||
	    (r = sd_journal_seek_tail(j)) < 0 ||
	    (r = sd_journal_previous_skip(j, JOURNAL_LINES)) < 0 ||
	    !(f = open_memstream(&text, &len))) {
		snprintf(why, sizeof(why), "cannot read the journal: %s",
			 strerror(r < 0 ? -r : ENOMEM));
		sd_journal_close(j);
		record_text(b, name, source, NULL, 0, why);
		return;
	}
	for (int k = r; k > 0; k = sd_journal_next(j)) {
		char when[40], ident[64], pid[16], msg[4096];
		uint64_t usec = 0;

		sd_journal_get_realtime_usec(j, &usec);
		fmt_usec(usec, when, sizeof(when));
		journal_field(j, "SYSLOG_IDENTIFIER", ident, sizeof(ident));
		if (!ident[0])
			journal_field(j, "_COMM", ident, sizeof(ident));
		journal_field(j, "_PID", pid, sizeof(pid));
		journal_field(j, "MESSAGE", msg, sizeof(msg));
		fprintf(f, "%s %s[%s]: %s\n", when, ident[0] ? ident : "-", pid[0] ? pid : "-", msg);
	}
	fclose(f);
	sd_journal_close(j);
	record_text(b, name, source, text, len, NULL);
}

/* The agent's status; its config path when it runs. */
static void collect_agent(struct bundle *b)
{
	char status[1024], source[512];
	int s = run_smcctl(b, "agent/status.json", NULL,
			   (const char *const[]){ "status", "show", NULL }, status, sizeof(status),
			   source, sizeof(source));

	size_t len;
	_cleanup_(freep) char *text = NULL;
	_cleanup_(json_object_putp) json_object *doc = NULL;

	/* "status" is non-zero for a running agent that is degraded (1) or has no SMC (3), as
	 * systemctl is-system-running: the agent runs when it answered with its state. */
	if (s == SMCCTL_EXIT_OK || s == SMCCTL_EXIT_FAILURE || s == SMCCTL_EXIT_UNAVAILABLE) {
		text = read_staged(b, "agent/status.json", &len);
		doc = text ? json_tokener_parse(text) : NULL;
	}
	b->agent_running = doc && out_get_str(doc, "state", NULL);
	if (b->agent_running)
		s = SMCCTL_EXIT_OK;
	record(b, "agent/status.json", source, s ? status : NULL);
	snprintf(b->config_path, sizeof(b->config_path), "%s", CONFIG_DEFAULT_PATH);
	if (b->agent_running) {
		const char *p = out_get_str(doc, "config.path", NULL);

		if (p && *p)
			snprintf(b->config_path, sizeof(b->config_path), "%s", p);
		/* What only the agent knows: since-reset counters and rates, per-group stats. */
		ITEM(b, "agent/stats.json", NULL, "stats", "show", "-a");
	}
	if (object_find("policy"))
		ITEM(b, "agent/policy.json", NULL, "policy", "list");
	ITEM(b, "agent/config.json", NULL, "config", "show");
	ITEM(b, "agent/config-check.json", NULL, "config", "check", b->config_path);
	b->agent = json_object_new_object();
	if (b->agent) {
		json_add_bool(b->agent, "running", b->agent_running);
		json_add_str(b->agent, "status", s ? status : "ok");
		json_add_str(b->agent, "config_path", b->config_path);
	}
}

/* smc.yaml as it is, and the machine ID files it and the system name. */
static void collect_config(struct bundle *b)
{
	_cleanup_(closep) int fd = open(b->config_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char source[PATH_MAX + 64], why[PATH_MAX + 256];
	_cleanup_(freep) char *text = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(source, sizeof(source), "%s%s", b->config_path,
		 b->agent_running ? " (the running agent's)" : "");
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot read %s: %s%s", b->config_path, strerror(errno),
			 errno == ENOENT ? " (the agent runs on its defaults)" : "");
		record_text(b, "etc/smc.yaml", source, NULL, 0, why);
		return;
	}
	f = open_memstream(&text, &len);
	if (!f) {
		record_text(b, "etc/smc.yaml", source, NULL, 0, "out of memory");
		return;
	}
	for (;;) {
		char buf[8192];
		ssize_t k = read(fd, buf, sizeof(buf));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		fwrite(buf, 1, (size_t)k, f);
	}
	fclose(f);
	record_text(b, "etc/smc.yaml", source, text, len, NULL);
}

static void add_secret(struct bundle *b, const char *path, json_object *sources)
{
	struct secret *s = &b->secrets[b->n_secrets];
	const char *reason = NULL;
	json_object *e = json_object_new_object();
	char why[PATH_MAX + 256];
	int r;

	for (size_t i = 0; i < b->n_secrets; i++)
		if (streq(b->secrets[i].path, path)) {
			json_object_put(e);
			return;
		}
	r = machine_id_read(path, s->id, &reason);
	if (r == 0) {
		/* Two files with the same ID: one secret. */
		for (size_t i = 0; i < b->n_secrets; i++)
			if (streq(b->secrets[i].id, s->id))
				r = 1;
	}
	if (r == 0) {
		/* "" for the first machine ID, "-2" for a second one. */
		char sfx[4] = "";

		if (b->n_secrets > 0)
			snprintf(sfx, sizeof(sfx), "-%zu", b->n_secrets + 1);
		machine_id_app_specific(s->id, UEID_APP_ID, s->app_id);
		snprintf(s->id_placeholder, sizeof(s->id_placeholder), "<machine-id%s>", sfx);
		snprintf(s->app_id_placeholder, sizeof(s->app_id_placeholder),
			 "<app-specific-id%s>", sfx);
		for (int d = 0; d < _UEID_DERIVATION_MAX; d++) {
			ueid_derive(s->id, d, s->ueids[d]);
			snprintf(s->ueid_placeholders[d], sizeof(s->ueid_placeholders[d]),
				 "<ueid:%s%s>", ueid_derivation_names[d], sfx);
		}
		snprintf(s->path, sizeof(s->path), "%s", path);
		b->n_secrets++;
	}
	if (!e)
		return;
	json_add_str(e, "file", path);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s %s: nothing to replace", path,
			 reason ? reason : strerror(-r));
		json_add_str(e, "status", why);
	} else {
		json_add_str(e, "status", r ? "the same machine ID as above" : "ok");
		json_add_str(e, "replaced_by", r ? NULL : s->id_placeholder);
	}
	json_append(sources, e);
}

/*
 * The machine IDs to replace: /etc/machine-id, and the file smc.yaml takes the UEID from if
 * that is another one (the agent derives the UEID from it: it is as secret).
 */
static void find_secrets(struct bundle *b)
{
	json_object *sources = json_object_new_array();
	struct config_errors errors = {};
	struct config *cfg = NULL;

	b->machine_id = json_object_new_object();
	if (!sources || !b->machine_id) {
		json_object_put(sources);
		return;
	}
	add_secret(b, MACHINE_ID_FILE, sources);
	if (config_load(b->config_path, &cfg, &errors) == 0 && cfg->ueid.machine_id_file)
		add_secret(b, cfg->ueid.machine_id_file, sources);
	config_free(cfg);
	config_errors_clear(&errors);
	json_add(b->machine_id, "sources", sources);
}

/* ---------------------------------------------------------------------------------- */
/* The archive                                                                         */

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

static void bundle_done(struct bundle *b)
{
	if (b->dirfd >= 0)
		close(b->dirfd);
	if (b->dir[0])
		nftw(b->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (b->self_netns_fd >= 0)
		close(b->self_netns_fd);
	json_object_put(b->files);
	json_object_put(b->netns);
	json_object_put(b->machine_id);
	json_object_put(b->agent);
}

/* Scrub every staged file, then give each entry its size. */
static int finish_files(struct bundle *b)
{
	size_t total = 0;

	for (size_t i = 0; i < json_object_array_length(b->files); i++) {
		json_object *e = json_object_array_get_idx(b->files, i);
		const char *name = out_get_str(e, "name", "");
		struct stat st;
		int r = scrub_file(b, name);

		if (r < 0)
			return r; /* a file we cannot check must not go out */
		if (fstatat(b->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return negative_errno();
		if (json_add_u64(e, "size", (uint64_t)st.st_size) < 0)
			return -ENOMEM;
	}
	for (size_t s = 0; s < b->n_secrets; s++)
		total += b->secrets[s].occurrences;
	return json_add_u64(b->machine_id, "occurrences_replaced", total);
}

static int write_manifest(struct bundle *b, const char *release, const char *host)
{
	_cleanup_(json_object_putp) json_object *m = json_object_new_object();
	char created[40];
	_cleanup_(freep) char *text = NULL;
	_cleanup_(closep) int fd = -1;
	const char *t;
	size_t len;
	int r = 0;

	if (!m)
		return -ENOMEM;
	fmt_usec((uint64_t)time(NULL) * 1000000, created, sizeof(created));
	/* Seconds are enough for the creation time: drop ".000000". */
	if (strlen(created) > 8 && streq(created + strlen(created) - 8, ".000000Z"))
		strcpy(created + strlen(created) - 8, "Z");
	r |= json_add_u64(m, "format_version", BUNDLE_FORMAT_VERSION);
	r |= json_add_str(m, "created", created);
	r |= json_add_str(m, "smcctl_version", PACKAGE_VERSION);
	r |= json_add_str(m, "host", host);
	r |= json_add_str(m, "kernel_release", release);
	r |= json_add_u64(m, "euid", geteuid());
	r |= json_add(m, "agent", json_object_get(b->agent));
	r |= json_add(m, "machine_id", json_object_get(b->machine_id));
	r |= json_add(m, "netns", json_object_get(b->netns));
	r |= json_add_u64(m, "netns_unreadable_processes", b->netns_unreadable);
	r |= json_add_u64(m, "failed", b->n_failed);
	r |= json_add(m, "files", json_object_get(b->files));
	if (r < 0)
		return -ENOMEM;
	t = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!t || !(text = strdup(t)))
		return -ENOMEM;
	len = strlen(text);
	/* The error messages it quotes are collected text too. */
	r = scrub_text(b, &text, &len);
	if (r < 0)
		return r;
	fd = stage_open(b, "manifest.json");
	if (fd < 0)
		return negative_errno();
	r = fd_write_all(fd, text, len);
	return r < 0 ? r : fd_write_all(fd, "\n", 1);
}

/* tar -czf - -C DIR manifest.json FILES... onto out_fd; 0 or an error line. */
static int write_archive(struct bundle *b, int out_fd, char *why, size_t len)
{
	size_t n = json_object_array_length(b->files), k = 0;
	_cleanup_(freep) char **argv = calloc(n + 8, sizeof(char *));
	int s;

	if (!argv) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	argv[k++] = (char *)"tar";
	argv[k++] = (char *)"-czf";
	argv[k++] = (char *)"-";
	argv[k++] = (char *)"-C";
	argv[k++] = b->dir;
	argv[k++] = (char *)"manifest.json";
	for (size_t i = 0; i < n; i++)
		argv[k++] = (char *)out_get_str(json_object_array_get_idx(b->files, i), "name", "");
	argv[k] = NULL;
	s = spawn(argv, out_fd);
	if (s < 0)
		snprintf(why, len, "cannot run tar: %s", strerror(-s));
	else if (s)
		snprintf(why, len, "tar -czf failed with exit status %d", s);
	return s ? -EIO : 0;
}

/* ---------------------------------------------------------------------------------- */
/* The verb                                                                            */

static void default_name(char *buf, size_t len, const char *host)
{
	char date[32], h[HOST_NAME_MAX + 1];
	time_t now = time(NULL);
	struct tm tm;

	snprintf(h, sizeof(h), "%s", host);
	for (char *p = h; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
			*p = '_';
	if (!gmtime_r(&now, &tm) || !strftime(date, sizeof(date), "%Y%m%dT%H%M%SZ", &tm))
		snprintf(date, sizeof(date), "%lld", (long long)now);
	snprintf(buf, len, "smc-bundle-%s-%s.tar.gz", h, date);
}

static int bundle_init(struct bundle *b, struct smcctl *c)
{
	const char *tmp = secure_getenv("TMPDIR");

	*b = (struct bundle){ .c = c, .dirfd = -1, .self_netns_fd = -1 };
	b->files = json_object_new_array();
	b->netns = json_object_new_array();
	if (!b->files || !b->netns)
		return -ENOMEM;
	snprintf(b->dir, sizeof(b->dir), "%s/smcctl-bundle.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b->dir)) {
		int r = negative_errno();

		b->dir[0] = '\0';
		return r;
	}
	b->dirfd = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	b->self_netns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (b->dirfd < 0 || b->self_netns_fd < 0)
		return negative_errno();
	return 0;
}

static int collect(struct bundle *b, struct utsname *u)
{
	collect_uname(b, u);
	collect_kernel_config(b, u->release);
	collect_modules(b);
	collect_kmsg(b);
	collect_agent(b);
	collect_journal(b);
	collect_config(b);
	/* Global in the kernel: once, not per network namespace. */
	ITEM(b, "global/ueid.json", NULL, "ueid", "list");
	ITEM(b, "global/seid.json", NULL, "seid", "show");
	ITEM(b, "global/device.json", NULL, "-d", "device", "list");
	ITEM(b, "global/loopback-ism.json", NULL, "device", "loopback-ism", "show");
	ITEM(b, "global/linkgroup.json", NULL, "linkgroup", "show", "all");
	return collect_netns(b);
}

/* Where the archive goes: stdout, or a temporary file next to FILE (*ret_tmp). */
static int open_output(struct smcctl *c, const char *path, char *tmp, size_t len, int *ret_fd)
{
	struct stat st;
	int fd;

	if (streq(path, "-")) {
		if (isatty(STDOUT_FILENO))
			return smcctl_usage(c, "refusing to write a tar.gz to a terminal: give -o FILE "
					       "or redirect the output");
		*ret_fd = STDOUT_FILENO;
		return 0;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return smcctl_error(
			c, SMCCTL_EXIT_FAILURE,
			"cannot write the bundle to %s: it is a directory (give a file name)", path);
	snprintf(tmp, len, "%s.tmp-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot write the bundle to %s: %s",
				    path, strerror(errno));
	*ret_fd = fd;
	return 0;
}

static int bundle_summary(struct smcctl *c, struct bundle *b, const char *path)
{
	_cleanup_(json_object_putp) json_object *doc = json_object_new_object();
	FILE *f = streq(path, "-") ? c->err : c->out;

	if (c->json && !streq(path, "-")) {
		if (!doc || json_add_str(doc, "file", path) < 0 ||
		    json_add_u64(doc, "files", json_object_array_length(b->files) + 1) < 0 ||
		    json_add_u64(doc, "failed", b->n_failed) < 0 ||
		    json_add_u64(doc, "machine_id_replaced",
				 out_get_u64(b->machine_id, "occurrences_replaced", 0)) < 0)
			return smcctl_oom(c);
		return smcctl_emit(c, doc, NULL);
	}
	fprintf(f, "%s: %zu files, %zu item%s not collected (manifest.json says why)\n",
		streq(path, "-") ? "support bundle" : path, json_object_array_length(b->files) + 1,
		b->n_failed, b->n_failed == 1 ? "" : "s");
	fflush(f);
	return SMCCTL_EXIT_OK;
}

int bundle_create(struct smcctl *c, const struct verb_args *a)
{
	const char *opt = a->opt[BUNDLE_OPT_OUTPUT];
	char path[PATH_MAX], tmp[PATH_MAX + 16] = "", why[512] = "";
	struct bundle b;
	struct utsname u;
	int fd = -1, r, s;

	if (opt && !*opt)
		return smcctl_usage(c, "-o needs a file name (or - for stdout)");
	if (opt && streq(opt, "-") && c->json)
		return smcctl_usage(c, "-j and -o - both write to stdout: give -o FILE");
	uname(&u);
	if (opt)
		snprintf(path, sizeof(path), "%s", opt);
	else
		default_name(path, sizeof(path), u.nodename);
	/* A file we cannot write is found before the work, not after it. */
	s = open_output(c, path, tmp, sizeof(tmp), &fd);
	if (s)
		return s;
	r = bundle_init(&b, c);
	if (r == 0)
		r = collect(&b, &u);
	if (r == 0) {
		find_secrets(&b);
		r = b.machine_id ? finish_files(&b) : -ENOMEM;
	}
	if (r == 0)
		r = write_manifest(&b, u.release, u.nodename);
	if (r < 0 && b.fatal[0])
		snprintf(why, sizeof(why), "%s", b.fatal);
	else if (r < 0)
		snprintf(why, sizeof(why), "cannot stage its files in %s: %s",
			 b.dir[0] ? b.dir : "TMPDIR", strerror(-r));
	else
		r = write_archive(&b, fd, why, sizeof(why));
	if (fd != STDOUT_FILENO) {
		if (r == 0 && fsync(fd) < 0)
			r = negative_errno();
		if (close(fd) < 0 && r == 0)
			r = negative_errno();
		if (r == 0 && rename(tmp, path) < 0)
			r = negative_errno();
		if (r < 0 && !why[0])
			snprintf(why, sizeof(why), "%s", strerror(-r));
	}
	if (r < 0) {
		if (tmp[0])
			unlink(tmp);
		bundle_done(&b);
		return smcctl_error(c, SMCCTL_EXIT_FAILURE, "cannot write the bundle to %s: %s",
				    streq(path, "-") ? "stdout" : path, why);
	}
	s = bundle_summary(c, &b, path);
	bundle_done(&b);
	return s;
}
