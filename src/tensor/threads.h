// The one piece of global state: how many threads OpenMP loops and OpenBLAS use.
#pragma once

namespace tinylm {

// n <= 0 means "all cores". Sets both OpenMP's and OpenBLAS's thread counts.
void set_num_threads(int n);
int num_threads();

}  // namespace tinylm
