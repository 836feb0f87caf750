#include "train/interrupt.h"

#include <unistd.h>

#include <csignal>
#include <cstdlib>

namespace tinylm {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
volatile std::sig_atomic_t g_announce = 1;

void on_sigint(int) {
  if (g_interrupted) _exit(130);  // second Ctrl-C: stop now
  g_interrupted = 1;
  if (!g_announce) return;
  const char msg[] =
      "\ninterrupt: finishing this step and saving a checkpoint (Ctrl-C again to abort)\n";
  (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
}

}  // namespace

void install_interrupt_handler(bool announce) {
  g_interrupted = 0;
  g_announce = announce ? 1 : 0;
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
}

void restore_default_interrupt() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

bool interrupt_requested() {
  return g_interrupted != 0;
}
void request_interrupt() {
  g_interrupted = 1;
}

}  // namespace tinylm
