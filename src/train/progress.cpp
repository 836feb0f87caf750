#include "train/progress.h"

#include <unistd.h>

#include <cmath>

namespace tinylm {

Progress::Progress(int64_t total_steps, bool quiet)
    : total_(total_steps), quiet_(quiet), tty_(::isatty(STDOUT_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

std::string Progress::format_duration(double s) {
  char buf[32];
  if (!std::isfinite(s) || s < 0) return "?";
  const long total = std::lround(s);
  if (total >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", total / 3600, total % 3600 / 60);
  else if (total >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", total / 60, total % 60);
  else std::snprintf(buf, sizeof buf, "%lds", total);
  return buf;
}

void Progress::step(int64_t step, double loss, double lr, double tokens_per_s, double mfu) {
  if (quiet_) return;
  if (first_step_ < 0) first_step_ = step, start_ = std::chrono::steady_clock::now();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int64_t done = step - first_step_ + 1;
  const double eta = done > 0 ? elapsed / done * static_cast<double>(total_ - step - 1) : 0;
  char mfu_text[32] = "";
  if (mfu >= 0) std::snprintf(mfu_text, sizeof mfu_text, " | MFU %.1f%%", 100 * mfu);
  char buf[240];
  std::snprintf(buf, sizeof buf, "step %5lld/%lld | loss %.4f | lr %.2e | %8.0f tok/s%s | ETA %s",
                static_cast<long long>(step + 1), static_cast<long long>(total_), loss, lr,
                tokens_per_s, mfu_text, format_duration(eta).c_str());
  if (tty_) {
    std::printf("\r\033[K%s", buf);
    dirty_ = true;
  } else {
    std::printf("%s\n", buf);
  }
  std::fflush(stdout);
}

void Progress::line(const std::string& text) {
  if (quiet_) return;
  if (dirty_) std::printf("\r\033[K");
  dirty_ = false;
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
}

void Progress::finish() {
  if (!quiet_ && dirty_) std::printf("\n");
  dirty_ = false;
  std::fflush(stdout);
}

}  // namespace tinylm
