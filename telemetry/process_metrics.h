// The process's own figures for /metrics: the Prometheus client libraries' process_* series, and what the C
// allocator holds. RSS alone cannot tell memory the program still uses from free memory the allocator has not
// handed back; the two heap series can.
#pragma once

#include <string>

namespace wm {

// process_resident_memory_bytes, process_cpu_seconds_total, process_open_fds, and
// workload_map_heap_{allocated,free}_bytes, in the text exposition format.
std::string render_process_metrics();

}  // namespace wm
