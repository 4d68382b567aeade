// The common subset of jq that definitions use, evaluated directly over the simdjson DOM so that the
// admission hot path does not pay for converting the object to jq: paths (.a.b, .a[], .a[0], .["k"]),
// pipes between them, `//` alternatives, literals, parentheses and + - * / on numbers. The semantics
// (stream order, null propagation, errors) are jq 1.6's; tests/unit/native_vs_jq checks them against
// libjq over the whole corpus. Anything outside the subset is left to libjq.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "mapper/value.h"

namespace wm {

struct NativeNode;

// How many evaluation steps one expression may take over one object (a path step over each of
// 10,000 templates is about 50,000).
inline constexpr size_t kNativeStepBudget = 10'000'000;

class NativeExpression {
 public:
  // Returns nothing when `source` is outside the subset.
  static std::optional<NativeExpression> parse(const std::string& source);

  enum class Outcome { Done, Unsupported };
  // Unsupported means the object held something the subset does not model (arithmetic on strings,
  // say): the caller must evaluate with libjq instead.
  Outcome run(ObjectDocument& doc, bool want_pointers, EvalResult& result) const;

  NativeExpression(NativeExpression&&) noexcept;
  NativeExpression& operator=(NativeExpression&&) noexcept;
  ~NativeExpression();

 private:
  explicit NativeExpression(std::shared_ptr<const NativeNode> root);
  std::shared_ptr<const NativeNode> root_;
};

}  // namespace wm
