// The event correlator: client-go's aggregation and spam filter, without the API server.
#include "controllers/events.h"

#include <catch2/catch.hpp>

using wm::controllers::EventCorrelator;
using Action = EventCorrelator::Action;

TEST_CASE("the same event again counts on one Event and another message makes another") {
  EventCorrelator correlator;
  const auto t = EventCorrelator::Clock::now();
  auto first = correlator.observe("jobset/train", "jobset/train|Warning|PodGroupFailed|no CRD", "train.1", t);
  CHECK(first.action == Action::Create);
  CHECK(first.name == "train.1");
  auto again = correlator.observe("jobset/train", "jobset/train|Warning|PodGroupFailed|no CRD", "train.2", t);
  CHECK(again.action == Action::Count);
  CHECK(again.count == 2);
  CHECK(again.name == "train.1");
  auto other = correlator.observe("jobset/train", "jobset/train|Normal|PodGroupCreated|created", "train.3", t);
  CHECK(other.action == Action::Create);
  CHECK(other.name == "train.3");
  // Expired on the server: made again under a new name.
  correlator.forget("jobset/train|Warning|PodGroupFailed|no CRD");
  CHECK(correlator.observe("jobset/train", "jobset/train|Warning|PodGroupFailed|no CRD", "train.4", t).action ==
        Action::Create);
}

TEST_CASE("an object gets 25 events at once then one per 5 minutes and other objects are not held back") {
  EventCorrelator correlator;
  const auto t = EventCorrelator::Clock::now();
  for (int i = 0; i < EventCorrelator::kBurst; ++i)
    CHECK(correlator.observe("a", "a|" + std::to_string(i), "a." + std::to_string(i), t).action == Action::Create);
  CHECK(correlator.observe("a", "a|more", "a.more", t).action == Action::Drop);
  CHECK(correlator.observe("b", "b|1", "b.1", t).action == Action::Create);
  CHECK(correlator.observe("a", "a|more", "a.more", t + std::chrono::seconds(299)).action == Action::Drop);
  CHECK(correlator.observe("a", "a|more", "a.more", t + std::chrono::seconds(301)).action == Action::Create);
  CHECK(correlator.observe("a", "a|later", "a.later", t + std::chrono::seconds(302)).action == Action::Drop);
}

TEST_CASE("the correlator remembers at most 4096 events and objects") {
  EventCorrelator correlator;
  const auto t = EventCorrelator::Clock::now();
  for (size_t i = 0; i <= EventCorrelator::kMaxEntries; ++i)
    correlator.observe("o" + std::to_string(i), "e" + std::to_string(i), "n" + std::to_string(i), t);
  // The oldest was evicted: it is new again (a fresh bucket, a new Event).
  CHECK(correlator.observe("o0", "e0", "n0.again", t).name == "n0.again");
  CHECK(correlator.observe("o4096", "e4096", "x", t).action == Action::Count);
}

TEST_CASE("a deleted object's entries go, and only its own") {
  EventCorrelator correlator;
  const auto t = EventCorrelator::Clock::now();
  for (const std::string name : {"job-1", "job-10"}) {
    const std::string object = "Job|ns|" + name + "|uid-" + name;
    for (int i = 0; i < 25; ++i) correlator.observe(object, object + "|Normal|Made|it", name + ".1", t);
    CHECK(correlator.observe(object, object + "|Normal|Made|it", "x", t).action == Action::Drop);  // bucket empty
  }
  correlator.forget_object("Job|ns|job-1|");
  // job-1's bucket and Event are gone: a full bucket and a new Event; job-10 is still held back.
  CHECK(correlator.observe("Job|ns|job-1|uid-job-1", "Job|ns|job-1|uid-job-1|Normal|Made|it", "job-1.2", t).name ==
        "job-1.2");
  CHECK(correlator.observe("Job|ns|job-10|uid-job-10", "Job|ns|job-10|uid-job-10|Normal|Made|it", "y", t).action ==
        Action::Drop);
}
