// A jq expression from a definition: evaluated natively when it is in the common subset, with libjq
// as the general fallback.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "mapper/jq_program.h"
#include "mapper/native_expression.h"

namespace wm {

class PathExpression {
 public:
  // Adds `source` to `library`, which must be validated before the expression is evaluated.
  PathExpression(std::string source, std::shared_ptr<JqLibrary> library);
  // A stand-alone expression, compiled at once (17 ms: for tests and one-offs, not catalogs).
  static std::optional<PathExpression> compile(const std::string& source, std::string& error);

  EvalResult evaluate(ObjectDocument& doc, bool want_pointers) const;
  // Each engine alone, for tests and benchmarks.
  EvalResult evaluate_jq(ObjectDocument& doc, bool want_pointers) const {
    return library_->run(index_, doc, want_pointers);
  }
  std::optional<EvalResult> evaluate_native(ObjectDocument& doc, bool want_pointers) const;

  bool is_native() const { return native_.has_value(); }
  const std::string& source() const { return library_->source(index_); }
  size_t library_index() const { return index_; }

 private:
  std::shared_ptr<const JqLibrary> library_;
  size_t index_;
  std::optional<NativeExpression> native_;
};

}  // namespace wm
