// The "dist" section of a training or fine-tuning config (docs/distributed.md):
//   "dist": { "reduce": "sum" | "ordered", "check_replicas": false }
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace tinylm {

struct DistSettings {
  std::string reduce = "sum";   // "sum": MPI's all-reduce; "ordered": the same bits for any world
  bool check_replicas = false;  // compare the ranks' parameters after every step

  // The section (absent: the defaults); InputError naming "dist.<field>".
  static DistSettings from_json(const nlohmann::json& section);
  nlohmann::json to_json() const;
};

}  // namespace tinylm
