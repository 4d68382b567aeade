// The AdmissionReview wire format on its own: what decode_review refuses (with the reason an HTTP 400 carries), and
// what encode_response writes for each kind of decision.
#include "webhook/admission_codec.h"

#include <boost/beast/core/detail/base64.hpp>
#include <catch2/catch.hpp>

#include "tests/support/result_matchers.h"

using namespace wm::webhook;

namespace {

std::string request(const std::string& inner) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":)" + inner + "}";
}

}  // namespace

TEST_CASE("decode_review reads a request's fields and says why it refuses what is not one") {
  simdjson::dom::parser parser;
  const auto req = decode_review(request(R"({"uid":"u1","operation":"CREATE","namespace":"ns",
      "object":{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet"}})"),
                                 parser);
  REQUIRE(req);
  CHECK(req->uid == "u1");
  CHECK(req->group == "jobset.x-k8s.io");
  CHECK(req->kind == "JobSet");
  CHECK_FALSE(req->has_old_object);

  const std::pair<std::string, std::string> refused[] = {
      {"{", "the body is not JSON"},
      {R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"})", "set admissionReviewVersions: [v1]"},
      {request(R"({"operation":"CREATE"})"), "request.uid is missing"},
      {request(R"({"uid":"u","operation":"UPDATE"})"), "request.object is missing for a UPDATE"},
      {request(R"({"uid":"u","operation":"CREATE","object":{"kind":"JobSet"}})"), "no apiVersion or kind"}};
  for (const auto& [body, why] : refused) {
    INFO(body);
    const auto refusal = decode_review(body, parser);
    CHECK_THAT(refusal, wm::test::FailsWith(wm::ErrorCode::Invalid, why));
  }
}

TEST_CASE("encode_response writes allowed, patched and denied answers with their warnings") {
  CHECK(encode_response("u", Decision::allowed()) ==
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}})");

  const std::string patch = R"([{"op":"add","path":"/a","value":1}])";
  std::string encoded(boost::beast::detail::base64::encoded_size(patch.size()), '\0');
  encoded.resize(boost::beast::detail::base64::encode(encoded.data(), patch.data(), patch.size()));
  const std::string patched = encode_response("u", Decision::allowed().with_patch(patch).with_warnings({"w"}));
  CHECK(patched.find(R"("allowed":true,"patchType":"JSONPatch","patch":")" + encoded + "\"") != std::string::npos);
  CHECK(patched.find(R"("warnings":["w"])") != std::string::npos);

  const std::string denied = encode_response("u", Decision::denied(403, "too \"big\""));
  CHECK(denied.find(R"("allowed":false,"status":{"code":403,"message":"too \"big\""})") != std::string::npos);
  CHECK(denied.find("patch") == std::string::npos);
}

TEST_CASE("a warning is cut at the API server's 500 bytes, never inside a UTF-8 character") {
  const std::string long_warning = std::string(499, 'x') + "\xc3\xa9" + "tail";  // é straddles byte 500
  CHECK(utf8_prefix(long_warning, 500) == std::string(499, 'x'));
  CHECK(utf8_prefix("short", 500) == "short");
  const std::string encoded = encode_response("u", Decision::allowed().with_warnings({long_warning}));
  CHECK(encoded.find(std::string(499, 'x') + "\"]") != std::string::npos);
}
