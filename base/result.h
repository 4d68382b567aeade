// What an operation that can fail gives back: its value, or the reason there is none, in one object that the caller
// checks before taking the value (after simdjson's simdjson_result). The one way APIs here report a single failure;
// loaders that report many keep Diagnostics. Header-only and standard-library-only, so every layer may use it,
// mapper/ included (tests/layers.sh).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace wm {

// Why an operation failed: one sentence, for the log or the user.
struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Error error) : error_(std::move(error.message)) {}
  // What converts to T (nullptr to a unique_ptr, a literal to a string), as std::optional takes it.
  template <class U, class = std::enable_if_t<std::is_convertible_v<U&&, T> && !std::is_same_v<std::decay_t<U>, T> &&
                                              !std::is_same_v<std::decay_t<U>, Error>>>
  Result(U&& value) : value_(std::in_place, std::forward<U>(value)) {}

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  // Empty when ok().
  const std::string& error() const { return error_; }

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
  std::string error_;
};

// An operation with nothing to give back but whether it worked.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : failed_(true), error_(std::move(error.message)) {}

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_; }

 private:
  bool failed_ = false;
  std::string error_;
};

}  // namespace wm
