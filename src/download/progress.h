// Progress of one file's download: on a terminal a bar redrawn in place (bytes, rate,
// ETA), otherwise a plain line now and then, so logs stay readable.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tinylm::download {

class Progress {
 public:
  // total: the file's size; already: bytes there before this run (a resumed download).
  Progress(std::FILE* out, std::string name, uint64_t total, uint64_t already);
  void update(uint64_t have);  // bytes of the file written so far
  void finish();               // the last line

 private:
  void draw(uint64_t have, bool last);

  std::FILE* out_;
  std::string name_;
  uint64_t total_, already_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int last_tenth_ = -1;
};

// "548.1 MB", "12.0 kB", "100 B" (decimal units, as the hub shows sizes).
std::string human_bytes(double bytes);

}  // namespace tinylm::download
