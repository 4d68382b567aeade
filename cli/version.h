// The release this binary is and the commit it was built from (set by CMake at configure time).
#pragma once

namespace wm::cli {

const char* version();
const char* revision();

}  // namespace wm::cli
