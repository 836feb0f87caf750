// tinylm tokenize: GPT-2 byte-level BPE from the command line (tokenizer/bpe_tokenizer.h),
// and the word and char tokenizers with a vocabulary built from a corpus.
//   tinylm tokenize --input FILE [--ids | --count] [--threads N]   encode (stdin if no --input)
//   tinylm tokenize --decode [--input FILE]                        ids -> text
//   tinylm tokenize --check CASES.jsonl                            compare with tiktoken
//   tinylm tokenize --tokenizer PATH [--add-special-tokens]        a Hugging Face tokenizer.json
//                   [--decode [--skip-special-tokens]] [--check CASES.jsonl]
//                                                     (PATH: the file, or a folder holding it)
//   tinylm tokenize --tokenizer FOLDER --chat MESSAGES.json [--add-generation-prompt] [--text]
//                   the conversation through the folder's chat template: its ids, or the
//                   prompt text itself (jinja/chat_template_render.h)
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "cli/cli_util.h"
#include "jinja/chat_template_render.h"
#include "tokenizer/bpe_check.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/hf_json_check.h"
#include "tokenizer/hf_json_tokenizer.h"
#include "tokenizer/load.h"
#include "tokenizer/token_id_list.h"
#include "util/error.h"
#include "util/files.h"

namespace tinylm::cli {

namespace {

std::string read_input(const std::string& path) {
  if (!path.empty() && path != "-") return read_file(path);
  return std::string(std::istreambuf_iterator<char>(std::cin), {});
}

int run_hf_check(const HfJsonTokenizer& tok, const std::string& path) {
  const HfCheckResult r = check_hf_jsonl(tok, read_file(path), path);
  for (const auto& m : r.mismatches) {
    std::printf("mismatch at %s:%zu (%s): text %s\n", path.c_str(), m.line, m.what.c_str(),
                nlohmann::json(m.text)
                    .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                    .c_str());
    if (!m.expected.empty()) std::printf("  expected %s\n", m.expected.c_str());
    std::printf("  got      %s\n", m.got.c_str());
  }
  std::printf("%zu passed, %zu failed\n", r.passed, r.failed);
  return r.failed == 0 ? 0 : 1;
}

int run_check(const BpeTokenizer& tok, const std::string& path) {
  const BpeCheckResult r = check_jsonl(tok, read_file(path), path);
  for (const auto& m : r.mismatches) {
    std::printf("mismatch at %s:%zu: text %s\n", path.c_str(), m.line,
                nlohmann::json(m.text)
                    .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                    .c_str());
    std::printf("  expected %s\n", format_ids(m.expected).c_str());
    if (m.error.empty()) {
      std::printf("  got      %s\n", format_ids(m.got).c_str());
    } else {
      std::printf("  error    %s\n", m.error.c_str());
    }
  }
  std::printf("%zu passed, %zu failed\n", r.passed, r.failed);
  return r.failed == 0 ? 0 : 1;
}

// The flags of `tinylm tokenize`.
struct TokenizeArgs {
  std::string kind = "gpt2", vocab_dir, check_path, input, vocab_from, chat;
  bool print_ids = false, count = false, decode = false, ordinary = false;
  bool add_generation_prompt = false, text = false;
  bool add_special_tokens = false, skip_special_tokens = false;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
};

void add_tokenize_flags(CLI::App& app, TokenizeArgs& a) {
  app.add_option("--tokenizer", a.kind,
                 "gpt2 (OpenAI's files), bpe (any vocabulary in GPT-2's format, with "
                 "--vocab-dir), or word / char (Raschka's SimpleTokenizerV2 and characters: "
                 "the vocabulary is built from --vocab-from), or the path of a Hugging Face "
                 "tokenizer.json (or of a folder holding one, with its tokenizer_config.json)");
  app.add_option("--vocab-from", a.vocab_from,
                 "word / char: the corpus whose vocabulary is used (default: the input itself)");
  app.add_option("--vocab-dir", a.vocab_dir,
                 "folder with encoder.json and vocab.bpe (default: the repo's data/gpt2)");
  app.add_option("--check", a.check_path,
                 "JSONL of {\"text\", \"ids\", \"allowed_special\"?} cases; prints mismatches "
                 "and 'N passed, M failed'; exit 0 only if none failed");
  app.add_option("--input", a.input,
                 "a file of text to encode (or of ids to decode); default stdin");
  app.add_flag("--ids", a.print_ids, "print the ids, space separated (the default)");
  app.add_flag("--count", a.count, "print only the number of tokens");
  app.add_flag("--decode", a.decode, "read comma/space separated ids, print the text");
  app.add_flag("--ordinary", a.ordinary,
               "treat <|endoftext|> as plain text (default: it becomes id 50256)");
  app.add_flag("--add-special-tokens", a.add_special_tokens,
               "tokenizer.json: add what the model adds around a text (BOS ...), as "
               "transformers' add_special_tokens=True");
  app.add_flag("--skip-special-tokens", a.skip_special_tokens,
               "tokenizer.json with --decode: leave special tokens out of the text");
  app.add_option("--chat", a.chat,
                 "tokenizer.json folder: a JSON file of messages ([{\"role\", \"content\"}], "
                 "or {\"messages\": [...], \"tools\": [...], other template variables such "
                 "as \"enable_thinking\"}) rendered with the folder's chat template");
  app.add_flag("--add-generation-prompt", a.add_generation_prompt,
               "--chat: end with the assistant's turn opened, as for generation");
  app.add_flag("--text", a.text, "--chat: print the rendered prompt instead of its ids");
  app.add_option("--threads", a.threads, "threads for large inputs")->check(CLI::Range(1, 1024));
}

// Decoded text as it is (no newline added), or the ids: their count, or one line of them
// separated by spaces.
void print_text(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
}

void print_ids(const std::vector<int32_t>& ids, bool count) {
  if (count) {
    std::printf("%zu\n", ids.size());
    return;
  }
  std::string out;
  out.reserve(ids.size() * 6);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ' ';
    out += std::to_string(ids[i]);
  }
  out += '\n';
  print_text(out);
}

// --chat FILE: its messages (a list, or an object's "messages"), tools and the other
// variables of an object form, as transformers' apply_chat_template takes them.
jinja::ChatRequest read_chat_request(const std::string& path, bool add_generation_prompt) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(read_file(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("--chat " + path + ": not JSON (" + e.what() + ")");
  }
  jinja::ChatRequest request;
  request.add_generation_prompt = add_generation_prompt;
  if (j.is_array()) j = {{"messages", j}};
  require(j.is_object() && j.contains("messages") && j["messages"].is_array(),
          "--chat " + path + ": expected a list of messages or {\"messages\": [...]}");
  for (const auto& [key, value] : j.items()) {
    if (key == "messages")
      request.messages = value;
    else if (key == "tools")
      request.tools = value;
    else if (key == "documents")
      request.documents = value;
    else
      request.kwargs[key] = value;
  }
  return request;
}

// --chat: the folder's chat template (tokenizer_config.json or chat_template.jinja).
int run_chat_template(const HfJsonTokenizer& tok, const TokenizeArgs& a) {
  const std::string folder =
      is_directory(a.kind) ? a.kind : std::filesystem::path(a.kind).parent_path().string();
  const jinja::ChatTemplates templates = jinja::ChatTemplates::load(folder.empty() ? "." : folder);
  const std::string prompt = templates.render(read_chat_request(a.chat, a.add_generation_prompt));
  if (a.text) {
    print_text(prompt);
    return 0;
  }
  print_ids(tok.encode(prompt, false), a.count);  // the template wrote the special tokens
  return 0;
}

// --tokenizer word / char: the vocabulary of --vocab-from (or of the input itself).
int run_corpus_tokenizer(const TokenizeArgs& a) {
  require(a.check_path.empty(),
          "--check compares GPT-2 BPE with tiktoken: not with --tokenizer " + a.kind);
  require(!a.ordinary,
          "--ordinary applies to BPE tokenizers only (tiktoken's "
          "encode_ordinary), not to --tokenizer " +
              a.kind);
  require(!a.vocab_from.empty() || !a.decode,
          "--decode with --tokenizer " + a.kind + " needs --vocab-from");
  const std::string in = read_input(a.input);
  const auto tok =
      tokenizer_for_corpus(a.kind, a.vocab_from.empty() ? in : read_file(a.vocab_from));
  if (a.decode) {
    print_text(tok->decode(parse_token_ids(in, "--decode")));
    return 0;
  }
  print_ids(tok->encode(in), a.count);
  std::fflush(stdout);  // the ids first, then the note
  std::fprintf(stderr, "%s vocabulary of %lld tokens\n", a.kind.c_str(),
               static_cast<long long>(tok->vocab_size()));
  return 0;
}

// --tokenizer gpt2 / bpe: encode, decode or --check against tiktoken's ids.
int run_bpe_tokenizer(const TokenizeArgs& a) {
  require(a.vocab_from.empty(), "--vocab-from is for --tokenizer word / char");
  const BpeTokenizer tok(a.vocab_dir.empty() ? default_gpt2_dir() : a.vocab_dir, a.kind);
  if (!a.check_path.empty()) return run_check(tok, a.check_path);
  const std::string in = read_input(a.input);
  if (a.decode) {
    print_text(tok.decode(parse_token_ids(in, "--decode")));
    return 0;
  }
  print_ids(a.ordinary ? tok.encode_ordinary(in)
                       : tok.encode_parallel(in, AllowedSpecials::every(), a.threads),
            a.count);
  return 0;
}

// --tokenizer PATH: a Hugging Face tokenizer.json (hf_json_tokenizer.h).
int run_hf_tokenizer(const TokenizeArgs& a) {
  require(a.vocab_from.empty() && a.vocab_dir.empty(),
          "--vocab-from and --vocab-dir are not for a tokenizer.json");
  require(!a.ordinary,
          "--ordinary is for GPT-2 BPE: a tokenizer.json parses its added tokens "
          "in the text");
  require(file_exists(a.kind), "--tokenizer " + a.kind +
                                   ": not gpt2, bpe, word or char, and no such file or folder "
                                   "(expected a tokenizer.json or a folder holding one)");
  const auto tok = open_hf_json_tokenizer(a.kind);
  if (!a.check_path.empty()) return run_hf_check(*tok, a.check_path);
  if (!a.chat.empty()) return run_chat_template(*tok, a);
  const std::string in = read_input(a.input);
  if (a.decode) {
    print_text(tok->decode(parse_token_ids(in, "--decode"), a.skip_special_tokens));
    return 0;
  }
  print_ids(tok->encode(in, a.add_special_tokens), a.count);
  return 0;
}

bool is_named_tokenizer(const std::string& kind) {
  return kind == "gpt2" || kind == "bpe" || kind == "word" || kind == "char";
}

}  // namespace

int run_tokenize(int argc, char** argv) {
  CLI::App app{
      "Encode text to GPT-2 BPE token ids (exactly as OpenAI's tiktoken \"gpt2\"), "
      "decode ids to text, or check the tokenizer against reference encodings.",
      "tinylm tokenize"};
  TokenizeArgs a;
  add_tokenize_flags(app, a);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  require(!(a.count && a.print_ids), "--count and --ids exclude each other");
  require(!(a.decode && (a.count || a.print_ids)), "--decode prints text: no --count or --ids");
  require(a.kind != "bpe" || !a.vocab_dir.empty(), "--tokenizer bpe needs --vocab-dir");
  require(!a.kind.empty(), "--tokenizer: an empty name or path");
  require(!a.chat.empty() || (!a.add_generation_prompt && !a.text),
          "--add-generation-prompt and --text go with --chat");
  require(a.chat.empty() || (!a.decode && !a.add_special_tokens),
          "--chat renders a conversation: no --decode or --add-special-tokens");
  if (!is_named_tokenizer(a.kind)) return run_hf_tokenizer(a);
  require(a.chat.empty(), "--chat needs --tokenizer FOLDER with a chat template");
  require(!a.add_special_tokens && !a.skip_special_tokens,
          "--add-special-tokens and --skip-special-tokens are for a tokenizer.json");
  return a.kind == "word" || a.kind == "char" ? run_corpus_tokenizer(a) : run_bpe_tokenizer(a);
}

}  // namespace tinylm::cli
