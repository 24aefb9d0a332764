// C++ demangling in the two styles reports use: perf's default (qualified
// name only, like libiberty without DMGL_PARAMS: "ns::Widget::spin") and the
// full signature (what perf -v and c++filt show: "ns::Widget::spin(int)").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sonde {

// nullopt when `mangled` is not a C++ (Itanium ABI) name. Version suffixes
// ("@plt", "@@GLIBC_2.2.5") are kept after the demangled name.
std::optional<std::string> demangle(std::string_view mangled, bool with_params);

// The qualified name of a full demangled signature: drops the parameter list,
// trailing qualifiers and a template function's return type. Returns the
// input unchanged when it does not look like a function signature.
std::string strip_signature(std::string_view full);

}  // namespace sonde
