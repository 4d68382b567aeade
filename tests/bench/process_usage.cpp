#include "tests/bench/process_usage.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace wm::bench {

ProcessUsage process_usage(pid_t pid) {
  ProcessUsage usage;
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream status(proc + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) usage.rss_mib = std::stod(line.substr(6)) / 1024.0;  // "VmRSS:  1234 kB"
  std::ifstream stat_file(proc + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 14th
  // and 15th fields, the 12th and 13th after the ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return usage;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 1; i <= 13 && fields >> field; ++i)
    if (i >= 12) ticks += std::stod(field);
  usage.cpu_seconds = ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
  return usage;
}

}  // namespace wm::bench
