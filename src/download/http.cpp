// HTTP on libcurl (see http.h).
#include "download/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <memory>
#include <mutex>

namespace tinylm::download {

namespace {

constexpr size_t kMaxErrorBody = 64 * 1024;

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// What one transfer collects: the last response's headers, and its body or error body.
struct Transfer {
  HttpResponse response;
  CURL* curl = nullptr;
  const BodySink* sink = nullptr;
  const ProgressTick* tick = nullptr;
  uint64_t received = 0;
  bool stopped = false;      // the sink or the tick said stop
  std::exception_ptr error;  // what the sink threw
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) t->response.headers.clear();  // a new response (redirect)
  if (const size_t colon = line.find(':'); colon != std::string_view::npos)
    t->response.headers[lower(std::string(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 200 && status < 300 && t->sink) {
    t->received += n;
    try {  // nothing may be thrown through libcurl: kept and thrown after it returns
      if (!(*t->sink)(status, std::string_view(data, n))) {
        t->stopped = true;
        return 0;  // libcurl: a write error, the transfer stops
      }
    } catch (...) {
      t->error = std::current_exception();
      return 0;
    }
    return n;
  }
  const size_t room = kMaxErrorBody - std::min(kMaxErrorBody, t->response.body.size());
  t->response.body.append(data, std::min(n, room));
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  bool go_on = true;
  try {
    go_on = !t->tick || !*t->tick || (*t->tick)(t->received);
  } catch (...) {
    t->error = std::current_exception();
    go_on = false;
  }
  if (!go_on) {
    t->stopped = true;
    return 1;  // abort
  }
  return 0;
}

std::string host_of(const std::string& url) {
  const size_t start = url.find("://");
  const size_t from = start == std::string::npos ? 0 : start + 3;
  return url.substr(from, url.find_first_of("/:?", from) - from);
}

// The reason a transfer failed, in words a user can act on.
std::string failure(CURLcode code, const std::string& url, const char* detail,
                    const HttpOptions& o) {
  const std::string why = detail[0] ? std::string(detail) : curl_easy_strerror(code);
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return "cannot resolve host " + host_of(url) + " (DNS): " + why;
    case CURLE_COULDNT_RESOLVE_PROXY:
      return "cannot resolve the proxy (DNS): " + why;
    case CURLE_COULDNT_CONNECT:
      return "cannot connect to " + host_of(url) + ": " + why;
    case CURLE_OPERATION_TIMEDOUT:
      return "timed out talking to " + host_of(url) + " (no data for " +
             std::to_string(static_cast<int>(o.read_timeout_s)) + " s): " + why;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
      return "TLS with " + host_of(url) + " failed: " + why;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
      return "the connection to " + host_of(url) + " broke off: " + why;
    default:
      return "download from " + host_of(url) + " failed: " + why;
  }
}

struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct EasyFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

HttpResponse perform(const std::string& url, const HttpOptions& o, bool head_only, uint64_t from,
                     const BodySink* sink, const ProgressTick* tick) {
  init_curl_once();
  std::unique_ptr<CURL, EasyFree> curl(curl_easy_init());
  if (!curl) throw DownloadError("libcurl could not start a transfer");
  std::unique_ptr<curl_slist, SlistFree> headers;
  for (const auto& [name, value] : o.headers) {
    const std::string line = name + ": " + value;
    headers.reset(curl_slist_append(headers.release(), line.c_str()));
  }
  Transfer t;
  t.curl = curl.get(), t.sink = sink, t.tick = tick;
  char detail[CURL_ERROR_SIZE] = {0};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "tinylm");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o.connect_timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);  // below 1 byte/s for read_timeout_s
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(o.read_timeout_s)));
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  if (head_only) {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
  }
  const std::string range = std::to_string(from) + "-";
  if (from > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
  const CURLcode code = curl_easy_perform(c);
  if (t.error) std::rethrow_exception(t.error);
  if (t.stopped) throw DownloadInterrupted("download interrupted");
  if (code != CURLE_OK) throw DownloadError(failure(code, url, detail, o));
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &t.response.status);
  return std::move(t.response);
}

}  // namespace

std::string HttpResponse::header(const std::string& lower_name) const {
  const auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

HttpResponse head(const std::string& url, const HttpOptions& options) {
  return perform(url, options, true, 0, nullptr, nullptr);
}

HttpResponse get_text(const std::string& url, const HttpOptions& options) {
  std::string body;
  const BodySink sink = [&body, &url](long, std::string_view bytes) {
    if (body.size() + bytes.size() > 16 * 1024 * 1024)  // no API answer is this big
      throw DownloadError("the answer of " + url + " is over 16 MiB: not the hub's API");
    body.append(bytes);
    return true;
  };
  HttpResponse r = perform(url, options, false, 0, &sink, nullptr);
  if (r.status >= 200 && r.status < 300) r.body = std::move(body);
  return r;
}

HttpResponse get_to_sink(const std::string& url, uint64_t from, const HttpOptions& options,
                         const BodySink& sink, const ProgressTick& tick) {
  return perform(url, options, false, from, &sink, &tick);
}

}  // namespace tinylm::download
