#include "cli/version.h"

namespace wm::cli {

const char* version() { return WM_VERSION; }
const char* revision() { return WM_REVISION; }

}  // namespace wm::cli
