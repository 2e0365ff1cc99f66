// SPDX-License-Identifier: Apache-2.0
// Heartbeat files in one folder per job under the node's temporary directory, and the line that names
// the ranks whose heartbeat stood still.
#include "harness/heartbeats.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <utility>

namespace pipebench {
namespace {

constexpr auto kBeat = std::chrono::milliseconds(100);

std::string temporary_directory() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

// "rank 1" or "ranks 0, 2, 3".
std::string rank_list(const std::vector<int>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s;
}

std::vector<int> ranks_with(const std::vector<Answer>& answers, Answer a) {
  std::vector<int> out;
  for (std::size_t r = 0; r < answers.size(); ++r) {
    if (answers[r] == a) out.push_back(static_cast<int>(r));
  }
  return out;
}

}  // namespace

std::vector<Answer> answers(const std::vector<std::int64_t>& before, const std::vector<std::int64_t>& after,
                            const std::vector<std::string>& hosts, const std::string& host) {
  std::vector<Answer> out(hosts.size(), Answer::kOtherHost);
  for (std::size_t r = 0; r < hosts.size() && r < before.size() && r < after.size(); ++r) {
    if (hosts[r] != host) continue;
    out[r] = after[r] >= 0 && after[r] != before[r] ? Answer::kAnswered : Answer::kSilent;
  }
  return out;
}

std::string who_stopped(const std::vector<Answer>& answers, const std::string& host, const std::string& where) {
  const std::vector<int> silent = ranks_with(answers, Answer::kSilent);
  const std::vector<int> other = ranks_with(answers, Answer::kOtherHost);
  const std::string unchecked = other.empty() ? "" : "; " + rank_list(other) + " on other hosts not checked";
  if (silent.empty()) {
    return " on " + where + "; no rank of host " + host + " stopped answering (the point is slow or hung" +
           (other.empty() ? "" : ", or a rank of another host stopped") + ")" + unchecked;
  }
  std::string s = ": " + rank_list(silent) + " (host " + host + ") stopped answering";
  const std::vector<int> answered = ranks_with(answers, Answer::kAnswered);
  if (!answered.empty()) s += "; " + rank_list(answered) + " answered (alive, waiting or working in the point)";
  return s + unchecked;
}

int speaker(const std::vector<Answer>& answers) {
  const std::vector<int> answered = ranks_with(answers, Answer::kAnswered);
  return answered.empty() ? -1 : answered.front();
}

std::unique_ptr<Heartbeats> Heartbeats::create(const World& world) {
  if (world.size() <= 1) return nullptr;
  // Rank 0 names the folder (its pid and clock make it unique on its host; the name is the same on every
  // host, each under its own temporary directory).
  const std::string name = world.rank() == 0
                               ? "pipebench-heartbeats-" + std::to_string(getpid()) + "-" +
                                     std::to_string(std::chrono::steady_clock::now().time_since_epoch().count())
                               : std::string();
  const std::string folder = temporary_directory() + "/" + world.broadcast(name, 0);
  std::vector<std::string> hosts = world.all_gather(world.host());
  if (mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) return nullptr;
  // Ranks of one host share the folder (EEXIST), but a shared temporary directory may hold a link or a
  // folder of another user under that name: only a real folder of ours is used (else no heartbeats).
  struct stat st {};
  if (lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 0077) != 0)
    return nullptr;
  return std::unique_ptr<Heartbeats>(new Heartbeats(folder, std::move(hosts), world.host(), world.rank()));
}

Heartbeats::Heartbeats(std::string folder, std::vector<std::string> hosts, std::string host, int rank)
    : folder_(std::move(folder)), hosts_(std::move(hosts)), host_(std::move(host)), rank_(rank) {
  const int fd = open(file_of(rank_).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd >= 0) close(fd);
  thread_ = std::thread([this] { beat_loop(); });
}

std::string Heartbeats::file_of(int rank) const { return folder_ + "/rank-" + std::to_string(rank); }

void Heartbeats::beat_loop() {
  const std::string mine = file_of(rank_);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!cv_.wait_for(lock, kBeat, [this] { return done_; })) {
    if (!held_) (void)utimensat(AT_FDCWD, mine.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  }
}

std::vector<std::int64_t> Heartbeats::read() const {
  std::vector<std::int64_t> out(hosts_.size(), -1);
  for (std::size_t r = 0; r < hosts_.size(); ++r) {
    struct stat st {};
    if (hosts_[r] != host_ || stat(file_of(static_cast<int>(r)).c_str(), &st) != 0) continue;
    out[r] = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  return out;
}

void Heartbeats::remove_files() const {
  for (std::size_t r = 0; r < hosts_.size(); ++r) {
    if (hosts_[r] == host_) (void)unlink(file_of(static_cast<int>(r)).c_str());
  }
  (void)rmdir(folder_.c_str());
}

Heartbeats::~Heartbeats() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
  (void)unlink(file_of(rank_).c_str());
  (void)rmdir(folder_.c_str());  // fails while another rank of the host still has its file; the last one removes it
}

}  // namespace pipebench
