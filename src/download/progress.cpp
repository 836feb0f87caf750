// The download progress line (see progress.h).
#include "download/progress.h"

#include <unistd.h>

#include <algorithm>

namespace tinylm::download {

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) bytes /= 1000, ++u;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

Progress::Progress(std::FILE* out, std::string name, uint64_t total, uint64_t already)
    : out_(out),
      name_(std::move(name)),
      total_(total),
      already_(already),
      terminal_(isatty(fileno(out)) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void Progress::update(uint64_t have) {
  const auto now = std::chrono::steady_clock::now();
  if (terminal_) {
    if (now - last_draw_ < std::chrono::milliseconds(200)) return;
  } else {
    const int tenth = total_ ? static_cast<int>(10 * have / total_) : 10;
    if (tenth == last_tenth_) return;
    last_tenth_ = tenth;
  }
  last_draw_ = now;
  draw(have, false);
}

void Progress::finish() {
  draw(total_, true);
}

void Progress::draw(uint64_t have, bool last) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate =
      seconds > 0 ? static_cast<double>(have - std::min(have, already_)) / seconds : 0.0;
  const double left = static_cast<double>(total_ - std::min(total_, have));
  std::string line = name_ + "  " + human_bytes(static_cast<double>(have)) + " / " +
                     human_bytes(static_cast<double>(total_)) + "  " + human_bytes(rate) + "/s";
  if (!last && rate > 0) line += "  ETA " + std::to_string(static_cast<long>(left / rate)) + " s";
  if (last) line += "  done";
  if (terminal_) {
    const int width = 30;
    const int filled = total_ ? static_cast<int>(width * std::min(have, total_) / total_) : width;
    std::string bar = "[";
    bar.append(static_cast<size_t>(filled), '#').append(static_cast<size_t>(width - filled), ' ');
    bar += "] ";
    std::fprintf(out_, "\r\033[K%s%s%s", bar.c_str(), line.c_str(), last ? "\n" : "");
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

}  // namespace tinylm::download
