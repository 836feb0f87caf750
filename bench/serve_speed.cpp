// `tinylm serve` under concurrent clients, beside tinylm's own single-stream generate:
// GPT-2 124M shape (random weights, GPT-2 tokenizer), prompts of --prompt token ids,
// --new tokens each (greedy, ignore_eos), streamed over loopback HTTP. The server is the
// real program (`tinylm serve --preset ... --port 0`, started here as a child process,
// stopped with SIGTERM), as users run it; generate runs in this process first.
// For 1, 2, 4 and 8 concurrent clients, --rounds times all starting together: generated
// tokens/s over the wall time (prefills included); decoding tokens/s while every client
// decodes (the tokens received between the last client's first token and the first
// client's last, over that span: llama.cpp's batched-bench S_TG, the median over rounds);
// and p50 / p95 time to first token (request sent to first token received).
//   serve_speed --tinylm build/tinylm [--preset gpt2-124m] [--prompt 64] [--new 64]
//               [--threads 2] [--rounds 2]
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "generate/generate.h"
#include "open/open_model.h"
#include "tensor/threads.h"

using namespace tinylm;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

struct Timing {
  Clock::time_point sent;                // request sent
  std::vector<Clock::time_point> times;  // each chunk with text received
  int64_t tokens = 0;
  double first_token() const { return seconds(times.front() - sent); }
};

// One streamed completion; the time to its first token and its token count.
Timing stream_one(int port, const std::vector<int32_t>& prompt, int64_t n_new) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(600);
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/completions";
  req.body = nlohmann::json({{"prompt", prompt},
                             {"max_tokens", n_new},
                             {"temperature", 0},
                             {"ignore_eos", true},
                             {"stream", true},
                             {"stream_options", {{"include_usage", true}}}})
                 .dump();
  req.set_header("Content-Type", "application/json");
  Timing t;
  t.sent = Clock::now();
  std::string buffer;
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    if (std::string_view(data, n).find("\"text\"") != std::string_view::npos)
      t.times.push_back(Clock::now());
    buffer.append(data, n);
    return true;
  };
  const auto r = c.send(req);
  if (!r || r->status != 200) {
    std::fprintf(stderr, "serve_speed: a request failed\n");
    std::exit(1);
  }
  const size_t at = buffer.rfind("\"completion_tokens\":");
  t.tokens = at == std::string::npos ? 0 : std::atoll(buffer.c_str() + at + 20);
  return t;
}

// Starts `tinylm serve` on a free port; returns its pid and port (after its ready line).
std::pair<pid_t, int> start_server(const std::string& tinylm, const std::string& preset,
                                   int64_t threads) {
  int out[2];
  if (pipe(out) != 0) std::exit(1);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    const std::string t = std::to_string(threads);
    execl(tinylm.c_str(), tinylm.c_str(), "serve", "--preset", preset.c_str(), "--port", "0",
          "--parallel", "8", "--threads", t.c_str(), static_cast<char*>(nullptr));
    std::perror("exec tinylm");
    std::_Exit(1);
  }
  close(out[1]);
  std::string line;
  char ch;
  while (read(out[0], &ch, 1) == 1 && ch != '\n') line += ch;
  const size_t at = line.find("http://127.0.0.1:");
  if (at == std::string::npos) {
    std::fprintf(stderr, "serve_speed: the server did not start: %s\n", line.c_str());
    std::exit(1);
  }
  return {pid, std::atoi(line.c_str() + at + 17)};
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
  std::string preset = "gpt2-124m", tinylm = "build/tinylm";
  int64_t prompt_len = 64, n_new = 64, threads = 2, rounds = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--preset")
      preset = argv[i + 1];
    else if (flag == "--tinylm")
      tinylm = argv[i + 1];
    else if (flag == "--prompt")
      prompt_len = std::atoll(argv[i + 1]);
    else if (flag == "--new")
      n_new = std::atoll(argv[i + 1]);
    else if (flag == "--threads")
      threads = std::atoll(argv[i + 1]);
    else if (flag == "--rounds")
      rounds = std::atoll(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  set_num_threads(static_cast<int>(threads));
  OpenedModel m = open_model(preset);
  GPT& model = *m.lm;
  const int64_t V = model.config().vocab_size;
  std::vector<std::vector<int32_t>> prompts;  // a different prompt per client
  for (int64_t k = 0; k < 8; ++k) {
    std::vector<int32_t> p(prompt_len);
    for (int64_t i = 0; i < prompt_len; ++i)
      p[i] = static_cast<int32_t>((k * 7919 + i * 104729) % V);
    prompts.push_back(p);
  }

  // tinylm's own generate: prefill, then greedy decoding with the KV cache.
  GenerateOptions o;
  o.max_new_tokens = n_new;
  o.sampling.greedy = true;
  Rng rng(1);
  generate(model, prompts[0], o, rng);  // warm-up
  Clock::time_point t0 = Clock::now(), first;
  int64_t count = 0;
  generate(model, prompts[0], o, rng, [&](int32_t) {
    if (count++ == 0) first = Clock::now();
    return true;
  });
  const double decode = seconds(Clock::now() - first);
  const double generate_tps = static_cast<double>(n_new - 1) / decode;
  std::printf("generate (1 stream, no server): first token %.0f ms, decode %.1f tokens/s\n",
              1e3 * seconds(first - t0), generate_tps);

  const auto [server, port] = start_server(tinylm, preset, threads);
  stream_one(port, prompts[0], 4);  // warm-up

  std::printf("%-8s %14s %14s %10s %12s %12s\n", "clients", "tokens/s", "decode tok/s", "vs 1",
              "TTFT p50", "TTFT p95");
  double single = 0.0;
  for (int clients : {1, 2, 4, 8}) {
    int64_t tokens = 0;
    double wall = 0.0;
    std::vector<double> ttft, decode;
    for (int64_t r = 0; r < rounds; ++r) {
      std::vector<Timing> timings(static_cast<size_t>(clients));
      const Clock::time_point start = Clock::now();
      std::vector<std::thread> workers;
      for (int k = 0; k < clients; ++k)
        workers.emplace_back([&, k] { timings[k] = stream_one(port, prompts[k], n_new); });
      for (auto& w : workers) w.join();
      wall += seconds(Clock::now() - start);
      Clock::time_point from = timings[0].times.front(), to = timings[0].times.back();
      for (const Timing& t : timings) {
        tokens += t.tokens;
        ttft.push_back(t.first_token());
        from = std::max(from, t.times.front());
        to = std::min(to, t.times.back());
      }
      int64_t inside = 0;  // tokens received in (from, to]
      for (const Timing& t : timings)
        for (const Clock::time_point& when : t.times) inside += when > from && when <= to;
      decode.push_back(static_cast<double>(inside) / seconds(to - from));
    }
    const double decode_tps = percentile(decode, 0.5);
    if (clients == 1) single = decode_tps;
    std::printf("%-8d %14.1f %14.1f %9.2fx %9.0f ms %9.0f ms\n", clients,
                static_cast<double>(tokens) / wall, decode_tps, decode_tps / single,
                1e3 * percentile(ttft, 0.5), 1e3 * percentile(ttft, 0.95));
  }
  std::printf("one client's decoding through the server vs generate's: %.2fx\n",
              single / generate_tps);
  kill(server, SIGTERM);
  int status = 0;
  waitpid(server, &status, 0);
  return 0;
}
