#include "run/checkpoint.h"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "io/safetensors.h"
#include "util/error.h"
#include "util/files.h"
#include "util/integer_text.h"
#include "util/json_read.h"

namespace tinylm {

namespace {

std::string rng_to_string(const std::array<uint64_t, 4>& s) {
  return std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]) + "," +
         std::to_string(s[3]);
}

std::array<uint64_t, 4> rng_from_string(const std::string& text, const std::string& what) {
  // Four decimal words separated by commas, nothing else ("-1" does not wrap).
  std::array<uint64_t, 4> s{};
  size_t pos = 0;
  for (int i = 0; i < 4; ++i) {
    const size_t comma = i < 3 ? text.find(',', pos) : text.size();
    const std::optional<uint64_t> word =
        comma == std::string::npos
            ? std::nullopt
            : decimal_unsigned(std::string_view(text).substr(pos, comma - pos));
    require(word.has_value(), what + ": malformed generator state");
    s[i] = *word;
    pos = comma + 1;
  }
  return s;
}

const std::string& meta(const SafeTensors& f, const std::string& key, const std::string& path) {
  auto it = f.metadata.find(key);
  require(it != f.metadata.end(), path + ": not a tinylm checkpoint (no " + key + ")");
  return it->second;
}

CheckpointState state_from(const SafeTensors& f, const std::string& path) {
  CheckpointState s;
  require(meta(f, "tinylm.format", path) == "1", path + ": unsupported checkpoint format");
  try {
    s.step = parse_integer(meta(f, "tinylm.step", path), 0, INT64_MAX, path + ": tinylm.step");
    s.config = parse_json(meta(f, "tinylm.config", path), path + ": tinylm.config");
    s.tokenizer = parse_json(meta(f, "tinylm.tokenizer", path), path + ": tinylm.tokenizer");
    s.best_val_loss = std::stod(meta(f, "tinylm.best_val_loss", path));
    s.val_loss = std::stod(meta(f, "tinylm.val_loss", path));
    const auto world = f.metadata.find("tinylm.world_size");
    if (world != f.metadata.end())
      s.world_size = parse_integer(world->second, 1, INT32_MAX, path + ": tinylm.world_size");
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(path + ": malformed checkpoint metadata (" + e.what() + ")");
  }
  s.batch_rng = rng_from_string(meta(f, "tinylm.rng.batches", path), path);
  s.dropout_rng = rng_from_string(meta(f, "tinylm.rng.dropout", path), path);
  return s;
}

bool all_finite(const Tensor& on_any_device) {
  const Tensor t = on_any_device.to(Device::kCpu);
  const float* p = t.data();
  bool finite = true;
  for (int64_t i = 0; i < t.numel(); ++i) finite &= std::isfinite(p[i]);
  return finite;
}

}  // namespace

std::string first_non_finite(const ParameterList& params, AdamW& optimizer) {
  for (const auto& p : params)
    if (!all_finite(p.param->value)) return "weight " + p.name;
  const ParameterList& trained = optimizer.params();  // frozen parameters have no moments
  for (size_t i = 0; i < trained.size(); ++i)
    if (!all_finite(optimizer.first_moments()[i]) || !all_finite(optimizer.second_moments()[i]))
      return "the AdamW moment of " + trained[i].name;
  return "";
}

std::string first_non_finite(GPT& model, AdamW& optimizer) {
  return first_non_finite(model.parameters(), optimizer);
}

std::string SavedCheckpoints::newest() const {
  if (last_step < 0 && best_step < 0) return "";
  return last_step >= best_step ? last : best;
}

std::string SavedCheckpoints::describe() const {
  const auto one = [](const std::string& path, int64_t step, const std::string& error) {
    const std::string name = path.substr(path.find_last_of('/') + 1);
    return step >= 0 ? name + " (step " + std::to_string(step) + ")"
                     : name + " (unreadable: " + error + ")";
  };
  if (!any()) return "no checkpoint";
  if (best.empty()) return one(last, last_step, last_error);
  if (last.empty()) return one(best, best_step, best_error) + " but no last.safetensors";
  return one(last, last_step, last_error) + " and " + one(best, best_step, best_error);
}

SavedCheckpoints find_checkpoints(const std::string& dir) {
  SavedCheckpoints s;
  const auto look = [&](const std::string& path, std::string& found, int64_t& step,
                        std::string& error) {
    if (!file_exists(path)) return;
    found = path;
    try {
      step = read_checkpoint_state(path).step;
    } catch (const InputError& e) {
      error = e.what();
    }
  };
  look(dir + "/last.safetensors", s.last, s.last_step, s.last_error);
  look(dir + "/best.safetensors", s.best, s.best_step, s.best_error);
  return s;
}

void save_checkpoint(const std::string& path, GPT& model, AdamW* optimizer,
                     const CheckpointState& state) {
  save_checkpoint(path, model.parameters(), optimizer, state);
}

void save_checkpoint(const std::string& path, const ParameterList& params, AdamW* optimizer,
                     const CheckpointState& state) {
  if (optimizer) {
    const std::string bad = first_non_finite(params, *optimizer);
    if (!bad.empty())
      throw std::runtime_error("refusing to write " + path + ": " + bad + " is not finite");
  }
  // Host copies of tensors on another device: the file is the same for every device.
  std::vector<std::pair<std::string, Tensor>> tensors;
  const auto add = [&](const std::string& name, const Tensor& t) {
    tensors.emplace_back(name, t.to(Device::kCpu));
  };
  for (const auto& p : params) add("model." + p.name, p.param->value);
  if (optimizer) {  // moments of the trainable parameters only (frozen ones have none)
    const ParameterList& trained = optimizer->params();
    for (size_t i = 0; i < trained.size(); ++i) {
      add("optim.m." + trained[i].name, optimizer->first_moments()[i]);
      add("optim.v." + trained[i].name, optimizer->second_moments()[i]);
    }
  }
  char loss_buf[64], val_buf[64];
  std::snprintf(loss_buf, sizeof loss_buf, "%.17g", state.best_val_loss);
  std::snprintf(val_buf, sizeof val_buf, "%.17g", state.val_loss);
  save_safetensors(path, tensors,
                   {{"tinylm.format", "1"},
                    {"tinylm.step", std::to_string(state.step)},
                    {"tinylm.config", state.config.dump()},
                    {"tinylm.tokenizer", state.tokenizer.dump()},
                    {"tinylm.rng.batches", rng_to_string(state.batch_rng)},
                    {"tinylm.rng.dropout", rng_to_string(state.dropout_rng)},
                    {"tinylm.best_val_loss", loss_buf},
                    {"tinylm.val_loss", val_buf},
                    {"tinylm.world_size", std::to_string(state.world_size)}});
}

CheckpointState read_checkpoint_state(const std::string& path) {
  return state_from(load_safetensors(path), path);
}

CheckpointState load_checkpoint(const std::string& path, GPT& model, AdamW* optimizer) {
  return load_checkpoint(load_safetensors(path), path, model.parameters(), optimizer);
}

CheckpointState load_checkpoint(const std::string& path, const ParameterList& params,
                                AdamW* optimizer) {
  return load_checkpoint(load_safetensors(path), path, params, optimizer);
}

CheckpointState checkpoint_state(const SafeTensors& f, const std::string& path) {
  return state_from(f, path);
}

CheckpointState load_checkpoint(const SafeTensors& f, const std::string& path, GPT& model,
                                AdamW* optimizer) {
  return load_checkpoint(f, path, model.parameters(), optimizer);
}

CheckpointState load_checkpoint(const SafeTensors& f, const std::string& path,
                                const ParameterList& params, AdamW* optimizer) {
  CheckpointState state = state_from(f, path);
  const auto load_into = [&](const std::string& key, Tensor& dst) {
    require(f.has(key),
            path + ": missing tensor " + key + " (a checkpoint from a different model config?)");
    const Tensor t = f.get(key).to_float();
    require(t.shape() == dst.shape(), path + ": tensor " + key + " has shape " +
                                          shape_str(t.shape()) + ", the model expects " +
                                          shape_str(dst.shape()) +
                                          " (a checkpoint from a different model config?)");
    dst.copy_from(t);
  };
  for (const auto& p : params) load_into("model." + p.name, p.param->value);
  if (optimizer) {
    const ParameterList& trained = optimizer->params();
    for (size_t i = 0; i < trained.size(); ++i) {
      load_into("optim.m." + trained[i].name, optimizer->first_moments()[i]);
      load_into("optim.v." + trained[i].name, optimizer->second_moments()[i]);
    }
  }
  if (optimizer) optimizer->set_steps_taken(state.step);
  return state;
}

}  // namespace tinylm
