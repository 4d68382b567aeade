// What an operation that can fail gives back: its value, or the reason there is none, in one object that the caller
// checks before taking the value (after simdjson's simdjson_result). The one way APIs here report a single failure;
// loaders that report many keep Diagnostics. Header-only and standard-library-only: the bottom
// of the bottom layer (tests/layers.sh).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace wm {

// What the caller should do about a failure (after absl::StatusCode, fewer of them). A work queue derives from it
// whether to look again (retryable()).
enum class ErrorCode {
  Invalid,      // the input is wrong: retrying the same input fails the same way; report it and wait for a change
  NotFound,     // what it names does not exist yet (a CRD not installed, a deleted object): retry later
  Unavailable,  // a dependency did not answer (the API server down, a timeout, HTTP 5xx or 429): retry with back-off
  Conflict,     // someone changed it first (HTTP 409, a failed precondition): read again and retry
  Internal,     // a broken invariant here: give up on this input and log it
};

inline bool retryable(ErrorCode code) {
  return code == ErrorCode::NotFound || code == ErrorCode::Unavailable || code == ErrorCode::Conflict;
}

// Why an operation failed: one sentence, for the log or the user, and what to do about it. `Error{"why"}` is Invalid.
struct Error {
  std::string message;
  ErrorCode code = ErrorCode::Invalid;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Error error) : error_(std::move(error)) {}
  // What converts to T (nullptr to a unique_ptr, a literal to a string), as std::optional takes it.
  template <class U, class = std::enable_if_t<std::is_convertible_v<U&&, T> && !std::is_same_v<std::decay_t<U>, T> &&
                                              !std::is_same_v<std::decay_t<U>, Error>>>
  Result(U&& value) : value_(std::in_place, std::forward<U>(value)) {}

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  // Empty when ok().
  const std::string& error() const { return error_.message; }
  ErrorCode code() const { return error_.code; }
  // The failure whole, to pass on: `return r.failure();`.
  const Error& failure() const { return error_; }

  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::optional<T> value_;
  Error error_;
};

// An operation with nothing to give back but whether it worked.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : failed_(true), error_(std::move(error)) {}

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_.message; }
  ErrorCode code() const { return error_.code; }
  const Error& failure() const { return error_; }

 private:
  bool failed_ = false;
  Error error_;
};

}  // namespace wm
