// The training progress line: step, loss, lr, tokens/s, ETA. On a terminal it redraws
// in place; otherwise (a pipe, a log file, CI) it prints one plain line per report.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tinylm {

class Progress {
 public:
  Progress(int64_t total_steps, bool quiet);

  // Call after each step; prints at most every `every` steps (and always the last).
  // mfu: model FLOPs utilisation in [0, 1] (shown as a percentage), or < 0 to leave out.
  void step(int64_t step, double loss, double lr, double tokens_per_s, double mfu = -1);
  // Prints a whole line (e.g. an evaluation), moving past a redrawn progress line first.
  void line(const std::string& text);
  void finish();

  static std::string format_duration(double seconds);  // "3m12s", "1h04m", "42s"

 private:
  int64_t total_;
  bool quiet_, tty_;
  bool dirty_ = false;  // a redrawn line is on screen
  std::chrono::steady_clock::time_point start_;
  int64_t first_step_ = -1;
};

}  // namespace tinylm
