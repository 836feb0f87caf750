#include "serve/http_json.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

namespace tinylm::serve {

std::string json_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void send_json(httplib::Response& res, const nlohmann::json& j, int status) {
  res.status = status;
  res.set_content(json_text(j), "application/json");
}

nlohmann::json byte_list(const std::string& s) {
  nlohmann::json bytes = nlohmann::json::array();
  for (unsigned char ch : s) bytes.push_back(ch);
  return bytes;
}

}  // namespace tinylm::serve
