// jq expressions run with libjq. Compiling a jq program costs ~17 ms (jq 1.6 recompiles its builtin
// library each time), so the expressions of a whole catalog are compiled as one program: each
// expression becomes a jq function, and a balanced dispatch picks one per call. Each thread keeps
// its own compiled program, since a jq_state is not thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/json/object_document.h"
#include "base/json/value.h"

namespace wm::expr {

class JqLibrary {
 public:
  JqLibrary();
  size_t add(std::string source);
  const std::string& source(size_t index) const { return sources_[index]; }
  size_t size() const { return sources_.size(); }

  // Compiles every expression (once, together); returns those that do not compile, with jq's message.
  // Call after the last add() and before the first run().
  std::vector<std::pair<size_t, std::string>> validate();

  // Runs one expression. With `want_pointers`, first tries path(EXPR) so that results carry their
  // location; an expression that is not a path (arithmetic, literals) yields location-less values,
  // and is not tried as a path again.
  json::EvalResult run(size_t index, json::ObjectDocument& doc, bool want_pointers) const;
  // Compiles this thread's copy now, so that the first request on the thread does not pay for it.
  void warm_up() const;

 private:
  std::string program() const;
  std::vector<std::string> sources_;
  uint64_t id_;
  // Set once jq's path() has refused an expression: from then on it is evaluated for values only.
  // Its results cannot carry locations anyway, and jq 1.6 leaks an object key each time path() fails.
  std::unique_ptr<std::atomic<bool>[]> not_a_path_;
  size_t not_a_path_size_ = 0;
};

}  // namespace wm::expr
