// simdjson keeps a parser's buffers at the size of the largest document it has read, about 15 bytes per byte of
// JSON: a single 3 MiB request would hold some 45 MiB on its thread for good. A parser grown past
// kKeptParserCapacity is replaced by a fresh one once its document has been read.
#pragma once

#include <simdjson.h>

#include <cstddef>

namespace wm::json {

inline constexpr size_t kKeptParserCapacity = size_t{1} << 20;

inline void shed_capacity(simdjson::dom::parser& parser) {
  if (parser.capacity() > kKeptParserCapacity) parser = simdjson::dom::parser{};
}

}  // namespace wm::json
