// A process's resident memory and CPU time, from /proc (Linux), as `ps` reads them.
#pragma once

#include <sys/types.h>

namespace wm::bench {

struct ProcessUsage {
  double rss_mib = 0;      // VmRSS
  double cpu_seconds = 0;  // user + system
};
// Zeros when the process is gone.
ProcessUsage process_usage(pid_t pid);

}  // namespace wm::bench
