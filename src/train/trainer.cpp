#include "train/trainer.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "backend/registry.h"
#include "dist/communicator.h"
#include "lora/peft.h"
#include "model/gpt.h"
#include "open/base_model.h"
#include "ops/matmul_bf16.h"
#include "report/flops.h"
#include "report/text_table.h"
#include "run/trainable.h"
#include "tensor/threads.h"
#include "train/lm_plan.h"
#include "train/lm_task.h"
#include "train/loop.h"
#include "train/run_session.h"
#include "train/samples.h"
#include "util/error.h"

namespace tinylm {

namespace {

LoopSettings loop_settings(const TrainConfig& c, const TrainOptions& options) {
  const TrainSettings& t = c.train;
  LoopSettings s;
  s.program = "tinylm train";
  s.total_steps = t.max_steps;
  s.micro_batches = t.grad_accum;
  s.use(t, t, t.lr_decay_steps < 0 ? t.max_steps : t.lr_decay_steps);
  s.evaluate_first = true;
  s.keep_best = true;
  s.grad_norm_layers = c.model.n_layer;
  // MFU as nanoGPT and llm.c report it: 3 x the forward matrix products (report/flops.h).
  s.flops_per_step =
      static_cast<double>(
          report::estimate_flops(c.model, t.batch_size, c.model.block_size).train_per_step) *
      static_cast<double>(t.grad_accum);
  const Backend& device = backend_for(options.device);
  if (device.peak_flops) s.peak_flops = device.peak_flops();
  s.quiet = options.quiet;
  s.stop_after = options.stop_after;
  s.use(c.dist);
  return s;
}

// " per rank x 2 ranks (MPI (Open MPI v4.1.4))" in a data-parallel run, else "".
std::string ranks_text() {
  const dist::Communicator& world = dist::world();
  if (world.size() == 1) return "";
  return " per rank x " + std::to_string(world.size()) + " ranks (" + world.name() + ")";
}

// "", ", bf16 products (oneDNN brg:avx512_core_bf16 (AVX512_BF16))" on the CPU (which
// kernel, said once per run), ", on cuda (tf32 products)"
std::string where_text(const TrainOptions& options) {
  if (options.device != Device::kCpu)
    return std::string(", on ") + device_name(options.device) + " (" +
           ops::precision_name(options.precision) + " products)";
  if (options.precision == ops::MatmulPrecision::kBf16)
    return ", bf16 products (" + ops::matmul_bf16_kernel() + ")";
  return "";
}

// "tinylm train: 1,234 parameters (...), vocab 65 (char), 1,000 tokens train / ..."
void print_header(const TrainConfig& c, const TrainOptions& options, const TrainingData& data,
                  const Trainables& trained, const RunSession& session) {
  const ParameterCounts counts = count_parameters(session.params());
  std::string targets;
  for (const auto& t : c.lora.targets) targets += (targets.empty() ? "" : ",") + t;
  const std::string lora =
      trained.lora ? " (" + report::with_commas(counts.trainable) + " trainable: LoRA r " +
                         std::to_string(c.lora.r) + " on " +
                         std::to_string(trained.lora->attached().size()) + " layers, " + targets +
                         "; " + report::with_commas(counts.frozen) + " frozen)"
                   : "";
  const std::string from = c.train.init_from.empty() ? "" : ", from " + c.train.init_from;
  const std::string resuming =
      session.resumed() ? ", resuming at step " + std::to_string(session.step) : "";
  const std::string where = where_text(options);
  std::printf(
      "tinylm train: %s parameters%s%s, vocab %lld (%s), %s tokens train / %s val, "
      "%d threads%s\n",
      report::with_commas(counts.trainable + counts.frozen).c_str(), lora.c_str(), from.c_str(),
      static_cast<long long>(data.tokenizer().vocab_size()), data.tokenizer().kind().c_str(),
      data.is_addition() ? "generated" : std::to_string(data.train_tokens()).c_str(),
      data.is_addition() ? "held-out" : std::to_string(data.val_tokens()).c_str(), num_threads(),
      (ranks_text() + where + resuming).c_str());
  std::fflush(stdout);
}

// The micro-batches of a step shared equally by the ranks (else InputError: exit 2).
void require_shared_equally(const TrainSettings& t, int world) {
  if (world == 1 || t.grad_accum % world == 0) return;
  throw InputError("train.global_batch = " + std::to_string(t.batch_size * t.grad_accum) +
                   " sequences is " + std::to_string(t.grad_accum) +
                   " micro-batches of train.batch_size " + std::to_string(t.batch_size) +
                   ", which " + std::to_string(world) +
                   " ranks cannot share equally; make global_batch a multiple of batch_size x " +
                   std::to_string(world));
}

}  // namespace

int train(const TrainConfig& config, const TrainOptions& given) {
  dist::Communicator& world = dist::world();
  require_shared_equally(config.train, world.size());
  TrainOptions options = given;
  if (world.rank() != 0) options.quiet = true;  // rank 0 speaks for the run
  if (world.size() > 1)
    require(options.device == Device::kCpu, "data-parallel training runs on the CPU for now");
  LmRunPlan plan = plan_lm_run(config, options);
  const TrainConfig& c = plan.config;
  const TrainingData& data = *plan.data;
  GPT model(c.model);
  if (plan.base) {
    copy_base_weights(*plan.base, model);
    plan.base.reset();  // the base's memory is not needed any more
  } else {
    Rng init_rng(c.train.seed);
    model.init(init_rng);
  }
  const Trainables trained = choose_trainables(model, c);
  if (options.device != Device::kCpu) require_device(options.device);
  use_matmul_precision(options.device, options.precision);
  if (options.device != Device::kCpu) {  // before the optimizer makes its moments
    model.to(options.device);
    move_parameters(trained.params, options.device);  // adapters too
  }
  RunSession session(std::move(plan.folder), trained.params, adamw_config(c.train), c.train.seed);
  session.begin(c.to_json(), data.tokenizer());
  if (!options.quiet) print_header(c, options, data, trained, session);

  LmTask task(model, data, c, session, trained.lora.get());
  const int code = run_training_loop(task, session, loop_settings(c, options));
  if (code == 0 && session.step == c.train.max_steps && c.sample.max_new_tokens > 0 &&
      !options.quiet)
    std::printf("--- sample (temperature %.2f, top-k %lld) ---\n%s\n---\n", c.sample.temperature,
                static_cast<long long>(c.sample.top_k),
                sample_text(model, data.tokenizer(), c.sample, c.train.seed).c_str());
  return code;
}

}  // namespace tinylm
