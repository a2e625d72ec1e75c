// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsystemd, libbpf and libyaml, loaded when smcctl first calls into them, not when it starts.
 *
 * Linked, the dynamic linker resolved both libraries and theirs (libgcrypt, lzma, zstd, lz4,
 * libcap, libelf, zlib) before main(): 1.66 M of the 1.66 M instructions of `smcctl
 * --version` were spent there and only 0.2 M in smcctl itself, for every verb, although
 * only those that talk to the agent use sd-bus and only `run` and `policy flush` use libbpf.
 * (sd-journal, from the same library, is support-bundle's: the agent's last journal lines.)
 * This file is linked into the smcctl program only (the tests link the libraries): it
 * defines each function smcctl calls under its own name, with the prototype of the
 * library's header (so the compiler checks it), and forwards to the library's, which it
 * dlopen()s on the first call.  The program does not export these names, so the libraries'
 * calls among themselves still go to their own functions.
 *
 * libyaml is the same story for the smc.yaml loader (config/ytree.c), which only `config
 * check` and `run` without an agent use (and which the tests and the agent link).  So is
 * json-c: `-j` of the verbs that build a document, the agent's answers and the text of the
 * verbs that render from a document use it, but `--version`, `socket`, `linkgroup` and
 * `device list` (text and -j: streamed from the structs, common/output.h) and every verb
 * whose text is drawn from the kernel's structs (`stats` without the agent) do not; mapping
 * and relocating it was most of what starting smcctl cost beyond starting smc-tools' smcd
 * (bench/smcctl-vs-smctools).
 *
 * The libraries are dependencies of the package: failing to load one is a broken install.
 * It is said once on stderr, and the call fails as the library's own failure would (sd-bus:
 * -ELIBACC, so "no agent" paths take over; libbpf: -1/NULL with errno ELIBACC; libyaml: a
 * parser that does not initialize, which the loader reports as -ENOMEM; json-c: no object,
 * which every caller reports as out of memory).  smcctl_lib_missing keeps the soname, so
 * that such an "out of memory" names the library instead (smcctl_oom(), smcctl_fail()).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>
#include <yaml.h>

#include "cli/smcctl.h"
#include "common/macro.h"

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#endif

/*
 * Which libraries the program may dlopen(), for the tools that put a program where it runs
 * (tests/vm/mkinitramfs copies them into the guest as it copies the DT_NEEDED ones) and for
 * packaging tools: ELF dlopen metadata (https://systemd.io/ELF_DLOPEN_METADATA/), one note
 * per library in section .note.dlopen, owner "FDO", type 0x407c0c0a, whose descriptor is a
 * JSON array of {feature, description, priority, soname: [...]}.  The assembler makes a
 * section named .note.* an SHT_NOTE; "used" keeps it from being dropped.
 */
#define DLOPEN_NOTE(id, json)                                                            \
	__attribute__((used, section(".note.dlopen"), aligned(4))) static const struct { \
		uint32_t namesz, descsz, type;                                           \
		char owner[4];                                                           \
		char desc[(sizeof(json) + 3) & ~(size_t)3];                              \
	} dlopen_note_##id = { 4, sizeof(json), 0x407c0c0aU, "FDO", json }

DLOPEN_NOTE(json, "[{\"feature\":\"json\",\"description\":\"JSON output and documents\","
		  "\"priority\":\"required\",\"soname\":[\"libjson-c.so.5\"]}]");
DLOPEN_NOTE(yaml, "[{\"feature\":\"yaml\",\"description\":\"reading smc.yaml\","
		  "\"priority\":\"required\",\"soname\":[\"libyaml-0.so.2\"]}]");
DLOPEN_NOTE(sd, "[{\"feature\":\"sd-bus\",\"description\":\"talking to smcd-agent, its journal\","
		"\"priority\":\"required\",\"soname\":[\"libsystemd.so.0\"]}]");

struct lib {
	const char *soname;
	void *handle;
	int err; /* 0 not tried, 1 loaded, -errno */
};

/* dlsym of every name of a list, all or nothing. */
static int lib_load(struct lib *l, const char *const *names, void **ret, size_t n)
{
	if (l->err)
		return l->err;
	l->handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; l->handle && i < n; i++) {
		ret[i] = dlsym(l->handle, names[i]);
		if (!ret[i]) {
			fprintf(stderr, "smcctl: %s has no %s: %s\n", l->soname, names[i], dlerror());
			if (!smcctl_lib_missing)
				smcctl_lib_missing = l->soname;
			l->err = -ELIBBAD;
			return l->err;
		}
	}
	if (!l->handle) {
		fprintf(stderr, "smcctl: cannot load %s (reinstall smcd-agent): %s\n", l->soname,
			dlerror());
		if (!smcctl_lib_missing)
			smcctl_lib_missing = l->soname;
		l->err = -ELIBACC;
		return l->err;
	}
	l->err = 1;
	return 1;
}

/*
 * X(return type, name, (parameters), (arguments), value when the library cannot be
 * loaded).  The pointer types come from the prototypes themselves (__typeof__).
 */
/* clang-format reads the parameter lists in this macro as products: */
/* clang-format off */
#define SD_FUNCS(X, V)                                                                             \
	V(sd_bus_error_free, (sd_bus_error *e), (e))                                               \
	X(int, sd_bus_open_system, (sd_bus **ret), (ret), -ELIBACC)                                \
	X(sd_bus *, sd_bus_flush_close_unref, (sd_bus *bus), (bus), NULL)                          \
	X(int, sd_bus_add_match,                                                                   \
	  (sd_bus *bus, sd_bus_slot **slot, const char *match,                                     \
	   sd_bus_message_handler_t callback, void *userdata),                                     \
	  (bus, slot, match, callback, userdata), -ELIBACC)                                        \
	X(int, sd_bus_match_signal,                                                                \
	  (sd_bus *bus, sd_bus_slot **ret, const char *sender, const char *path,                   \
	   const char *interface, const char *member, sd_bus_message_handler_t callback,           \
	   void *userdata),                                                                        \
	  (bus, ret, sender, path, interface, member, callback, userdata), -ELIBACC)               \
	X(int, sd_bus_attach_event, (sd_bus *bus, sd_event *e, int priority),                      \
	  (bus, e, priority), -ELIBACC)                                                            \
	X(int, sd_bus_set_exit_on_disconnect, (sd_bus *bus, int b), (bus, b), -ELIBACC)            \
	X(int, sd_bus_set_allow_interactive_authorization, (sd_bus *bus, int b), (bus, b),         \
	  -ELIBACC)                                                                                \
	X(int, sd_bus_set_method_call_timeout, (sd_bus *bus, uint64_t usec), (bus, usec),          \
	  -ELIBACC)                                                                                \
	X(int, sd_bus_call,                                                                        \
	  (sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error,                 \
	   sd_bus_message **reply),                                                                \
	  (bus, m, usec, ret_error, reply), -ELIBACC)                                              \
	X(int, sd_bus_call_methodv,                                                                \
	  (sd_bus *bus, const char *destination, const char *path, const char *interface,          \
	   const char *member, sd_bus_error *ret_error, sd_bus_message **reply, const char *types, \
	   va_list ap),                                                                            \
	  (bus, destination, path, interface, member, ret_error, reply, types, ap), -ELIBACC)      \
	X(int, sd_bus_get_property,                                                                \
	  (sd_bus *bus, const char *destination, const char *path, const char *interface,          \
	   const char *member, sd_bus_error *ret_error, sd_bus_message **reply, const char *type), \
	  (bus, destination, path, interface, member, ret_error, reply, type), -ELIBACC)           \
	X(int, sd_bus_error_has_name, (const sd_bus_error *e, const char *name), (e, name), 0)     \
	X(int, sd_bus_error_is_set, (const sd_bus_error *e), (e), 0)                               \
	X(int, sd_bus_message_new_method_call,                                                     \
	  (sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,             \
	   const char *interface, const char *member),                                             \
	  (bus, m, destination, path, interface, member), -ELIBACC)                                \
	X(sd_bus_message *, sd_bus_message_unref, (sd_bus_message *m), (m), NULL)                  \
	X(int, sd_bus_message_appendv, (sd_bus_message *m, const char *types, va_list ap),         \
	  (m, types, ap), -ELIBACC)                                                                \
	X(int, sd_bus_message_readv, (sd_bus_message *m, const char *types, va_list ap),           \
	  (m, types, ap), -ELIBACC)                                                                \
	X(int, sd_bus_message_read_basic, (sd_bus_message *m, char type, void *p), (m, type, p),   \
	  -ELIBACC)                                                                                \
	X(int, sd_bus_message_enter_container,                                                     \
	  (sd_bus_message *m, char type, const char *contents), (m, type, contents), -ELIBACC)     \
	X(int, sd_bus_message_exit_container, (sd_bus_message *m), (m), -ELIBACC)                  \
	X(int, sd_bus_message_open_container,                                                      \
	  (sd_bus_message *m, char type, const char *contents), (m, type, contents), -ELIBACC)     \
	X(int, sd_bus_message_close_container, (sd_bus_message *m), (m), -ELIBACC)                 \
	X(int, sd_bus_message_peek_type, (sd_bus_message *m, char *type, const char **contents),   \
	  (m, type, contents), -ELIBACC)                                                           \
	X(int, sd_bus_message_skip, (sd_bus_message *m, const char *types), (m, types), -ELIBACC)  \
	X(int, sd_bus_message_at_end, (sd_bus_message *m, int complete), (m, complete), -ELIBACC)  \
	X(const char *, sd_bus_message_get_path, (sd_bus_message *m), (m), NULL)                   \
	X(int, sd_event_new, (sd_event **e), (e), -ELIBACC)                                        \
	X(sd_event *, sd_event_unref, (sd_event *e), (e), NULL)                                    \
	X(int, sd_event_add_signal,                                                                \
	  (sd_event *e, sd_event_source **s, int sig, sd_event_signal_handler_t callback,          \
	   void *userdata),                                                                        \
	  (e, s, sig, callback, userdata), -ELIBACC)                                               \
	X(int, sd_event_add_time_relative,                                                         \
	  (sd_event *e, sd_event_source **s, clockid_t clock, uint64_t usec, uint64_t accuracy,    \
	   sd_event_time_handler_t callback, void *userdata),                                      \
	  (e, s, clock, usec, accuracy, callback, userdata), -ELIBACC)                             \
	X(int, sd_event_exit, (sd_event *e, int code), (e, code), -ELIBACC)                        \
	X(int, sd_event_loop, (sd_event *e), (e), -ELIBACC)                                        \
	V(sd_journal_close, (sd_journal *j), (j))                                                  \
	X(int, sd_journal_open, (sd_journal **ret, int flags), (ret, flags), -ELIBACC)             \
	X(int, sd_journal_add_match, (sd_journal *j, const void *data, size_t size),               \
	  (j, data, size), -ELIBACC)                                                               \
	X(int, sd_journal_add_disjunction, (sd_journal *j), (j), -ELIBACC)                         \
	X(int, sd_journal_seek_tail, (sd_journal *j), (j), -ELIBACC)                               \
	X(int, sd_journal_previous_skip, (sd_journal *j, uint64_t skip), (j, skip), -ELIBACC)      \
	X(int, sd_journal_next, (sd_journal *j), (j), -ELIBACC)                                    \
	X(int, sd_journal_get_data,                                                                \
	  (sd_journal *j, const char *field, const void **data, size_t *length),                   \
	  (j, field, data, length), -ELIBACC)                                                      \
	X(int, sd_journal_get_realtime_usec, (sd_journal *j, uint64_t *ret), (j, ret), -ELIBACC)   \
	X(int, sd_journal_has_runtime_files, (sd_journal *j), (j), -ELIBACC)                       \
	X(int, sd_journal_has_persistent_files, (sd_journal *j), (j), -ELIBACC)
/* clang-format on */

#define NAME(type, name, params, args, fail) #name,
#define VNAME(name, params, args) #name,
#define SLOT(type, name, params, args, fail) __typeof__(name) *p_##name;
#define VSLOT(name, params, args) __typeof__(name) *p_##name;
#define FORWARD(lib, type, name, params, args, fail) \
	type name params                             \
	{                                            \
		if (lib##_load() < 0)                \
			return fail;                 \
		return lib.p_##name args;            \
	}
#define FORWARD_VOID(lib, name, params, args) \
	void name params                      \
	{                                     \
		if (lib##_load() > 0)         \
			lib.p_##name args;    \
	}

static struct lib sd_lib = { .soname = "libsystemd.so.0" };
static const char *const sd_names[] = { SD_FUNCS(NAME, VNAME) };
static struct {
	SD_FUNCS(SLOT, VSLOT)
} sd;
_Static_assert(sizeof(sd) == sizeof(sd_names), "one pointer per name");

static int sd_load(void)
{
	return lib_load(&sd_lib, sd_names, (void **)&sd, ELEMENTSOF(sd_names));
}

#define SD_FORWARD(type, name, params, args, fail) FORWARD(sd, type, name, params, args, fail)
#define SD_FORWARD_VOID(name, params, args) FORWARD_VOID(sd, name, params, args)
SD_FUNCS(SD_FORWARD, SD_FORWARD_VOID)

/* The variadic ones, through their va_list twins. */
int sd_bus_call_method(sd_bus *bus, const char *destination, const char *path,
		       const char *interface, const char *member, sd_bus_error *ret_error,
		       sd_bus_message **reply, const char *types, ...)
{
	va_list ap;
	int r;

	va_start(ap, types);
	r = sd_bus_call_methodv(bus, destination, path, interface, member, ret_error, reply, types,
				ap);
	va_end(ap);
	return r;
}

/* A message's variadic reader and writer, through their va_list twins. */
#define MESSAGE_VA_FORWARD(name)                            \
	int name(sd_bus_message *m, const char *types, ...) \
	{                                                   \
		va_list ap;                                 \
		int r;                                      \
                                                            \
		va_start(ap, types);                        \
		r = name##v(m, types, ap);                  \
		va_end(ap);                                 \
		return r;                                   \
	}
MESSAGE_VA_FORWARD(sd_bus_message_read)
MESSAGE_VA_FORWARD(sd_bus_message_append)

/* sd-bus has no va_list form of this one: the same test, by name, here. */
int sd_bus_error_has_names_sentinel(const sd_bus_error *e, ...)
{
	const char *name;
	va_list ap;
	int r = 0;

	if (!e || !sd_bus_error_is_set(e))
		return 0;
	va_start(ap, e);
	while (!r && (name = va_arg(ap, const char *)))
		r = sd_bus_error_has_name(e, name);
	va_end(ap);
	return r;
}

#ifdef HAVE_BPF
/* clang-format reads the parameter lists in this macro as products: */
/* clang-format off */
#define BPF_FUNCS(X, V)                                                                            \
	V(bpf_object__destroy_skeleton, (struct bpf_object_skeleton *s), (s))                      \
	V(bpf_object__detach_skeleton, (struct bpf_object_skeleton *s), (s))                       \
	V(bpf_link__disconnect, (struct bpf_link *link), (link))                                   \
	V(btf__free, (struct btf *btf), (btf))                                                     \
	X(libbpf_print_fn_t, libbpf_set_print, (libbpf_print_fn_t fn), (fn), NULL)                 \
	X(int, bpf_object__open_skeleton,                                                          \
	  (struct bpf_object_skeleton *s, const struct bpf_object_open_opts *opts), (s, opts),     \
	  (errno = ELIBACC, -ELIBACC))                                                             \
	X(int, bpf_object__load_skeleton, (struct bpf_object_skeleton *s), (s),                    \
	  (errno = ELIBACC, -ELIBACC))                                                             \
	X(int, bpf_program__fd, (const struct bpf_program *prog), (prog), -ELIBACC)                \
	X(int, bpf_map__fd, (const struct bpf_map *map), (map), -ELIBACC)                          \
	X(int, bpf_map__reuse_fd, (struct bpf_map *map, int fd), (map, fd), -ELIBACC)              \
	X(enum bpf_map_type, bpf_map__type, (const struct bpf_map *map), (map), 0)                 \
	X(__u32, bpf_map__key_size, (const struct bpf_map *map), (map), 0)                         \
	X(__u32, bpf_map__value_size, (const struct bpf_map *map), (map), 0)                       \
	X(__u32, bpf_map__max_entries, (const struct bpf_map *map), (map), 0)                      \
	X(__u32, bpf_map__map_flags, (const struct bpf_map *map), (map), 0)                        \
	X(struct bpf_link *, bpf_map__attach_struct_ops, (const struct bpf_map *map), (map),       \
	  (errno = ELIBACC, NULL))                                                                 \
	X(int, bpf_link__destroy, (struct bpf_link *link), (link), -ELIBACC)                       \
	X(struct btf *, btf__load_vmlinux_btf, (void), (), (errno = ELIBACC, NULL))                \
	X(struct btf *, btf__parse_split, (const char *path, struct btf *base_btf),                \
	  (path, base_btf), (errno = ELIBACC, NULL))                                               \
	X(__s32, btf__find_by_name_kind, (const struct btf *btf, const char *type_name, __u32 kind), \
	  (btf, type_name, kind), -ELIBACC)                                                        \
	X(int, bpf_link_create,                                                                    \
	  (int prog_fd, int target_fd, enum bpf_attach_type attach_type,                           \
	   const struct bpf_link_create_opts *opts),                                               \
	  (prog_fd, target_fd, attach_type, opts), (errno = ELIBACC, -ELIBACC))                    \
	X(int, bpf_raw_tracepoint_open, (const char *name, int prog_fd), (name, prog_fd),          \
	  (errno = ELIBACC, -ELIBACC))                                                             \
	X(int, bpf_map_update_elem, (int fd, const void *key, const void *value, __u64 flags),     \
	  (fd, key, value, flags), (errno = ELIBACC, -ELIBACC))                                    \
	X(int, bpf_map_lookup_elem, (int fd, const void *key, void *value), (fd, key, value),      \
	  (errno = ELIBACC, -ELIBACC))                                                             \
	X(int, bpf_map_delete_elem, (int fd, const void *key), (fd, key),                          \
	  (errno = ELIBACC, -ELIBACC))                                                             \
	X(int, bpf_map_get_next_key, (int fd, const void *key, void *next_key),                    \
	  (fd, key, next_key), (errno = ELIBACC, -ELIBACC))                                        \
	X(int, bpf_map_lookup_batch,                                                               \
	  (int fd, void *in_batch, void *out_batch, void *keys, void *values, __u32 *count,        \
	   const struct bpf_map_batch_opts *opts),                                                 \
	  (fd, in_batch, out_batch, keys, values, count, opts), (errno = ELIBACC, -ELIBACC))       \
	X(int, bpf_map_get_next_id, (__u32 start_id, __u32 *next_id), (start_id, next_id),         \
	  (errno = ELIBACC, -ELIBACC))                                                             \
	X(int, bpf_map_get_fd_by_id, (__u32 id), (id), (errno = ELIBACC, -ELIBACC))                \
	X(int, bpf_obj_get_info_by_fd, (int bpf_fd, void *info, __u32 *info_len),                  \
	  (bpf_fd, info, info_len), (errno = ELIBACC, -ELIBACC))                                   \
	X(int, bpf_obj_pin, (int fd, const char *pathname), (fd, pathname),                        \
	  (errno = ELIBACC, -ELIBACC))                                                             \
	X(int, bpf_obj_get, (const char *pathname), (pathname), (errno = ELIBACC, -ELIBACC))        \
	V(ring_buffer__free, (struct ring_buffer *rb), (rb))                                       \
	X(struct ring_buffer *, ring_buffer__new,                                                  \
	  (int map_fd, ring_buffer_sample_fn sample_cb, void *ctx,                                 \
	   const struct ring_buffer_opts *opts),                                                   \
	  (map_fd, sample_cb, ctx, opts), (errno = ELIBACC, NULL))                                 \
	X(int, ring_buffer__epoll_fd, (const struct ring_buffer *rb), (rb), -ELIBACC)              \
	X(int, ring_buffer__consume, (struct ring_buffer *rb), (rb), -ELIBACC)                     \
	X(int, bpf_object__attach_skeleton, (struct bpf_object_skeleton *s), (s),                  \
	  (errno = ELIBACC, -ELIBACC))
/* clang-format on */

#define STR_(x) #x
#define STR(x) STR_(x)
/* The soname of the libbpf this was built against (0.x: libbpf.so.0). */
static struct lib bpf_lib = { .soname = "libbpf.so." STR(LIBBPF_MAJOR_VERSION) };
DLOPEN_NOTE(bpf,
	    "[{\"feature\":\"bpf\",\"description\":\"smcctl run, policy flush and assess\","
	    "\"priority\":\"required\",\"soname\":[\"libbpf.so." STR(LIBBPF_MAJOR_VERSION) "\"]}]");
static const char *const bpf_names[] = { BPF_FUNCS(NAME, VNAME) };
static struct {
	BPF_FUNCS(SLOT, VSLOT)
} bpf;
_Static_assert(sizeof(bpf) == sizeof(bpf_names), "one pointer per name");

static int bpf_load(void)
{
	return lib_load(&bpf_lib, bpf_names, (void **)&bpf, ELEMENTSOF(bpf_names));
}

#define BPF_FORWARD(type, name, params, args, fail) FORWARD(bpf, type, name, params, args, fail)
#define BPF_FORWARD_VOID(name, params, args) FORWARD_VOID(bpf, name, params, args)
BPF_FUNCS(BPF_FORWARD, BPF_FORWARD_VOID)
#endif

/* libyaml: the five calls of config/ytree.c. */
/* clang-format reads the parameter lists in this macro as products: */
/* clang-format off */
#define YAML_FUNCS(X, V)                                                                           \
	V(yaml_parser_delete, (yaml_parser_t *parser), (parser))                                   \
	V(yaml_event_delete, (yaml_event_t *event), (event))                                       \
	V(yaml_parser_set_input_string,                                                            \
	  (yaml_parser_t *parser, const unsigned char *input, size_t size), (parser, input, size)) \
	X(int, yaml_parser_initialize, (yaml_parser_t *parser), (parser), 0)                       \
	X(int, yaml_parser_parse, (yaml_parser_t *parser, yaml_event_t *event), (parser, event), 0)
/* clang-format on */

static struct lib yaml_lib = { .soname = "libyaml-0.so.2" };
static const char *const yaml_names[] = { YAML_FUNCS(NAME, VNAME) };
static struct {
	YAML_FUNCS(SLOT, VSLOT)
} yaml;
_Static_assert(sizeof(yaml) == sizeof(yaml_names), "one pointer per name");

static int yaml_load(void)
{
	return lib_load(&yaml_lib, yaml_names, (void **)&yaml, ELEMENTSOF(yaml_names));
}

#define YAML_FORWARD(type, name, params, args, fail) FORWARD(yaml, type, name, params, args, fail)
#define YAML_FORWARD_VOID(name, params, args) FORWARD_VOID(yaml, name, params, args)
YAML_FUNCS(YAML_FORWARD, YAML_FORWARD_VOID)

/*
 * json-c: the 26 functions smcctl's code calls (its inline helpers, lh_table_head() and the
 * lh_entry_*() behind json_object_object_foreach, read the structs themselves).  An object
 * exists only once the library is loaded, so the getters' failure values are never seen by
 * a caller that holds one; the constructors' NULL is what a caller takes for no memory.
 */
/* clang-format off */
#define JSON_FUNCS(X, V)                                                                           \
	V(json_object_object_del, (struct json_object *obj, const char *key), (obj, key))          \
	X(struct json_object *, json_object_new_object, (void), (), NULL)                          \
	X(struct json_object *, json_object_new_array, (void), (), NULL)                           \
	X(struct json_object *, json_object_new_string, (const char *s), (s), NULL)                \
	X(struct json_object *, json_object_new_boolean, (json_bool b), (b), NULL)                 \
	X(struct json_object *, json_object_new_int, (int32_t i), (i), NULL)                       \
	X(struct json_object *, json_object_new_int64, (int64_t i), (i), NULL)                     \
	X(struct json_object *, json_object_new_uint64, (uint64_t i), (i), NULL)                   \
	X(struct json_object *, json_object_new_double, (double d), (d), NULL)                     \
	X(struct json_object *, json_object_get, (struct json_object *obj), (obj), NULL)           \
	X(int, json_object_put, (struct json_object *obj), (obj), 0)                               \
	X(int, json_object_is_type, (const struct json_object *obj, enum json_type type),          \
	  (obj, type), 0)                                                                          \
	X(enum json_type, json_object_get_type, (const struct json_object *obj), (obj),            \
	  json_type_null)                                                                          \
	X(json_bool, json_object_get_boolean, (const struct json_object *obj), (obj), 0)           \
	X(double, json_object_get_double, (const struct json_object *obj), (obj), 0)               \
	X(int64_t, json_object_get_int64, (const struct json_object *obj), (obj), 0)               \
	X(uint64_t, json_object_get_uint64, (const struct json_object *obj), (obj), 0)             \
	X(const char *, json_object_get_string, (struct json_object *obj), (obj), NULL)            \
	X(struct lh_table *, json_object_get_object, (const struct json_object *obj), (obj), NULL) \
	X(int, json_object_object_add,                                                             \
	  (struct json_object *obj, const char *key, struct json_object *val), (obj, key, val), -1) \
	X(json_bool, json_object_object_get_ex,                                                    \
	  (const struct json_object *obj, const char *key, struct json_object **value),            \
	  (obj, key, value), 0)                                                                    \
	X(size_t, json_object_array_length, (const struct json_object *obj), (obj), 0)             \
	X(struct json_object *, json_object_array_get_idx, (const struct json_object *obj,         \
	  size_t idx), (obj, idx), NULL)                                                           \
	X(int, json_object_array_add, (struct json_object *obj, struct json_object *val),          \
	  (obj, val), -1)                                                                          \
	X(const char *, json_object_to_json_string_ext, (struct json_object *obj, int flags),      \
	  (obj, flags), NULL)                                                                      \
	X(struct json_object *, json_tokener_parse, (const char *str), (str), NULL)
/* clang-format on */

/* Every json-c since 0.15 (the oldest configure takes) has this soname. */
static struct lib json_lib = { .soname = "libjson-c.so.5" };
static const char *const json_names[] = { JSON_FUNCS(NAME, VNAME) };
static struct {
	JSON_FUNCS(SLOT, VSLOT)
} json;
_Static_assert(sizeof(json) == sizeof(json_names), "one pointer per name");

static int json_load(void)
{
	return lib_load(&json_lib, json_names, (void **)&json, ELEMENTSOF(json_names));
}

#define JSON_FORWARD(type, name, params, args, fail) FORWARD(json, type, name, params, args, fail)
#define JSON_FORWARD_VOID(name, params, args) FORWARD_VOID(json, name, params, args)
JSON_FUNCS(JSON_FORWARD, JSON_FORWARD_VOID)
