// SPDX-License-Identifier: Apache-2.0
// TCP rendezvous over POSIX sockets (socket(7), tcp(7)).
#include "launch/tcp_rendezvous.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>

#include "core/error.h"
#include "core/range_list.h"

namespace pipebench {
namespace {

using Clock = std::chrono::steady_clock;

// The hello a connecting rank sends first: 8 bytes of magic, then its rank and the world size (big-endian).
constexpr char kMagic[8] = {'p', 'b', '-', 'r', 'd', 'z', 'v', '1'};
constexpr std::size_t kHelloBytes = sizeof kMagic + 8;
// Connections rank 0 reads hellos from at once: a flood of strays costs the oldest of them, never a rank.
constexpr std::size_t kMaxPendingHellos = 1024;

// A whole number in [lo, hi] of at most 9 decimal digits (no sign, no spaces); -1 otherwise.
long whole_number(const std::string& text, long lo, long hi) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  const long n = std::stol(text);
  return n < lo || n > hi ? -1 : n;
}

std::string errno_text(int err) { return std::strerror(err); }

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

void put_u32(char* out, std::uint32_t v) {
  const std::uint32_t be = htonl(v);
  std::memcpy(out, &be, 4);
}

std::uint32_t get_u32(const char* in) {
  std::uint32_t be = 0;
  std::memcpy(&be, in, 4);
  return ntohl(be);
}

void set_nodelay(int fd) {
  int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // latency only: a failure costs nothing else
}

// n bytes, or false when the peer closed (or reset) first. Throws the errno of a failed recv as (call, errno)
// through `fail`.
bool recv_exact(int fd, char* buf, std::size_t n, const std::function<void(const char*, int)>& fail) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = recv(fd, buf + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == ECONNRESET) return false;  // the peer closed with bytes of ours unread: closed too
    if (r < 0) fail("recv", errno);
    if (r == 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

void send_all(int fd, const char* buf, std::size_t n, const std::function<void(const char*, int)>& fail) {
  std::size_t sent = 0;
  while (sent < n) {
    const ssize_t r = send(fd, buf + sent, n - sent, MSG_NOSIGNAL);  // a closed peer: EPIPE, not SIGPIPE
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail("send", errno);
    sent += static_cast<std::size_t>(r);
  }
}

// A non-blocking connect bounded by the deadline; the connected socket (blocking again) or an invalid one
// with *err set.
SocketFd connect_once(const addrinfo* a, Clock::time_point deadline, int* err) {
  SocketFd fd(socket(a->ai_family, a->ai_socktype, a->ai_protocol));
  if (!fd.valid()) {
    *err = errno;
    return {};
  }
  const int flags = fcntl(fd.get(), F_GETFL, 0);
  (void)fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK);
  if (connect(fd.get(), a->ai_addr, a->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      *err = errno;
      return {};
    }
    pollfd p{fd.get(), POLLOUT, 0};
    if (poll(&p, 1, remaining_ms(deadline)) <= 0) {
      *err = ETIMEDOUT;
      return {};
    }
    int so_error = 0;
    socklen_t len = sizeof so_error;
    if (getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len) != 0 || so_error != 0) {
      *err = so_error != 0 ? so_error : errno;
      return {};
    }
  }
  (void)fcntl(fd.get(), F_SETFL, flags);
  set_nodelay(fd.get());
  return fd;
}

// A listening socket on every interface (IPv6 with IPv4 mapped where the host has IPv6, else IPv4).
SocketFd listen_on(int port, const std::function<void(const char*, int)>& fail) {
  int one = 1, zero = 0;
  SocketFd fd(socket(AF_INET6, SOCK_STREAM, 0));
  if (fd.valid()) {
    (void)setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    (void)setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(static_cast<std::uint16_t>(port));
    if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fd = SocketFd();
  }
  if (!fd.valid()) {
    fd = SocketFd(socket(AF_INET, SOCK_STREAM, 0));
    if (!fd.valid()) fail("socket", errno);
    (void)setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fail("bind", errno);
  }
  if (listen(fd.get(), SOMAXCONN) != 0) fail("listen", errno);
  return fd;
}

}  // namespace

SocketFd::~SocketFd() {
  if (fd_ >= 0) ::close(fd_);
}

SocketFd& SocketFd::operator=(SocketFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

bool rendezvous_requested(const RendezvousEnv& getenv) {
  return getenv("MASTER_ADDR") != nullptr || getenv("MASTER_PORT") != nullptr;
}

RendezvousConfig rendezvous_from_env(const RendezvousEnv& getenv, int rank, int size) {
  RendezvousConfig c;
  c.rank = rank;
  c.size = size;
  const char* addr = getenv("MASTER_ADDR");
  const char* port = getenv("MASTER_PORT");
  if (addr == nullptr || *addr == '\0') {
    throw UsageError(std::string("MASTER_ADDR is ") + (addr ? "empty" : "not set") +
                     ": a launch without MPI needs MASTER_ADDR and MASTER_PORT (rank 0's host and port)");
  }
  if (port == nullptr && getenv(kRendezvousPortVariable) == nullptr) {
    throw UsageError(std::string("MASTER_ADDR=") + addr +
                     " is set but MASTER_PORT is not: a launch without MPI needs both (rank 0's host and port)");
  }
  c.master_addr = addr;
  const char* own = getenv(kRendezvousPortVariable);
  const std::string port_name = own ? kRendezvousPortVariable : "MASTER_PORT";
  if (own) port = own;
  c.master_port = static_cast<int>(whole_number(port, 1, 65535));
  if (c.master_port < 0) throw UsageError(port_name + "=" + port + ": not a port number in [1, 65535]");
  const char* agent_store = getenv("TORCHELASTIC_USE_AGENT_STORE");
  c.port_held_by_torchrun = !own && agent_store != nullptr && std::string(agent_store) == "True";
  if (const char* t = getenv(kRendezvousTimeoutVariable)) {
    const long s = whole_number(t, 1, 86400);
    if (s < 0) {
      throw UsageError(std::string(kRendezvousTimeoutVariable) + "=" + t +
                       ": not a whole number of seconds in [1, 86400]");
    }
    c.timeout = std::chrono::milliseconds(s * 1000);
  }
  return c;
}

TcpRendezvous::TcpRendezvous(RendezvousConfig config, std::string host)
    : config_(std::move(config)), host_(std::move(host)), fail_([this](const char* call, int err) {
        throw Error(std::string(call) + " failed on " + where() + ": " + errno_text(err));
      }) {
  if (config_.size <= 1) return;  // a world of 1 exchanges with nobody
  if (config_.rank == 0) {
    accept_peers();
  } else {
    connect_to_root();
  }
}

std::string TcpRendezvous::where() const {
  return "rank " + std::to_string(config_.rank) + " on host " + host_ + " (rendezvous at MASTER_ADDR:MASTER_PORT " +
         config_.master_addr + ":" + std::to_string(config_.master_port) + ")";
}

void TcpRendezvous::accept_peers() {
  const auto& fail = fail_;
  listener_ = listen_on(config_.master_port, [this](const char* call, int err) {
    if (err == EADDRINUSE && config_.port_held_by_torchrun) {
      throw Error(std::string(call) + " failed on " + where() + ": " + errno_text(err) +
                  " (torchrun's agent serves its store on MASTER_PORT: set " + kRendezvousPortVariable +
                  " to a free port, the same on every rank)");
    }
    fail_(call, err);
  });
  peers_.resize(static_cast<std::size_t>(config_.size));
  const auto deadline = Clock::now() + config_.timeout;
  // Connections whose hello is still coming, read side by side: one that sends nothing (a port scan, a health
  // check holding its connection) must not hold the ranks behind it until the deadline.
  std::vector<PendingHello> pending;
  int joined = 1;
  while (joined < config_.size) {
    std::vector<pollfd> fds{{listener_.get(), POLLIN, 0}};
    for (const auto& h : pending) fds.push_back({h.fd.get(), POLLIN, 0});
    const int rc = poll(fds.data(), fds.size(), remaining_ms(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) fail("poll", errno);
    if (rc == 0) throw_missing_peers(joined);
    for (std::size_t i = fds.size() - 1; i >= 1; --i) {
      if (fds[i].revents == 0) continue;
      PendingHello& h = pending[i - 1];
      const HelloState state = read_hello(h, fail);
      if (state == HelloState::kComplete) joined += take_peer(h);
      if (state != HelloState::kPartial) pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i - 1));
    }
    if ((fds[0].revents & POLLIN) == 0) continue;
    SocketFd peer(accept(listener_.get(), nullptr, nullptr));
    if (!peer.valid()) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      fail("accept", errno);
    }
    // The oldest stray connection goes first when strays fill the list; a rank's hello comes at once.
    if (pending.size() >= kMaxPendingHellos) pending.erase(pending.begin());
    pending.push_back({std::move(peer), {}, 0});
  }
  listener_ = SocketFd();  // every rank is in: the port is free for the next job
}

// What is there of a connection's hello, without waiting for more.
TcpRendezvous::HelloState TcpRendezvous::read_hello(PendingHello& h,
                                                    const std::function<void(const char*, int)>& fail) {
  static_assert(sizeof h.hello == kHelloBytes);
  const ssize_t r = recv(h.fd.get(), h.hello + h.got, kHelloBytes - h.got, MSG_DONTWAIT);
  if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return HelloState::kPartial;
  if (r < 0 && errno == ECONNRESET) return HelloState::kDropped;
  if (r < 0) fail("recv", errno);
  if (r == 0) return HelloState::kDropped;  // closed before its hello: not a pipebench rank
  h.got += static_cast<std::size_t>(r);
  // A connection that is not a pipebench rank is closed and ignored as soon as its first bytes say so.
  if (std::memcmp(h.hello, kMagic, std::min(h.got, sizeof kMagic)) != 0) return HelloState::kDropped;
  return h.got == kHelloBytes ? HelloState::kComplete : HelloState::kPartial;
}

// A complete hello: its rank's slot, checked against this job. Returns the ranks joined (1).
int TcpRendezvous::take_peer(PendingHello& h) {
  const std::uint32_t r = get_u32(h.hello + 8), n = get_u32(h.hello + 12);
  if (n != static_cast<std::uint32_t>(config_.size) || r == 0 || r >= n) {
    throw Error("rendezvous on " + where() + ": a peer says it is rank " + std::to_string(r) + " of " +
                std::to_string(n) + ", but this job has WORLD_SIZE=" + std::to_string(config_.size) +
                " (two jobs on one MASTER_PORT?)");
  }
  auto& slot = peers_[r];
  if (slot.valid()) {
    throw Error("rendezvous on " + where() + ": rank " + std::to_string(r) +
                " connected twice (two jobs on one MASTER_PORT, or two processes with one RANK?)");
  }
  set_nodelay(h.fd.get());
  slot = std::move(h.fd);
  return 1;
}

void TcpRendezvous::throw_missing_peers(int joined) const {
  RangeList missing;
  for (int r = 1; r < config_.size; ++r) {
    if (!peers_[static_cast<std::size_t>(r)].valid()) missing.add(r);
  }
  throw Error("rendezvous timed out on " + where() + " after " + std::to_string(config_.timeout.count() / 1000) +
              " s: rank" + (config_.size - joined > 1 ? "s " : " ") + missing.text() + " of " +
              std::to_string(config_.size) + " did not connect (" + kRendezvousTimeoutVariable + " sets the wait)");
}

void TcpRendezvous::connect_to_root() {
  const auto deadline = Clock::now() + config_.timeout;
  const std::string port = std::to_string(config_.master_port);
  std::string last = "no address";
  while (true) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* raw = nullptr;
    const int gai = getaddrinfo(config_.master_addr.c_str(), port.c_str(), &hints, &raw);
    const std::unique_ptr<addrinfo, void (*)(addrinfo*)> list(gai == 0 ? raw : nullptr, [](addrinfo* l) {
      if (l) freeaddrinfo(l);
    });
    if (gai != 0) last = std::string("getaddrinfo: ") + gai_strerror(gai);
    for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
      int err = 0;
      SocketFd fd = connect_once(a, deadline, &err);
      if (!fd.valid()) {
        last = "connect: " + errno_text(err);
        continue;
      }
      char hello[kHelloBytes];
      std::memcpy(hello, kMagic, sizeof kMagic);
      put_u32(hello + 8, static_cast<std::uint32_t>(config_.rank));
      put_u32(hello + 12, static_cast<std::uint32_t>(config_.size));
      send_all(fd.get(), hello, sizeof hello, fail_);
      peers_.clear();
      peers_.push_back(std::move(fd));
      return;
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  throw Error("rendezvous timed out on " + where() + " after " + std::to_string(config_.timeout.count() / 1000) +
              " s: rank 0 never accepted (" + last + "; is rank 0 running, and MASTER_ADDR its address? " +
              kRendezvousTimeoutVariable + " sets the wait)");
}

void TcpRendezvous::send_frame(const SocketFd& fd, const std::string& bytes) const {
  if (bytes.size() > kMaxFrameBytes) {
    throw Error("rendezvous on " + where() + ": " + std::to_string(bytes.size()) + " bytes to send, over the " +
                std::to_string(kMaxFrameBytes) + "-byte frame limit");
  }
  char header[4];
  put_u32(header, static_cast<std::uint32_t>(bytes.size()));
  send_all(fd.get(), header, sizeof header, fail_);
  send_all(fd.get(), bytes.data(), bytes.size(), fail_);
}

std::string TcpRendezvous::recv_frame(const SocketFd& fd, int peer) const {
  const auto closed = [&] {
    return Error("rendezvous on " + where() + ": rank " + std::to_string(peer) +
                 " closed its connection (it stopped or failed; see its own message)");
  };
  char header[4];
  if (!recv_exact(fd.get(), header, sizeof header, fail_)) throw closed();
  const std::uint32_t n = get_u32(header);
  if (n > kMaxFrameBytes) {  // checked before allocating: a bad peer cannot make this rank allocate 4 GB
    throw Error("rendezvous on " + where() + ": rank " + std::to_string(peer) + " sent a frame of " +
                std::to_string(n) + " bytes, over the " + std::to_string(kMaxFrameBytes) + "-byte limit");
  }
  std::string out(n, '\0');
  if (n > 0 && !recv_exact(fd.get(), out.data(), n, fail_)) throw closed();
  return out;
}

std::vector<std::string> TcpRendezvous::all_gather(const std::string& bytes) const {
  std::vector<std::string> out(static_cast<std::size_t>(config_.size));
  out[static_cast<std::size_t>(config_.rank)] = bytes;
  if (config_.size == 1) return out;
  if (config_.rank != 0) {
    send_frame(peers_[0], bytes);
    for (int r = 0; r < config_.size; ++r) out[static_cast<std::size_t>(r)] = recv_frame(peers_[0], 0);
    return out;
  }
  for (int r = 1; r < config_.size; ++r)
    out[static_cast<std::size_t>(r)] = recv_frame(peers_[static_cast<std::size_t>(r)], r);
  for (int r = 1; r < config_.size; ++r) {
    for (const auto& s : out) send_frame(peers_[static_cast<std::size_t>(r)], s);
  }
  return out;
}

}  // namespace pipebench
