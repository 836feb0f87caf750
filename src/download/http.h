// HTTP(S) for downloads, on libcurl (Debian's libcurl4-openssl-dev): a HEAD that reports
// the response's headers without following redirects, and a GET that streams the body to a
// callback, following redirects, from a byte offset (a Range request, to resume).
// Proxies come from the environment as libcurl reads them (https_proxy, HTTPS_PROXY,
// no_proxy ...). Network failures throw DownloadError with the reason (DNS, connection,
// TLS, timeout); an HTTP status is returned, never thrown.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tinylm::download {

// A failure to talk to the server (exit 1): the message says what failed and why.
struct DownloadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The transfer was stopped by its callback (Ctrl-C): what was written stays.
struct DownloadInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct HttpOptions {
  std::map<std::string, std::string> headers;  // sent with every request
  double connect_timeout_s = 10;
  double read_timeout_s = 10;  // no byte for this long: a timeout
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names in lower case; the last value wins
  std::string body;                            // HEAD: empty; get_text: the body

  std::string header(const std::string& lower_name) const;
};

// HEAD url without following redirects (the hub's answer for a large file is a redirect
// whose headers carry its sha256 and size).
HttpResponse head(const std::string& url, const HttpOptions& options);

// GET url (following redirects) into the body; for small answers (the hub's API).
HttpResponse get_text(const std::string& url, const HttpOptions& options);

// Called with each piece of a 2xx response's body and that response's status (206 when
// the range was honoured, 200 when the server sends the whole file from its start); false
// stops the transfer (DownloadInterrupted). Other answers' bodies go to HttpResponse::body.
using BodySink = std::function<bool(long status, std::string_view bytes)>;
// Called now and then with the bytes received so far in this request; false stops it.
using ProgressTick = std::function<bool(uint64_t received)>;

// GET url (following redirects) from byte `from` on (a Range request when from > 0) and
// streams the body to sink. Returns the final response's status and headers.
HttpResponse get_to_sink(const std::string& url, uint64_t from, const HttpOptions& options,
                         const BodySink& sink, const ProgressTick& tick);

}  // namespace tinylm::download
