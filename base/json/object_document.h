// The live object that definitions are evaluated over, and the storage of what evaluation makes.
#pragma once

#include <simdjson.h>

#include <memory>
#include <string>
#include <vector>

namespace wm::json {

// The live object that definitions are evaluated over. Holds the parsed DOM and, on demand, a copy an expression
// engine makes of it once (libjq's, mapper/expr/jq_input.h): opaque here, so that this layer knows no engine. One
// per request, used by one thread.
class ObjectDocument {
 public:
  explicit ObjectDocument(simdjson::dom::element root);
  ~ObjectDocument();
  ObjectDocument(const ObjectDocument&) = delete;
  ObjectDocument& operator=(const ObjectDocument&) = delete;

  simdjson::dom::element root() const { return root_; }
  // Parses JSON text made during evaluation (jq results) into storage that lives as long as this.
  simdjson::dom::element adopt(const std::string& json);
  // What an engine derives from the object, kept for the request's lifetime; null until kept.
  struct EngineCopy {
    virtual ~EngineCopy() = default;
  };
  EngineCopy* engine_copy() const { return engine_copy_.get(); }
  void keep_engine_copy(std::unique_ptr<EngineCopy> copy) { engine_copy_ = std::move(copy); }

  static simdjson::dom::element null_element();
  static simdjson::dom::element boolean_element(bool value);

 private:
  simdjson::dom::element root_;
  std::vector<std::unique_ptr<simdjson::dom::document>> adopted_;  // none on the usual path
  std::unique_ptr<EngineCopy> engine_copy_;
};

}  // namespace wm::json
