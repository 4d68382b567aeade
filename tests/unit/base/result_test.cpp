#include "base/result.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

using wm::Error;
using wm::ErrorCode;
using wm::Result;
using wm::retryable;

namespace {

Result<int> half(int n) {
  if (n % 2) return Error{std::to_string(n) + " is odd"};
  return n / 2;
}

Result<std::unique_ptr<int>> made(bool fail) {
  if (fail) return Error{"not made"};
  return std::make_unique<int>(7);
}

// A null pointer is a value: it converts, as std::optional takes it.
Result<std::unique_ptr<int>> nothing_made() { return nullptr; }

Result<void> checked(bool fail) {
  if (fail) return Error{"refused"};
  return {};
}

}  // namespace

TEST_CASE("a result holds its value, or the reason there is none") {
  auto four = half(8);
  REQUIRE(four);
  CHECK(*four == 4);
  CHECK(four.error().empty());
  auto odd = half(3);
  CHECK_FALSE(odd);
  CHECK_FALSE(odd.ok());
  CHECK(odd.error() == "3 is odd");
}

TEST_CASE("a result's value moves out, and what converts to it is taken") {
  auto r = made(false);
  REQUIRE(r);
  std::unique_ptr<int> taken = std::move(*r);
  CHECK(*taken == 7);
  CHECK(made(true).error() == "not made");
  auto none = nothing_made();
  REQUIRE(none);
  CHECK(*none == nullptr);
  Result<std::string> text = "literal";
  CHECK(*text == "literal");
  CHECK(text->size() == 7);
}

TEST_CASE("a result with no value says only whether it worked") {
  CHECK(checked(false));
  CHECK(checked(false).error().empty());
  CHECK_FALSE(checked(true));
  CHECK(checked(true).error() == "refused");
}

TEST_CASE("An error's code says whether to look again") {
  const Result<int> invalid = Error{"bad"};
  CHECK(invalid.code() == ErrorCode::Invalid);  // the default: the same input fails the same way
  CHECK_FALSE(retryable(invalid.code()));
  const Result<void> unavailable = Error{"the API server did not answer", ErrorCode::Unavailable};
  CHECK(retryable(unavailable.code()));
  CHECK(unavailable.failure().message == "the API server did not answer");
  CHECK(retryable(ErrorCode::NotFound));
  CHECK(retryable(ErrorCode::Conflict));
  CHECK_FALSE(retryable(ErrorCode::Internal));
}
