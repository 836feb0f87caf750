// MPI_COMM_WORLD as a Communicator (Open MPI from Debian's libopenmpi-dev; any MPI 3).
// Initialises MPI when made and finalises it when destroyed.
#pragma once
#include <memory>

#include "dist/communicator.h"

namespace tinylm::dist {

// Null in a build without MPI (the caller falls back to one process, with a warning).
std::unique_ptr<Communicator> make_mpi_communicator();

}  // namespace tinylm::dist
