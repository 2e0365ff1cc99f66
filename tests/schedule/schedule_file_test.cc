// SPDX-License-Identifier: Apache-2.0
// Schedule files: a file that lists a registered schedule's order gives that generator's program step for
// step; every kind of bad file is one line naming the file, the row and the cell.
#include "schedule/schedule_file.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "schedule/schedule_registry.h"
#include "schedule/shape_fixture.h"

namespace pipebench {
namespace {

const std::string kDir = TEST_DATA_DIR "/schedule/";

// A rank's steps as text: what a program is, whoever wrote it.
class TextSink final : public ProgramSink {
 public:
  void compute(Pass pass, std::int64_t k) override {
    steps.push_back(std::string(pass == Pass::kForward    ? "F"
                                : pass == Pass::kBackward ? "B"
                                                          : "W") +
                    std::to_string(k));
  }
  void call(const Call& c) override {
    std::string s =
        std::string(c.name) + (c.async ? " async " + std::to_string(c.handle) : "") + (c.batched ? " batched" : "");
    for (int i = 0; i < c.nops; ++i) {
      s += std::string(" ") + (c.ops[i].send ? "send" : "recv") + (c.ops[i].grad ? "-grad" : "-act") +
           std::to_string(c.ops[i].k);
    }
    steps.push_back(s);
  }
  void wait(int handle) override { steps.push_back("wait " + std::to_string(handle)); }
  std::vector<std::string> steps;
};

ScheduleShape one_chunk(int p, std::int64_t m) {
  ScheduleShape s;
  s.p = p;
  s.m = m;
  for (int r = 0; r < p; ++r) s.warmup.push_back(std::min<std::int64_t>(p - r - 1, m));
  s.table = one_chunk_table(m);
  return s;
}

std::vector<std::string> steps(const ScheduleGenerator& g, const ScheduleShape& shape, int r) {
  TextSink sink;
  g.emit(shape, r, sink);
  return sink.steps;
}

std::string error_of(std::string_view text, int p = 2, std::int64_t m = 2) {
  try {
    (void)schedule_from_csv("--schedule-file s.csv", text, "s", p, m);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

void expect_same_programs(const std::string& file, const char* registered) {
  const ScheduleShape shape = one_chunk(4, 8);
  const ScheduleId id = load_schedule_file("--schedule-file", kDir + file, 4, 8);
  const ScheduleGenerator& g = ScheduleRegistry::instance().find("test", registered);
  EXPECT_EQ(schedule_generator(id).splits_backward(), g.splits_backward());
  for (int r = 0; r < 4; ++r) EXPECT_EQ(steps(schedule_generator(id), shape, r), steps(g, shape, r)) << "rank " << r;
}

TEST(ScheduleFile, OneFOneBWrittenByHandIsTheOneFOneBProgram) { expect_same_programs("1f1b_p4_m8.csv", "1f1b"); }

TEST(ScheduleFile, ZbH1WrittenByHandIsTheZbH1Program) { expect_same_programs("zb_h1_p4_m8.csv", "zb-h1"); }

// Explicit SEND/RECV (PyTorch's compute_comms format) are checked and give the same program.
TEST(ScheduleFile, ExplicitCommunicationGivesTheSameProgram) { expect_same_programs("1f1b_p4_m8_comms.csv", "1f1b"); }

TEST(ScheduleFile, IsNamedAfterItsFileWithItsChunksPerRank) {
  const ScheduleId id = load_schedule_file("--schedule-file", kDir + "1f1b_p4_m8.csv", 4, 8);
  EXPECT_EQ(id.name, "file:1f1b_p4_m8");
  EXPECT_EQ(id.v, 1);
  EXPECT_EQ(id.file_stem(), "file-1f1b_p4_m8-v1");
  EXPECT_TRUE(is_file_schedule_name(id.name));
  EXPECT_EQ(schedule_id_problem(id.name, 1), "");
  EXPECT_EQ(schedule_file_source(id), "--schedule-file " + kDir + "1f1b_p4_m8.csv");
  EXPECT_TRUE(schedule_generator(id).reference());
  // Looped placement: 4 stages on 2 ranks are 2 chunks per rank (stage s on rank s mod 2).
  const ScheduleId looped = schedule_from_csv("f", "0F0,2F0,2B0,0B0\n1F0,3F0,3B0,1B0\n", "looped", 2, 1);
  EXPECT_EQ(looped.v, 2);
  EXPECT_EQ(looped.name, "file:looped");
}

TEST(ScheduleFile, LoopedChunksSendToTheNextRankAndWrapAround) {
  const ScheduleId id = schedule_from_csv("f", "0F0,2F0,2B0,0B0\n1F0,3F0,3B0,1B0\n", "looped", 2, 1);
  ScheduleShape shape = one_chunk(2, 1);
  shape.v = 2;
  shape.table = {{0, 0}, {0, 1}};
  // Rank 1: stage 1 receives from stage 0 and sends to stage 2 on rank 0 (the wrap); stage 3 is last, so its
  // send_forward has no ops and its first backward no receive. With two chunks each send is async and carries
  // the receive of the rank's next pass of its direction, waited for just before that pass; with overlap they
  // are isend/irecv, not batched.
  EXPECT_EQ(steps(schedule_generator(id), shape, 1),
            (std::vector<std::string>{
                "recv_forward recv-act0", "F0", "send_forward_recv_forward async 0 send-act0 recv-act1", "wait 0", "F1",
                "send_forward async 1", "B0", "send_backward_recv_backward async 2 send-grad0 recv-grad1", "wait 2",
                "B1", "send_backward async 3 send-grad1", "wait 1", "wait 3"}));
}

// Each rank's passes of a registered schedule as a file's rows (stage = chunk x p + rank).
std::string csv_of(const ScheduleGenerator& g, const ScheduleShape& shape) {
  class Rows final : public ProgramSink {
   public:
    Rows(const ScheduleShape& shape, int r, bool split) : shape_(shape), r_(r), split_(split) {}
    void compute(Pass pass, std::int64_t k) override {
      const char* type = pass == Pass::kForward ? "F" : pass == Pass::kWeight ? "W" : split_ ? "I" : "B";
      row += std::string(row.empty() ? "" : ",") + std::to_string(shape_.chunk(pass, k) * shape_.p + r_) + type +
             std::to_string(shape_.microbatch(k));
    }
    void call(const Call& /*c*/) override {}
    void wait(int /*handle*/) override {}
    std::string row;

   private:
    const ScheduleShape& shape_;
    int r_;
    bool split_;
  };
  std::string text;
  for (int r = 0; r < shape.p; ++r) {
    Rows rows(shape, r, g.splits_backward());
    g.emit(shape, r, rows);
    text += rows.row + "\n";
  }
  return text;
}

// Megatron's interleaved order read back from a file runs: the file model's calls for several chunks are
// interleaved's, not 1F1B's turn from one direction to the other.
TEST(ScheduleFile, InterleavedOrdersReadBackFromAFileDoNotDeadlock) {
  for (const auto& [p, v, m] : std::vector<std::tuple<int, int, std::int64_t>>{
           {4, 2, 8}, {2, 3, 6}, {4, 4, 8}, {4, 2, 16}, {8, 2, 16}, {3, 2, 9}}) {
    const ScheduleShape shape = testing::megatron_like_shape(p, v, m);
    const std::string csv = csv_of(ScheduleRegistry::instance().find("test", "interleaved"), shape);
    SCOPED_TRACE("p " + std::to_string(p) + " v " + std::to_string(v) + " m " + std::to_string(m) + "\n" + csv);
    EXPECT_EQ(error_of(csv, p, m), "");
    EXPECT_EQ(schedule_from_csv("f", csv, "s", p, m).v, v);
  }
}

// The order of `predict --schedule interleaved:v2 --trace` on p 4, m 8, as each rank's trace lists it.
TEST(ScheduleFile, InterleavedTraceOrderOfFourRanksIsNoDeadlock) {
  const std::string csv =
      "0F0,0F1,0F2,0F3,4F0,4F1,4F2,4F3,0F4,0F5,0F6,4B0,0F7,4B1,4F4,4B2,4F5,4B3,4F6,0B0,4F7,0B1,0B2,0B3,4B4,4B5,4B6,"
      "4B7,0B4,0B5,0B6,0B7\n"
      "1F0,1F1,1F2,1F3,5F0,5F1,5F2,5F3,1F4,5B0,1F5,5B1,1F6,5B2,1F7,5B3,5F4,1B0,5F5,1B1,5F6,1B2,5F7,1B3,5B4,5B5,5B6,"
      "5B7,1B4,1B5,1B6,1B7\n"
      "2F0,2F1,2F2,2F3,6F0,6F1,6F2,6B0,6F3,6B1,2F4,6B2,2F5,6B3,2F6,2B0,2F7,2B1,6F4,2B2,6F5,2B3,6F6,6B4,6F7,6B5,6B6,"
      "6B7,2B4,2B5,2B6,2B7\n"
      "3F0,3F1,3F2,3F3,7F0,7B0,7F1,7B1,7F2,7B2,7F3,7B3,3F4,3B0,3F5,3B1,3F6,3B2,3F7,3B3,7F4,7B4,7F5,7B5,7F6,7B6,7F7,"
      "7B7,3B4,3B5,3B6,3B7\n";
  EXPECT_EQ(error_of(csv, 4, 8), "");
  EXPECT_EQ(csv,
            csv_of(ScheduleRegistry::instance().find("test", "interleaved"), testing::megatron_like_shape(4, 2, 8)));
}

// With several chunks a real deadlock is still found: rank 1 runs stage 3 first, whose input rank 0 makes only
// after stage 1's output, which rank 1 makes after stage 3.
TEST(ScheduleFile, ChunksThatWaitOnEachOtherAreADeadlock) {
  EXPECT_EQ(error_of("0F0,2F0,2B0,0B0\n3F0,1F0,3B0,1B0\n", 2, 1),
            "--schedule-file s.csv: row 1, cell 2 '2F0': deadlock: rank 0 waits here for rank 1 to receive the "
            "activation of microbatch 0 from stage 0 to stage 1 and no rank can go on (each rank runs its actions in "
            "order, a send "
            "after its compute posted with the receive of the next pass of its direction and waited for before that "
            "pass, as Megatron's interleaved calls)");
}

TEST(ScheduleFile, BadFilesAreOneLineNamingRowAndCell) {
  const std::string f = "--schedule-file s.csv: ";
  EXPECT_EQ(error_of("0F0,0B0,0F1,0B1\n"),
            f + "1 rows with actions, but the plan's pipeline has 2 ranks (one row per rank)");
  EXPECT_EQ(error_of("0F0,0B0\n1F0,1B0,2F0\n"),
            f + "row 2, cell 3 '2F0': stage 2 makes 3 stages, not a multiple of the plan's 2 pipeline ranks");
  EXPECT_EQ(error_of("0F0,0F1,0B0,0B1\n1F0,1F1,1B0,1B1,1F2\n"),
            f + "row 2, cell 5 '1F2': microbatch 2 is outside the plan's 2 microbatches (0 to 1)");
  EXPECT_EQ(error_of("0F0,0B0\n1F0,1B0\n"),
            f + "its microbatches are 0 to 0, but the plan has 2 (global batch / (micro batch x data parallel))");
  EXPECT_EQ(error_of("0F0,0F1,0B0,0B1\n1F0,1F1,1B0\n"),
            f + "row 2: no 1B1 (every stage needs F and B, or F, I and W, of each of the plan's 2 microbatches)");
  EXPECT_EQ(error_of("0F0,0F1,0I0,0B1\n1F0,1F1,1B0,1B1\n"),
            f + "row 1: no 0W0 (every stage needs F and B, or F, I and W, of each of the plan's 2 microbatches)");
  EXPECT_EQ(error_of("0F0,0F1,0B0,0B1,0F1\n1F0,1F1,1B0,1B1\n"),
            f + "row 1, cell 5 '0F1': stage 0, microbatch 1 again (first at cell 2)");
  EXPECT_EQ(error_of("0F0,0F1,0B0,0B1\n1B0,1F0,1F1,1B1\n"),
            f + "row 2, cell 1 '1B0': comes before the forward of its stage and microbatch");
  EXPECT_EQ(error_of("0F0,0F1,0B0,0B1\n1F0,1W0,1F1,1B0,1B1\n"),
            f + "row 2, cell 2 '1W0': a W without an I of its stage and microbatch before it");
  EXPECT_EQ(error_of("0F0,0F1,0B0,0B1\n1F0,1F1,1B0,1B1,0F0\n"),
            f + "row 2, cell 5 '0F0': stage 0 runs on rank 0 (stage s on rank s mod 2, PyTorch's looped placement), "
                "not on rank 1");
  EXPECT_EQ(error_of("0F0,0B0\n1F0,1B0,0Z1\n"), f + "row 2, cell 3 '0Z1': not an action (expected [stage][type]"
                                                    "[microbatch] with type F, I, W, B, SEND_F, RECV_F, SEND_B or "
                                                    "RECV_B (0F3, 1SEND_B2), or UNSHARD, RESHARD, REDUCE_GRAD "
                                                    "without a microbatch, or (A;B)OVERLAP_F_B)");
}

// ZBVZeroBubble's placement: rank r holds stages r and 2p-1-r.
TEST(ScheduleFile, VShapedPlacementIsRefusedInOneLine) {
  EXPECT_EQ(error_of("0F0,1F0,2F0,3F0,3B0,2B0,1B0,0B0\n", 1, 1),
            "--schedule-file s.csv: the plan's pipeline has 1 rank; a schedule file needs pp >= 2");
  EXPECT_EQ(error_of("0F0,3F0,3B0,0B0\n1F0,2F0,2B0,1B0\n", 2, 1),
            "--schedule-file s.csv: row 1: stages 0 and 3 on one rank are V-shaped placement (ZBVZeroBubble, "
            "DualPipeV), which pipebench's program model does not run yet (it places stage s on rank s mod p)");
}

TEST(ScheduleFile, ExplicitTransfersAreCheckedInPairsAndPlaces) {
  const std::string f = "--schedule-file s.csv: ";
  // 0SEND_F0 has its 1RECV_F0, 1SEND_B0 its 0RECV_B0: a good file.
  EXPECT_EQ(error_of("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n", 2, 1), "");
  EXPECT_EQ(error_of("0F0,0SEND_F0,0RECV_B0,0B0\n1F0,1B0,1SEND_B0\n", 2, 1),
            f + "row 1, cell 2 '0SEND_F0': a send without its receive (no 1RECV_F0 on row 2)");
  EXPECT_EQ(error_of("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0\n", 2, 1),
            f + "row 1, cell 3 '0RECV_B0': a receive without its send");
  EXPECT_EQ(error_of("0SEND_F0,0F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n", 2, 1),
            f + "row 1, cell 1 '0SEND_F0': comes before the forward whose output it sends");
  EXPECT_EQ(error_of("0F0,0SEND_F0,0B0,0RECV_B0\n1RECV_F0,1F0,1B0,1SEND_B0\n", 2, 1),
            f + "row 1, cell 4 '0RECV_B0': comes after the backward that takes it");
  EXPECT_EQ(error_of("0F0,0SEND_F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0,1SEND_B0\n", 2, 1),
            f + "row 1, cell 3 '0SEND_F0': the same transfer again");
  EXPECT_EQ(error_of("0F0,0SEND_B0,0B0\n1F0,1B0\n", 2, 1),
            f + "row 1, cell 2 '0SEND_B0': stage 0 has no stage to send to");
  EXPECT_EQ(error_of("0F0,0SEND_F0,0RECV_B0,0B0\n1RECV_F0,1F0,1B0\n1F0\n", 2, 1).substr(0, f.size() + 6), f + "3 rows");
  // A file with transfers lists every one.
  EXPECT_EQ(error_of("0F0,0SEND_F0,0B0\n1RECV_F0,1F0,1B0\n", 2, 1),
            f + "row 2, cell 3 '1B0': its output goes to another stage, but the file, which lists transfers, has no "
                "SEND_B for it");
}

TEST(ScheduleFile, NonRegularAndTooLargeFilesAreRefused) {
  try {
    (void)load_schedule_file("--schedule-file", kDir, 4, 8);
    ADD_FAILURE() << "a folder was read";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--schedule-file " + kDir, 0), 0U) << e.what();
  }
  const std::string big = ::testing::TempDir() + "big.csv";
  FILE* out = std::fopen(big.c_str(), "w");
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(std::fseek(out, static_cast<long>(kMaxScheduleFileBytes), SEEK_SET), 0);
  ASSERT_EQ(std::fputc('\n', out), '\n');
  ASSERT_EQ(std::fclose(out), 0);
  try {
    (void)load_schedule_file("--schedule-file", big, 4, 8);
    ADD_FAILURE() << "a file over the limit was read";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--schedule-file " + big + ": " + std::to_string(kMaxScheduleFileBytes + 1) +
                                         " bytes, more than a schedule file may have (64 MiB)");
  }
  std::remove(big.c_str());
}

}  // namespace
}  // namespace pipebench
