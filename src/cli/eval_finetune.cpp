// `tinylm eval --run RUN` on a fine-tuning run: loss on val and test (instruct), or
// accuracy on train, val and test (classify). The data file is the run's unless --data
// names another (split the same way).
#include <cstdio>

#include "data/classification_dataset.h"
#include "finetune/classify_run.h"
#include "finetune/instruct_run.h"
#include "finetune/run_folder.h"
#include "util/error.h"

namespace tinylm::cli {

int eval_finetune_run(const std::string& run, const std::string& task,
                      const std::string& data_override) {
  if (task == "instruct") {
    finetune::InstructRun loaded = finetune::load_instruct_run(run, "tinylm eval");
    const finetune::FinetuneSettings& f = loaded.config.finetune;
    const std::string path = data_override.empty() ? loaded.config.data : data_override;
    const InstructionData data =
        load_instruction_data(path, *loaded.tokenizer, {f.train_fraction, f.test_fraction});
    const auto collate =
        finetune::collate_options(f, *loaded.tokenizer, loaded.model->config().block_size);
    std::printf("instruct run %s (step %lld), data %s\n", run.c_str(),
                static_cast<long long>(loaded.step), path.c_str());
    const double val =
        finetune::instruction_loss(*loaded.model, data.val, collate, f.batch_size, 0);
    const double test =
        finetune::instruction_loss(*loaded.model, data.test, collate, f.batch_size, 0);
    std::printf("val loss %.4f (%lld entries)\ntest loss %.4f (%lld entries)\n", val,
                static_cast<long long>(data.val.size()), test,
                static_cast<long long>(data.test.size()));
    return 0;
  }
  if (task == "classify") {
    finetune::ClassifyRun loaded = finetune::load_classify_run(run, "tinylm eval");
    const finetune::FinetuneSettings& f = loaded.config.finetune;
    const std::string path = data_override.empty() ? loaded.config.data : data_override;
    ClassificationOptions o;
    o.format = {f.format, f.label_column, f.text_column, f.header};
    o.labels = loaded.model->config().labels;
    o.balance = f.balance;
    o.train_fraction = f.train_fraction;
    o.val_fraction = f.val_fraction;
    o.seed = f.seed;
    o.max_length = loaded.max_length;  // the length the run was trained at
    o.pad_id = loaded.pad_id;
    const ClassificationData data = load_classification_data(path, *loaded.tokenizer, o);
    std::printf("classify run %s (step %lld), data %s\n", run.c_str(),
                static_cast<long long>(loaded.step), path.c_str());
    for (const auto& [name, set] :
         {std::pair<const char*, const ClassificationSet*>{"train", &data.train},
          {"val", &data.val},
          {"test", &data.test}}) {
      const finetune::Accuracy a = finetune::accuracy(*loaded.model, *set, f.batch_size, 0);
      std::printf("%s accuracy %.2f%% (%lld / %lld)\n", name, 100.0 * a.value(),
                  static_cast<long long>(a.correct), static_cast<long long>(a.total));
    }
    return 0;
  }
  throw InputError("--run " + run + ": unknown finetune task '" + task + "'");
}

}  // namespace tinylm::cli
