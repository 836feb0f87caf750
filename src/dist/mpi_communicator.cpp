#include "dist/mpi_communicator.h"

#include <cstdio>

#ifdef TINYLM_WITH_MPI
#include <mpi.h>

#include <algorithm>
#include <vector>
#endif

namespace tinylm::dist {

#ifndef TINYLM_WITH_MPI

std::unique_ptr<Communicator> make_mpi_communicator() {
  std::fprintf(stderr,
               "tinylm: warning: started by an MPI launcher, but this build has no MPI "
               "(install libopenmpi-dev and rebuild); running as one process\n");
  return nullptr;
}

#else

namespace {

// MPI counts are int: long buffers go in chunks.
constexpr int64_t kChunk = int64_t{1} << 24;

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string name() const override {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string v(version, static_cast<size_t>(length));
    v = v.substr(0, v.find_first_of(",\n"));
    return "MPI (" + v + ")";
  }
  void all_reduce_sum(float* data, int64_t n) override { reduce(data, n, MPI_FLOAT); }
  void all_reduce_sum(double* data, int64_t n) override { reduce(data, n, MPI_DOUBLE); }
  void all_reduce_ordered(float* data, int64_t n) override { ordered(data, n, MPI_FLOAT); }
  void all_reduce_ordered(double* data, int64_t n) override { ordered(data, n, MPI_DOUBLE); }
  void broadcast(float* data, int64_t n) override {
    for (int64_t at = 0; at < n; at += kChunk)
      MPI_Bcast(data + at, count(n - at), MPI_FLOAT, 0, MPI_COMM_WORLD);
  }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  [[noreturn]] void abort(int code) override {
    std::fflush(stdout);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return; this is for the compiler
  }

 private:
  static int count(int64_t left) { return static_cast<int>(std::min(left, kChunk)); }
  template <typename T>
  void reduce(T* data, int64_t n, MPI_Datatype type) {
    for (int64_t at = 0; at < n; at += kChunk)
      MPI_Allreduce(MPI_IN_PLACE, data + at, count(n - at), type, MPI_SUM, MPI_COMM_WORLD);
  }
  template <typename T>
  void ordered(T* data, int64_t n, MPI_Datatype type);
  int rank_ = 0, size_ = 1;
};

template <typename T>
void MpiCommunicator::ordered(T* data, int64_t n, MPI_Datatype type) {
  std::vector<T> parts(rank_ == 0 ? static_cast<size_t>(std::min(n, kChunk) * size_) : 0);
  for (int64_t at = 0; at < n; at += kChunk) {
    const int c = count(n - at);
    MPI_Gather(data + at, c, type, parts.data(), c, type, 0, MPI_COMM_WORLD);
    if (rank_ == 0)
      for (int r = 1; r < size_; ++r) {  // rank 0's part is data itself: sum = r0 + r1 + ...
        const T* part = parts.data() + static_cast<int64_t>(r) * c;
        for (int i = 0; i < c; ++i) data[at + i] += part[i];
      }
    MPI_Bcast(data + at, c, type, 0, MPI_COMM_WORLD);
  }
}

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator() {
  return std::make_unique<MpiCommunicator>();
}

#endif

}  // namespace tinylm::dist
