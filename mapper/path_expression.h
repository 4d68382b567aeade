// A jq expression from a definition: evaluated natively when it is in the common subset, with libjq
// as the general fallback. Compiled once when the definition loads.
#pragma once

#include <optional>
#include <string>

#include "mapper/jq_program.h"
#include "mapper/native_expression.h"

namespace wm {

class PathExpression {
 public:
  static std::optional<PathExpression> compile(const std::string& source, std::string& error);

  EvalResult evaluate(ObjectDocument& doc, bool want_pointers) const;
  // Both engines, for tests and benchmarks.
  EvalResult evaluate_jq(ObjectDocument& doc, bool want_pointers) const { return jq_.run(doc, want_pointers); }
  std::optional<EvalResult> evaluate_native(ObjectDocument& doc, bool want_pointers) const;

  bool is_native() const { return native_.has_value(); }
  const std::string& source() const { return jq_.source(); }

 private:
  PathExpression(JqProgram jq, std::optional<NativeExpression> native)
      : jq_(std::move(jq)), native_(std::move(native)) {}
  JqProgram jq_;
  std::optional<NativeExpression> native_;
};

}  // namespace wm
