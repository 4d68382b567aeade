// What a path expression yields: a JSON value from the object (with its RFC 6901 location, when it has
// one) or a number computed by the expression. The object itself: base/json/object_document.h.
#pragma once

#include <simdjson.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wm::json {

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

}  // namespace wm::json
