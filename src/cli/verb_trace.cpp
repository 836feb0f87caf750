// tinylm trace --run RUN_DIR | --model HF_DIR --text "...": one input walked through the
// model as plain text, the way a transformer course does (the numbers come from
// report/trace.h):
//   1. the tokens (position, id, text)
//   2. per position, the first --dims dimensions of the token embedding, the position
//      embedding and their sum (the residual stream entering block 0, with its L2 norm)
//   3. per block: each head's attention weights (T x T; only the last query row when
//      T > 16) and the L2 norm of the residual stream per position after the block
//   4. the top-5 next tokens at the last position
// --answer: then greedily generates tokens one at a time (for the addition task: the
// answer digits, least significant first) and shows, for each generated token, which
// input positions every head of the last block (or of --answer-block N) attends to most.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "cli/model_flags.h"
#include "data/addition.h"
#include "report/figures.h"
#include "report/greedy_trace.h"
#include "report/trace.h"
#include "tokenizer/stream_decoder.h"
#include "util/error.h"
#include "util/utf8.h"

namespace tinylm::cli {

namespace {

constexpr int64_t kFullMatrixMaxTokens = 16;  // beyond this, only the last query row
constexpr int64_t kTopNext = 5;
constexpr int64_t kTopAttended = 3;

// s padded with spaces to `width` characters (code points, so "␣the" is 4 wide).
std::string padded(const std::string& s, size_t width, bool align_right = false) {
  const size_t chars = utf8_decode(s).size();
  const std::string fill(chars < width ? width - chars : 0, ' ');
  return align_right ? fill + s : s + fill;
}

// The problem in `text` when it is exactly an addition prompt "aaa+bbb=".
bool addition_prompt_in(const std::string& text, AdditionProblem& problem) {
  if (static_cast<int64_t>(text.size()) != kAdditionPromptLen) return false;
  try {
    problem = parse_addition(text);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// How each position is labelled: its token's visible text, and for an addition problem
// its role in "aaa+bbb=" followed by the answer digits (data/addition.h).
struct Labels {
  const Tokenizer& tokenizer;
  bool addition = false;

  std::string token(int32_t id) const {
    if (!tokenizer.spells(id)) return "[PAD" + std::to_string(id) + "]";  // a padding id
    return report::visible_token(tokenizer.decode({id}));
  }

  std::string role(int64_t pos) const { return addition ? addition_position_role(pos) : ""; }

  // "pos 2 '3' (a 1s)"
  std::string position(const std::vector<int32_t>& ids, int64_t pos) const {
    std::string s = "pos " + std::to_string(pos) + " '" + token(ids[pos]) + "'";
    const std::string r = role(pos);
    return r.empty() ? s : s + " (" + r + ")";
  }
};

void print_tokens(const report::Trace& trace, const Labels& labels) {
  std::printf("\n== 1. tokens (%zu) ==\n", trace.ids.size());
  std::printf("  %4s %7s  %s\n", "pos", "id", "token");
  for (size_t t = 0; t < trace.ids.size(); ++t) {
    const std::string role = labels.role(static_cast<int64_t>(t));
    const std::string token = labels.token(trace.ids[t]);
    std::printf("  %4zu %7d  %s\n", t, trace.ids[t],
                role.empty() ? token.c_str() : (padded(token, 12) + role).c_str());
  }
}

void print_vector(const char* name, const float* v, int64_t n) {
  std::printf("    %-9s [", name);
  for (int64_t i = 0; i < n; ++i) std::printf("%s%7.3f", i ? " " : "", v[i]);
  std::printf(" ]\n");
}

void print_embeddings(const report::Trace& trace, const Labels& labels, int64_t d_model) {
  const int64_t D = trace.dims;
  std::printf("\n== 2. embeddings (first %lld of %lld dims; %s positions) ==\n",
              static_cast<long long>(D), static_cast<long long>(d_model), trace.positions.c_str());
  for (size_t t = 0; t < trace.ids.size(); ++t) {
    std::printf("  %s\n", labels.position(trace.ids, static_cast<int64_t>(t)).c_str());
    print_vector("token", trace.token_embedding.data() + t * D, D);
    if (trace.position_embedding.empty()) continue;  // rotary: q and k turn in attention
    print_vector("position", trace.position_embedding.data() + t * D, D);
    print_vector("sum", trace.embedding_sum.data() + t * D, D);
  }
}

void print_norms(const char* title, const std::vector<float>& norms) {
  std::printf("  %s:\n   ", title);
  for (size_t t = 0; t < norms.size(); ++t) {
    std::printf(" %zu:%.3f", t, norms[t]);
    if (t % 10 == 9 && t + 1 < norms.size()) std::printf("\n   ");
  }
  std::printf("\n");
}

// att [T, T] of one head: the full causal matrix, 2 decimals ("." above the diagonal).
void print_attention_matrix(const float* att, const std::vector<int32_t>& ids,
                            const Labels& labels) {
  const auto T = static_cast<int64_t>(ids.size());
  std::printf("    %-14s", "query \\ key");
  for (int64_t k = 0; k < T; ++k) std::printf(" %4lld", static_cast<long long>(k));
  std::printf("\n");
  for (int64_t q = 0; q < T; ++q) {
    std::printf("    %s", padded(std::to_string(q) + " " + labels.token(ids[q]), 14).c_str());
    for (int64_t k = 0; k < T; ++k) {
      if (k <= q)
        std::printf(" %4.2f", att[q * T + k]);
      else
        std::printf(" %4s", ".");
    }
    std::printf("\n");
  }
}

// The last query row of one head, 4 keys per line.
void print_last_attention_row(const float* att, const std::vector<int32_t>& ids,
                              const Labels& labels) {
  const auto T = static_cast<int64_t>(ids.size());
  const float* row = att + (T - 1) * T;
  std::printf("    query %s attends to:", labels.position(ids, T - 1).c_str());
  for (int64_t k = 0; k < T; ++k) {
    if (k % 4 == 0) std::printf("\n     ");
    std::printf(" %s %.2f",
                padded(std::to_string(k) + " " + labels.token(ids[k]), 15, true).c_str(), row[k]);
  }
  std::printf("\n");
}

void print_blocks(const report::Trace& trace, const Labels& labels) {
  const auto T = static_cast<int64_t>(trace.ids.size());
  std::printf("\n== 3. blocks ==\n");
  print_norms("residual stream L2 norm per position before block 0 (the embedding sum)",
              trace.input_norms);
  for (size_t l = 0; l < trace.blocks.size(); ++l) {
    const report::BlockTrace& block = trace.blocks[l];
    const int64_t H = block.attention.dim(0);
    std::printf("\n-- block %zu --\n", l);
    for (int64_t h = 0; h < H; ++h) {
      std::printf("  head %lld attention weights%s:\n", static_cast<long long>(h),
                  T > kFullMatrixMaxTokens ? " (last query row only)" : " (row = query)");
      const float* att = block.attention.data() + h * T * T;
      if (T > kFullMatrixMaxTokens)
        print_last_attention_row(att, trace.ids, labels);
      else
        print_attention_matrix(att, trace.ids, labels);
    }
    const std::string title =
        "residual stream L2 norm per position after block " + std::to_string(l);
    print_norms(title.c_str(), block.residual_norms);
  }
}

void print_top_next(const report::Trace& trace, const Labels& labels) {
  const auto T = static_cast<int64_t>(trace.ids.size());
  std::printf("\n== 4. next token after %s (top %zu) ==\n",
              labels.position(trace.ids, T - 1).c_str(), trace.top_next.size());
  std::printf("  %4s %7s  %-12s %s\n", "rank", "id", "token", "probability");
  for (size_t i = 0; i < trace.top_next.size(); ++i)
    std::printf("  %4zu %7d  %s %.4f\n", i + 1, trace.top_next[i].id,
                padded(labels.token(trace.top_next[i].id), 12).c_str(),
                trace.top_next[i].probability);
}

// Greedy generation, one token at a time (report/greedy_trace.h); for each, the positions
// each head of `block` attends to most from the query position that predicts it.
void print_answer(GPT& model, const std::vector<int32_t>& ids, int64_t max_tokens, int64_t block,
                  const Labels& labels, const std::string& text) {
  std::printf("\n== answer: greedy, one token at a time; where block %lld's heads look ==\n",
              static_cast<long long>(block));
  AdditionProblem problem;
  const bool is_problem = labels.addition && addition_prompt_in(text, problem);
  if (is_problem)
    std::printf("  expected (%d + %d = %d, digits least significant first): %s\n", problem.a,
                problem.b, problem.a + problem.b, addition_answer(problem).c_str());
  const report::GreedyTrace g =
      report::trace_greedy(model, ids, max_tokens, block, kTopAttended, labels.tokenizer.eot_id());
  for (size_t step = 0; step < g.steps.size(); ++step) {
    const report::GreedyStep& s = g.steps[step];
    const std::string role = labels.role(s.query + 1);
    std::printf("  token %zu%s: '%s' (id %d, p %.3f), predicted at %s\n", step,
                role.empty() ? "" : (" = " + role).c_str(), labels.token(s.next.id).c_str(),
                s.next.id, s.next.probability, labels.position(g.ids, s.query).c_str());
    for (size_t h = 0; h < s.heads.size(); ++h) {
      std::printf("    head %zu:", h);
      for (const auto& a : s.heads[h])
        std::printf("  %s %.2f", labels.position(g.ids, a.position).c_str(), a.weight);
      std::printf("\n");
    }
  }
  if (g.context_full) std::printf("  (stopped: the context is full)\n");
  const std::string generated = decode_generated(
      labels.tokenizer, std::vector<int32_t>(g.ids.begin() + ids.size(), g.ids.end()), false);
  std::printf("  generated: \"%s\"", generated.c_str());
  if (is_problem)
    std::printf(" -> %s", is_correct_answer(problem, generated) ? "correct" : "WRONG");
  std::printf("\n");
}

void trace_text(GPT& model, const Tokenizer& tokenizer, bool addition, const std::string& text,
                const std::string& source, int64_t dims, bool answer, int64_t answer_tokens,
                int64_t answer_block) {
  const std::vector<int32_t> ids = tokenizer.encode(text);
  require(!ids.empty(), "--text encodes to no tokens");
  const int64_t block_size = model.config().block_size;
  require(static_cast<int64_t>(ids.size()) <= block_size,
          "--text is " + std::to_string(ids.size()) +
              " tokens, longer than the model's context (block_size " + std::to_string(block_size) +
              ")");
  const GPTConfig& c = model.config();
  if (answer_block < 0) answer_block = c.n_layer - 1;
  require(answer_block < c.n_layer, "--answer-block " + std::to_string(answer_block) +
                                        ": the model has blocks 0.." +
                                        std::to_string(c.n_layer - 1));
  std::printf("tinylm trace: %s (%lld layers, %lld heads, d_model %lld, vocab %lld)\n",
              source.c_str(), static_cast<long long>(c.n_layer), static_cast<long long>(c.n_head),
              static_cast<long long>(c.d_model), static_cast<long long>(c.vocab_size));
  // Position roles only where they hold: an addition run given "aaa+bbb=...".
  AdditionProblem problem;
  const bool addition_problem =
      addition && addition_prompt_in(text.substr(0, kAdditionPromptLen), problem);
  const Labels labels{tokenizer, addition_problem};
  const report::Trace trace = report::trace_input(model, ids, dims, kTopNext);
  print_tokens(trace, labels);
  print_embeddings(trace, labels, c.d_model);
  print_blocks(trace, labels);
  print_top_next(trace, labels);
  if (answer) print_answer(model, ids, answer_tokens, answer_block, labels, text);
}

}  // namespace

int run_trace(int argc, char** argv) {
  CLI::App app{
      "Walk one input through a model: tokens, embeddings, attention per head, "
      "residual norms, next-token probabilities.",
      "tinylm trace"};
  std::string text;
  ModelFlags source;
  int64_t dims = 8, answer_tokens = kAdditionAnswerLen, answer_block = -1;
  bool answer = false;
  add_model_flags(app, source);
  app.add_option("--text", text, "the text to run through the model")->required();
  app.add_option("--dims", dims, "embedding dimensions to print per position")
      ->capture_default_str()
      ->check(at_least(1));
  app.add_flag("--answer", answer,
               "then generate greedily, one token at a time (addition: the answer digits), "
               "showing the input positions each head of the last block attends to most");
  app.add_option("--answer-tokens", answer_tokens, "how many tokens --answer generates at most")
      ->capture_default_str()
      ->check(at_least(1));
  app.add_option("--answer-block", answer_block,
                 "whose heads --answer shows (default: the last block)")
      ->check(at_least(0));
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(has_model(source), "nothing to trace: pass --run or --model");
  require(!text.empty(), "--text is empty");
  OpenedModel m = open_model(source);
  trace_text(m.gpt(), *m.tokenizer, m.is_addition(), text, m.source.path, dims, answer,
             answer_tokens, answer_block);
  return 0;
}

}  // namespace tinylm::cli
