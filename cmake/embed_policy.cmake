# Writes OUTPUT, a C++ file holding manifests/base/policy.yaml, the webhook's default policy.
file(READ "${SOURCE_DIR}/manifests/base/policy.yaml" text)
file(WRITE "${OUTPUT}.tmp" "// Generated from manifests/base/policy.yaml by cmake/embed_policy.cmake. Do not edit.
#include \"policy/embedded_policy.h\"

namespace wm::policy {

std::string_view embedded_policy_text() {
  return R\"POLICY(${text})POLICY\";
}

}  // namespace wm::policy
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
