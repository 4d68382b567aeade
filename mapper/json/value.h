// What a path expression yields: a JSON value from the object (with its RFC 6901 location, when it has
// one) or a number computed by the expression.
#pragma once

#include <simdjson.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wm {

struct Value {
  simdjson::dom::element element;  // valid unless `computed`
  bool computed = false;           // made by the expression (arithmetic, keys): see `number` or `text`
  bool computed_string = false;
  double number = 0;
  std::string text;
  bool has_pointer = false;  // true when the value sits at `pointer` in the object (or would, if created)
  std::string pointer;
  // While an expression runs, a location is kept as a link to the parent value plus one step, and
  // written into `pointer` (resolve_pointer) only for values that outlive their parent.
  const Value* parent = nullptr;
  std::string_view step_key;  // the step: a member name, or step_index when step_is_index
  size_t step_index = 0;
  bool step_is_index = false;

  void resolve_pointer();

  bool is_null() const;
  bool truthy() const;  // jq truthiness: everything but null and false
  std::optional<double> as_number() const;
  // Strings as they are, numbers and booleans as JSON text; null/objects/arrays give nothing.
  std::optional<std::string> as_scalar_string() const;
  std::string json() const;
};

struct EvalResult {
  std::vector<Value> values;
  std::string error;  // set when the stream ended with an error; values before it are kept
  bool ok() const { return error.empty(); }
};

// The live object that definitions are evaluated over. Holds the parsed DOM and, on demand, the
// same object for libjq. One per request, used by one thread.
class ObjectDocument {
 public:
  explicit ObjectDocument(simdjson::dom::element root);
  ~ObjectDocument();
  ObjectDocument(const ObjectDocument&) = delete;
  ObjectDocument& operator=(const ObjectDocument&) = delete;

  simdjson::dom::element root() const { return root_; }
  // Parses JSON text made during evaluation (jq results) into storage that lives as long as this.
  simdjson::dom::element adopt(const std::string& json);
  // Opaque handle to the jq copy of the object (a jv), built on first use.
  struct JqInput;
  JqInput& jq_input();

  static simdjson::dom::element null_element();
  static simdjson::dom::element boolean_element(bool value);

 private:
  simdjson::dom::element root_;
  std::vector<std::unique_ptr<simdjson::dom::document>> adopted_;  // none on the usual path
  std::unique_ptr<JqInput> jq_input_;
};

}  // namespace wm
