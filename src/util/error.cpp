#include "util/error.h"

#include <cstring>

namespace sonde {

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace sonde
