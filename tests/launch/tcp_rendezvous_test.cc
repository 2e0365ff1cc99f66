// SPDX-License-Identifier: Apache-2.0
// The TCP rendezvous of a torchrun-style launch with several processes on this machine: each child is one
// rank with its own environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and checks the World's
// barrier, reductions, gather and broadcast; a missing peer, a peer that closes and a hostile frame stop
// with one message instead of hanging; bad variables are UsageErrors.
#include "launch/tcp_rendezvous.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "launch/free_port.h"
#include "launch/tcp_world.h"

namespace pipebench {
namespace {

using Env = std::map<std::string, std::string>;

RendezvousEnv lookup(const Env& env) {
  return [&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

Env rank_env(int rank, int size, int port, const std::string& timeout_s = "10") {
  return {{"RANK", std::to_string(rank)},
          {"WORLD_SIZE", std::to_string(size)},
          {"MASTER_ADDR", "127.0.0.1"},
          {"MASTER_PORT", std::to_string(port)},
          {"PIPEBENCH_RENDEZVOUS_TIMEOUT_S", timeout_s}};
}

// Starts body(rank) in one forked child per rank; wait_ranks gives their exit statuses (0: every check held).
template <typename Body>
std::vector<pid_t> spawn_ranks(const std::vector<int>& ranks, Body body) {
  std::vector<pid_t> pids;
  for (int r : ranks) {
    const pid_t pid = fork();
    if (pid == 0) {
      int status = 0;
      try {
        status = body(r);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rank %d: %s\n", r, e.what());
        status = 100;
      }
      std::_Exit(status);
    }
    pids.push_back(pid);
  }
  return pids;
}

std::vector<int> wait_ranks(const std::vector<pid_t>& pids) {
  std::vector<int> out;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    out.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return out;
}

// Each failed check its own exit status, so a failure names the check.
int collectives_of(int rank, int size, int port) {
  const Env env = rank_env(rank, size, port);
  const auto world = tcp_world_from_env(lookup(env));
  if (!world || world->rank() != rank || world->size() != size) return 1;
  if (!world->tcp_rendezvous() || world->has_mpi()) return 2;
  if (world->local_rank() != rank || world->local_size() != size) return 3;  // one host: local is global
  world->barrier();
  if (world->max(rank * 1.5) != (size - 1) * 1.5 || world->min(rank + 2.0) != 2.0) return 4;
  if (world->sum(static_cast<std::uint64_t>(rank) + 1) != static_cast<std::uint64_t>(size * (size + 1) / 2)) return 5;
  if (world->min_u64(100 + static_cast<std::uint64_t>(rank)) != 100) return 6;
  if (!world->all(true) || world->all(rank != size - 1)) return 7;
  const auto gathered = world->all_gather(std::string(static_cast<std::size_t>(rank), 'x'));
  for (int r = 0; r < size; ++r) {
    if (gathered[static_cast<std::size_t>(r)] != std::string(static_cast<std::size_t>(r), 'x')) return 8;
  }
  // 128 bytes with zeros inside, as an ncclUniqueId, from the last rank.
  std::string id(128, '\0');
  for (std::size_t i = 0; i < id.size(); i += 3) id[i] = static_cast<char>(i);
  const std::string got = world->broadcast(rank == size - 1 ? id : std::string("wrong"), size - 1);
  if (got != id) return 9;
  world->barrier();
  return 0;
}

TEST(TcpRendezvous, FourProcessesAgreeOnEveryCollective) {
  const int port = free_loopback_port(29500);
  const auto status = wait_ranks(spawn_ranks({0, 1, 2, 3}, [port](int r) { return collectives_of(r, 4, port); }));
  EXPECT_EQ(status, std::vector<int>({0, 0, 0, 0}));
}

TEST(TcpRendezvous, AWorldOfOneNeedsNoPeer) {
  const Env env = rank_env(0, 1, free_loopback_port(29500));
  const auto world = tcp_world_from_env(lookup(env));
  ASSERT_NE(world, nullptr);
  EXPECT_EQ(world->size(), 1);
  EXPECT_EQ(world->broadcast("id", 0), "id");
  EXPECT_EQ(world->sum(7), 7u);
}

TEST(TcpRendezvous, AMissingPeerTimesOutWithOneMessage) {
  const int port = free_loopback_port(29500);
  // Rank 1 joins and then sees rank 0 give up; rank 2 never starts.
  const auto child = spawn_ranks({1}, [port](int r) {
    const Env env = rank_env(r, 3, port, "5");
    try {
      (void)tcp_world_from_env(lookup(env));
    } catch (const Error& e) {
      return std::strstr(e.what(), "rank 0 closed its connection") ? 0 : 1;
    }
    return 2;
  });
  const Env env = rank_env(0, 3, port, "1");
  try {
    (void)tcp_world_from_env(lookup(env));
    FAIL() << "a world of 3 formed with 2 ranks";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rendezvous timed out on rank 0 on host "), std::string::npos) << e.what();
    EXPECT_NE(
        std::string(e.what()).find("127.0.0.1:" + std::to_string(port) + ") after 1 s: rank 2 of 3 did not connect"),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(wait_ranks(child), std::vector<int>({0}));
}

// The ranks that did not connect are ranges: a world of 2^24 is one short line, not a list of every rank.
TEST(TcpRendezvous, TheRanksThatDidNotConnectAreRanges) {
  const int port = free_loopback_port(29500);
  const Env env = rank_env(0, 1 << 24, port, "1");
  try {
    (void)tcp_world_from_env(lookup(env));
    FAIL() << "a world of 2^24 formed with 1 rank";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(") after 1 s: ranks 1-16777215 of 16777216 did not connect"), std::string::npos) << what;
    EXPECT_LT(what.size(), 300u) << what;
  }
}

TEST(TcpRendezvous, AConnectingRankWithoutRankZeroTimesOut) {
  const Env env = rank_env(1, 2, free_loopback_port(29500), "1");
  try {
    (void)tcp_world_from_env(lookup(env));
    FAIL() << "rank 1 formed a world without rank 0";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 never accepted (connect: Connection refused"), std::string::npos)
        << e.what();
  }
}

// A peer that says its frame is 4 GB: rank 0 stops before allocating it.
TEST(TcpRendezvous, AnOversizedFrameIsRefusedBeforeAllocating) {
  const int port = free_loopback_port(29500);
  const auto child = spawn_ranks({1}, [port](int) {
    sleep(1);  // rank 0 listening
    SocketFd fd(socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return 1;
    const unsigned char hello[20] = {'p', 'b', '-', 'r', 'd', 'z', 'v',  '1',  0,    0,
                                     0,   1,   0,   0,   0,   2,   0xff, 0xff, 0xff, 0xff};
    if (send(fd.get(), hello, sizeof hello, 0) != static_cast<ssize_t>(sizeof hello)) return 2;
    char byte = 0;
    return recv(fd.get(), &byte, 1, 0) == 0 ? 0 : 3;  // rank 0 closes
  });
  RendezvousConfig config;
  config.rank = 0;
  config.size = 2;
  config.master_addr = "127.0.0.1";
  config.master_port = port;
  config.timeout = std::chrono::milliseconds(10000);
  try {
    const TcpRendezvous rendezvous(config, "h");
    (void)rendezvous.all_gather("x");
    ADD_FAILURE() << "a 4 GB frame was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 1 sent a frame of 4294967295 bytes, over the 16777216-byte limit"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(wait_ranks(child), std::vector<int>({0}));
}

// A connection that sends part of a hello and then nothing (a port scan, a health check) does not hold the
// rank that connects after it: rank 0 reads hellos side by side, and the world forms long before its deadline.
TEST(TcpRendezvous, AnIdleConnectionDoesNotHoldTheRanksBehindIt) {
  const int port = free_loopback_port(29500);
  const auto idle = spawn_ranks({9}, [port](int) {
    sleep(1);  // rank 0 listening
    SocketFd fd(socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return 1;
    if (send(fd.get(), "pb-r", 4, 0) != 4) return 2;
    const timeval wait{60, 0};
    setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    char byte = 0;
    return recv(fd.get(), &byte, 1, 0) == 0 ? 0 : 3;  // rank 0 closes it once the world is in
  });
  const auto rank1 = spawn_ranks({1}, [port](int r) {
    sleep(2);  // after the idle connection
    const Env env = rank_env(r, 2, port, "30");
    const auto world = tcp_world_from_env(lookup(env));
    world->barrier();
    return 0;
  });
  const auto start = std::chrono::steady_clock::now();
  const Env env = rank_env(0, 2, port, "30");
  const auto world = tcp_world_from_env(lookup(env));
  ASSERT_NE(world, nullptr);
  world->barrier();
  const auto waited_s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(waited_s, 15) << "rank 0 waited for the idle connection's hello";
  EXPECT_EQ(wait_ranks(rank1), std::vector<int>({0}));
  EXPECT_EQ(wait_ranks(idle), std::vector<int>({0}));
}

// torchrun's agent keeps its store on MASTER_PORT: rank 0's bind fails there and says what to set;
// PIPEBENCH_RENDEZVOUS_PORT moves the rendezvous.
TEST(TcpRendezvous, APortHeldByTorchrunsStoreIsNamedAndCanBeMoved) {
  SocketFd held(socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  ASSERT_EQ(bind(held.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(held.get(), 1), 0);
  getsockname(held.get(), reinterpret_cast<sockaddr*>(&a), &len);
  Env env = rank_env(0, 2, ntohs(a.sin_port), "1");
  env["TORCHELASTIC_USE_AGENT_STORE"] = "True";
  try {
    (void)tcp_world_from_env(lookup(env));
    ADD_FAILURE() << "rank 0 listened on a port in use";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bind failed on rank 0 on host "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Address already in use (torchrun's agent serves its store on MASTER_PORT: "
                                         "set PIPEBENCH_RENDEZVOUS_PORT"),
              std::string::npos)
        << e.what();
  }
  env["PIPEBENCH_RENDEZVOUS_PORT"] = std::to_string(free_loopback_port(29500));
  EXPECT_EQ(rendezvous_from_env(lookup(env), 0, 2).master_port, std::stoi(env["PIPEBENCH_RENDEZVOUS_PORT"]));
}

TEST(TcpRendezvous, BadVariablesAreUsageErrors) {
  const auto rejects = [](Env env, const std::string& message) {
    try {
      (void)tcp_world_from_env(lookup(env));
      ADD_FAILURE() << "accepted: " << message;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  Env env = rank_env(0, 1, 29555);
  env["MASTER_PORT"] = "99999";
  rejects(env, "MASTER_PORT=99999: not a port number in [1, 65535]");
  env["MASTER_PORT"] = "0";
  rejects(env, "MASTER_PORT=0: not a port number in [1, 65535]");
  env["MASTER_PORT"] = "29555 ";
  rejects(env, "MASTER_PORT=29555 : not a port number in [1, 65535]");
  env.erase("MASTER_PORT");
  rejects(env,
          "MASTER_ADDR=127.0.0.1 is set but MASTER_PORT is not: a launch without MPI needs both (rank 0's host "
          "and port)");
  env = rank_env(0, 1, 29555);
  env["MASTER_ADDR"] = "";
  rejects(env, "MASTER_ADDR is empty: a launch without MPI needs MASTER_ADDR and MASTER_PORT (rank 0's host and port)");
  env = rank_env(0, 1, 29555);
  env["PIPEBENCH_RENDEZVOUS_PORT"] = "-1";
  rejects(env, "PIPEBENCH_RENDEZVOUS_PORT=-1: not a port number in [1, 65535]");
  env = rank_env(0, 1, 29555, "0");
  rejects(env, "PIPEBENCH_RENDEZVOUS_TIMEOUT_S=0: not a whole number of seconds in [1, 86400]");
  env = rank_env(2, 2, 29555);
  rejects(env, "RANK=2 WORLD_SIZE=2: the rank is not below the number of ranks");
  env = rank_env(0, 2, 29555);
  env["RANK"] = "x";
  rejects(env, "RANK=x: not a whole number in [0, 16777216]");
}

TEST(TcpRendezvous, MpiLaunchersAndPlainProcessesTakeNoRendezvous) {
  Env env = rank_env(0, 2, 29555);
  env["OMPI_COMM_WORLD_RANK"] = "0";
  env["OMPI_COMM_WORLD_SIZE"] = "2";
  EXPECT_EQ(tcp_world_from_env(lookup(env)), nullptr);  // mpirun: MPI forms the world
  env = rank_env(0, 2, 29555);
  env["PMIX_RANK"] = "0";
  EXPECT_EQ(tcp_world_from_env(lookup(env)), nullptr);
  EXPECT_EQ(tcp_world_from_env(lookup({{"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}})), nullptr);  // no RANK
  EXPECT_EQ(tcp_world_from_env(lookup({{"RANK", "0"}, {"WORLD_SIZE", "1"}})), nullptr);          // MPI as before
}

}  // namespace
}  // namespace pipebench
