#include "format/attr_text.h"

#include <fmt/format.h>

#include <utility>

#include "util/text_join.h"

namespace sonde::format {

namespace {

using Bits = std::initializer_list<std::pair<uint64_t, const char*>>;

// Set bits by name, '|'-separated, in perf's order.
std::string bit_names(uint64_t value, Bits names) {
  std::string out;
  for (const auto& [bit, name] : names)
    if (value & bit) append_separated(out, "|", name);
  return out;
}

std::string sample_type_text(uint64_t v) {
  return bit_names(v, {{PERF_SAMPLE_IP, "IP"},
                       {PERF_SAMPLE_TID, "TID"},
                       {PERF_SAMPLE_TIME, "TIME"},
                       {PERF_SAMPLE_ADDR, "ADDR"},
                       {PERF_SAMPLE_READ, "READ"},
                       {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
                       {PERF_SAMPLE_ID, "ID"},
                       {PERF_SAMPLE_CPU, "CPU"},
                       {PERF_SAMPLE_PERIOD, "PERIOD"},
                       {PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
                       {PERF_SAMPLE_RAW, "RAW"},
                       {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
                       {PERF_SAMPLE_REGS_USER, "REGS_USER"},
                       {PERF_SAMPLE_STACK_USER, "STACK_USER"},
                       {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
                       {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
                       {PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
                       {PERF_SAMPLE_WEIGHT, "WEIGHT"},
                       {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
                       {PERF_SAMPLE_AUX, "AUX"},
                       {PERF_SAMPLE_CGROUP, "CGROUP"},
                       {PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
                       {PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
                       {PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"}});
}

std::string read_format_text(uint64_t v) {
  return bit_names(v, {{PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
                       {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
                       {PERF_FORMAT_ID, "ID"},
                       {PERF_FORMAT_GROUP, "GROUP"},
                       {PERF_FORMAT_LOST, "LOST"}});
}

std::string branch_type_text(uint64_t v) {
  static constexpr const char* kNames[] = {"USER",    "KERNEL",   "HV",        "ANY",        "ANY_CALL",
                                           "ANY_RETURN", "IND_CALL", "ABORT_TX", "IN_TX",      "NO_TX",
                                           "COND",    "CALL_STACK", "IND_JUMP", "CALL",       "NO_FLAGS",
                                           "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE"};
  std::string out;
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (v & (1ULL << i)) append_separated(out, "|", kNames[i]);
  return out;
}

std::string hex(uint64_t v) { return v ? fmt::format("{:#x}", v) : "0"; }

}  // namespace

std::string event_desc_line(const EventDesc& event) {
  std::string out = fmt::format("# event : name = {}, ", event.name);
  if (!event.ids.empty()) {
    out += ", id = {";
    for (size_t i = 0; i < event.ids.size(); ++i) out += fmt::format("{} {}", i ? "," : "", event.ids[i]);
    out += " }";
  }
  return out + attr_fields_text(event.attr, " = ");
}

std::string attr_fields_text(const perf_event_attr& a, std::string_view assign) {
  std::string out;
  auto field = [&](const char* name, uint64_t v, std::string text) {
    if (v) out += fmt::format(", {}{}{}", name, assign, text);
  };
  auto num = [&](const char* name, uint64_t v) { field(name, v, fmt::format("{}", v)); };
  num("type", a.type);
  num("size", a.size);
  field("config", a.config, hex(a.config));
  num("{ sample_period, sample_freq }", a.sample_period);
  field("sample_type", a.sample_type, sample_type_text(a.sample_type));
  field("read_format", a.read_format, read_format_text(a.read_format));
  num("disabled", a.disabled), num("inherit", a.inherit), num("pinned", a.pinned), num("exclusive", a.exclusive);
  num("exclude_user", a.exclude_user), num("exclude_kernel", a.exclude_kernel), num("exclude_hv", a.exclude_hv);
  num("exclude_idle", a.exclude_idle), num("mmap", a.mmap), num("comm", a.comm), num("freq", a.freq);
  num("inherit_stat", a.inherit_stat), num("enable_on_exec", a.enable_on_exec), num("task", a.task);
  num("watermark", a.watermark), num("precise_ip", a.precise_ip), num("mmap_data", a.mmap_data);
  num("sample_id_all", a.sample_id_all), num("exclude_host", a.exclude_host), num("exclude_guest", a.exclude_guest);
  num("exclude_callchain_kernel", a.exclude_callchain_kernel);
  num("exclude_callchain_user", a.exclude_callchain_user);
  num("mmap2", a.mmap2), num("comm_exec", a.comm_exec), num("use_clockid", a.use_clockid);
  num("context_switch", a.context_switch), num("write_backward", a.write_backward), num("namespaces", a.namespaces);
  num("ksymbol", a.ksymbol), num("bpf_event", a.bpf_event), num("aux_output", a.aux_output), num("cgroup", a.cgroup);
  num("text_poke", a.text_poke), num("build_id", a.build_id), num("inherit_thread", a.inherit_thread);
  num("remove_on_exec", a.remove_on_exec), num("sigtrap", a.sigtrap);
  num("{ wakeup_events, wakeup_watermark }", a.wakeup_events);
  num("bp_type", a.bp_type);
  field("{ bp_addr, config1 }", a.bp_addr, hex(a.bp_addr));
  field("{ bp_len, config2 }", a.bp_len, hex(a.bp_len));
  field("branch_sample_type", a.branch_sample_type, branch_type_text(a.branch_sample_type));
  field("sample_regs_user", a.sample_regs_user, hex(a.sample_regs_user));
  num("sample_stack_user", a.sample_stack_user);
  field("clockid", uint64_t(int64_t(a.clockid)), fmt::format("{}", a.clockid));
  field("sample_regs_intr", a.sample_regs_intr, hex(a.sample_regs_intr));
  num("aux_watermark", a.aux_watermark), num("sample_max_stack", a.sample_max_stack);
  num("aux_sample_size", a.aux_sample_size), num("sig_data", a.sig_data);
  return out;
}

}  // namespace sonde::format
