// The routes that describe the served model and use its tokenizer (OpenAI's and
// llama.cpp's server's shapes); Server::routes() puts them at their paths:
//   GET  /v1/models, /v1/models/{id}     -> {"object": "list", "data": [model_json]}, model_json
//   GET  /props                          -> props_json: shape, tokenizer, chat template,
//                                           slots, context and the sampling defaults
//   POST /tokenize {"content", "with_pieces": false}
//     -> {"tokens": [id]}, or with pieces [{"id", "piece", "bytes"}]
//   POST /detokenize {"tokens": [id]}    -> {"content"}
//   POST /apply-template {"messages"}    -> {"prompt"}: the chat template's text for
//                                           them, as /v1/chat/completions feeds the model
// Bad bodies throw ApiError 400 naming the field.
#pragma once
#include <nlohmann/json_fwd.hpp>

#include "serve/http_json.h"  // httplib::Request, Response
#include "serve/server.h"

namespace tinylm::serve {

nlohmann::json model_json(const ServedModel& model);
nlohmann::json props_json(const ServedModel& model, const Engine& engine);
void answer_tokenize(const ServedModel& model, const httplib::Request& req, httplib::Response& res);
void answer_apply_template(const ServedModel& model, const httplib::Request& req,
                           httplib::Response& res);
void answer_detokenize(const ServedModel& model, const httplib::Request& req,
                       httplib::Response& res);

}  // namespace tinylm::serve
