// The libbpf functions sonde calls, loaded on first use (util/lazy_library.h
// says why): only the subcommands that load BPF programs (SDT and probe
// events, off-CPU, cfi, trace) open it.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "util/lazy_library.h"

namespace {
constinit sonde::LazyLibrary libbpf("libbpf.so.1");
}  // namespace

extern "C" {

libbpf_print_fn_t libbpf_set_print(libbpf_print_fn_t fn) { return SONDE_LAZY_CALL(libbpf, libbpf_set_print)(fn); }
int libbpf_num_possible_cpus(void) { return SONDE_LAZY_CALL(libbpf, libbpf_num_possible_cpus)(); }

// Objects and their programs and maps (libbpf.h).
struct bpf_object* bpf_object__open_mem(const void* obj_buf, size_t obj_buf_sz,
                                        const struct bpf_object_open_opts* opts) {
  return SONDE_LAZY_CALL(libbpf, bpf_object__open_mem)(obj_buf, obj_buf_sz, opts);
}
int bpf_object__load(struct bpf_object* obj) { return SONDE_LAZY_CALL(libbpf, bpf_object__load)(obj); }
void bpf_object__close(struct bpf_object* object) { SONDE_LAZY_CALL(libbpf, bpf_object__close)(object); }
struct bpf_program* bpf_object__find_program_by_name(const struct bpf_object* obj, const char* name) {
  return SONDE_LAZY_CALL(libbpf, bpf_object__find_program_by_name)(obj, name);
}
struct bpf_map* bpf_object__find_map_by_name(const struct bpf_object* obj, const char* name) {
  return SONDE_LAZY_CALL(libbpf, bpf_object__find_map_by_name)(obj, name);
}
int bpf_program__fd(const struct bpf_program* prog) { return SONDE_LAZY_CALL(libbpf, bpf_program__fd)(prog); }
int bpf_program__set_type(struct bpf_program* prog, enum bpf_prog_type type) {
  return SONDE_LAZY_CALL(libbpf, bpf_program__set_type)(prog, type);
}
int bpf_program__set_expected_attach_type(struct bpf_program* prog, enum bpf_attach_type type) {
  return SONDE_LAZY_CALL(libbpf, bpf_program__set_expected_attach_type)(prog, type);
}
int bpf_map__fd(const struct bpf_map* map) { return SONDE_LAZY_CALL(libbpf, bpf_map__fd)(map); }
int bpf_map__reuse_fd(struct bpf_map* map, int fd) { return SONDE_LAZY_CALL(libbpf, bpf_map__reuse_fd)(map, fd); }
int bpf_map__set_max_entries(struct bpf_map* map, __u32 max_entries) {
  return SONDE_LAZY_CALL(libbpf, bpf_map__set_max_entries)(map, max_entries);
}

// Thin bpf(2) wrappers (bpf.h).
int bpf_prog_load(enum bpf_prog_type prog_type, const char* prog_name, const char* license,
                  const struct bpf_insn* insns, size_t insn_cnt, const struct bpf_prog_load_opts* opts) {
  return SONDE_LAZY_CALL(libbpf, bpf_prog_load)(prog_type, prog_name, license, insns, insn_cnt, opts);
}
int bpf_map_create(enum bpf_map_type map_type, const char* map_name, __u32 key_size, __u32 value_size,
                   __u32 max_entries, const struct bpf_map_create_opts* opts) {
  return SONDE_LAZY_CALL(libbpf, bpf_map_create)(map_type, map_name, key_size, value_size, max_entries, opts);
}
int bpf_map_update_elem(int fd, const void* key, const void* value, __u64 flags) {
  return SONDE_LAZY_CALL(libbpf, bpf_map_update_elem)(fd, key, value, flags);
}
int bpf_map_update_batch(int fd, const void* keys, const void* values, __u32* count,
                         const struct bpf_map_batch_opts* opts) {
  return SONDE_LAZY_CALL(libbpf, bpf_map_update_batch)(fd, keys, values, count, opts);
}
int bpf_map_delete_elem(int fd, const void* key) { return SONDE_LAZY_CALL(libbpf, bpf_map_delete_elem)(fd, key); }
int bpf_link_create(int prog_fd, int target_fd, enum bpf_attach_type attach_type,
                    const struct bpf_link_create_opts* opts) {
  return SONDE_LAZY_CALL(libbpf, bpf_link_create)(prog_fd, target_fd, attach_type, opts);
}
int bpf_raw_tracepoint_open(const char* name, int prog_fd) {
  return SONDE_LAZY_CALL(libbpf, bpf_raw_tracepoint_open)(name, prog_fd);
}

// BPF ring buffers (libbpf.h): the off-CPU program's long blocks.
struct ring_buffer* ring_buffer__new(int map_fd, ring_buffer_sample_fn sample_cb, void* ctx,
                                     const struct ring_buffer_opts* opts) {
  return SONDE_LAZY_CALL(libbpf, ring_buffer__new)(map_fd, sample_cb, ctx, opts);
}
void ring_buffer__free(struct ring_buffer* rb) { SONDE_LAZY_CALL(libbpf, ring_buffer__free)(rb); }
int ring_buffer__consume(struct ring_buffer* rb) { return SONDE_LAZY_CALL(libbpf, ring_buffer__consume)(rb); }
int ring_buffer__epoll_fd(const struct ring_buffer* rb) { return SONDE_LAZY_CALL(libbpf, ring_buffer__epoll_fd)(rb); }
int bpf_map_lookup_elem(int fd, const void* key, void* value) {
  return SONDE_LAZY_CALL(libbpf, bpf_map_lookup_elem)(fd, key, value);
}
int bpf_map_get_next_key(int fd, const void* key, void* next_key) {
  return SONDE_LAZY_CALL(libbpf, bpf_map_get_next_key)(fd, key, next_key);
}
int bpf_map_lookup_and_delete_batch(int fd, void* in_batch, void* out_batch, void* keys, void* values, __u32* count,
                                    const struct bpf_map_batch_opts* opts) {
  return SONDE_LAZY_CALL(libbpf, bpf_map_lookup_and_delete_batch)(fd, in_batch, out_batch, keys, values, count, opts);
}
int bpf_map_lookup_and_delete_elem(int fd, const void* key, void* value) {
  return SONDE_LAZY_CALL(libbpf, bpf_map_lookup_and_delete_elem)(fd, key, value);
}

}  // extern "C"
