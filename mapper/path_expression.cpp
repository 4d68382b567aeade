#include "mapper/path_expression.h"

namespace wm {

PathExpression::PathExpression(std::string source, std::shared_ptr<JqLibrary> library)
    : library_(library), index_(library->add(source)), native_(NativeExpression::parse(source)) {}

std::optional<PathExpression> PathExpression::compile(const std::string& source, std::string& error) {
  auto library = std::make_shared<JqLibrary>();
  PathExpression expression(source, library);
  auto failures = library->validate();
  if (!failures.empty()) {
    error = failures.front().second;
    return std::nullopt;
  }
  return expression;
}

std::optional<EvalResult> PathExpression::evaluate_native(ObjectDocument& doc, bool want_pointers) const {
  if (!native_) return std::nullopt;
  EvalResult result;
  if (native_->run(doc, want_pointers, result) == NativeExpression::Outcome::Unsupported) return std::nullopt;
  return result;
}

EvalResult PathExpression::evaluate(ObjectDocument& doc, bool want_pointers) const {
  if (auto native = evaluate_native(doc, want_pointers)) return std::move(*native);
  return library_->run(index_, doc, want_pointers);
}

}  // namespace wm
