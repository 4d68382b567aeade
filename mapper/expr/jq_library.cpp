#include "mapper/expr/jq_library.h"

extern "C" {
#include <jq.h>
}

#include <atomic>
#include <functional>
#include <unordered_map>

#include "base/json/json_pointer.h"
#include "base/result.h"
#include "mapper/expr/jq_input.h"
#include "mapper/expr/jq_watchdog.h"

namespace wm::expr {

namespace {

std::atomic<uint64_t> next_library_id{1};

void collect_error(void* data, jv msg) {
  auto* out = static_cast<std::string*>(data);
  if (jv_get_kind(msg) == JV_KIND_STRING) {
    if (!out->empty()) *out += "; ";
    *out += jv_string_value(msg);
  }
  jv_free(msg);
}

Result<jq_state*> new_state(const std::string& program) {
  jq_state* jq = jq_init();
  if (!jq) return Error{"jq_init failed", ErrorCode::Internal};
  std::string error;
  jq_set_error_cb(jq, collect_error, &error);
  if (!jq_compile(jq, program.c_str())) {
    jq_teardown(&jq);
    return Error{error.empty() ? "does not compile" : error};
  }
  jq_set_error_cb(jq, nullptr, nullptr);
  return jq;
}

// Per-thread compiled programs, torn down when the thread ends.
struct ThreadStates {
  std::unordered_map<uint64_t, jq_state*> states;
  ~ThreadStates() {
    for (auto& [id, jq] : states)
      if (jq) jq_teardown(&jq);
  }
};

std::string jv_text(jv value) {
  jv dumped = jv_dump_string(value, 0);
  std::string text = jv_string_value(dumped);
  jv_free(dumped);
  return text;
}

std::string error_text(jv invalid) {
  jv msg = jv_invalid_get_msg(invalid);
  std::string text = jv_get_kind(msg) == JV_KIND_STRING ? std::string(jv_string_value(msg)) : jv_text(jv_copy(msg));
  jv_free(msg);
  return text.empty() ? "jq error" : text;
}

// A jq path (array of keys and indices) as a JSON Pointer; negative or fractional indices have none.
bool path_to_pointer(jv path, std::string& pointer) {
  int n = jv_array_length(jv_copy(path));
  for (int i = 0; i < n; ++i) {
    jv key = jv_array_get(jv_copy(path), i);
    bool ok = true;
    if (jv_get_kind(key) == JV_KIND_STRING) {
      json::append_pointer_token(pointer, jv_string_value(key));
    } else if (jv_get_kind(key) == JV_KIND_NUMBER && jv_number_value(key) >= 0 &&
               jv_number_value(key) == static_cast<double>(static_cast<long long>(jv_number_value(key)))) {
      json::append_pointer_token(pointer, std::to_string(static_cast<long long>(jv_number_value(key))));
    } else {
      ok = false;
    }
    jv_free(key);
    if (!ok) return false;
  }
  return true;
}

enum class RunStatus { Done, NotAPath };

RunStatus run_state(jq_state* jq, size_t index, json::ObjectDocument& doc, bool paths, json::EvalResult& result) {
  jv object = jq_input(doc).value;
  jv input = jv_array_append(
      jv_array_append(jv_array_append(jv_array(), jv_number(static_cast<double>(index))), jv_bool(paths)),
      jv_copy(object));
  jq_start(jq, input, 0);
  JqDeadline deadline(jq);
  while (true) {
    jv out = jq_next(jq);
    if (!jv_is_valid(out) && deadline.expired()) {
      jv_free(out);
      result.error = "stopped: the expression ran longer than " + std::to_string(kJqTimeBudget.count()) + " ms";
      return RunStatus::Done;
    }
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
    json::Value value;
    if (paths) {
      jv at = jv_getpath(jv_copy(object), jv_copy(out));
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

// An error or a halt leaves jq's stack as it stood, for a jq_next that would backtrack on, with references to the
// object held until the thread's next run. Starting over on null lets them go now.
void release_input(jq_state* jq) { jq_start(jq, jv_null(), 0); }

std::string function_name(size_t i) { return "wm_e" + std::to_string(i); }

// if-else tree over [lo, hi): log2(n) comparisons per call instead of n.
void dispatch(std::string& out, size_t lo, size_t hi) {
  if (hi - lo == 1) {
    out += "(if $wm_paths then path(" + function_name(lo) + ") else " + function_name(lo) + " end)";
    return;
  }
  size_t mid = lo + (hi - lo) / 2;
  out += "(if $wm_i < " + std::to_string(mid) + " then ";
  dispatch(out, lo, mid);
  out += " else ";
  dispatch(out, mid, hi);
  out += " end)";
}

}  // namespace

JqLibrary::JqLibrary() : id_(next_library_id.fetch_add(1)) {}

size_t JqLibrary::add(std::string source) {
  sources_.push_back(std::move(source));
  return sources_.size() - 1;
}

std::string JqLibrary::program() const {
  // Replacements for jq 1.6 builtins that leak memory, since objects (and so the leak) come from users:
  // - tonumber leaks what it parsed when a string holds JSON that is not a number ("[1]", "{}"), so
  //   such strings are refused before jq's tonumber sees them;
  // - indices (and index, rindex) on arrays leak both arrays in jv_array_indexes, so arrays are
  //   searched with slices instead. Strings keep jq's own.
  std::string out = R"(def wm_jq_tonumber: tonumber;
def tonumber: if type == "string" and test("^[ \t\r\n]*[\\[{\"]")
  then error("string (\(tojson)) cannot be parsed as a number") else wm_jq_tonumber end;
def wm_jq_indices($i): indices($i);
def indices($i): if type == "array" then
    (if ($i | type) == "array" then $i else [$i] end) as $n
    | if ($n | length) == 0 then []
      else [range(0; length - ($n | length) + 1) as $k | select(.[$k:$k + ($n | length)] == $n) | $k] end
  else wm_jq_indices($i) end;
def index($i): indices($i) | .[0];
def rindex($i): indices($i) | .[-1:][0];
)";
  for (size_t i = 0; i < sources_.size(); ++i)
    out += "def " + function_name(i) + ": (" + sources_[i] + "\n);\n";  // newline: a trailing # comment ends there
  out += ".[0] as $wm_i | .[1] as $wm_paths | .[2] | ";
  if (sources_.empty())
    out += "empty";
  else
    dispatch(out, 0, sources_.size());
  return out;
}

std::vector<std::pair<size_t, std::string>> JqLibrary::validate() {
  not_a_path_ = std::make_unique<std::atomic<bool>[]>(sources_.size());
  not_a_path_size_ = sources_.size();
  std::vector<std::pair<size_t, std::string>> failures;
  Result<jq_state*> all = new_state(program());
  if (all) {
    jq_teardown(&*all);
    return failures;
  }
  // Slow path, only for broken definitions: find the culprits one by one.
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (Result<jq_state*> one = new_state("(" + sources_[i] + "\n)"))
      jq_teardown(&*one);
    else
      failures.emplace_back(i, one.error());
  }
  if (failures.empty())
    failures.emplace_back(sources_.size() - 1, "the expressions do not compile together: " + all.error());
  return failures;
}

namespace {

jq_state* thread_state(uint64_t id, const std::function<std::string()>& program) {
  thread_local ThreadStates states;
  auto it = states.states.find(id);
  if (it == states.states.end()) {
    Result<jq_state*> made = new_state(program());  // validate() found it compiles; null if it no longer does
    it = states.states.emplace(id, made ? *made : nullptr).first;
  }
  return it->second;
}

}  // namespace

void JqLibrary::warm_up() const {
  if (!sources_.empty()) thread_state(id_, [this] { return program(); });
}

json::EvalResult JqLibrary::run(size_t index, json::ObjectDocument& doc, bool want_pointers) const {
  jq_state* jq = thread_state(id_, [this] { return program(); });
  json::EvalResult result;
  if (!jq) {
    result.error = "jq program failed to compile";
    return result;
  }
  const bool known = index < not_a_path_size_;
  if (want_pointers && !(known && not_a_path_[index].load(std::memory_order_relaxed))) {
    const RunStatus status = run_state(jq, index, doc, true, result);
    if (status == RunStatus::Done) {
      if (!result.ok()) release_input(jq);
      return result;
    }
    if (known) not_a_path_[index].store(true, std::memory_order_relaxed);
  }
  result = json::EvalResult{};
  run_state(jq, index, doc, false, result);
  if (!result.ok()) release_input(jq);
  return result;
}

}  // namespace wm::expr
