// The native engine's parser: jq's grammar for the subset native_expression.h lists, with jq's precedence.
#include <cctype>
#include <cstring>
#include <vector>

#include "base/json/json_writer.h"
#include "mapper/expr/native_node.h"

namespace wm::expr {

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
      text = json::json_string(value);
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
      text = json::json_number(std::strtod(s_.substr(start, pos_ - start).c_str(), nullptr));
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

}  // namespace

std::shared_ptr<const NativeNode> parse_native(const std::string& source) { return Parser(source).parse(); }

}  // namespace wm::expr
