#include "mapper/expr/path_expression.h"

namespace wm::expr {

PathExpression::PathExpression(std::string source, std::shared_ptr<JqLibrary> library)
    : source_(std::move(source)), native_(NativeExpression::parse(source_)) {
  if (native_) {
    own_ = std::make_shared<OwnLibrary>();
  } else {
    library_ = std::move(library);
    index_ = library_->add(source_);
  }
}

Result<PathExpression> PathExpression::compile(const std::string& source) {
  auto library = std::make_shared<JqLibrary>();
  PathExpression expression(source, library);
  if (expression.native_) library->add(source);  // checked like the others, to report jq's own message
  auto failures = library->validate();
  if (!failures.empty()) return Error{failures.front().second};
  return expression;
}

std::optional<size_t> PathExpression::library_index() const {
  if (native_) return std::nullopt;
  return index_;
}

const JqLibrary& PathExpression::library() const {
  if (!native_) return *library_;
  std::call_once(own_->once, [this] {
    auto own = std::make_shared<JqLibrary>();
    own->add(source_);
    own->validate();
    own_->library = std::move(own);
  });
  return *own_->library;
}

json::EvalResult PathExpression::evaluate_jq(json::ObjectDocument& doc, bool want_pointers) const {
  return library().run(index_, doc, want_pointers);
}

std::optional<json::EvalResult> PathExpression::evaluate_native(json::ObjectDocument& doc, bool want_pointers) const {
  if (!native_) return std::nullopt;
  return native_->run(doc, want_pointers);
}

json::EvalResult PathExpression::evaluate(json::ObjectDocument& doc, bool want_pointers) const {
  if (auto native = evaluate_native(doc, want_pointers)) return std::move(*native);
  return evaluate_jq(doc, want_pointers);
}

}  // namespace wm::expr
