#include "dist/communicator.h"

#include <cstdlib>
#include <memory>

#include "dist/mpi_communicator.h"

namespace tinylm::dist {

void SingleProcess::abort(int code) {
  std::exit(code);
}

bool launched_by_mpi() {
  // Open MPI's mpirun, PMIx launchers (Open MPI 5, Slurm) and MPICH's hydra.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

namespace {

std::unique_ptr<Communicator>& the_world() {
  static std::unique_ptr<Communicator> w;
  return w;
}

}  // namespace

Communicator& world() {
  auto& w = the_world();
  if (!w) w = launched_by_mpi() ? make_mpi_communicator() : nullptr;
  if (!w) w = std::make_unique<SingleProcess>();
  return *w;
}

void finish(int code) {
  auto& w = the_world();
  if (!w || w->size() == 1) {
    w.reset();  // MPI_Finalize for an MPI world of one
    return;
  }
  if (code != 0 && code != 130) w->abort(code);
  w.reset();
}

}  // namespace tinylm::dist
