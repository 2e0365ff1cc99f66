// SPDX-License-Identifier: Apache-2.0
// The prediction's terms from the job's own profile (PyTorch pipelining's 1F1B on 4 CPU ranks): what enters the
// prediction's record, with and without the profile's communication, and the band its verdict carries.
#include "app/profile_prediction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "megatron/model_args.h"

namespace pipebench {
namespace {

const std::string kFixtures = std::string(TEST_DATA_DIR) + "/trace/pipelining";

Plan pipelining_plan(int pp) {
  const std::string p = std::to_string(pp);
  return make_plan(parse_megatron_args({"--num-layers",
                                        "8",
                                        "--hidden-size",
                                        "512",
                                        "--ffn-hidden-size",
                                        "2048",
                                        "--num-attention-heads",
                                        "4",
                                        "--seq-length",
                                        "128",
                                        "--max-position-embeddings",
                                        "128",
                                        "--micro-batch-size",
                                        "1",
                                        "--global-batch-size",
                                        "8",
                                        "--pipeline-model-parallel-size",
                                        p,
                                        "--world-size",
                                        p,
                                        "--vocab-size",
                                        "128",
                                        "--untie-embeddings-and-output-weights",
                                        "--num-layers-per-virtual-pipeline-stage",
                                        "1"}),
                   pp);
}

std::vector<std::string> profiles(const std::string& schedule) {
  std::vector<std::string> files;
  for (int r = 0; r < 4; ++r) files.push_back(kFixtures + "/" + schedule + "/rank" + std::to_string(r) + ".json.gz");
  return files;
}

Prediction predicted(const ProfileModel& m) {
  return predict(m.calibration.plan, *m.calibration.costs, m.calibration.compute, false, false, "");
}

TEST(ProfilePrediction, TheProfiledScheduleIsCheckedAndItsErrorBecomesTheBand) {
  const ProfileModel m = profile_model(pipelining_plan(4), profiles("1f1b"), "", std::nullopt);
  EXPECT_EQ(m.cost_text, "measured from the profile (4 files, 1f1b, 1 iteration)");
  EXPECT_EQ(m.check.schedule.key(), "1f1b");
  Prediction p = predicted(m);
  apply_profile(m, p);
  // One iteration profiled: 1 % for its unknown spread, on top of the re-simulation's error.
  EXPECT_GE(p.band, std::abs(m.check.error()) + 0.01 - 1e-9);
  EXPECT_LE(p.band, 0.5);
  EXPECT_NE(p.band_source.find("one iteration profiled"), std::string::npos) << p.band_source;
  ASSERT_TRUE(p.profile_check);
  EXPECT_EQ(p.profile_check->measured_ms, m.check.measured_ms);
}

TEST(ProfilePrediction, CommunicationMeasuredElsewhereLeavesTheProfilesLinksOut) {
  const ProfileModel m = profile_model(pipelining_plan(4), profiles("1f1b"), "", std::nullopt);
  Prediction all = predicted(m);
  apply_profile(m, all);
  Prediction compute_only = predicted(m);
  apply_profile(m, compute_only, false);
  const auto job_wide = [](const Prediction& p) {
    return std::count_if(p.measured_terms.begin(), p.measured_terms.end(),
                         [](const MeasuredTerm& t) { return t.rank < 0; });
  };
  EXPECT_GE(job_wide(all), 1);  // the P2P transfer
  EXPECT_EQ(job_wide(compute_only), 0);
  EXPECT_EQ(all.measured_terms.size() - static_cast<std::size_t>(job_wide(all)), compute_only.measured_terms.size());
  EXPECT_EQ(all.band, compute_only.band);
}

TEST(ProfilePrediction, AProfileOfAnotherScheduleOrWorldIsRefusedNamingTheFile) {
  EXPECT_THROW((void)profile_model(pipelining_plan(4), profiles("interleaved"), "1f1b", std::nullopt), UsageError);
  try {
    (void)profile_model(pipelining_plan(2), profiles("1f1b"), "", std::nullopt);
    FAIL() << "a profile of 4 ranks matched a plan of 2";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rank0.json.gz"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pipebench
