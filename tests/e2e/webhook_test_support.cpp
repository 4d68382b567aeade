#include "tests/e2e/webhook_test_support.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

namespace wm::test {

MutateAnswer parse_answer(const std::string& body) {
  static simdjson::dom::parser parser;
  simdjson::dom::element root;
  INFO("answer: " << body.substr(0, 1000));
  REQUIRE(parser.parse(body).get(root) == simdjson::SUCCESS);
  CHECK(std::string_view(root["apiVersion"].get_string().value_unsafe()) == "admission.k8s.io/v1");
  CHECK(std::string_view(root["kind"].get_string().value_unsafe()) == "AdmissionReview");
  simdjson::dom::element response = root["response"].value_unsafe();
  MutateAnswer a;
  a.uid = std::string(response["uid"].get_string().value_unsafe());
  a.allowed = response["allowed"].get_bool().value_unsafe();
  std::string_view patch;
  if (!response["patch"].get_string().get(patch)) {
    CHECK(std::string_view(response["patchType"].get_string().value_unsafe()) == "JSONPatch");
    a.patch = base64_decode(std::string(patch));
  }
  simdjson::dom::array warnings;
  if (!response["warnings"].get_array().get(warnings))
    for (auto w : warnings) a.warnings += std::string(w.get_string().value_unsafe()) + "\n";
  return a;
}

std::string kubectl_apply(const std::string& object_json, const std::string& patch) {
  std::string input = write_temp("e2e-object.json", object_json);
  std::string patch_file = write_temp("e2e-patch.json", patch);
  std::string out;
  int status =
      run("kubectl patch --local --type json -f " + input + " -p \"$(cat " + patch_file + ")\" -o json 2>&1", out);
  INFO("patch: " << patch << "\nkubectl: " << out.substr(0, 2000));
  REQUIRE(status == 0);
  return out;
}

}  // namespace wm::test
