// proto3 fields as libprotobuf writes them, for the protozero writers
// (pprof.cpp, otlp.cpp): a scalar equal to 0 (or false) is not written.
#pragma once

#include <protozero/basic_pbf_builder.hpp>
#include <protozero/buffer_string.hpp>

#include <cstdint>
#include <string>

namespace sonde::convert::proto3 {

// A message under construction; nested ones are opened on their parent's
// buffer, so no message needs a buffer of its own.
template <typename Fields>
using Builder = protozero::basic_pbf_builder<std::string, Fields>;

template <typename Fields>
void put_uint64(Builder<Fields>& m, Fields f, uint64_t v) {
  if (v != 0) m.add_uint64(f, v);
}
template <typename Fields>
void put_int64(Builder<Fields>& m, Fields f, int64_t v) {
  if (v != 0) m.add_int64(f, v);
}
template <typename Fields>
void put_bool(Builder<Fields>& m, Fields f, bool v) {
  if (v) m.add_bool(f, true);
}

}  // namespace sonde::convert::proto3
