# Build-time step: turns the flame graph's page template and script into a
# header of string constants, so they stay ordinary, diffable source files.
# Usage: cmake -DTEMPLATE=... -DSCRIPT=... -DOUT=... -P embed.cmake
file(READ "${TEMPLATE}" template_text)
file(READ "${SCRIPT}" script_text)
foreach(text IN ITEMS "${template_text}" "${script_text}")
  string(FIND "${text}" ")sonde_asset\"" bad)
  if(NOT bad EQUAL -1)
    message(FATAL_ERROR "an asset contains the raw-string delimiter")
  endif()
endforeach()
string(FIND "${script_text}" "</script" bad)
if(NOT bad EQUAL -1)
  message(FATAL_ERROR "flamegraph.js must not contain \"</script\" (it is inlined in a <script> element)")
endif()
set(content "// Generated from template.html and flamegraph.js by embed.cmake. Do not edit.\n#pragma once\n#include <string_view>\nnamespace sonde::convert {\ninline constexpr std::string_view kTemplateHtml = R\"sonde_asset(${template_text})sonde_asset\";\ninline constexpr std::string_view kFlamegraphJs = R\"sonde_asset(${script_text})sonde_asset\";\n}  // namespace sonde::convert\n")
file(WRITE "${OUT}.tmp" "${content}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
