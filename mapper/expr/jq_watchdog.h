// Bounded jq evaluation. libjq 1.6 has no step limit, but its interpreter checks a halt flag before
// every instruction and jq_halt() sets it: a watchdog thread halts an evaluation that runs past its
// time budget, and the evaluation ends with an error instead of hanging admission.
#pragma once

#include <chrono>

extern "C" {
struct jq_state;
}

namespace wm::expr {

struct JqSlot;

// How long one jq expression may run over one object.
inline constexpr std::chrono::milliseconds kJqTimeBudget{100};

// While a JqDeadline lives, the calling thread's evaluation on `jq` is halted once `budget` has
// passed. One per thread at a time; the state must stay alive until the JqDeadline is gone.
class JqDeadline {
 public:
  JqDeadline(jq_state* jq, std::chrono::milliseconds budget = kJqTimeBudget);
  ~JqDeadline();
  JqDeadline(const JqDeadline&) = delete;
  JqDeadline& operator=(const JqDeadline&) = delete;

  // True when the watchdog halted the evaluation (read it once the evaluation has ended).
  bool expired() const;

 private:
  JqSlot* slot_;
};

}  // namespace wm::expr
