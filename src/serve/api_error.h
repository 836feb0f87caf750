// An error of the OpenAI API: the HTTP status and the body every error has,
//   {"error": {"message": ..., "type": ..., "param": ... | null, "code": ... | null}}
// thrown by request parsing and the routes, answered by the server (server.cpp).
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace tinylm::serve {

struct ApiError : std::runtime_error {
  ApiError(int status, std::string message, std::string type = "invalid_request_error",
           std::string param = "", std::string code = "")
      : std::runtime_error(message),
        status(status),
        type(std::move(type)),
        param(std::move(param)),
        code(std::move(code)) {}

  nlohmann::json body() const {
    const auto or_null = [](const std::string& s) {
      return s.empty() ? nlohmann::json() : nlohmann::json(s);
    };
    return {{"error",
             {{"message", what()},
              {"type", type},
              {"param", or_null(param)},
              {"code", or_null(code)}}}};
  }

  int status;
  std::string type, param, code;
};

// 400 for one request field: "param" names it.
inline ApiError bad_field(const std::string& param, const std::string& message) {
  return ApiError(400, message, "invalid_request_error", param);
}

}  // namespace tinylm::serve
