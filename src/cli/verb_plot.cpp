// tinylm plot --run RUN_DIR --out FILE.svg: the training curves of a run as an SVG
// figure (loss against step; the evaluation metric, bpc or ppl, in a second panel).
#include <cstdio>
#include <string>

#include "cli/cli_util.h"
#include "report/figures.h"
#include "report/svg.h"

namespace tinylm::cli {

int run_plot(int argc, char** argv) {
  CLI::App app{"Plot a run's training log (RUN_DIR/log.jsonl) as SVG.", "tinylm plot"};
  std::string run, out;
  app.add_option("--run", run, "run folder (or a log.jsonl file)")->required();
  app.add_option("--out", out, "the SVG file to write")->required()->check(kNonEmptyPath);
  if (int code = parse_or_exit(app, argc, argv); code >= 0) return code;
  const bool is_file = run.size() > 6 && run.ends_with(".jsonl");
  const report::LossLog log = report::read_log_jsonl(is_file ? run : run + "/log.jsonl");
  svg::write_file(out, report::loss_curve_svg(log));
  std::printf("wrote %s (%zu logged steps, %zu evaluations)\n", out.c_str(), log.train.size(),
              log.eval_val.size());
  return 0;
}

}  // namespace tinylm::cli
