// The live object that definitions are evaluated over, and the storage of what evaluation makes.
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>
#include <vector>

namespace wm::json {

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

}  // namespace wm::json
