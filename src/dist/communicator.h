// The processes that train one run together (data parallelism, docs/distributed.md):
// which one this is, how many there are, and the few collectives the training loop needs.
// A process started without mpirun is a world of one (every collective leaves the data
// as it is); under mpirun, in a build with MPI, the world is MPI_COMM_WORLD. This is the
// seam another implementation (NCCL) plugs into.
#pragma once
#include <cstdint>
#include <string>

namespace tinylm::dist {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;  // 0 .. size() - 1; rank 0 logs and writes
  virtual int size() const = 0;
  virtual std::string name() const = 0;  // "one process", "MPI (Open MPI v4.1.4)"

  // data[0, n) on every rank := the sum over ranks (MPI_Allreduce: the grouping of the
  // additions is MPI's, the same on every rank but not fixed across world sizes).
  virtual void all_reduce_sum(float* data, int64_t n) = 0;
  virtual void all_reduce_sum(double* data, int64_t n) = 0;
  // data[0, n) on every rank := ((rank 0 + rank 1) + rank 2) + ..., added in rank order
  // (gathered on rank 0 in chunks, summed, broadcast): the same bits for any world size
  // as one process adding the same parts in the same order.
  virtual void all_reduce_ordered(float* data, int64_t n) = 0;
  virtual void all_reduce_ordered(double* data, int64_t n) = 0;
  virtual void broadcast(float* data, int64_t n) = 0;  // rank 0's data to every rank
  virtual void barrier() = 0;
  // Ends every rank of the job with `code` (a rank that fails must not leave the others
  // waiting in a collective).
  [[noreturn]] virtual void abort(int code) = 0;
};

// The process's world: MPI when mpirun (or another MPI launcher) started it and the build
// has MPI, else one process. Made on first use.
Communicator& world();
// True when an MPI launcher started this process (its environment says so).
bool launched_by_mpi();
// The end of the program with exit `code`: MPI_Finalize after 0 or 130 (every rank agreed
// to stop), else abort, so that no rank waits on one that failed. Nothing without MPI.
void finish(int code);

// The one-process world (also what tests use).
class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string name() const override { return "one process"; }
  void all_reduce_sum(float*, int64_t) override {}
  void all_reduce_sum(double*, int64_t) override {}
  void all_reduce_ordered(float*, int64_t) override {}
  void all_reduce_ordered(double*, int64_t) override {}
  void broadcast(float*, int64_t) override {}
  void barrier() override {}
  [[noreturn]] void abort(int code) override;
};

}  // namespace tinylm::dist
