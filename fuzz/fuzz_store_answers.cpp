// What a fleet store (or whatever answers on its port) sends back: the
// first byte picks the parser. 0: a whole HTTP answer; 1: a chunked body;
// else the readers' two TabSeparated answers (aggregates, then stacks, split
// at the first NUL byte) assembled into a Profile, whose indices must all
// point inside its tables, then written as folded stacks; and the same
// answers as `script`'s listing of the store, printed.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "analysis/profile.h"
#include "convert/convert.h"
#include "fleet/clickhouse.h"
#include "fleet/fleet_query.h"
#include "fleet/http_client.h"
#include "fleet/store_listing.h"
#include "util/error.h"

namespace {

void check_indices(const sonde::analysis::Profile& p) {
  for (const auto& s : p.samples)
    if (s.event >= p.events.size() || (s.stack != UINT32_MAX && s.stack >= p.nodes.size())) std::abort();
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const auto& n = p.nodes[i];
    if ((n.parent != UINT32_MAX && n.parent >= i) || n.location >= p.locations.size()) std::abort();
  }
  for (const auto& l : p.locations)
    if (l.function >= p.functions.size() || (l.mapping != UINT32_MAX && l.mapping >= p.mappings.size())) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] == 0) {
      (void)sonde::fleet::parse_http_response(rest, "fuzz");
    } else if (data[0] == 1) {
      (void)sonde::fleet::decode_chunked(rest);
    } else {
      const size_t nul = rest.find('\0');
      const auto samples = sonde::fleet::parse_tsv(rest.substr(0, nul));
      const auto stacks = sonde::fleet::parse_tsv(nul == std::string::npos ? "" : rest.substr(nul + 1));
      const sonde::analysis::Profile p = sonde::fleet::profile_from_answers(samples, stacks);
      check_indices(p);
      std::ostringstream out;
      sonde::convert::write_folded(p, {}, out);
      // The same answers as script's listing (whose rows have two more
      // columns: short rows are skipped), printed.
      const sonde::fleet::StoreListing l = sonde::fleet::listing_from_answers(samples, stacks);
      check_indices(l.profile);
      if (std::FILE* sink = std::fopen("/dev/null", "w")) {
        sonde::fleet::print_store_listing(l, 0, false, sink);
        std::fclose(sink);
      }
    }
  } catch (const sonde::Error&) {
  }
  return 0;
}
