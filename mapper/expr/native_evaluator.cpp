// The native engine's evaluator: jq 1.6's generator semantics over the simdjson DOM.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "base/json/json_pointer.h"
#include "base/json/json_writer.h"
#include "mapper/expr/native_expression.h"
#include "mapper/expr/native_node.h"
#include "mapper/expr/review_deadline.h"

namespace wm::expr {

namespace {

const char* type_name(const json::Value& v) {
  if (v.computed) return v.computed_string ? "string" : "number";
  switch (v.element.type()) {
    case simdjson::dom::element_type::ARRAY:
      return "array";
    case simdjson::dom::element_type::OBJECT:
      return "object";
    case simdjson::dom::element_type::STRING:
      return "string";
    case simdjson::dom::element_type::BOOL:
      return "boolean";
    case simdjson::dom::element_type::NULL_VALUE:
      return "null";
    default:
      return "number";
  }
}

// A non-owning callable reference: keeps the recursive evaluator from instantiating itself forever.
class Emit {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Emit>>>
  Emit(F& f) : object_(&f), call_([](void* o, json::Value&& v) { return (*static_cast<F*>(o))(std::move(v)); }) {}
  bool operator()(json::Value&& v) const { return call_(object_, std::move(v)); }

 private:
  void* object_;
  bool (*call_)(void*, json::Value&&);
};

// Depth-first generator evaluation, as jq's backtracking does it: `emit` gets each output in jq's
// order; the first error ends the stream.
class Evaluator {
 public:
  Evaluator(bool want_pointers, json::EvalResult& result) : want_pointers_(want_pointers), result_(result) {}

  bool unsupported = false;

  // Whether the review's deadline (review_deadline.h) has passed; if so the stream ends with that error.
  bool past_deadline() {
    const auto left = ReviewDeadline::remaining();
    if (!left || *left > ReviewDeadline::Clock::duration::zero()) return false;
    if (!stopped_) result_.error = ReviewDeadline::passed_error();
    stopped_ = true;
    return true;
  }

  bool eval(const NativeNode& node, const json::Value& in, Emit emit) {
    using T = NativeNode::Type;
    // Bounded work: `as` bindings over long lists multiply. The stop cannot be caught by `?`.
    if (++steps_ > kNativeStepBudget) {
      if (!stopped_)
        result_.error = "stopped: the expression took more than " + std::to_string(kNativeStepBudget) + " steps";
      stopped_ = true;
      return false;
    }
    // The review's deadline (review_deadline.h), looked at every few thousand steps: a clock read is dearer than one.
    if ((steps_ & 4095) == 0 && past_deadline()) return false;
    switch (node.type) {
      case T::Identity:
        return emit(json::Value(in));
      case T::Literal: {
        json::Value v;
        v.element = node.literal->root();
        return emit(at_input_if_identical(std::move(v), in));
      }
      case T::Field: {
        auto next = [&](json::Value&& base) {
          return quiet(
              node, [&](Emit e) { return field(node.name, base, e); }, emit);
        };
        return eval(*node.lhs, in, next);
      }
      case T::Index: {
        auto next = [&](json::Value&& base) {
          return quiet(
              node, [&](Emit e) { return index(node.index, base, e); }, emit);
        };
        return eval(*node.lhs, in, next);
      }
      case T::Iterate: {
        auto next = [&](json::Value&& base) {
          return quiet(
              node, [&](Emit e) { return iterate(base, e); }, emit);
        };
        return eval(*node.lhs, in, next);
      }
      case T::Empty:
        return true;
      case T::ToNumber:
        return to_number(in, emit);
      case T::Floor: {
        const auto number = in.as_number();
        if (!number) return unsupported_here();
        json::Value v;
        v.computed = true;
        v.number = std::floor(*number);
        return emit(at_input_if_identical(std::move(v), in));  // jq keeps the path of an identical result
      }
      case T::Comma:
        return eval(*node.lhs, in, emit) && eval(*node.rhs, in, emit);
      case T::Not:
        return emit(boolean(!in.truthy()));
      case T::Variable: {
        if (static_cast<size_t>(node.slot) >= variables_.size()) return fail("unbound variable");
        return emit(json::Value(variables_[static_cast<size_t>(node.slot)]));
      }
      case T::Bind: {
        const size_t slot = static_cast<size_t>(node.slot);
        auto bind = [&](json::Value&& v) {
          // A term emits while its own variables are still bound (`(.a as $x | $x) as $y | ...`): the body sees
          // only its scope's variables, so they step aside while it runs and come back after.
          std::vector<json::Value> above;
          if (variables_.size() > slot) {
            above.assign(std::make_move_iterator(variables_.begin() + static_cast<std::ptrdiff_t>(slot)),
                         std::make_move_iterator(variables_.end()));
            variables_.resize(slot);
          }
          variables_.push_back(std::move(v));
          variables_.back().resolve_pointer();
          bool ok = eval(*node.rhs, in, emit);
          variables_.pop_back();
          for (auto& value : above) variables_.push_back(std::move(value));
          return ok;
        };
        return eval(*node.lhs, in, bind);
      }
      case T::If: {
        auto branch = [&](json::Value&& c) { return eval(c.truthy() ? *node.rhs : *node.third, in, emit); };
        return eval(*node.lhs, in, branch);
      }
      case T::And:
      case T::Or: {
        const bool is_and = node.type == T::And;
        auto left = [&](json::Value&& a) {
          if (a.truthy() != is_and) return emit(boolean(!is_and));  // decided by the left side
          auto right = [&](json::Value&& b) { return emit(boolean(b.truthy())); };
          return eval(*node.rhs, in, right);
        };
        return eval(*node.lhs, in, left);
      }
      case T::Compare:
        return binary(node, in, [&](const json::Value& l, const json::Value& r) {
          auto order = compare(l, r);
          if (!order) return unsupported_here();
          bool result = false;
          switch (node.op) {
            case '=':
              result = *order == 0;
              break;
            case '!':
              result = *order != 0;
              break;
            case '<':
              result = *order < 0;
              break;
            case 'l':
              result = *order <= 0;
              break;
            case '>':
              result = *order > 0;
              break;
            case 'g':
              result = *order >= 0;
              break;
          }
          return emit(boolean(result));
        });
      case T::Keys:
        return keys(node.index == 1, in, emit);
      case T::Try: {
        bool downstream_failed = false;
        auto guarded = [&](json::Value&& v) {
          if (emit(std::move(v))) return true;
          downstream_failed = true;
          return false;
        };
        if (eval(*node.lhs, in, guarded)) return true;
        if (unsupported || stopped_) return false;
        if (downstream_failed && result_.error.empty()) return false;  // a consumer's own stop, not an error
        // jq 1.6 catches an error at its try's fork point wherever it was raised, in the term or in what consumes
        // its outputs: `(1)? | error("x")` gives nothing, quietly. The stream ends there.
        result_.error.clear();
        return true;
      }
      case T::Pipe: {
        auto next = [&](json::Value&& mid) { return eval(*node.rhs, mid, emit); };
        return eval(*node.lhs, in, next);
      }
      case T::Alternative: {
        bool any = false;
        auto truthy = [&](json::Value&& v) {
          if (!v.truthy()) return true;
          any = true;
          return emit(std::move(v));
        };
        bool ok = eval(*node.lhs, in, truthy);
        if (!ok) return false;
        if (any) return true;
        return eval(*node.rhs, in, emit);
      }
      case T::Arithmetic: {
        auto located = [&](json::Value&& v) {
          return emit(v.computed ? at_input_if_identical(std::move(v), in) : std::move(v));
        };
        return binary(node, in,
                      [&](const json::Value& l, const json::Value& r) { return arithmetic(node.op, l, r, located); });
      }
    }
    return fail("unknown node");
  }

 private:
  bool fail(std::string message) {
    result_.error = std::move(message);
    return false;
  }
  bool unsupported_here() {
    unsupported = true;
    return false;
  }

  // `base` outlives the child while it is emitted (depth-first), so the child links to it.
  json::Value child(const json::Value& base, simdjson::dom::element element, std::string_view key) const {
    json::Value v;
    v.element = element;
    if (want_pointers_ && base.has_pointer) {
      v.has_pointer = true;
      v.parent = &base;
      v.step_key = key;
    }
    return v;
  }
  json::Value child(const json::Value& base, simdjson::dom::element element, size_t index) const {
    json::Value v = child(base, element, std::string_view());
    v.step_index = index;
    v.step_is_index = true;
    return v;
  }

  bool field(const std::string& name, const json::Value& base, Emit emit) {
    if (base.is_null()) return emit(child(base, json::ObjectDocument::null_element(), name));
    simdjson::dom::object object;
    if (base.computed || base.element.get_object().get(object) != simdjson::SUCCESS)
      return fail(std::string("Cannot index ") + type_name(base) + " with \"" + name + "\"");
    simdjson::dom::element found;
    if (object.at_key(name).get(found) != simdjson::SUCCESS) found = json::ObjectDocument::null_element();
    return emit(child(base, found, name));
  }

  bool index(long i, const json::Value& base, Emit emit) {
    const size_t token = static_cast<size_t>(i);
    if (base.is_null()) return emit(child(base, json::ObjectDocument::null_element(), token));
    simdjson::dom::array array;
    if (base.computed || base.element.get_array().get(array) != simdjson::SUCCESS)
      return fail(std::string("Cannot index ") + type_name(base) + " with number");
    simdjson::dom::element found;
    if (array.at(static_cast<size_t>(i)).get(found) != simdjson::SUCCESS) found = json::ObjectDocument::null_element();
    return emit(child(base, found, token));
  }

  bool iterate(const json::Value& base, Emit emit) {
    if (!base.computed) {
      simdjson::dom::array array;
      if (base.element.get_array().get(array) == simdjson::SUCCESS) {
        size_t i = 0;
        for (simdjson::dom::element item : array) {
          if (!emit(child(base, item, i))) return false;
          ++i;
        }
        return true;
      }
      simdjson::dom::object object;
      if (base.element.get_object().get(object) == simdjson::SUCCESS) {
        for (auto [key, item] : object)
          if (!emit(child(base, item, key))) return false;
        return true;
      }
    }
    return fail(std::string("Cannot iterate over ") + type_name(base));
  }

  // Runs one access; for an optional one, an error of its own ends just its outputs.
  template <class Access>
  bool quiet(const NativeNode& node, Access&& access, Emit emit) {
    if (!node.optional) return access(emit);
    bool downstream_failed = false;
    auto guarded = [&](json::Value&& v) {
      if (emit(std::move(v))) return true;
      downstream_failed = true;
      return false;
    };
    if (access(Emit(guarded))) return true;
    if (downstream_failed || unsupported || stopped_) return false;
    result_.error.clear();
    return true;
  }

  // jq runs a binary operator's right operand in the outer loop and its left one inside it.
  template <class Combine>
  bool binary(const NativeNode& node, const json::Value& in, Combine&& combine) {
    std::vector<json::Value> rights;
    auto collect = [&](json::Value&& r) {
      rights.push_back(std::move(r));
      rights.back().resolve_pointer();  // kept after its parent is gone
      return true;
    };
    if (!eval(*node.rhs, in, collect)) return false;
    for (const json::Value& r : rights) {
      auto each = [&](json::Value&& l) { return combine(l, r); };
      if (!eval(*node.lhs, in, each)) return false;
    }
    return true;
  }

  // jq 1.6 parses the string as JSON text; only the forms whose answer is plain (an integer without sign tricks or
  // leading zeros, short enough to be exact) are read here, and jq decides the rest (its errors and oddities).
  bool to_number(const json::Value& in, Emit emit) {
    if (in.as_number()) return emit(json::Value(in));  // jq's tonumber is the identity on numbers, locations included
    std::string_view s;
    if (in.computed && in.computed_string)
      s = in.text;
    else if (in.computed || in.element.get_string().get(s) != simdjson::SUCCESS)
      return unsupported_here();
    const size_t digits = s.size() - (!s.empty() && s[0] == '-');
    const std::string_view body = s.substr(s.size() - digits);
    if (digits == 0 || digits > 15 || (body[0] == '0' && (digits > 1 || s[0] == '-')) ||
        body.find_first_not_of("0123456789") != std::string_view::npos)
      return unsupported_here();
    json::Value v;
    v.computed = true;
    v.number = std::strtod(std::string(s).c_str(), nullptr);
    return emit(std::move(v));
  }

  // jq's path tracking accepts a made value that is identical (jv_identical: the same null or boolean, the same
  // number bit for bit) to the value at the current path, and keeps that path: `path(0)` on 0 is [].
  json::Value at_input_if_identical(json::Value v, const json::Value& in) const {
    if (!want_pointers_ || !in.has_pointer) return v;
    bool identical = false;
    if (auto a = v.as_number(), b = in.as_number(); a && b) {
      identical = std::memcmp(&*a, &*b, sizeof(double)) == 0;
    } else if (!v.computed && !in.computed) {
      const auto kind = v.element.type();
      identical =
          kind == in.element.type() && (kind == simdjson::dom::element_type::NULL_VALUE ||
                                        (kind == simdjson::dom::element_type::BOOL &&
                                         v.element.get_bool().value_unsafe() == in.element.get_bool().value_unsafe()));
    }
    if (!identical) return v;
    json::Value located = in;
    // A literal brings its own element; a computed number has none, and the input's element is that number.
    if (!located.computed && !v.computed) located.element = v.element;
    return located;
  }

  static json::Value boolean(bool b) {
    json::Value v;
    v.element = json::ObjectDocument::boolean_element(b);
    return v;
  }

  // jq's order: null < false < true < numbers < strings < arrays < objects. Equal-typed arrays and
  // objects are left to jq (deep comparison).
  static std::optional<int> compare(const json::Value& a, const json::Value& b) {
    auto rank = [](const json::Value& v) {
      if (v.computed) return v.computed_string ? 4 : 3;
      switch (v.element.type()) {
        case simdjson::dom::element_type::NULL_VALUE:
          return 0;
        case simdjson::dom::element_type::BOOL:
          return v.element.get_bool().value_unsafe() ? 2 : 1;
        case simdjson::dom::element_type::STRING:
          return 4;
        case simdjson::dom::element_type::ARRAY:
          return 5;
        case simdjson::dom::element_type::OBJECT:
          return 6;
        default:
          return 3;
      }
    };
    int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb ? -1 : 1;
    if (ra <= 2) return 0;
    if (ra == 3) {
      double x = *a.as_number(), y = *b.as_number();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    if (ra == 4) {
      std::string x = *a.as_scalar_string(), y = *b.as_scalar_string();
      int c = x.compare(y);
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    return std::nullopt;
  }

  bool keys(bool sorted, const json::Value& base, Emit emit) {
    simdjson::dom::array array;
    if (!base.computed && base.element.get_array().get(array) == simdjson::SUCCESS) {
      // An array's keys are its indices, as in jq (f_keys).
      for (size_t i = 0, n = array.size(); i < n; ++i) {
        json::Value v;
        v.computed = true;
        v.number = static_cast<double>(i);
        if (!emit(std::move(v))) return false;
      }
      return true;
    }
    simdjson::dom::object object;
    if (base.computed || base.element.get_object().get(object) != simdjson::SUCCESS)
      return fail(std::string(type_name(base)) + " has no keys");
    std::vector<std::string_view> names;
    for (auto [key, item] : object) names.push_back(key);
    if (sorted) std::sort(names.begin(), names.end());  // jq sorts keys by their bytes
    for (auto name : names) {
      json::Value v;
      v.computed = v.computed_string = true;
      v.text = std::string(name);
      if (!emit(std::move(v))) return false;
    }
    return true;
  }

  bool arithmetic(char op, const json::Value& l, const json::Value& r, Emit emit) {
    // jq's null is the identity of +.
    if (op == '+' && l.is_null()) return emit(json::Value(r));
    if (op == '+' && r.is_null()) return emit(json::Value(l));
    auto a = l.as_number(), b = r.as_number();
    if (!a || !b) {
      // jq 1.6 gives meaning to a few pairs of other types (builtin.c f_plus, f_minus, f_multiply, f_divide), which
      // are left to it; every other pair is its error. Failing here, not in jq, also keeps jq 1.6 from leaking the
      // operand it failed on: a malformed object (`replicas: {}` in `(.replicas // 1) * n`) reaches admission
      // before schema validation does.
      const std::string_view x = type_name(l), y = type_name(r);
      const bool jq_defines =
          x == y ? (op == '+' && (x == "string" || x == "array" || x == "object")) || (op == '-' && x == "array") ||
                       (op == '*' && x == "object") || (op == '/' && x == "string")
                 : op == '*' && ((x == "string" && y == "number") || (x == "number" && y == "string"));
      // A string times a number is jq's repetition: a 300-byte object with a count written as a string and another
      // count of a billion would have jq build a gigabyte in one builtin, which no deadline can stop. Every native
      // expression of a definition computes counts, so a string there is an object the mapper cannot understand.
      if (op == '*' && x != y && (x == "string" || y == "string") && (x == "number" || y == "number"))
        return fail(std::string(kRefusedPrefix) + "a count is a string: " + std::string(x) + " and " + std::string(y) +
                    " cannot be multiplied as counts");
      if (jq_defines) return unsupported_here();
      return fail(std::string(x) + " and " + std::string(y) + " cannot be combined with " + op);
    }
    json::Value v;
    v.computed = true;
    switch (op) {
      case '+':
        v.number = *a + *b;
        break;
      case '-':
        v.number = *a - *b;
        break;
      case '*':
        v.number = *a * *b;
        break;
      case '/':
        if (*b == 0) return fail("cannot be divided because the divisor is zero");
        v.number = *a / *b;
        break;
    }
    return emit(std::move(v));
  }

  bool want_pointers_;
  json::EvalResult& result_;
  std::vector<json::Value> variables_;
  size_t steps_ = 0;
  bool stopped_ = false;
};

}  // namespace

std::optional<json::EvalResult> evaluate_native(const NativeNode& root, json::ObjectDocument& doc, bool want_pointers) {
  std::optional<json::EvalResult> out(std::in_place);
  json::EvalResult& result = *out;
  Evaluator evaluator(want_pointers, result);
  if (evaluator.past_deadline()) return out;
  json::Value input;
  input.element = doc.root();
  input.has_pointer = want_pointers;
  result.values.reserve(4);  // most paths yield a few values
  auto collect = [&](json::Value&& v) {
    result.values.push_back(std::move(v));
    result.values.back().resolve_pointer();
    return true;
  };
  evaluator.eval(root, input, collect);
  if (evaluator.unsupported) out.reset();
  return out;
}

}  // namespace wm::expr
