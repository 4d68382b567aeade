#include "base/file_watch.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

namespace wm {

namespace {

void add(std::string& out, const std::string& path) {
  struct stat st {};
  out += path;
  if (stat(path.c_str(), &st) == 0)
    out += ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ino);
  out += "\n";
}

}  // namespace

std::string FileWatch::current() const {
  std::string out;
  for (const auto& path : paths_) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      std::vector<std::string> files;
      for (const auto& entry : std::filesystem::directory_iterator(path, ec)) files.push_back(entry.path().string());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) add(out, f);
    } else {
      add(out, path);
    }
  }
  return out;
}

bool FileWatch::changed() {
  std::string now = current();
  if (now == signature_) return false;
  signature_ = std::move(now);
  return true;
}

}  // namespace wm
