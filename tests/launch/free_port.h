// SPDX-License-Identifier: Apache-2.0
// A loopback TCP port no one listens on now, for the rendezvous tests.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "launch/tcp_rendezvous.h"

namespace pipebench {

// The kernel's pick for port 0 (a race with other programs is possible but unlikely on a test machine);
// `fallback` where the kernel gives none.
inline int free_loopback_port(int fallback) {
  SocketFd fd(socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return fallback;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

}  // namespace pipebench
