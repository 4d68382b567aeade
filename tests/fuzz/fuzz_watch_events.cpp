// Bytes as the API server's watch stream sends them (kube/reflector): split into lines in pieces of any size, each
// decoded into an event or refused with a reason. The handlers see only whole objects with a resourceVersion.
#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "kube/reflector.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static simdjson::dom::parser parser;
  static simdjson::dom::parser check;
  wm::kube::Reflector::Splitter splitter;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // The first byte chooses the piece size, as a network would cut the stream.
  const size_t piece = size ? 1 + data[0] % 97 : 1;
  for (size_t at = 0; at < input.size(); at += piece)
    splitter.feed(input.substr(at, piece), [&](std::string_view line) {
      auto event = wm::kube::decode_watch_event(line, parser);
      if (!event) {
        if (event.error().empty()) __builtin_trap();  // a refusal always says why
        return;
      }
      if (!event->object_json.empty()) {
        simdjson::dom::element e;
        if (check.parse(event->object_json).get(e) != simdjson::SUCCESS || !e.is_object()) __builtin_trap();
      }
    });
  return 0;
}
