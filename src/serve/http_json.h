// JSON in and out of the server's routes, in one place: answers are written with invalid
// UTF-8 (a token holding part of a character) replaced by U+FFFD, and a token's exact
// bytes go out as a list of numbers (OpenAI's and llama.cpp's "bytes").
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace tinylm::serve {

// The text of j for an answer (invalid UTF-8 replaced, never a throw).
std::string json_text(const nlohmann::json& j);
// res = j as application/json with the given status.
void send_json(httplib::Response& res, const nlohmann::json& j, int status = 200);
// The bytes of s as [0..255, ...].
nlohmann::json byte_list(const std::string& s);

}  // namespace tinylm::serve
