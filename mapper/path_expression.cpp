#include "mapper/path_expression.h"

namespace wm {

std::optional<PathExpression> PathExpression::compile(const std::string& source, std::string& error) {
  auto jq = JqProgram::compile(source, error);
  if (!jq) return std::nullopt;
  return PathExpression(std::move(*jq), NativeExpression::parse(source));
}

std::optional<EvalResult> PathExpression::evaluate_native(ObjectDocument& doc, bool want_pointers) const {
  if (!native_) return std::nullopt;
  EvalResult result;
  if (native_->run(doc, want_pointers, result) == NativeExpression::Outcome::Unsupported) return std::nullopt;
  return result;
}

EvalResult PathExpression::evaluate(ObjectDocument& doc, bool want_pointers) const {
  if (auto native = evaluate_native(doc, want_pointers)) return std::move(*native);
  return jq_.run(doc, want_pointers);
}

}  // namespace wm
