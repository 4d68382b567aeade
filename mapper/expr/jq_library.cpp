#include "mapper/expr/jq_library.h"

extern "C" {
#include <jq.h>
}

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "base/json/json_pointer.h"
#include "base/result.h"
#include "mapper/expr/jq_input.h"
#include "mapper/expr/jq_sandbox.h"
#include "mapper/expr/jq_watchdog.h"
#include "mapper/expr/review_deadline.h"

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

// One evaluation's outputs, as text, before they are adopted into the document: what the sandbox's child sends back.
struct RawRun {
  RunStatus status = RunStatus::Done;
  std::string error;
  bool halted = false;  // by the watchdog, past its budget
  struct Output {
    bool has_pointer = false;
    std::string pointer, text;
  };
  std::vector<Output> outputs;
};

// The child's answer over the pipe: the status, the error and each output, each field length-prefixed.
void put(std::string& out, std::string_view field) {
  const uint64_t size = field.size();
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out.append(field);
}
std::string serialize(const RawRun& run) {
  std::string out;
  put(out, run.status == RunStatus::NotAPath ? "P" : "D");
  put(out, run.error);
  for (const auto& o : run.outputs) {
    put(out, o.has_pointer ? "1" : "0");
    put(out, o.pointer);
    put(out, o.text);
  }
  return out;
}
bool take(std::string_view& in, std::string& field) {
  uint64_t size = 0;
  if (in.size() < sizeof size) return false;
  std::memcpy(&size, in.data(), sizeof size);
  in.remove_prefix(sizeof size);
  if (in.size() < size) return false;
  field.assign(in.substr(0, size));
  in.remove_prefix(size);
  return true;
}
bool deserialize(std::string_view in, RawRun& run) {
  std::string status, flag;
  if (!take(in, status) || !take(in, run.error)) return false;
  run.status = status == "P" ? RunStatus::NotAPath : RunStatus::Done;
  while (!in.empty()) {
    RawRun::Output o;
    if (!take(in, flag) || !take(in, o.pointer) || !take(in, o.text)) return false;
    o.has_pointer = flag == "1";
    run.outputs.push_back(std::move(o));
  }
  return true;
}

// Runs expression `index` over `object`; with a `deadline`, halted when it expires (in-process only: the sandbox's
// child has no watchdog, and its parent kills it instead).
RawRun run_raw(jq_state* jq, size_t index, jv object, bool paths, JqDeadline* deadline) {
  RawRun run;
  jv input = jv_array_append(
      jv_array_append(jv_array_append(jv_array(), jv_number(static_cast<double>(index))), jv_bool(paths)),
      jv_copy(object));
  jq_start(jq, input, 0);
  while (true) {
    jv out = jq_next(jq);
    if (!jv_is_valid(out) && deadline && deadline->expired()) {
      jv_free(out);
      run.halted = true;
      return run;
    }
    if (!jv_is_valid(out)) {
      if (jv_invalid_has_msg(jv_copy(out))) {
        std::string message = error_text(out);
        if (paths && message.find("Invalid path expression") != std::string::npos) run.status = RunStatus::NotAPath;
        run.error = std::move(message);
      } else {
        jv_free(out);
      }
      return run;
    }
    RawRun::Output output;
    if (paths) {
      output.text = jv_text(jv_getpath(jv_copy(object), jv_copy(out)));
      output.has_pointer = path_to_pointer(out, output.pointer);
      if (!output.has_pointer) output.pointer.clear();
      jv_free(out);
    } else {
      output.text = jv_text(out);
    }
    run.outputs.push_back(std::move(output));
  }
}

RunStatus run_state(jq_state* jq, size_t index, json::ObjectDocument& doc, bool paths, json::EvalResult& result) {
  std::chrono::milliseconds budget = kJqTimeBudget;
  if (const auto left = ReviewDeadline::remaining()) {
    if (*left <= std::chrono::milliseconds(0)) {
      result.error = ReviewDeadline::passed_error();
      return RunStatus::Done;
    }
    budget = std::min(
        budget, std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(*left)));
  }
  const JqInput& input = jq_input(doc);
  jv object = input.value;
  // jq 1.6's parser stops at 256 levels, where the API server keeps 10,000 (fields a CRD preserves): its copy of such
  // an object is invalid, and jq must never run over it (jv_dump of its outputs aborts the process).
  if (!jv_is_valid(object)) {
    jv message = jv_invalid_get_msg(jv_copy(object));
    result.error =
        "jq cannot read the object: " +
        std::string(jv_get_kind(message) == JV_KIND_STRING ? jv_string_value(message) : "it is not valid JSON to jq");
    jv_free(message);
    return RunStatus::Done;
  }
  const std::string budget_error = budget < kJqTimeBudget ? ReviewDeadline::passed_error()
                                                          : "stopped: the expression ran longer than " +
                                                                std::to_string(kJqTimeBudget.count()) + " ms";
  RawRun run;
  // Forked only for a large object: a fork costs about a millisecond, six times a small review's whole work, and a
  // small object runs the catalog's jq in well under its budget, so the watchdog never halts it.
  if (jq_sandboxed() && input.bytes > kSandboxedFromBytes) {
    SandboxResult child =
        run_sandboxed([&] { return serialize(run_raw(jq, index, object, paths, nullptr)); }, SandboxLimits{budget});
    if (!child.ok || !deserialize(child.output, run)) {
      result.error = child.ok          ? "stopped: the sandbox's answer could not be read"
                     : child.timed_out ? budget_error
                                       : child.why;
      return RunStatus::Done;
    }
  } else {
    JqDeadline deadline(jq, budget);
    run = run_raw(jq, index, object, paths, &deadline);
    if (run.halted) run.error = budget_error;
  }
  if (run.status == RunStatus::NotAPath) return RunStatus::NotAPath;
  result.error = std::move(run.error);
  for (auto& output : run.outputs) {
    json::Value value;
    value.has_pointer = output.has_pointer;
    value.pointer = std::move(output.pointer);
    value.element = doc.adopt(output.text);
    result.values.push_back(std::move(value));
  }
  return RunStatus::Done;
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
  // And one for a builtin no deadline can stop: `*` (jq's _multiply) repeats a string a number of times in one call,
  // so `"1" * 1000000000` from a 300-byte object builds a gigabyte. Definitions multiply counts: a string there is
  // refused, as the native engine refuses it (expr::kRefusedPrefix). Constant numbers are folded before it is called.
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
def wm_jq_multiply(a; b): _multiply(a; b);
def _multiply(a; b): b as $b | a as $a | ($a | type) as $x | ($b | type) as $y |
  if ($x == "string" and $y == "number") or ($x == "number" and $y == "string")
  then error("refused: a count is a string: \($x) and \($y) cannot be multiplied as counts")
  else wm_jq_multiply($a; $b) end;
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
