// The native engine's syntax tree, between its parser (native_parser.cpp) and its evaluator (native_evaluator.cpp);
// NativeExpression (native_expression.h) is what the rest of the mapper uses.
#pragma once

#include <simdjson.h>

#include <memory>
#include <optional>
#include <string>

#include "base/json/object_document.h"
#include "base/json/value.h"

namespace wm::expr {

struct NativeNode {
  enum class Type {
    Identity,
    Field,
    Index,
    Iterate,
    Keys,
    Try,
    Literal,
    Pipe,
    Alternative,
    Arithmetic,
    Comma,    // lhs's outputs, then rhs's
    Compare,  // op: '=' (==), '!' (!=), '<', 'l' (<=), '>', 'g' (>=)
    And,
    Or,
    Not,
    Empty,
    If,        // lhs: condition, rhs: then, third: else
    Bind,      // lhs as $name | rhs
    Variable,  // $name
    ToNumber,  // tonumber, on numbers and plain integer strings (the rest is left to jq)
    Floor,     // floor, on numbers (jq's error for the rest is left to jq)
  } type;
  std::string name;  // Field
  long index = 0;    // Index (never negative: jq's path() of a negative index is not a pointer); Keys: 1 = sorted
  char op = 0;       // Arithmetic: + - * /
  std::shared_ptr<const NativeNode> lhs, rhs;  // Pipe, Alternative, Arithmetic; Field/Index/Iterate: lhs is the base
  std::shared_ptr<simdjson::dom::document> literal;
  bool optional = false;                    // Field/Index/Iterate written with `?`: its own errors yield nothing
  std::shared_ptr<const NativeNode> third;  // If: the else branch
  int slot = 0;                             // Bind/Variable: which variable
};

// The tree of `source`, or null when it is outside the subset.
std::shared_ptr<const NativeNode> parse_native(const std::string& source);

// Evaluates `root` over `doc`: values, or the error that ended the stream. Nothing when the object held something the
// subset does not model: the caller evaluates with libjq instead.
std::optional<json::EvalResult> evaluate_native(const NativeNode& root, json::ObjectDocument& doc, bool want_pointers);

}  // namespace wm::expr
