// Fuzz target for PEFT LoRA adapter folders (lora/peft.h: adapter_config.json and
// adapter_model.safetensors) loaded onto a small GPT with a classification head. CMake
// builds it with g++ as a deterministic mutation loop that ctest runs
// (tests/common/mutation_fuzzer_main.cpp, seeds in tests/fuzz_seeds/fuzz_peft). By hand
// with libFuzzer, the readers instrumented (one line, folded; run it as the script says):
//
//   tests/common/build_libfuzzer.sh fuzz_peft src/lora/peft.cpp src/io/safetensors.cpp
//     src/util/json_read.cpp
//
// The first byte picks the file the rest replaces, in a folder that otherwise holds one
// of two valid adapters of the model (written once at start by save_peft_adapter):
//   byte % 2:      0: adapter_config.json, 1: adapter_model.safetensors
//   byte / 2 % 2:  the other file from 0: r 2, targets c_attn, c_proj, c_fc, the head
//                  saved whole; 1: r 2, targets c_attn and the head, use_rslora
//
// Property checked: for any bytes, load_peft_adapter either returns or throws InputError;
// anything else (a crash, a sanitizer report, another exception, a huge allocation) is a
// bug. Adapters it returns fit the model (a forward pass through the body and the head
// runs), and no adapter stays attached to the model once the set is gone, whether the
// load succeeded or was refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/fuzz_files.h"
#include "lora/peft.h"
#include "model/gpt.h"
#include "tensor/threads.h"
#include "util/error.h"
#include "util/files.h"

namespace {

using namespace tinylm;

struct Adapter {
  std::string config, tensors;  // the two files
};

struct Fixture {
  GPT body;
  nn::Linear head;
  testing::FuzzFolder folder{"fuzz_peft"};
  Adapter valid[2];

  static GPTConfig shape() {
    GPTConfig c;
    c.vocab_size = 16;
    c.block_size = 8;
    c.n_layer = 1;
    c.n_head = 2;
    c.d_model = 8;
    return c;
  }

  Adapter save(Rng& rng, const std::vector<std::string>& targets, bool saved_head, bool rslora) {
    LoraConfig lora;
    lora.r = 2;
    lora.alpha = 4;
    lora.targets = targets;
    lora.rslora = rslora;
    const std::string dir = folder.path() + "/valid";
    {
      LoraSet set(body, &head, lora, rng);
      for (auto& a : set.attached()) a.adapter->B.value.fill(0.01f);  // not all zeros
      PeftInfo info;
      info.task_type = "SEQ_CLS";
      info.base_model_name_or_path = "gpt2";
      if (saved_head) info.saved_head = &head.weight;
      save_peft_adapter(set, dir, info);
    }
    return {read_file(dir + "/adapter_config.json"), read_file(dir + "/adapter_model.safetensors")};
  }

  Fixture() : body(shape()), head(8, 2, false) {
    set_num_threads(1);  // one input at a time: threads would only wait on each other
    Rng rng(1);
    body.init(rng);
    head.init(rng, 0.02f);
    valid[0] = save(rng, {"c_attn", "c_proj", "c_fc"}, true, false);
    valid[1] = save(rng, {"c_attn", "head"}, false, true);
  }

  bool any_adapter_attached() {
    for (const std::string& m : adaptable_modules(body, &head))
      if (find_linear(body, &head, m)->adapter) return true;
    return false;
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Fixture& f = fixture();
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool config = data[0] % 2 == 0;
  const Adapter& other = f.valid[data[0] / 2 % 2];
  f.folder.write("adapter_config.json", config ? rest : std::string_view(other.config));
  f.folder.write("adapter_model.safetensors", config ? std::string_view(other.tensors) : rest);
  try {
    const std::unique_ptr<LoraSet> set = load_peft_adapter(f.body, &f.head, f.folder.path());
    if (!set || set->attached().empty()) std::abort();
    const int32_t ids[4] = {0, 5, 9, 15};
    const Tensor hidden = f.body.forward_hidden(ids, 1, 4);  // [1, 4, 8]
    if (f.head.forward(hidden).numel() != 8) std::abort();   // [1, 4, 2]
  } catch (const InputError&) {
    // rejected cleanly
  }
  if (f.any_adapter_attached()) std::abort();  // left behind by the load
  return 0;
}
