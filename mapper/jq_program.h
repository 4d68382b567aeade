// A jq expression run with libjq. Compiled once at load (to refuse bad definitions early); each thread
// keeps its own jq_state, since a jq_state is not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mapper/value.h"

namespace wm {

class JqProgram {
 public:
  // Checks that `source` compiles; on failure returns the compiler's message in `error`.
  static std::optional<JqProgram> compile(const std::string& source, std::string& error);

  // Runs over the object. With `want_pointers`, first tries `path(EXPR)` so that results carry their
  // location; an expression that is not a path (arithmetic, literals) yields located-less values.
  EvalResult run(ObjectDocument& doc, bool want_pointers) const;
  const std::string& source() const { return source_; }

 private:
  JqProgram(std::string source, uint64_t id) : source_(std::move(source)), id_(id) {}
  std::string source_;
  uint64_t id_;  // key of this program's per-thread jq_state
};

}  // namespace wm
