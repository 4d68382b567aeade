// One review's deadline, for every expression it evaluates: each engine bounds one expression (steps natively, 100 ms
// in jq), but a body can hold thousands of templates and a definition dozens of expressions, and their sum must stay
// under the API server's timeout, or one request holds a worker while the others wait. While a ReviewDeadline lives on
// a thread, an expression that starts after it has passed is not run, and jq's budget is cut to what is left; the view
// then has a problem ("stopped: ..."), and the rule's failure policy answers.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace wm::expr {

class ReviewDeadline {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ReviewDeadline(std::chrono::milliseconds budget);
  ~ReviewDeadline();
  ReviewDeadline(const ReviewDeadline&) = delete;
  ReviewDeadline& operator=(const ReviewDeadline&) = delete;

  // What is left of the calling thread's review deadline; nothing when none is set.
  static std::optional<Clock::duration> remaining();
  // The error an expression ends with once the deadline has passed.
  static std::string passed_error();

 private:
  std::optional<Clock::time_point> outer_;
};

}  // namespace wm::expr
