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
  const auto deadline = std::chrono::steady_clock::now() + limits.time;
  bool timed_out = false, too_large = false;
  char buffer[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: done
    if (result.output.size() + static_cast<size_t>(n) > limits.output_bytes) {
      too_large = true;
      break;
    }
    result.output.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out || too_large) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.timed_out = timed_out;
  if (timed_out) {
    result.why = "stopped: the expression ran longer than " + std::to_string(limits.time.count()) + " ms";
  } else if (too_large || (WIFEXITED(status) && WEXITSTATUS(status) == 3)) {
    result.why = "stopped: the expression's results are over " + std::to_string(limits.output_bytes >> 20) + " MiB";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    result.why = "stopped: the expression needed more than " + std::to_string(limits.memory_bytes >> 20) +
                 " MiB (its evaluation ended with " +
                 (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                      : "status " + std::to_string(WEXITSTATUS(status))) +
                 ")";
  } else {
    result.ok = true;
  }
  if (!result.ok) result.output.clear();
  return result;
}

}  // namespace wm::expr
