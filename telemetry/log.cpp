#include "telemetry/log.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "base/json/json_writer.h"

namespace wm {

void Logger::log(LogLevel level, std::string_view message,
                 std::initializer_list<std::pair<std::string_view, std::string_view>> fields) const {
  if (!enabled(level)) return;
  static const char* const names[] = {"debug", "info", "warn", "error"};
  auto now = std::chrono::system_clock::now();
  auto seconds = std::chrono::system_clock::to_time_t(now);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char ts[40];
  std::snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis));
  std::string line = "{\"ts\":\"";
  line += ts;
  line += "\",\"level\":\"";
  line += names[static_cast<int>(level)];
  line += "\",\"msg\":";
  json::append_json_string(line, message);
  for (const auto& [key, value] : fields) {
    line.push_back(',');
    json::append_json_string(line, key);
    line.push_back(':');
    json::append_json_string(line, value);
  }
  line += "}\n";
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace wm
