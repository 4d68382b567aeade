// The subset of jq that definitions use, evaluated directly over the simdjson DOM so that the admission hot path
// does not pay for converting the object to jq: paths (.a.b, .a[], .a[0], .["k"], optional `?`), pipes, `//`
// alternatives, commas, literals, parentheses, arithmetic and comparisons, if/then/else, and/or/not, empty,
// variables and `as` bindings, try, keys and keys_unsorted, tonumber and floor on the values jq allows. The semantics
// (stream order, null propagation, errors, path locations) are jq 1.6's;
// tests/unit/mapper/expr/native_expression_test.cpp checks each construct and tests/corpus/native_vs_jq_test.cpp the
// whole corpus against libjq. Anything outside the subset, or a value the subset does not model at run time, is left to
// libjq.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/json/object_document.h"
#include "base/json/value.h"

namespace wm::expr {

struct NativeNode;

// How many evaluation steps one expression may take over one object (a path step over each of
// 10,000 templates is about 50,000).
inline constexpr size_t kNativeStepBudget = 10'000'000;

// Errors that begin with this are the native engine's own bound, where jq would compute a value at a cost nothing
// bounds (a string repeated a billion times); the engines are not compared on them.
inline constexpr std::string_view kRefusedPrefix = "refused: ";

class NativeExpression {
 public:
  // Returns nothing when `source` is outside the subset.
  static std::optional<NativeExpression> parse(const std::string& source);

  // The values (or the error that ended the stream); nothing when the object held something the subset does not
  // model (arithmetic on strings, say): the caller must evaluate with libjq instead.
  std::optional<json::EvalResult> run(json::ObjectDocument& doc, bool want_pointers) const;

  NativeExpression(NativeExpression&&) noexcept;
  NativeExpression& operator=(NativeExpression&&) noexcept;
  ~NativeExpression();

 private:
  explicit NativeExpression(std::shared_ptr<const NativeNode> root);
  std::shared_ptr<const NativeNode> root_;
};

}  // namespace wm::expr
