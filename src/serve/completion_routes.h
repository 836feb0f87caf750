// POST /v1/completions and POST /v1/chat/completions: the request checked
// (openai_request.h), one engine job per prompt and choice, and the answer in OpenAI's
// shapes: one JSON object, or with "stream": true server-sent events
//   completions: {"object": "text_completion", choices: [{text, index, logprobs,
//                 finish_reason}], usage}; streamed as chunks of the same shape
//   chat:        {"object": "chat.completion", choices: [{index, message: {role,
//                 content}, logprobs: {content: [...]}, finish_reason}], usage};
//                streamed as "chat.completion.chunk": a role delta, content deltas, a
//                final delta with finish_reason, then (stream_options.include_usage) a
//                chunk with "choices": [] and usage
// and "data: [DONE]" at the end of every stream. The text of a stream is the text of the
// same request answered at once. A client that goes away cancels its jobs.
#pragma once
#include "serve/engine.h"
#include "serve/http_json.h"  // httplib::Request, Response
#include "serve/server.h"

namespace tinylm::serve {

enum class Api { kCompletions, kChat };

// Throws ApiError for a bad request (400), a full queue (503) or a timeout (504).
void answer_completion(Api api, const ServedModel& model, Engine& engine,
                       const httplib::Request& req, httplib::Response& res, int timeout_seconds);

}  // namespace tinylm::serve
