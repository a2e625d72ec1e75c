// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which container a cgroup is: see container-ident.h.
 *
 * Why read the runtimes' files and not ask them: smcctl and the agent would otherwise need
 * podman's or docker's API socket (docker's is root's and grants root; podman has none
 * without its service), a library of theirs, or a fork of `podman inspect` per socket.
 * Their state on disk is plain JSON that a reader of the same rights may read: podman's
 * containers/storage keeps every container in one containers.json (per storage driver),
 * docker one config.v2.json per container.  The price is that a runtime may change its
 * files' layout: then nothing is found and the scope is named, as before.
 *
 * The files are data, never trusted: opened with O_NOFOLLOW (a symlink planted there
 * is refused, not followed to a file the reader may read and the writer may not), only a
 * regular file owned by root (or the caller: nothing then that the caller could not
 * write itself) and writable by nobody else, at most CONTAINER_STATE_MAX bytes, parsed by
 * json-c (nesting bounded by its default depth), every value checked for its type, the
 * names sanitised by each output.  A caller who may not read the state (smcctl runs with
 * its caller's rights; /var/lib/docker is root's, 0710) gets the scope name.
 *
 * Cached per process: a file is read again only when its inode, size, mtime or ctime changed
 * (an smcctl run reads each at most once; the agent sees a new or renamed container).
 *
 * Pods, podman: podman 4.3 writes the pod's name only into its own database (libpod's
 * bolt_state.db, a binary format not parsed here).  Its containers/storage metadata
 * (libpod/storage.go:49-58 of v4.3.1, RuntimeContainerMetadata) holds "image-name",
 * "image-id", "name", "created-at" and "mountlabel", nothing of the pod.  Nor is the infra
 * container's name the pod's: it is "<pod id 12>-infra" unless --infra-name gave it any
 * name at all (pkg/specgen/generate/pod_create.go:73-74), and a pod made with --infra=false
 * has none.  The pod's id is in the container's cgroup path (machine-libpod_pod_<64
 * hex>.slice, the systemd driver), so a podman pod is named by its short id.  Docker has
 * no pods.
 *
 * Pods, CRI-O: CRI-O keeps its containers in the same containers/storage containers.json,
 * its metadata string its own RuntimeContainerMetadata (cri-o f954a17e,
 * internal/storage/runtime.go:112-133):
 *   "pod-name"      the sandbox's name, k8s_<pod>_<namespace>_<uid>_<attempt>
 *                   (internal/lib/sandbox/builder.go:320-326);
 *   "pod-id"        the sandbox's id, 64 hex;
 *   "image-name"    the image as asked for;
 *   "name"          k8s_<container>_<pod>_<namespace>_<uid>_<attempt>
 *                   (internal/factory/container/container.go:381-388);
 *   "metadata-name" the container's name in the Kubernetes spec; on the sandbox's own
 *                   (pause) entry, which has "pod": true, the pod's name
 *                   (server/sandbox_run_linux.go:521-526).
 * A container is named by its "metadata-name", its pod by the sandbox entry's
 * "metadata-name", else by the second field of "pod-name", else by the pod id's first 12
 * digits.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/container-ident.h"
#include "common/macro.h"
#include "common/util.h"

/* containers/storage names its directory after the storage driver: the drivers podman and
 * CRI-O ship (overlay the default, vfs where overlay cannot mount). */
static const char *const podman_drivers[] = { "overlay", "vfs", "btrfs", "zfs" };

#define PODMAN_STATE "/var/lib/containers/storage/%s-containers/containers.json"
#define DOCKER_STATE "/var/lib/docker/containers/%s/config.v2.json"

/* The identity of a state file as read: a change of any is a new file to read (ctime:
 * a chmod or chown too, which decide whether it is trusted). */
struct state_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

static char state_root[PATH_MAX];

/* podman: each driver's parsed containers.json (doc NULL: refused or not JSON). */
static struct podman_state {
	bool read;
	struct state_stamp stamp;
	json_object *doc;
} podman_cache[ELEMENTSOF(podman_drivers)];

/* docker: one entry per container, the oldest replaced (a CLI run names few; the agent
 * only those that fell back). */
#define DOCKER_CACHE 64
static struct docker_state {
	char id[CONTAINER_ID_LEN + 1]; /* "": free */
	struct state_stamp stamp;
	bool found;
	char name[CONTAINER_NAME_LEN], image[CONTAINER_NAME_LEN];
} docker_cache[DOCKER_CACHE];
static size_t docker_next;

/* ---- the cgroup's form ----------------------------------------------------------------- */

static bool is_hex_id(const char *s, size_t len)
{
	if (len != CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* c (len bytes) is PREFIX<64 hex>SUFFIX: the id's start, else NULL. */
static const char *id_between(const char *c, size_t len, const char *prefix, const char *suffix)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (len != p + CONTAINER_ID_LEN + s || strncmp(c, prefix, p) != 0 ||
	    memcmp(c + p + CONTAINER_ID_LEN, suffix, s) != 0 || !is_hex_id(c + p, CONTAINER_ID_LEN))
		return NULL;
	return c + p;
}

/*
 * The forms, outermost first (a container's own cgroups below its scope, such as podman's
 * "/container" for systemd in a container, are still that container):
 *   systemd driver: .../libpod-<id>.scope (podman), .../docker-<id>.scope (docker, under
 *   system.slice or its --cgroup-parent slice); a pod's containers below
 *   machine-libpod_pod_<pod id>.slice;
 *   cgroupfs driver: /libpod_parent/libpod-<id> (podman), /docker/<id> (docker).
 *   CRI-O: .../kubepods-<qos>-pod<uid>.slice/crio-<id>.scope (systemd driver),
 *   .../pod<uid>/crio-<id> (cgroupfs; cri-o internal/config/cgmgr/cgmgr_linux.go:257-259).
 * libpod-conmon-<id>.scope and crio-conmon-<id>.scope are the runtimes' monitors, not the
 * container: not matched (the id must follow the prefix at once).
 */
bool container_cgroup_parse(const char *cgroup, struct container_ident *ret)
{
	const char *p = cgroup ? cgroup : "", *prev = "", *id;
	size_t prev_len = 0;

	*ret = (struct container_ident){};
	while (*p) {
		size_t len;
		const char *c;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (len == 0)
			break;
		c = p;
		p += len;
		if ((id = id_between(c, len, "machine-libpod_pod_", ".slice")))
			snprintf(ret->pod, sizeof(ret->pod), "%.*s", CONTAINER_SHORT_ID_LEN, id);
		else if ((id = id_between(c, len, "libpod-", ".scope")) ||
			 (id = id_between(c, len, "libpod-", "")))
			ret->runtime = "podman";
		else if ((id = id_between(c, len, "docker-", ".scope")) ||
			 (prev_len == 6 && strncmp(prev, "docker", 6) == 0 && is_hex_id(c, len) &&
			  (id = c)))
			ret->runtime = "docker";
		else if ((id = id_between(c, len, "crio-", ".scope")) ||
			 (id = id_between(c, len, "crio-", "")))
			ret->runtime = "cri-o";
		if (ret->runtime) {
			memcpy(ret->id, id, CONTAINER_ID_LEN);
			ret->id[CONTAINER_ID_LEN] = '\0';
			/* a pod slice is podman's: its pods' containers only */
			if (!streq(ret->runtime, "podman"))
				ret->pod[0] = '\0';
			return true;
		}
		prev = c;
		prev_len = len;
	}
	*ret = (struct container_ident){};
	return false;
}

/* ---- the state files --------------------------------------------------------------------- */

static bool stamp_equal(const struct state_stamp *a, const struct stat *st)
{
	return a->dev == st->st_dev && a->ino == st->st_ino && a->size == st->st_size &&
	       a->mtime.tv_sec == st->st_mtim.tv_sec && a->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       a->ctime.tv_sec == st->st_ctim.tv_sec && a->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

static void stamp_set(struct state_stamp *a, const struct stat *st)
{
	*a = (struct state_stamp){
		.dev = st->st_dev, .ino = st->st_ino, .size = st->st_size, .mtime = st->st_mtim
	};
}

/*
 * The file at path parsed, or NULL: missing, unreadable, a symlink (O_NOFOLLOW), not a
 * regular file, not root's or the caller's, writable by group or others, of
 * CONTAINER_STATE_MAX bytes or more, or not JSON.
 */
static json_object *state_parse(const char *path)
{
	_cleanup_(closep) int fd =
		open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	_cleanup_(freep) char *buf = NULL;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !stat_is_ours(&st, true) ||
	    st.st_size < 0 || (uint64_t)st.st_size >= CONTAINER_STATE_MAX)
		return NULL;
	/* The file may grow after fstat(): bounded all the same. */
	if (fd_read_small(fd, CONTAINER_STATE_MAX - 1, &buf, NULL) < 0)
		return NULL;
	return json_tokener_parse(buf);
}

/* The string member key of o ("" when absent or not a string). */
static const char *member_str(json_object *o, const char *key)
{
	json_object *v = NULL;
	const char *s;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string) ||
	    !(s = json_object_get_string(v)))
		return "";
	return s;
}

static void copy_name(char *dst, const char *src)
{
	snprintf(dst, CONTAINER_NAME_LEN, "%s", src);
}

/* ---- podman ------------------------------------------------------------------------------- */

/* The containers.json of driver d as it is now (NULL: none, or refused). */
static json_object *podman_state(size_t d)
{
	struct podman_state *s = &podman_cache[d];
	char path[PATH_MAX + 128];
	struct stat st;

	snprintf(path, sizeof(path), "%s" PODMAN_STATE, state_root, podman_drivers[d]);
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		json_object_put(s->doc);
		*s = (struct podman_state){};
		return NULL;
	}
	if (s->read && stamp_equal(&s->stamp, &st))
		return s->doc;
	json_object_put(s->doc);
	s->doc = state_parse(path);
	if (s->doc && !json_object_is_type(s->doc, json_type_array)) {
		json_object_put(s->doc);
		s->doc = NULL;
	}
	s->read = true;
	stamp_set(&s->stamp, &st);
	return s->doc;
}

/* The entry {"id": id, "names": [...], "metadata": "{...}"} of containers.json, or NULL. */
static json_object *storage_entry(json_object *doc, const char *id)
{
	size_t n = json_object_array_length(doc);

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(doc, i);

		if (streq(member_str(e, "id"), id))
			return e;
	}
	return NULL;
}

/* The entry's metadata, a JSON document in a string (RuntimeContainerMetadata): an object,
 * else NULL.  The caller puts it. */
static json_object *storage_metadata(json_object *e)
{
	json_object *meta = json_tokener_parse(member_str(e, "metadata"));

	if (meta && !json_object_is_type(meta, json_type_object)) {
		json_object_put(meta);
		meta = NULL;
	}
	return meta;
}

static bool podman_entry(json_object *doc, struct container_ident *c)
{
	json_object *e = storage_entry(doc, c->id), *names = NULL, *meta;
	const char *name = "";

	if (!e)
		return false;
	meta = storage_metadata(e);
	/* "names" follows podman rename; the metadata keeps the name at creation */
	if (json_object_object_get_ex(e, "names", &names) &&
	    json_object_is_type(names, json_type_array) && json_object_array_length(names) > 0 &&
	    json_object_is_type(json_object_array_get_idx(names, 0), json_type_string))
		name = json_object_get_string(json_object_array_get_idx(names, 0));
	if (!name || !name[0])
		name = member_str(meta, "name");
	copy_name(c->name, name);
	copy_name(c->image, member_str(meta, "image-name"));
	json_object_put(meta);
	return c->name[0] != '\0';
}

/* The boolean member key of o is true. */
static bool member_true(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/*
 * The Kubernetes pod's name of a CRI-O container's metadata: the sandbox entry's
 * "metadata-name" (pod-id's entry, "pod": true, the same pod-name: not some other
 * container's that claims the id), else the second field of "pod-name"
 * (k8s_<pod>_<namespace>_<uid>_<attempt>: Kubernetes names have no "_"), else the pod
 * id's first 12 digits; "" when the metadata names no pod.
 */
static void crio_pod(json_object *doc, json_object *meta, char *dst)
{
	const char *pod_id = member_str(meta, "pod-id"), *pod_name = member_str(meta, "pod-name");
	json_object *sandbox = NULL, *smeta = NULL;

	dst[0] = '\0';
	if (is_hex_id(pod_id, strlen(pod_id)) && (sandbox = storage_entry(doc, pod_id)) &&
	    (smeta = storage_metadata(sandbox)) && member_true(smeta, "pod") &&
	    streq(member_str(smeta, "pod-id"), pod_id) &&
	    streq(member_str(smeta, "pod-name"), pod_name))
		copy_name(dst, member_str(smeta, "metadata-name"));
	json_object_put(smeta);
	if (!dst[0] && strncmp(pod_name, "k8s_", 4) == 0) {
		const char *n = pod_name + 4;
		size_t len = strcspn(n, "_");

		if (len > 0 && n[len] == '_')
			snprintf(dst, CONTAINER_NAME_LEN, "%.*s",
				 (int)(len < CONTAINER_NAME_LEN ? len : CONTAINER_NAME_LEN - 1), n);
	}
	if (!dst[0] && is_hex_id(pod_id, strlen(pod_id)))
		snprintf(dst, CONTAINER_NAME_LEN, "%.*s", CONTAINER_SHORT_ID_LEN, pod_id);
}

/* CRI-O's entry: the Kubernetes container's name ("metadata-name"; else the storage
 * name, "k8s_..."), its image, its pod. */
static bool crio_entry(json_object *doc, struct container_ident *c)
{
	json_object *e = storage_entry(doc, c->id), *meta;
	const char *name;

	if (!e || !(meta = storage_metadata(e)))
		return false;
	name = member_str(meta, "metadata-name");
	if (!name[0])
		name = member_str(meta, "name");
	copy_name(c->name, name);
	copy_name(c->image, member_str(meta, "image-name"));
	crio_pod(doc, meta, c->pod);
	json_object_put(meta);
	return c->name[0] != '\0';
}

/* podman and CRI-O: each storage driver's containers.json. */
static bool storage_lookup(struct container_ident *c)
{
	bool crio = streq(c->runtime, "cri-o");

	for (size_t d = 0; d < ELEMENTSOF(podman_drivers); d++) {
		json_object *doc = podman_state(d);

		if (doc && (crio ? crio_entry(doc, c) : podman_entry(doc, c)))
			return true;
	}
	return false;
}

/* ---- docker ------------------------------------------------------------------------------- */

/* config.v2.json: {"ID": id, "Name": "/NAME", "Config": {"Image": "IMAGE", ...}, ...} */
static void docker_read(const char *path, struct docker_state *e)
{
	json_object *doc = state_parse(path), *config = NULL;
	const char *name = member_str(doc, "Name");

	e->found = false;
	e->name[0] = e->image[0] = '\0';
	/* a file copied from another container's directory is not this one's */
	if (!streq(member_str(doc, "ID"), e->id))
		goto done;
	if (name[0] == '/')
		name++;
	copy_name(e->name, name);
	if (json_object_object_get_ex(doc, "Config", &config))
		copy_name(e->image, member_str(config, "Image"));
	e->found = e->name[0] != '\0';
done:
	json_object_put(doc);
}

static bool docker_lookup(struct container_ident *c)
{
	char path[PATH_MAX + 128];
	struct docker_state *e = NULL;
	struct stat st;

	snprintf(path, sizeof(path), "%s" DOCKER_STATE, state_root, c->id);
	for (size_t i = 0; i < DOCKER_CACHE && !e; i++)
		if (streq(docker_cache[i].id, c->id))
			e = &docker_cache[i];
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (e)
			*e = (struct docker_state){};
		return false;
	}
	if (!e || !stamp_equal(&e->stamp, &st)) {
		if (!e) {
			e = &docker_cache[docker_next++ % DOCKER_CACHE];
			*e = (struct docker_state){};
			memcpy(e->id, c->id, sizeof(e->id));
		}
		docker_read(path, e);
		stamp_set(&e->stamp, &st);
	}
	if (!e->found)
		return false;
	copy_name(c->name, e->name);
	copy_name(c->image, e->image);
	return true;
}

/* ---- the interface ---------------------------------------------------------------------- */

int container_ident_of(const char *cgroup, struct container_ident *ret)
{
	bool found;

	if (!container_cgroup_parse(cgroup, ret))
		return 0;
	found = streq(ret->runtime, "docker") ? docker_lookup(ret) : storage_lookup(ret);
	if (!found) {
		*ret = (struct container_ident){};
		return 0;
	}
	return 1;
}

size_t container_label(const struct container_ident *c, char *buf, size_t len)
{
	int k = snprintf(buf, len, "%s:%s", c->runtime ? c->runtime : "", c->name);

	if (k < 0)
		return 0;
	return (size_t)k < len ? (size_t)k : len ? len - 1 : 0;
}

void container_ident_forget(void)
{
	for (size_t d = 0; d < ELEMENTSOF(podman_cache); d++) {
		json_object_put(podman_cache[d].doc);
		podman_cache[d] = (struct podman_state){};
	}
	memset(docker_cache, 0, sizeof(docker_cache));
	docker_next = 0;
}

void container_ident_set_root(const char *root)
{
	container_ident_forget();
	snprintf(state_root, sizeof(state_root), "%s", root ? root : "");
}
