// SPDX-License-Identifier: Apache-2.0
// The cross-process exchange of a launch without MPI (torchrun's RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT): rank 0 listens on MASTER_PORT, every other rank connects to MASTER_ADDR:MASTER_PORT,
// retrying until a timeout, and each exchange goes through rank 0 (a star: the harness exchanges a
// few bytes per run, the NCCL unique id and the agreement checks, never data). POSIX sockets; frames are
// a 4-byte big-endian length and the bytes, at most kMaxFrameBytes, so a stray or hostile peer cannot
// make a rank allocate without bound.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pipebench {

// The rendezvous of a torchrun-style launch, from the environment.
struct RendezvousConfig {
  int rank = 0, size = 1;
  std::string master_addr;  // a host name or address (MASTER_ADDR)
  int master_port = 0;      // [1, 65535] (PIPEBENCH_RENDEZVOUS_PORT where set, else MASTER_PORT)
  std::chrono::milliseconds timeout{60000};
  // torchrun's agent serves its own store on MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True): rank 0 cannot
  // listen there, and its bind failure says to set PIPEBENCH_RENDEZVOUS_PORT.
  bool port_held_by_torchrun = false;
};

inline constexpr std::uint32_t kMaxFrameBytes = 16u << 20;
inline constexpr const char* kRendezvousTimeoutVariable = "PIPEBENCH_RENDEZVOUS_TIMEOUT_S";
inline constexpr const char* kRendezvousPortVariable = "PIPEBENCH_RENDEZVOUS_PORT";

using RendezvousEnv = std::function<const char*(const char*)>;

// True when MASTER_ADDR or MASTER_PORT is set: the launch asks for the TCP rendezvous.
[[nodiscard]] bool rendezvous_requested(const RendezvousEnv& getenv);

// The rendezvous of rank `rank` of `size` (from the launcher's variables, launch/launch_env.h) with
// MASTER_ADDR, MASTER_PORT (or PIPEBENCH_RENDEZVOUS_PORT, which wins) and PIPEBENCH_RENDEZVOUS_TIMEOUT_S
// (seconds, default 60). Throws UsageError, one line naming the variable and value, when MASTER_ADDR is
// empty or missing, the port is not a whole number in [1, 65535] or missing, or the timeout is not a whole
// number of seconds in [1, 86400].
[[nodiscard]] RendezvousConfig rendezvous_from_env(const RendezvousEnv& getenv, int rank, int size);

// A socket descriptor, closed when it goes.
class SocketFd {
 public:
  SocketFd() = default;
  explicit SocketFd(int fd) : fd_(fd) {}
  ~SocketFd();
  SocketFd(SocketFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  SocketFd& operator=(SocketFd&& o) noexcept;
  SocketFd(const SocketFd&) = delete;
  SocketFd& operator=(const SocketFd&) = delete;
  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

class TcpRendezvous {
 public:
  // Rank 0 listens and accepts size-1 peers; the others connect. Each connection opens with a hello
  // (magic, rank, size) that rank 0 checks. Throws Error naming the call, this rank and host and
  // MASTER_ADDR:MASTER_PORT on any failure, and when a peer is still missing after the timeout.
  TcpRendezvous(RendezvousConfig config, std::string host);
  TcpRendezvous(const TcpRendezvous&) = delete;  // fail_ holds this
  TcpRendezvous& operator=(const TcpRendezvous&) = delete;

  [[nodiscard]] int rank() const { return config_.rank; }
  [[nodiscard]] int size() const { return config_.size; }

  // Every rank's bytes, in rank order, on every rank.
  [[nodiscard]] std::vector<std::string> all_gather(const std::string& bytes) const;

 private:
  // A connection to rank 0 whose hello (tcp_rendezvous.cc: magic, rank, size) is not all there yet.
  struct PendingHello {
    SocketFd fd;
    char hello[16];
    std::size_t got = 0;
  };
  enum class HelloState : std::uint8_t { kPartial, kComplete, kDropped };

  void accept_peers();
  static HelloState read_hello(PendingHello& h, const std::function<void(const char*, int)>& fail);
  int take_peer(PendingHello& h);
  [[noreturn]] void throw_missing_peers(int joined) const;
  void connect_to_root();
  [[nodiscard]] std::string where() const;
  void send_frame(const SocketFd& fd, const std::string& bytes) const;
  [[nodiscard]] std::string recv_frame(const SocketFd& fd, int peer) const;

  RendezvousConfig config_;
  std::string host_;
  std::function<void(const char*, int)> fail_;  // throws Error naming the call, errno, rank, host and address
  SocketFd listener_;
  std::vector<SocketFd> peers_;  // rank 0: peers_[r] is rank r (peers_[0] unused); others: peers_[0] is rank 0
};

}  // namespace pipebench
