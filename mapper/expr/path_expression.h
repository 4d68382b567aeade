// A jq expression from a definition: evaluated natively when it is in the common subset, with libjq
// as the general fallback.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/result.h"
#include "mapper/expr/jq_library.h"
#include "mapper/expr/native_expression.h"

namespace wm::expr {

class PathExpression {
 public:
  // Outside the native subset, adds `source` to `library`, which must be validated before the
  // expression is evaluated. Native expressions need jq only in rare run-time fallbacks, so they
  // get a program of their own on first need and cost nothing at load.
  PathExpression(std::string source, std::shared_ptr<JqLibrary> library);
  // A stand-alone expression, compiled at once (17 ms: for tests and one-offs, not catalogs).
  static Result<PathExpression> compile(const std::string& source);

  json::EvalResult evaluate(json::ObjectDocument& doc, bool want_pointers) const;
  // Each engine alone, for tests and benchmarks.
  json::EvalResult evaluate_jq(json::ObjectDocument& doc, bool want_pointers) const;
  std::optional<json::EvalResult> evaluate_native(json::ObjectDocument& doc, bool want_pointers) const;

  bool is_native() const { return native_.has_value(); }
  void warm_up() const {
    if (!native_) library_->warm_up();
  }
  const std::string& source() const { return source_; }
  // Where the expression sits in the shared library; nothing for native expressions.
  std::optional<size_t> library_index() const;

 private:
  const JqLibrary& library() const;
  std::string source_;
  std::optional<NativeExpression> native_;
  std::shared_ptr<JqLibrary> library_;  // the shared one, for non-native expressions
  size_t index_ = 0;
  struct OwnLibrary {  // made on first need, shared by copies
    std::once_flag once;
    std::shared_ptr<JqLibrary> library;
  };
  std::shared_ptr<OwnLibrary> own_;
};

}  // namespace wm::expr
