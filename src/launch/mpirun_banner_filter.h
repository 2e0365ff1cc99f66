// SPDX-License-Identifier: Apache-2.0
// The standard error of an mpirun that pipebench started itself (launch/mpirun_relaunch.h): when a rank
// fails, it prints pipebench's one line ("pipebench: --table t.json: not JSON ...") and Open MPI adds its
// own banners, framed by lines of dashes ("Primary job terminated normally, but 1 process returned a
// non-zero exit code ...", "MPI_ABORT was invoked on rank 0 ..."), and notes of its own that start with
// "[host:pid]", which bury that line under a dozen others that say less. A banner can come before the
// rank's line (MPI_Abort's travels to mpirun apart from the rank's output), so banners and notes are held
// until mpirun ends: dropped when pipebench's error line came, passed on otherwise (a rank killed by a
// signal, too few slots, no such program: then they are the only message). Every other line is passed on
// as it comes; a banner that comes while the job runs is passed on at its end.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace pipebench {

class MpirunBannerFilter {
 public:
  explicit MpirunBannerFilter(std::function<void(std::string_view)> write) : write_(std::move(write)) {}

  // Bytes as read from mpirun's standard error; whole lines are passed on (or held).
  void feed(std::string_view bytes);
  // mpirun has ended: what is held is passed on unless pipebench's error line came, and a last line without
  // its line feed is passed on.
  void finish();
  // Whether pipebench's own line ("pipebench: ...") was passed on.
  [[nodiscard]] bool error_seen() const { return error_seen_; }

 private:
  void line(const std::string& text);  // one line with its '\n'

  // Held text past this is passed on (or dropped, after the error line) at once: memory stays bounded.
  static constexpr std::size_t kMaxHeldBytes = 1 << 16;

  std::function<void(std::string_view)> write_;
  std::string pending_;  // the start of a line not yet ended
  std::string held_;     // banners and notes of Open MPI, held until the end
  bool in_banner_ = false;
  bool error_seen_ = false;  // pipebench's error line was passed on
};

}  // namespace pipebench
