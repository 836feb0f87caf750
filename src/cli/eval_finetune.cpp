// `tinylm eval --run RUN` on a fine-tuning run: loss on val and test (instruct), or
// accuracy on train, val and test (classify). The data file is the run's unless --data
// names another (split the same way).
#include <cstdio>

#include "data/classification_dataset.h"
#include "open/classify_run.h"
#include "open/instruct_run.h"
#include "open/open_model.h"
#include "util/error.h"

namespace tinylm::cli {

int eval_finetune_run(OpenedModel& loaded, const std::string& data_override) {
  const std::string& run = loaded.source.path;
  const FinetuneConfig& config = *loaded.finetune_config;
  const FinetuneSettings& f = config.finetune;
  const std::string path = data_override.empty() ? config.data : data_override;
  if (config.task == "instruct") {
    const InstructionData data =
        load_instruction_data(path, *loaded.tokenizer, {f.train_fraction, f.test_fraction});
    const auto collate = collate_options(f, *loaded.tokenizer, loaded.lm->config().block_size);
    std::printf("instruct run %s (step %lld), data %s\n", run.c_str(),
                static_cast<long long>(loaded.step), path.c_str());
    for (const auto& [name, set] :
         {std::pair<std::string, const InstructionSet*>{"val", &data.val}, {"test", &data.test}}) {
      if (set->size() == 0) {  // an empty split is said so, with no number
        std::printf("%s loss: no %s split (0 entries)\n", name.c_str(),
                    name == "val" ? "validation" : name.c_str());
        continue;
      }
      const std::optional<double> loss =
          supervised_instruction_loss(*loaded.lm, *set, collate, f.batch_size, 0);
      if (loss)
        std::printf("%s loss %.4f (%lld entries)\n", name.c_str(), *loss,
                    static_cast<long long>(set->size()));
      else  // every response cut or masked: no token to score
        std::printf("%s loss: no supervised targets (%lld entries)\n", name.c_str(),
                    static_cast<long long>(set->size()));
    }
    return 0;
  }
  if (config.task == "classify") {
    SequenceClassifier& model = *loaded.classifier;
    ClassificationOptions o = classify_data_options(f);
    o.labels = model.config().labels;
    o.max_length = loaded.max_length;  // the length the run was trained at
    o.pad_id = loaded.pad_id;
    const ClassificationData data = load_classification_data(path, *loaded.tokenizer, o);
    std::printf("classify run %s (step %lld), data %s\n", run.c_str(),
                static_cast<long long>(loaded.step), path.c_str());
    for (const auto& [name, set] :
         {std::pair<const char*, const ClassificationSet*>{"train", &data.train},
          {"val", &data.val},
          {"test", &data.test}}) {
      const Accuracy a = accuracy(model, *set, f.batch_size, 0);
      if (a.total == 0) {
        std::printf("%s accuracy: no %s split (0 examples)\n", name,
                    std::string(name) == "val" ? "validation" : name);
        continue;
      }
      std::printf("%s accuracy %.2f%% (%lld / %lld)\n", name, 100.0 * a.value(),
                  static_cast<long long>(a.correct), static_cast<long long>(a.total));
    }
    return 0;
  }
  throw InputError("--run " + run + ": unknown finetune task '" + config.task + "'");
}

}  // namespace tinylm::cli
