// Ctrl-C during training: the first SIGINT sets a flag the trainer checks after each
// step (it then writes a checkpoint and stops); a second one exits at once.
#pragma once

namespace tinylm {

// announce: print what happens at the first Ctrl-C (rank 0 of a data-parallel run only).
void install_interrupt_handler(bool announce = true);
void restore_default_interrupt();
bool interrupt_requested();
void request_interrupt();  // for tests: behave as if SIGINT arrived

}  // namespace tinylm
