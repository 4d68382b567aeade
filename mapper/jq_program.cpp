#include "mapper/jq_program.h"

extern "C" {
#include <jq.h>
}

#include <atomic>
#include <unordered_map>

#include "mapper/jq_input.h"
#include "mapper/json_pointer.h"

namespace wm {

namespace {

std::atomic<uint64_t> next_program_id{1};

void collect_error(void* data, jv msg) {
  auto* out = static_cast<std::string*>(data);
  if (jv_get_kind(msg) == JV_KIND_STRING) {
    if (!out->empty()) *out += "; ";
    *out += jv_string_value(msg);
  }
  jv_free(msg);
}

struct CompiledState {
  jq_state* jq = nullptr;
  std::string compile_error;
};

jq_state* new_state(const std::string& program, std::string& error) {
  jq_state* jq = jq_init();
  if (!jq) {
    error = "jq_init failed";
    return nullptr;
  }
  jq_set_error_cb(jq, collect_error, &error);
  if (!jq_compile(jq, program.c_str())) {
    if (error.empty()) error = "does not compile";
    jq_teardown(&jq);
    return nullptr;
  }
  jq_set_error_cb(jq, nullptr, nullptr);
  return jq;
}

// Per-thread cache of compiled states, torn down when the thread ends.
struct ThreadStates {
  std::unordered_map<uint64_t, jq_state*> states;
  ~ThreadStates() {
    for (auto& [id, jq] : states) jq_teardown(&jq);
  }
  // Odd ids hold the plain program, the next even id its path(...) form.
  jq_state* get(uint64_t id, const std::string& source, bool path_form) {
    auto it = states.find(id);
    if (it != states.end()) return it->second;
    std::string error;
    jq_state* jq = new_state(path_form ? "path(" + source + ")" : source, error);
    states.emplace(id, jq);
    return jq;
  }
};

ThreadStates& thread_states() {
  thread_local ThreadStates states;
  return states;
}

std::string jv_text(jv value) {
  jv dumped = jv_dump_string(value, 0);
  std::string text = jv_string_value(dumped);
  jv_free(dumped);
  return text;
}

std::string error_text(jv invalid) {
  jv msg = jv_invalid_get_msg(invalid);
  std::string text;
  if (jv_get_kind(msg) == JV_KIND_STRING)
    text = jv_string_value(msg);
  else
    text = jv_text(msg);
  jv_free(msg);
  return text.empty() ? "jq error" : text;
}

// Turns a jq path (array of keys and indices) into a JSON Pointer; negative or fractional indices
// have no pointer.
bool path_to_pointer(jv path, std::string& pointer) {
  int n = jv_array_length(jv_copy(path));
  for (int i = 0; i < n; ++i) {
    jv key = jv_array_get(jv_copy(path), i);
    if (jv_get_kind(key) == JV_KIND_STRING) {
      append_pointer_token(pointer, jv_string_value(key));
    } else if (jv_get_kind(key) == JV_KIND_NUMBER && jv_number_value(key) >= 0 &&
               jv_number_value(key) == static_cast<long long>(jv_number_value(key))) {
      append_pointer_token(pointer, std::to_string(static_cast<long long>(jv_number_value(key))));
    } else {
      jv_free(key);
      return false;
    }
    jv_free(key);
  }
  return true;
}

enum class RunStatus { Done, NotAPath };

RunStatus run_state(jq_state* jq, ObjectDocument& doc, bool paths, EvalResult& result) {
  jv input = doc.jq_input().value;
  jq_start(jq, jv_copy(input), 0);
  while (true) {
    jv out = jq_next(jq);
    if (!jv_is_valid(out)) {
      if (jv_invalid_has_msg(jv_copy(out))) {
        std::string message = error_text(out);
        if (paths && message.find("Invalid path expression") != std::string::npos) return RunStatus::NotAPath;
        result.error = message;
      } else {
        jv_free(out);
      }
      return RunStatus::Done;
    }
    Value value;
    if (paths) {
      jv at = jv_getpath(jv_copy(input), jv_copy(out));
      value.has_pointer = path_to_pointer(out, value.pointer);
      if (!value.has_pointer) value.pointer.clear();
      value.element = doc.adopt(jv_text(at));
      jv_free(out);
    } else {
      value.element = doc.adopt(jv_text(out));
    }
    result.values.push_back(std::move(value));
  }
}

}  // namespace

std::optional<JqProgram> JqProgram::compile(const std::string& source, std::string& error) {
  jq_state* jq = new_state(source, error);
  if (!jq) return std::nullopt;
  jq_teardown(&jq);
  return JqProgram(source, next_program_id.fetch_add(2));
}

EvalResult JqProgram::run(ObjectDocument& doc, bool want_pointers) const {
  EvalResult result;
  auto& states = thread_states();
  if (want_pointers) {
    jq_state* jq = states.get(id_ + 1, source_, true);
    if (jq && run_state(jq, doc, true, result) == RunStatus::Done) return result;
    result = EvalResult{};
  }
  jq_state* jq = states.get(id_, source_, false);
  if (!jq) {
    result.error = "jq program failed to compile";
    return result;
  }
  run_state(jq, doc, false, result);
  return result;
}

}  // namespace wm
