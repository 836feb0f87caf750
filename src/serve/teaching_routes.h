// What the playground draws, under /tinylm/ (run on the engine's thread between steps):
//   POST /tinylm/next-token {"prompt", "temperature", "top_k", "top_p", "top": 20}
//     -> {"tokens": [{id, text}] of the prompt,
//         "before": the `top` most likely next tokens [{id, text, prob}] of
//                   softmax(logits) (what the model says),
//         "after":  the same after temperature, top-k and top-p [{id, text, prob}]
//                   (what sampling draws from), "candidates": how many remain}
//   POST /tinylm/attention {"prompt"}
//     -> {"tokens": [text], "layers": L, "heads": H,
//         "attention": [L][H][T][T] (row q: query q's weights over keys 0..q)}
// The data of `tinylm attention` (report/attention_maps.h), for at most 256 tokens.
#pragma once
#include "serve/http_json.h"  // httplib::Request, Response
#include "serve/server.h"

namespace tinylm::serve {

void answer_next_token(const ServedModel& model, Engine& engine, const httplib::Request& req,
                       httplib::Response& res);
void answer_attention(const ServedModel& model, Engine& engine, const httplib::Request& req,
                      httplib::Response& res);

}  // namespace tinylm::serve
