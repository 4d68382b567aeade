// jq evaluations in a child process, under limits jq itself cannot exceed. libjq 1.6 has no step or memory limit: a
// builtin (tojson of a value shared 2^40 ways, a string doubled in a reduce) can build gigabytes in one call no
// deadline stops, and halting an evaluation mid-way (jq_halt) leaves a jq_state that jq_reset then aborts on
// (execute.c stack_restore's assertion). Forked, the evaluation runs on a copy of the process: past its time it is
// killed, past its memory its allocations fail, and either way the parent's jq_state was never touched. A fork costs
// about a millisecond, and only expressions outside the native subset over objects over kSandboxedFromBytes pay it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace wm::expr {

// Objects larger than this (as JSON) have their jq evaluations forked when the sandbox is on; smaller ones run
// in-process under the watchdog. Real workloads are a few KiB; the bodies that run jq long are hostile and large.
inline constexpr size_t kSandboxedFromBytes = size_t{64} << 10;

struct SandboxLimits {
  std::chrono::milliseconds time{100};
  size_t memory_bytes = size_t{64} << 20;  // address space the child may add (not enforced under ASan)
  size_t output_bytes = size_t{8} << 20;   // what it may send back
};

struct SandboxResult {
  bool ok = false;
  bool timed_out = false;  // killed past its time
  std::string output;      // what `work` returned, when ok
  std::string why;         // "stopped: ..." otherwise
};

// Runs `work` in a forked child and returns what it returned. `work` must only compute: no locks another thread may
// hold, no threads, no file descriptors of the parent's.
SandboxResult run_sandboxed(const std::function<std::string()>& work, const SandboxLimits& limits);

// Whether libjq evaluations run sandboxed (the server turns it on; the command line and tests run jq in-process).
bool jq_sandboxed();
void set_jq_sandboxed(bool on);

}  // namespace wm::expr
