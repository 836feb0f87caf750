#include "train/interrupt.h"

#include <unistd.h>

#include <csignal>
#include <cstdlib>

namespace tinylm {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
volatile std::sig_atomic_t g_announce = 1;

// Ctrl-C is the user's; SIGTERM may come from mpirun ending a job that lost a rank, where
// the step cannot finish: its message promises nothing.
void on_sigint(int sig) {
  if (g_interrupted) _exit(130);  // second Ctrl-C: stop now
  g_interrupted = 1;
  if (!g_announce) return;
  static const char kInterrupt[] =
      "\ninterrupt: finishing this step and saving a checkpoint (Ctrl-C again to abort)\n";
  static const char kTerminate[] =
      "\nterminated: a checkpoint is saved if this step can finish (SIGTERM again to abort)\n";
  if (sig == SIGTERM)
    (void)!::write(STDERR_FILENO, kTerminate, sizeof kTerminate - 1);
  else
    (void)!::write(STDERR_FILENO, kInterrupt, sizeof kInterrupt - 1);
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
