#include "mapper/expr/native_expression.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "mapper/json/json_pointer.h"
#include "mapper/json/json_writer.h"

namespace wm {

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

namespace {

using NodePtr = std::shared_ptr<const NativeNode>;

NodePtr make(NativeNode node) { return std::make_shared<const NativeNode>(std::move(node)); }

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  NodePtr parse() {
    NodePtr node = pipe();
    skip_space();
    if (!node || pos_ != s_.size()) return nullptr;
    return node;
  }

 private:
  // jq 1.6's lexer skips spaces, tabs and newlines only: a form feed, a vertical tab or a carriage return is a
  // syntax error there, so it must end the native parse too (and leave jq to refuse the expression at load).
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }
  bool eat(std::string_view token) {
    skip_space();
    if (s_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < s_.size() && s_[pos_] == c;
  }

  NodePtr pipe() {
    NodePtr left = comma();
    if (!left) return nullptr;
    if (eat("|")) {
      NodePtr right = pipe();
      if (!right) return nullptr;
      return make({NativeNode::Type::Pipe, {}, 0, 0, left, right, nullptr});
    }
    return left;
  }

  NodePtr comma() {
    NodePtr left = alternative();
    while (left && peek(',')) {
      ++pos_;
      NodePtr right = alternative();
      if (!right) return nullptr;
      left = make({NativeNode::Type::Comma, {}, 0, 0, left, right, nullptr});
    }
    return left;
  }

  // A keyword, not the start of a longer name.
  bool keyword(std::string_view word) {
    skip_space();
    if (s_.compare(pos_, word.size(), word) != 0) return false;
    size_t end = pos_ + word.size();
    if (end < s_.size() && is_ident(s_[end])) return false;
    pos_ = end;
    return true;
  }
  // jq's IDENT: a letter or an underscore, then letters, digits and underscores ($8ob is not a variable).
  std::string identifier() {
    std::string name;
    if (pos_ >= s_.size() || !is_ident_start(s_[pos_])) return name;
    while (pos_ < s_.size() && is_ident(s_[pos_])) name.push_back(s_[pos_++]);
    return name;
  }

  // `a // b // c` is right-associative in jq, and binds looser than `or`.
  NodePtr alternative() {
    NodePtr left = disjunction();
    if (left && eat("//")) {
      NodePtr right = alternative();
      if (!right) return nullptr;
      return make({NativeNode::Type::Alternative, {}, 0, 0, left, right, nullptr});
    }
    return left;
  }

  // `a op b op c` for a keyword operator, over operands parsed by `next`.
  NodePtr left_associative(NodePtr (Parser::*next)(), std::string_view word, NativeNode::Type type) {
    NodePtr left = (this->*next)();
    while (left && keyword(word)) {
      NodePtr right = (this->*next)();
      if (!right) return nullptr;
      left = make({type, {}, 0, 0, left, right, nullptr});
    }
    return left;
  }
  NodePtr disjunction() { return left_associative(&Parser::conjunction, "or", NativeNode::Type::Or); }
  NodePtr conjunction() { return left_associative(&Parser::comparison, "and", NativeNode::Type::And); }

  // Non-associative, as in jq.
  NodePtr comparison() {
    NodePtr left = additive();
    if (!left) return nullptr;
    skip_space();
    static const std::pair<const char*, char> ops[] = {{"==", '='}, {"!=", '!'}, {"<=", 'l'},
                                                       {">=", 'g'}, {"<", '<'},  {">", '>'}};
    for (auto [text, op] : ops)
      if (s_.compare(pos_, std::strlen(text), text) == 0) {
        pos_ += std::strlen(text);
        NodePtr right = additive();
        if (!right) return nullptr;
        return make({NativeNode::Type::Compare, {}, 0, op, left, right, nullptr});
      }
    return left;
  }

  NodePtr additive() {
    NodePtr left = multiplicative();
    while (left) {
      skip_space();
      if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) break;
      char op = s_[pos_++];
      NodePtr right = multiplicative();
      if (!right) return nullptr;
      left = make({NativeNode::Type::Arithmetic, {}, 0, op, left, right, nullptr});
    }
    return left;
  }

  NodePtr multiplicative() {
    NodePtr left = postfix();
    while (left) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '*') {
        // A single '/' divides; "//" is the alternative operator.
        if (!(pos_ < s_.size() && s_[pos_] == '/' && (pos_ + 1 >= s_.size() || s_[pos_ + 1] != '/'))) break;
      }
      char op = s_[pos_++];
      NodePtr right = postfix();
      if (!right) return nullptr;
      left = make({NativeNode::Type::Arithmetic, {}, 0, op, left, right, nullptr});
    }
    return left;
  }

  NodePtr postfix() {
    NodePtr term = postfix_more(primary());
    // `Term as $x | body`: $x is bound to each output of Term for the rest of the pipe.
    if (term && keyword("as")) {
      skip_space();
      if (!eat("$")) return nullptr;
      std::string name = identifier();
      if (name.empty() || !eat("|")) return nullptr;
      variables_.push_back(name);
      int slot = static_cast<int>(variables_.size()) - 1;
      NodePtr body = pipe();
      variables_.pop_back();
      if (!body) return nullptr;
      NativeNode bind{NativeNode::Type::Bind, name, 0, 0, term, body, nullptr};
      bind.slot = slot;
      return make(std::move(bind));
    }
    return term;
  }

  // `?` after a suffix makes that one access quiet (jq's gen_index_opt); after anything else it
  // ends the term's stream at its first error (try).
  NodePtr question(NodePtr node) {
    if (!node || !peek('?')) return node;
    ++pos_;
    // jq 1.6 reads "?//" as one token (the destructuring alternative), so `.a ?// .b` is its syntax error.
    if (s_.compare(pos_, 2, "//") == 0) return nullptr;
    using T = NativeNode::Type;
    if (node->type == T::Field || node->type == T::Index || node->type == T::Iterate) {
      NativeNode quiet = *node;
      quiet.optional = true;
      return make(std::move(quiet));
    }
    // jq's grammar takes no suffix after a `?` on anything but a suffix: `.?.a` and `(.)?[0]` are its syntax errors.
    if (peek('[') || (peek('.') && pos_ + 1 < s_.size() &&
                      (is_ident_start(s_[pos_ + 1]) || s_[pos_ + 1] == '"' || s_[pos_ + 1] == '[')))
      return nullptr;
    return make({T::Try, {}, 0, 0, node, nullptr, nullptr});
  }

  NodePtr postfix_more(NodePtr base) {
    base = question(base);
    while (base) {
      skip_space();
      if (pos_ >= s_.size()) break;
      // `.a.[0]` is jq 1.7 syntax; jq 1.6, the fallback engine and what definitions are checked with, refuses it.
      if (s_[pos_] == '[') {
        base = bracket(base);
      } else if (s_[pos_] == '.' && pos_ + 1 < s_.size() && (is_ident_start(s_[pos_ + 1]) || s_[pos_ + 1] == '"')) {
        ++pos_;
        base = field(base);
      } else {
        break;
      }
      base = question(base);
    }
    return base;
  }

  NodePtr primary() {
    skip_space();
    if (pos_ >= s_.size()) return nullptr;
    char c = s_[pos_];
    if (c == '.') {
      ++pos_;
      NodePtr identity = make({NativeNode::Type::Identity, {}, 0, 0, nullptr, nullptr, nullptr});
      if (pos_ < s_.size() && (is_ident_start(s_[pos_]) || s_[pos_] == '"')) return field(identity);
      if (pos_ < s_.size() && s_[pos_] == '[') return bracket(identity);
      if (pos_ < s_.size() && s_[pos_] == '.') return nullptr;  // `..` recursion
      return identity;
    }
    // `keys[]` / `keys_unsorted[]`: the object's keys, one at a time.
    for (const char* word : {"keys_unsorted", "keys"}) {
      size_t n = std::strlen(word);
      if (s_.compare(pos_, n, word) == 0 && s_.compare(pos_ + n, 2, "[]") == 0 &&
          (pos_ + n + 2 >= s_.size() || !is_ident(s_[pos_ + n + 2]))) {
        pos_ += n + 2;
        return make({NativeNode::Type::Keys, {}, std::strcmp(word, "keys") == 0 ? 1 : 0, 0, nullptr, nullptr, nullptr});
      }
    }
    if (c == '(') {
      ++pos_;
      NodePtr inner = pipe();
      if (!inner || !eat(")")) return nullptr;
      return inner;
    }
    if (c == '$') {
      ++pos_;
      std::string name = identifier();
      for (int i = static_cast<int>(variables_.size()) - 1; i >= 0; --i)
        if (variables_[static_cast<size_t>(i)] == name) {
          NativeNode v{NativeNode::Type::Variable, name, 0, 0, nullptr, nullptr, nullptr};
          v.slot = i;
          return postfix_more(make(std::move(v)));
        }
      return nullptr;  // $ENV, $__loc__, or unbound
    }
    if (keyword("if")) return conditional();
    if (keyword("empty")) return make({NativeNode::Type::Empty, {}, 0, 0, nullptr, nullptr, nullptr});
    if (keyword("tonumber")) return make({NativeNode::Type::ToNumber, {}, 0, 0, nullptr, nullptr, nullptr});
    if (keyword("floor")) return make({NativeNode::Type::Floor, {}, 0, 0, nullptr, nullptr, nullptr});
    if (keyword("not")) return make({NativeNode::Type::Not, {}, 0, 0, nullptr, nullptr, nullptr});
    return literal();
  }

  // if C then A (elif C then A)* else B end
  NodePtr conditional() {
    NodePtr condition = pipe();
    if (!condition || !keyword("then")) return nullptr;
    NodePtr then_branch = pipe();
    if (!then_branch) return nullptr;
    NodePtr else_branch;
    if (keyword("elif")) {
      else_branch = conditional();
      if (!else_branch) return nullptr;
    } else {
      if (!keyword("else")) return nullptr;  // jq 1.6 requires else
      else_branch = pipe();
      if (!else_branch || !keyword("end")) return nullptr;
    }
    NativeNode node{NativeNode::Type::If, {}, 0, 0, condition, then_branch, nullptr};
    node.third = else_branch;
    return make(std::move(node));
  }

  static bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
  static bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  NodePtr field(NodePtr base) {
    std::string name;
    if (s_[pos_] == '"') {
      if (!quoted(name)) return nullptr;
    } else {
      while (pos_ < s_.size() && is_ident(s_[pos_])) name.push_back(s_[pos_++]);
      if (is_keyword(name) || is_exponent(name)) return nullptr;
    }
    return make({NativeNode::Type::Field, std::move(name), 0, 0, base, nullptr, nullptr});
  }

  // jq 1.6's lexer reads "." followed by an exponent (`.e1`, `.E10`) as a number literal, which it then refuses:
  // such a field has to be written `.["e1"]`.
  static bool is_exponent(const std::string& name) {
    return name.size() >= 2 && (name[0] == 'e' || name[0] == 'E') &&
           name.find_first_not_of("0123456789", 1) == std::string::npos;
  }

  NodePtr bracket(NodePtr base) {
    ++pos_;  // '['
    skip_space();
    if (eat("]")) return make({NativeNode::Type::Iterate, {}, 0, 0, base, nullptr, nullptr});
    if (peek('"')) {
      std::string name;
      if (!quoted(name) || !eat("]")) return nullptr;
      return make({NativeNode::Type::Field, std::move(name), 0, 0, base, nullptr, nullptr});
    }
    size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (start == pos_ || !eat("]")) return nullptr;
    long index = std::strtol(s_.c_str() + start, nullptr, 10);
    return make({NativeNode::Type::Index, {}, index, 0, base, nullptr, nullptr});
  }

  // Only escape-free strings: anything fancier (escapes, interpolation) goes to libjq.
  bool quoted(std::string& out) {
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\') return false;
      out.push_back(s_[pos_++]);
    }
    if (pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }

  static bool is_keyword(const std::string& word) {
    static const char* const words[] = {"and",   "or",    "not",    "if",      "then",    "else",
                                        "end",   "as",    "def",    "reduce",  "foreach", "try",
                                        "catch", "label", "import", "include", "__loc__"};
    for (const char* w : words)
      if (word == w) return true;
    return false;
  }

  NodePtr literal() {
    size_t start = pos_;
    std::string text;
    if (s_[pos_] == '"') {
      std::string value;
      if (!quoted(value)) return nullptr;
      text = json_string(value);
    } else if (s_.compare(pos_, 2, "[]") == 0 || s_.compare(pos_, 2, "{}") == 0) {
      text = s_.substr(pos_, 2);
      pos_ += 2;
    } else if (std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      // jq's number syntax only: digits, a fraction, an exponent (strtod would take hex too).
      auto digits = [&] {
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      };
      digits();
      if (pos_ < s_.size() && s_[pos_] == '.') ++pos_, digits();
      // jq 1.6 lexes a run of digits and dots as one number, so `4..q` or `1.2.3` is its syntax error.
      if (pos_ < s_.size() && s_[pos_] == '.') return nullptr;
      if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
        ++pos_;
        if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
        digits();
      }
      if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) return nullptr;
      text = json_number(std::strtod(s_.substr(start, pos_ - start).c_str(), nullptr));
    } else {
      std::string word;
      while (pos_ < s_.size() && is_ident(s_[pos_])) word.push_back(s_[pos_++]);
      if (word != "true" && word != "false" && word != "null") {
        pos_ = start;
        return nullptr;
      }
      text = word;
    }
    auto doc = std::make_shared<simdjson::dom::document>();
    simdjson::dom::parser parser;
    simdjson::dom::element ignored;
    if (parser.parse_into_document(*doc, text.data(), text.size()).get(ignored) != simdjson::SUCCESS) return nullptr;
    NativeNode node{NativeNode::Type::Literal, {}, 0, 0, nullptr, nullptr, doc};
    return make(std::move(node));
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::vector<std::string> variables_;  // in scope while parsing
};

const char* type_name(const Value& v) {
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
  Emit(F& f) : object_(&f), call_([](void* o, Value&& v) { return (*static_cast<F*>(o))(std::move(v)); }) {}
  bool operator()(Value&& v) const { return call_(object_, std::move(v)); }

 private:
  void* object_;
  bool (*call_)(void*, Value&&);
};

// Depth-first generator evaluation, as jq's backtracking does it: `emit` gets each output in jq's
// order; the first error ends the stream.
class Evaluator {
 public:
  Evaluator(bool want_pointers, EvalResult& result) : want_pointers_(want_pointers), result_(result) {}

  bool unsupported = false;

  bool eval(const NativeNode& node, const Value& in, Emit emit) {
    using T = NativeNode::Type;
    // Bounded work: `as` bindings over long lists multiply. The stop cannot be caught by `?`.
    if (++steps_ > kNativeStepBudget) {
      if (!stopped_)
        result_.error = "stopped: the expression took more than " + std::to_string(kNativeStepBudget) + " steps";
      stopped_ = true;
      return false;
    }
    switch (node.type) {
      case T::Identity:
        return emit(Value(in));
      case T::Literal: {
        Value v;
        v.element = node.literal->root();
        return emit(at_input_if_identical(std::move(v), in));
      }
      case T::Field: {
        auto next = [&](Value&& base) {
          return quiet(
              node, [&](Emit e) { return field(node.name, base, e); }, emit);
        };
        return eval(*node.lhs, in, next);
      }
      case T::Index: {
        auto next = [&](Value&& base) {
          return quiet(
              node, [&](Emit e) { return index(node.index, base, e); }, emit);
        };
        return eval(*node.lhs, in, next);
      }
      case T::Iterate: {
        auto next = [&](Value&& base) {
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
        Value v;
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
        return emit(Value(variables_[static_cast<size_t>(node.slot)]));
      }
      case T::Bind: {
        const size_t slot = static_cast<size_t>(node.slot);
        auto bind = [&](Value&& v) {
          // A term emits while its own variables are still bound (`(.a as $x | $x) as $y | ...`): the body sees
          // only its scope's variables, so they step aside while it runs and come back after.
          std::vector<Value> above;
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
        auto branch = [&](Value&& c) { return eval(c.truthy() ? *node.rhs : *node.third, in, emit); };
        return eval(*node.lhs, in, branch);
      }
      case T::And:
      case T::Or: {
        const bool is_and = node.type == T::And;
        auto left = [&](Value&& a) {
          if (a.truthy() != is_and) return emit(boolean(!is_and));  // decided by the left side
          auto right = [&](Value&& b) { return emit(boolean(b.truthy())); };
          return eval(*node.rhs, in, right);
        };
        return eval(*node.lhs, in, left);
      }
      case T::Compare:
        return binary(node, in, [&](const Value& l, const Value& r) {
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
        auto guarded = [&](Value&& v) {
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
        auto next = [&](Value&& mid) { return eval(*node.rhs, mid, emit); };
        return eval(*node.lhs, in, next);
      }
      case T::Alternative: {
        bool any = false;
        auto truthy = [&](Value&& v) {
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
        auto located = [&](Value&& v) {
          return emit(v.computed ? at_input_if_identical(std::move(v), in) : std::move(v));
        };
        return binary(node, in, [&](const Value& l, const Value& r) { return arithmetic(node.op, l, r, located); });
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
  Value child(const Value& base, simdjson::dom::element element, std::string_view key) const {
    Value v;
    v.element = element;
    if (want_pointers_ && base.has_pointer) {
      v.has_pointer = true;
      v.parent = &base;
      v.step_key = key;
    }
    return v;
  }
  Value child(const Value& base, simdjson::dom::element element, size_t index) const {
    Value v = child(base, element, std::string_view());
    v.step_index = index;
    v.step_is_index = true;
    return v;
  }

  bool field(const std::string& name, const Value& base, Emit emit) {
    if (base.is_null()) return emit(child(base, ObjectDocument::null_element(), name));
    simdjson::dom::object object;
    if (base.computed || base.element.get_object().get(object) != simdjson::SUCCESS)
      return fail(std::string("Cannot index ") + type_name(base) + " with \"" + name + "\"");
    simdjson::dom::element found;
    if (object.at_key(name).get(found) != simdjson::SUCCESS) found = ObjectDocument::null_element();
    return emit(child(base, found, name));
  }

  bool index(long i, const Value& base, Emit emit) {
    const size_t token = static_cast<size_t>(i);
    if (base.is_null()) return emit(child(base, ObjectDocument::null_element(), token));
    simdjson::dom::array array;
    if (base.computed || base.element.get_array().get(array) != simdjson::SUCCESS)
      return fail(std::string("Cannot index ") + type_name(base) + " with number");
    simdjson::dom::element found;
    if (array.at(static_cast<size_t>(i)).get(found) != simdjson::SUCCESS) found = ObjectDocument::null_element();
    return emit(child(base, found, token));
  }

  bool iterate(const Value& base, Emit emit) {
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
    auto guarded = [&](Value&& v) {
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
  bool binary(const NativeNode& node, const Value& in, Combine&& combine) {
    std::vector<Value> rights;
    auto collect = [&](Value&& r) {
      rights.push_back(std::move(r));
      rights.back().resolve_pointer();  // kept after its parent is gone
      return true;
    };
    if (!eval(*node.rhs, in, collect)) return false;
    for (const Value& r : rights) {
      auto each = [&](Value&& l) { return combine(l, r); };
      if (!eval(*node.lhs, in, each)) return false;
    }
    return true;
  }

  // jq 1.6 parses the string as JSON text; only the forms whose answer is plain (an integer without sign tricks or
  // leading zeros, short enough to be exact) are read here, and jq decides the rest (its errors and oddities).
  bool to_number(const Value& in, Emit emit) {
    if (in.as_number()) return emit(Value(in));  // jq's tonumber is the identity on numbers, locations included
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
    Value v;
    v.computed = true;
    v.number = std::strtod(std::string(s).c_str(), nullptr);
    return emit(std::move(v));
  }

  // jq's path tracking accepts a made value that is identical (jv_identical: the same null or boolean, the same
  // number bit for bit) to the value at the current path, and keeps that path: `path(0)` on 0 is [].
  Value at_input_if_identical(Value v, const Value& in) const {
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
    Value located = in;
    // A literal brings its own element; a computed number has none, and the input's element is that number.
    if (!located.computed && !v.computed) located.element = v.element;
    return located;
  }

  static Value boolean(bool b) {
    Value v;
    v.element = ObjectDocument::boolean_element(b);
    return v;
  }

  // jq's order: null < false < true < numbers < strings < arrays < objects. Equal-typed arrays and
  // objects are left to jq (deep comparison).
  static std::optional<int> compare(const Value& a, const Value& b) {
    auto rank = [](const Value& v) {
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

  bool keys(bool sorted, const Value& base, Emit emit) {
    simdjson::dom::array array;
    if (!base.computed && base.element.get_array().get(array) == simdjson::SUCCESS) {
      // An array's keys are its indices, as in jq (f_keys).
      for (size_t i = 0, n = array.size(); i < n; ++i) {
        Value v;
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
      Value v;
      v.computed = v.computed_string = true;
      v.text = std::string(name);
      if (!emit(std::move(v))) return false;
    }
    return true;
  }

  bool arithmetic(char op, const Value& l, const Value& r, Emit emit) {
    // jq's null is the identity of +.
    if (op == '+' && l.is_null()) return emit(Value(r));
    if (op == '+' && r.is_null()) return emit(Value(l));
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
      if (jq_defines) return unsupported_here();
      return fail(std::string(x) + " and " + std::string(y) + " cannot be combined with " + op);
    }
    Value v;
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
  EvalResult& result_;
  std::vector<Value> variables_;
  size_t steps_ = 0;
  bool stopped_ = false;
};

}  // namespace

NativeExpression::NativeExpression(std::shared_ptr<const NativeNode> root) : root_(std::move(root)) {}
NativeExpression::NativeExpression(NativeExpression&&) noexcept = default;
NativeExpression& NativeExpression::operator=(NativeExpression&&) noexcept = default;
NativeExpression::~NativeExpression() = default;

std::optional<NativeExpression> NativeExpression::parse(const std::string& source) {
  // libjq reads expressions as C strings, up to a NUL: the two engines would read different expressions.
  if (source.find('\0') != std::string::npos) return std::nullopt;
  Parser parser(source);
  NodePtr root = parser.parse();
  if (!root) return std::nullopt;
  return NativeExpression(root);
}

NativeExpression::Outcome NativeExpression::run(ObjectDocument& doc, bool want_pointers, EvalResult& result) const {
  Evaluator evaluator(want_pointers, result);
  Value input;
  input.element = doc.root();
  input.has_pointer = want_pointers;
  result.values.reserve(4);  // most paths yield a few values
  auto collect = [&](Value&& v) {
    result.values.push_back(std::move(v));
    result.values.back().resolve_pointer();
    return true;
  };
  evaluator.eval(*root_, input, collect);
  if (evaluator.unsupported) return Outcome::Unsupported;
  return Outcome::Done;
}

}  // namespace wm
