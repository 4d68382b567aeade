#include "base/yaml/yaml_guard.h"

#include <yaml-cpp/eventhandler.h>

#include <sstream>

namespace wm::yaml {

namespace {

// Records where each document starts and nothing else: a cheap first pass.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark start;
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

std::vector<YAML::Node> load_all_documents(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  int previous = -1;
  while (parser.HandleNextDocument(starts)) {
    if (starts.start.pos == previous)
      throw YAML::ParserException(starts.start, "a ',' outside [ ] or { } cannot start a value");
    previous = starts.start.pos;
  }
  return YAML::LoadAll(text);
}

std::optional<std::string> yaml_nesting_too_deep(const std::string& text, size_t limit) {
  size_t flow = 0, line = 1;
  bool line_start = true;
  size_t indent = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      indent = 0;
      if (quote == 0) continue;
    }
    if (line_start) {
      if (c == ' ' || c == '-') {  // "- - - x" nests sequences as deeply as indentation does
        if (++indent > limit * 2)
          return "line " + std::to_string(line) + ": nested more than " + std::to_string(limit) + " levels deep";
        continue;
      }
      line_start = false;
    }
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '[' || c == '{') {
      if (++flow > limit)
        return "line " + std::to_string(line) + ": nested more than " + std::to_string(limit) + " levels deep";
    } else if ((c == ']' || c == '}') && flow > 0) {
      --flow;
    }
  }
  return std::nullopt;
}

}  // namespace wm::yaml
