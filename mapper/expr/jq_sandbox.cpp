#include "mapper/expr/jq_sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#if defined(__SANITIZE_ADDRESS__)
#define WM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WM_ASAN 1
#endif
#endif

namespace wm::expr {

namespace {

std::atomic<bool> sandboxed{false};

// The process's address space now (VmSize), in bytes; 0 when unknown.
[[maybe_unused]] size_t address_space() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0;
  const bool read = std::fscanf(f, "%lu", &pages) == 1;
  std::fclose(f);
  return read ? pages * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void child(int fd, const std::function<std::string()>& work, const SandboxLimits& limits) {
#ifndef WM_ASAN
  // ASan reserves its heap up front: a limit on the address space would only stop its bookkeeping.
  if (const size_t now = address_space()) {
    const rlimit memory{now + limits.memory_bytes, now + limits.memory_bytes};
    setrlimit(RLIMIT_AS, &memory);
  }
#endif
  const std::string out = work();
  const bool sent = out.size() <= limits.output_bytes && write_all(fd, out.data(), out.size());
  _exit(sent ? 0 : 3);
}

}  // namespace

bool jq_sandboxed() { return sandboxed.load(std::memory_order_relaxed); }
void set_jq_sandboxed(bool on) { sandboxed.store(on, std::memory_order_relaxed); }

namespace {

enum class ReadEnd { Done, TimedOut, TooLarge };

// Reads the child's results until it closes its end, the deadline passes or they grow past the limit.
ReadEnd read_results(int fd, const SandboxLimits& limits, std::string& output) {
  const auto deadline = std::chrono::steady_clock::now() + limits.time;
  char buffer[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ReadEnd::TimedOut;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return ReadEnd::TimedOut;
    if (ready < 0) return ReadEnd::Done;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadEnd::Done;  // the child closed its end
    if (output.size() + static_cast<size_t>(n) > limits.output_bytes) return ReadEnd::TooLarge;
    output.append(buffer, static_cast<size_t>(n));
  }
}

// Why the child's evaluation is not an answer, from how it ended; "" when it is one.
std::string failure(ReadEnd end, int status, const SandboxLimits& limits) {
  if (end == ReadEnd::TimedOut)
    return "stopped: the expression ran longer than " + std::to_string(limits.time.count()) + " ms";
  if (end == ReadEnd::TooLarge || (WIFEXITED(status) && WEXITSTATUS(status) == 3))
    return "stopped: the expression's results are over " + std::to_string(limits.output_bytes >> 20) + " MiB";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "stopped: the expression needed more than " + std::to_string(limits.memory_bytes >> 20) +
           " MiB (its evaluation ended with " +
           (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                : "status " + std::to_string(WEXITSTATUS(status))) +
           ")";
  return "";
}

}  // namespace

SandboxResult run_sandboxed(const std::function<std::string()>& work, const SandboxLimits& limits) {
  SandboxResult result;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.why = "stopped: no pipe for the sandbox";
    return result;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    result.why = "stopped: the sandbox could not fork";
    return result;
  }
  if (pid == 0) {
    close(fds[0]);
    child(fds[1], work, limits);
  }
  close(fds[1]);
  const ReadEnd end = read_results(fds[0], limits, result.output);
  close(fds[0]);
  if (end != ReadEnd::Done) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.timed_out = end == ReadEnd::TimedOut;
  result.why = failure(end, status, limits);
  result.ok = result.why.empty();
  if (!result.ok) result.output.clear();
  return result;
}

}  // namespace wm::expr
