#include "serve/connection.h"

#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace tinylm::serve {

namespace {

using GetName = int (*)(int, sockaddr*, socklen_t*);

// One end of a socket as httplib spells it (numeric host, port); false if it has none.
bool end_of(int socket, GetName get, std::string& host, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (get(socket, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return false;
  char h[NI_MAXHOST], p[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, h, sizeof(h), p, sizeof(p),
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return false;
  host = h;
  port = std::atoi(p);
  return true;
}

bool is_connection_of(int socket, const httplib::Request& req) {
  std::string host;
  int port = -1;
  return end_of(socket, getpeername, host, port) && host == req.remote_addr &&
         port == req.remote_port && end_of(socket, getsockname, host, port) &&
         host == req.local_addr && port == req.local_port;
}

}  // namespace

int connection_socket(const httplib::Request& req) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    const std::string name = entry.path().filename().string();
    char* end = nullptr;
    const long fd = std::strtol(name.c_str(), &end, 10);
    if (*end == '\0' && is_connection_of(static_cast<int>(fd), req)) return static_cast<int>(fd);
  }
  return -1;
}

bool client_gone(int socket, const httplib::Request& req) {
  if (socket < 0) return false;
  if (!is_connection_of(socket, req)) return true;  // closed, and the number reused
  char byte;
  const ssize_t n = ::recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0) return false;                                           // bytes waiting: still there
  if (n == 0) return true;                                           // the client closed its side
  return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;  // reset
}

}  // namespace tinylm::serve
