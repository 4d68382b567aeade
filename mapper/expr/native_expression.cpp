#include "mapper/expr/native_expression.h"

#include "mapper/expr/native_node.h"

namespace wm::expr {

NativeExpression::NativeExpression(std::shared_ptr<const NativeNode> root) : root_(std::move(root)) {}
NativeExpression::NativeExpression(NativeExpression&&) noexcept = default;
NativeExpression& NativeExpression::operator=(NativeExpression&&) noexcept = default;
NativeExpression::~NativeExpression() = default;

std::optional<NativeExpression> NativeExpression::parse(const std::string& source) {
  // libjq reads expressions as C strings, up to a NUL: the two engines would read different expressions.
  if (source.find('\0') != std::string::npos) return std::nullopt;
  std::shared_ptr<const NativeNode> root = parse_native(source);
  if (!root) return std::nullopt;
  return NativeExpression(std::move(root));
}

std::optional<json::EvalResult> NativeExpression::run(json::ObjectDocument& doc, bool want_pointers) const {
  return evaluate_native(*root_, doc, want_pointers);
}

}  // namespace wm::expr
