// The backend registry: which tables a build has, which one a device uses, and the
// errors for a name or a device this build does not have, or a kernel a table lacks.
#include "backend/registry.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "util/error.h"

namespace tinylm {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BackendRegistry, CpuTensorsUseTheFastKernelsAndRefIsRegistered) {
  EXPECT_STREQ(backend_for(Device::kCpu).name, "cpu");
  EXPECT_STREQ(on(Tensor::zeros({2})).name, "cpu");
  EXPECT_STREQ(backend_named("ref").name, "ref");
  EXPECT_EQ(registered_backends().front(), &backend_named("ref"));
  for (const Backend* b : registered_backends()) EXPECT_EQ(&backend_named(b->name), b);
}

TEST(BackendRegistry, TheCpuTablesHaveEveryKernel) {
  for (const char* name : {"cpu", "ref"}) {
    const Backend& b = backend_named(name);
    std::string why;
    EXPECT_TRUE(b.available(&why)) << name;
    for (bool present : {bool(b.matmul),
                         bool(b.linear_forward),
                         bool(b.linear_backward),
                         bool(b.matmul_bf16),
                         bool(b.to_bf16),
                         bool(b.linear_forward_bf16),
                         bool(b.layernorm_forward),
                         bool(b.layernorm_backward),
                         bool(b.activation_forward),
                         bool(b.activation_backward),
                         bool(b.softmax_forward),
                         bool(b.softmax_backward),
                         bool(b.attention_forward),
                         bool(b.attention_backward),
                         bool(b.attention_forward_tiled),
                         bool(b.attention_backward_tiled),
                         bool(b.embedding_forward),
                         bool(b.embedding_backward),
                         bool(b.dropout_forward),
                         bool(b.dropout_backward),
                         bool(b.cross_entropy),
                         bool(b.adamw_update),
                         bool(b.adamw_update_spans),
                         bool(b.clip_grad_norm)})
      EXPECT_TRUE(present) << name;
  }
}

TEST(BackendRegistry, UnknownNamesListWhatTheBuildHas) {
  const std::string m = message_of([] { backend_named("tpu"); });
  EXPECT_NE(m.find("'tpu'"), std::string::npos) << m;
  EXPECT_NE(m.find("cpu"), std::string::npos) << m;
}

#ifndef TINYLM_WITH_CUDA
TEST(BackendRegistry, ABuildWithoutCudaSaysSo) {
  const std::string m = message_of([] { backend_for(Device::kCuda); });
  EXPECT_NE(m.find("no cuda backend in this build"), std::string::npos) << m;
}
#endif

TEST(BackendKernel, AMissingKernelThrowsNamingIt) {
  const Kernel<int(int)> missing{"frobnicate"};
  EXPECT_FALSE(missing);
  const std::string m = message_of([&] { missing(1); });
  EXPECT_NE(m.find("frobnicate"), std::string::npos) << m;
  const Kernel<int(int)> present = +[](int x) { return 2 * x; };
  EXPECT_TRUE(present);
  EXPECT_EQ(present(21), 42);
}

}  // namespace
}  // namespace tinylm
