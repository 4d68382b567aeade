// Structured log lines: one JSON object per line on stderr.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace wm {

enum class LogLevel { Debug = 0, Info = 1, Warn = 2, Error = 3 };

class Logger {
 public:
  explicit Logger(LogLevel level = LogLevel::Info) : level_(level) {}
  bool enabled(LogLevel level) const { return level >= level_; }
  // Fields are written as strings; the message is the "msg" field.
  void log(LogLevel level, std::string_view message,
           std::initializer_list<std::pair<std::string_view, std::string_view>> fields = {}) const;

 private:
  LogLevel level_;
};

}  // namespace wm
