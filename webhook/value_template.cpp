#include "webhook/value_template.h"

#include <cstring>

namespace wm::webhook {

namespace {

const char* const kVariables[] = {"name",     "namespace", "kind",     "group", "component",
                                  "instance", "queue",     "gangSize", "pods",  "gpus"};

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

}  // namespace

std::optional<ValueTemplate> ValueTemplate::parse(const std::string& text, std::string& error) {
  ValueTemplate t;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string::npos) {
      t.parts_.push_back({text.substr(pos)});
      break;
    }
    if (open > pos) t.parts_.push_back({text.substr(pos, open - pos)});
    size_t close = text.find("}}", open);
    if (close == std::string::npos) {
      error = "unclosed {{ in \"" + text + "\"";
      return std::nullopt;
    }
    std::string name = trim(text.substr(open + 2, close - open - 2));
    int index = -1;
    for (int i = 0; i < static_cast<int>(std::size(kVariables)); ++i)
      if (name == kVariables[i]) index = i;
    if (index < 0) {
      error = "unknown template variable {{" + name +
              "}} (known: name, namespace, kind, group, component, instance, queue, gangSize, pods, gpus)";
      return std::nullopt;
    }
    t.parts_.push_back({"", index});
    pos = close + 2;
  }
  return t;
}

std::string ValueTemplate::render(const TemplateValues& v) const {
  std::string out;
  render_into(out, v);
  return out;
}

void ValueTemplate::render_into(std::string& out, const TemplateValues& v) const {
  for (const auto& p : parts_) {
    switch (p.variable) {
      case -1:
        out += p.literal;
        break;
      case 0:
        out += v.name;
        break;
      case 1:
        out += v.namespace_name;
        break;
      case 2:
        out += v.kind;
        break;
      case 3:
        out += v.group;
        break;
      case 4:
        out += v.component;
        break;
      case 5:
        out += v.instance;
        break;
      case 6:
        out += v.queue;
        break;
      case 7:
        out += std::to_string(v.gang_size);
        break;
      case 8:
        out += std::to_string(v.pods);
        break;
      case 9:
        out += std::to_string(v.gpus);
        break;
    }
  }
}

bool ValueTemplate::uses(const char* variable) const {
  for (const auto& p : parts_)
    if (p.variable >= 0 && std::strcmp(kVariables[p.variable], variable) == 0) return true;
  return false;
}

}  // namespace wm::webhook
