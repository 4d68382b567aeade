#include "telemetry/process_metrics.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace wm {

namespace {

void gauge(std::string& out, const char* name, const char* type, const char* help, double value) {
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", value);
  out +=
      std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " + number + "\n";
}

double resident_bytes() {
  long pages = 0, resident = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return 0;
  const bool read = std::fscanf(statm, "%ld %ld", &pages, &resident) == 2;
  std::fclose(statm);
  return read ? static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) : 0;
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double open_fds() {
  std::error_code ignored;
  double n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ignored), end; !ignored && it != end;
       it.increment(ignored))
    ++n;
  return n;
}

}  // namespace

std::string render_process_metrics() {
  std::string out;
  gauge(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", resident_bytes());
  gauge(out, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", cpu_seconds());
  gauge(out, "process_open_fds", "gauge", "Number of open file descriptors.", open_fds());
  // glibc's mallinfo2 sums every arena: blocks in use (mmapped ones included) and free bytes kept in the heaps.
  const struct mallinfo2 heap = mallinfo2();
  gauge(out, "workload_map_heap_allocated_bytes", "gauge", "Bytes the program has allocated and not freed.",
        static_cast<double>(heap.uordblks + heap.hblkhd));
  gauge(out, "workload_map_heap_free_bytes", "gauge",
        "Free bytes the allocator keeps in its heaps rather than returning to the system.",
        static_cast<double>(heap.fordblks));
  return out;
}

}  // namespace wm
