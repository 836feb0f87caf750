#include "run/dist_settings.h"

#include <nlohmann/json.hpp>

#include "dist/gradient_sync.h"
#include "run/section_reader.h"

namespace tinylm {

DistSettings DistSettings::from_json(const nlohmann::json& section) {
  DistSettings d;
  SectionReader(section, "dist")
      .string("reduce", d.reduce)
      .boolean("check_replicas", d.check_replicas)
      .done();
  dist::reduce_mode(d.reduce, "dist.reduce");  // InputError for an unknown mode
  return d;
}

nlohmann::json DistSettings::to_json() const {
  return {{"reduce", reduce}, {"check_replicas", check_replicas}};
}

}  // namespace tinylm
