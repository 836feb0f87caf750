#include "serve/model_routes.h"

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "serve/api_error.h"
#include "serve/chat_request.h"
#include "serve/openai_request.h"  // parse_body
#include "tokenizer/stream_decoder.h"

namespace tinylm::serve {

using nlohmann::json;

json model_json(const ServedModel& model) {
  return json{
      {"id", model.id}, {"object", "model"}, {"created", model.created}, {"owned_by", "tinylm"}};
}

json props_json(const ServedModel& model, const Engine& engine) {
  const GPTConfig& c = model.model->config();
  return json{
      {"model", model.id},
      {"source", model.source},
      {"shape",
       {{"n_layer", c.n_layer},
        {"n_head", c.n_head},
        {"d_model", c.d_model},
        {"vocab_size", c.vocab_size},
        {"block_size", c.block_size}}},
      {"tokenizer", model.tokenizer->kind()},
      {"chat_template", model.chat_template.name},
      // the model's own template's text (llama.cpp's /props has it as chat_template)
      {"chat_template_source", model.chat_template.source},
      {"chat_stops", model.chat_template.stops()},
      {"slots", engine.parallel()},
      {"context", engine.context()},
      // llama.cpp's server's names for the same
      {"total_slots", engine.parallel()},
      {"model_path", model.path},
      {"default_generation_settings", {{"n_ctx", engine.context()}}},
      {"defaults", {{"max_tokens", 16}, {"temperature", 1.0}, {"top_p", 1.0}, {"top_k", 0}}}};
}

void answer_apply_template(const ServedModel& model, const httplib::Request& req,
                           httplib::Response& res) {
  const nlohmann::ordered_json body = parse_ordered_body(req.body);
  send_json(res, {{"prompt", model.chat_template.render_conversation(chat_conversation(body))}});
}

void answer_tokenize(const ServedModel& model, const httplib::Request& req,
                     httplib::Response& res) {
  const json body = parse_body(req.body);
  if (!body.is_object() || !body.contains("content") || !body["content"].is_string())
    throw bad_field("content", "'content' must be a string");
  const auto with_pieces = body.find("with_pieces");
  if (with_pieces != body.end() && !with_pieces->is_boolean() && !with_pieces->is_null())
    throw bad_field("with_pieces", "'with_pieces' must be true or false");
  const bool pieces =
      with_pieces != body.end() && with_pieces->is_boolean() && with_pieces->get<bool>();
  json tokens = json::array();
  for (int32_t id : model.tokenizer->encode(body["content"].get<std::string>())) {
    if (!pieces) {
      tokens.push_back(id);
      continue;
    }
    const std::string piece = model.tokenizer->decode_piece(id, false);
    tokens.push_back({{"id", id}, {"piece", piece}, {"bytes", byte_list(piece)}});
  }
  send_json(res, {{"tokens", tokens}});
}

void answer_detokenize(const ServedModel& model, const httplib::Request& req,
                       httplib::Response& res) {
  const json body = parse_body(req.body);
  if (!body.is_object() || !body.contains("tokens") || !body["tokens"].is_array())
    throw bad_field("tokens", "'tokens' must be a list of token ids");
  const int64_t V = model.model->config().vocab_size;  // a padding id spells as nothing
  std::vector<int32_t> ids;
  for (const json& id : body["tokens"]) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= V)
      throw bad_field("tokens", "'tokens' must hold ids in [0, " + std::to_string(V) + ")");
    ids.push_back(static_cast<int32_t>(id.get<int64_t>()));
  }
  send_json(res, {{"content", decode_generated(*model.tokenizer, ids, /*after_text=*/false)}});
}

}  // namespace tinylm::serve
