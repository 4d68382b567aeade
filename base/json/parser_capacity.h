// simdjson keeps a parser's buffers at the size of the largest document it has read, about 15 bytes per byte of
// JSON: a single 3 MiB request would hold some 45 MiB on its thread for good. A parser grown past
// kKeptParserCapacity is replaced by a fresh one once its document has been read.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cstddef>

namespace wm::json {

inline constexpr size_t kKeptParserCapacity = size_t{1} << 20;

// How deep a document admission reads: the API server keeps objects nested up to 10,000 levels (in the fields a CRD
// preserves), and an AdmissionReview wraps the object three levels down. simdjson's default stops at 1,024, which
// would turn a body the API server accepted into an HTTP 400 and leave the decision to the API server alone. A level
// costs the parser a few bytes.
inline constexpr size_t kMaxDepth = 10'000 + 16;

// `parser`, able to read `size` bytes at kMaxDepth (simdjson keeps the depth when it grows its capacity).
inline simdjson::error_code allow_max_depth(simdjson::dom::parser& parser, size_t size) {
  if (parser.max_depth() >= kMaxDepth && parser.capacity() >= size) return simdjson::SUCCESS;
  return parser.allocate(std::max(parser.capacity(), size), kMaxDepth);
}

inline void shed_capacity(simdjson::dom::parser& parser) {
  if (parser.capacity() > kKeptParserCapacity) parser = simdjson::dom::parser{};
}

}  // namespace wm::json
