#include "togmal/analysis/active_model.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "togmal/analysis/analyzer.h"
#include "togmal/analysis/detector_bank.h"
#include "togmal/util/paths.h"

namespace togmal::analysis {
namespace generated {
// The built-in model file's bytes (written at build time by the training tool).
extern const char kBuiltInModel[];
extern const std::size_t kBuiltInModelSize;
extern const char kBuiltInCorpus[];
extern const std::size_t kBuiltInCorpusSize;
extern const char kBuiltInSelection[];
extern const std::size_t kBuiltInSelectionSize;
extern const char kBuiltInCheckSet[];
extern const std::size_t kBuiltInCheckSetSize;
}  // namespace generated

namespace {

struct ModelCache {
  std::mutex mutex;
  std::shared_ptr<const Model> model;
  bool loaded = false;
  std::filesystem::file_time_type mtime;
  std::uintmax_t size = 0;
  bool file_present = false;
};

/// Reads the user model at `path`; nullptr (and a warning) if it cannot be used.
std::shared_ptr<const Model> LoadUserModel(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) {
    spdlog::warn("cannot read the user model {}; using the built-in model", path.string());
    return nullptr;
  }
  auto model = Model::Parse(bytes.str(), path.string());
  if (!model) {
    spdlog::warn("the user model is unusable ({}); using the built-in model", model.error());
    return nullptr;
  }
  return std::make_shared<const Model>(std::move(model.value()));
}

}  // namespace

const Model& BuiltInModel() {
  static const Model* model = [] {
    auto parsed =
        Model::Parse(std::string_view(generated::kBuiltInModel, generated::kBuiltInModelSize),
                     "built-in", /*borrow=*/true);
    if (!parsed) {
      spdlog::error("the built-in model does not load ({}); detection falls back to the rules",
                    parsed.error());
      return new Model();
    }
    return new Model(std::move(parsed.value()));
  }();
  return *model;
}

std::string_view BuiltInCorpus() {
  return std::string_view(generated::kBuiltInCorpus, generated::kBuiltInCorpusSize);
}

std::string_view BuiltInSelection() {
  return std::string_view(generated::kBuiltInSelection, generated::kBuiltInSelectionSize);
}

std::string_view BuiltInCheckSet() {
  return std::string_view(generated::kBuiltInCheckSet, generated::kBuiltInCheckSetSize);
}

std::string UserModelPath() { return util::UserDataFile("model.bin").string(); }

std::shared_ptr<const Model> ActiveModel() {
  // Never destroyed: analyses on worker threads may outlive static destruction.
  static auto* cache = new ModelCache();
  const std::lock_guard lock(cache->mutex);
  const std::filesystem::path path = UserModelPath();
  std::error_code error;
  const bool present = std::filesystem::is_regular_file(path, error);
  std::filesystem::file_time_type mtime{};
  std::uintmax_t size = 0;
  if (present) {
    mtime = std::filesystem::last_write_time(path, error);
    size = std::filesystem::file_size(path, error);
  }
  if (cache->loaded && present == cache->file_present && mtime == cache->mtime &&
      size == cache->size) {
    return cache->model;
  }
  std::shared_ptr<const Model> model = present ? LoadUserModel(path) : nullptr;
  if (model) {
    spdlog::info("using the user model {} (trained {})", path.string(), model->trained_at);
  } else {
    // The built-in model is constant data: no copy of its weights.
    static const std::shared_ptr<const Model> built_in(&BuiltInModel(), [](const Model*) {});
    model = built_in;
  }
  cache->model = std::move(model);
  cache->loaded = true;
  cache->file_present = present;
  cache->mtime = mtime;
  cache->size = size;
  return cache->model;
}

Result<Analysis> AnalyzeText(std::string_view text, std::string_view context) {
  auto bank = SharedDetectorBank();
  if (!bank) return Fail(bank.error());
  const std::shared_ptr<const Model> model = ActiveModel();
  return AnalyzeWithModel(**bank, model.get(), text, context);
}

}  // namespace togmal::analysis
