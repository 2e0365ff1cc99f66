// SPDX-License-Identifier: Apache-2.0
// RecordSink: where finished records go (console table, results JSON, CSV). Only rank 0 has sinks.
#pragma once

#include <memory>
#include <vector>

#include "harness/record.h"

namespace pipebench {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void add(const ResultRecord& r) = 0;
  // No more records of this op follow (the console closes its table).
  virtual void end_op() {}
  // The sweep is over.
  virtual void finish() {}
};

// Sends every call to each sink in order.
class SinkList final : public RecordSink {
 public:
  void push(std::unique_ptr<RecordSink> s) { sinks_.push_back(std::move(s)); }
  void add(const ResultRecord& r) override {
    for (auto& s : sinks_) s->add(r);
  }
  void end_op() override {
    for (auto& s : sinks_) s->end_op();
  }
  void finish() override {
    for (auto& s : sinks_) s->finish();
  }

 private:
  std::vector<std::unique_ptr<RecordSink>> sinks_;
};

}  // namespace pipebench
