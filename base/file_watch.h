// Notices when files change: a signature of each file's size and modification time, so that a
// replaced file (a ConfigMap's symlink swap, a rotated certificate) is seen without inotify.
#pragma once

#include <string>
#include <vector>

namespace wm {

class FileWatch {
 public:
  explicit FileWatch(std::vector<std::string> paths) : paths_(std::move(paths)) { signature_ = current(); }
  // True once for each change since the last call (or since construction).
  bool changed();

 private:
  std::string current() const;  // directories contribute every file inside
  std::vector<std::string> paths_;
  std::string signature_;
};

}  // namespace wm
