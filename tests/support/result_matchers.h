// Catch2 matchers for base/result.h's Result<T> (and Result<void>), so that a test says what it expects of an outcome
// in one line, and a failing check shows the error that came instead:
//
//   REQUIRE_THAT(config, test::IsOk());
//   CHECK_THAT(outcome, test::FailsWith(ErrorCode::Unavailable, "etcd is down"));
//
// which fail as, for instance, `the result is ok (it failed with Invalid: "cannot read the kubeconfig ...")`.
#pragma once

#include <catch2/catch.hpp>
#include <optional>
#include <string>

#include "base/result.h"

namespace wm::test {

inline const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::Invalid:
      return "Invalid";
    case ErrorCode::NotFound:
      return "NotFound";
    case ErrorCode::Unavailable:
      return "Unavailable";
    case ErrorCode::Conflict:
      return "Conflict";
    case ErrorCode::Internal:
      return "Internal";
  }
  return "ErrorCode(?)";
}

// The matchers below remember what they were matched against (Catch2 copies a matcher after it matched, and describes
// the copy), to say it after what they expected. Untyped: match() is a template, on any Result.
class ResultMatcher : public Catch::Matchers::Impl::MatcherUntypedBase {
 protected:
  template <class T>
  void saw(const Result<T>& result) const {
    actual_ = result.ok()
                  ? std::string("it was ok")
                  : std::string("it failed with ") + error_code_name(result.code()) + ": \"" + result.error() + "\"";
  }
  std::string with_actual(std::string expected) const { return actual_ ? expected + " (" + *actual_ + ")" : expected; }

 private:
  mutable std::optional<std::string> actual_;
};

// The result holds a value (or, for Result<void>, the operation worked).
class IsOkMatcher : public ResultMatcher {
 public:
  template <class T>
  bool match(const Result<T>& result) const {
    saw(result);
    return result.ok();
  }
  std::string describe() const override { return with_actual("is ok"); }
};

// The result failed with `code`, and its error message (never empty: a failure says why) contains `text`.
class FailsWithMatcher : public ResultMatcher {
 public:
  FailsWithMatcher(ErrorCode code, std::string text) : code_(code), text_(std::move(text)) {}
  template <class T>
  bool match(const Result<T>& result) const {
    saw(result);
    return !result.ok() && result.code() == code_ && !result.error().empty() &&
           result.error().find(text_) != std::string::npos;
  }
  std::string describe() const override {
    return with_actual(std::string("fails with ") + error_code_name(code_) +
                       (text_.empty() ? std::string(" and says why") : " and an error containing \"" + text_ + "\""));
  }

 private:
  ErrorCode code_;
  std::string text_;
};

inline IsOkMatcher IsOk() { return {}; }
inline FailsWithMatcher FailsWith(ErrorCode code, std::string text) { return {code, std::move(text)}; }

}  // namespace wm::test

// A Result in a check's expansion: the matcher's description says what it held.
namespace Catch {
template <class T>
struct StringMaker<wm::Result<T>> {
  static std::string convert(const wm::Result<T>&) { return "the result"; }
};
}  // namespace Catch
