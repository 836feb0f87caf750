// Whether the client of a request is still connected. cpp-httplib 0.11 (Debian 12's)
// tells a handler nothing about its connection, so the handler of a long answer finds
// its socket once (the one socket of this process whose two ends are the request's
// addresses and ports: TCP names a connection by them) and asks between polls. A
// non-streamed completion whose client hung up is then cancelled, as a stream is when
// a write fails.
#pragma once

namespace httplib {
struct Request;
}

namespace tinylm::serve {

// The socket req came in on; -1 when none is found.
int connection_socket(const httplib::Request& req);

// True when the client on socket (from connection_socket(req)) has closed the connection
// or reset it, or the socket no longer is req's; false while it is open and for socket -1.
// Bytes the client sent ahead (a pipelined request) are left unread.
bool client_gone(int socket, const httplib::Request& req);

}  // namespace tinylm::serve
