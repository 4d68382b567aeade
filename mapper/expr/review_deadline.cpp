#include "mapper/expr/review_deadline.h"

namespace wm::expr {

namespace {
thread_local std::optional<ReviewDeadline::Clock::time_point> deadline;
thread_local std::chrono::milliseconds budget_set{0};
}  // namespace

ReviewDeadline::ReviewDeadline(std::chrono::milliseconds budget) : outer_(deadline) {
  const Clock::time_point mine = Clock::now() + budget;
  if (!deadline || mine < *deadline) {
    deadline = mine;
    budget_set = budget;
  }
}

ReviewDeadline::~ReviewDeadline() { deadline = outer_; }

std::optional<ReviewDeadline::Clock::duration> ReviewDeadline::remaining() {
  if (!deadline) return std::nullopt;
  return *deadline - Clock::now();
}

std::string ReviewDeadline::passed_error() {
  return "stopped: the review ran past its deadline of " + std::to_string(budget_set.count()) + " ms";
}

}  // namespace wm::expr
