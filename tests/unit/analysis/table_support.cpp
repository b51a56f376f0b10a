#include "table_support.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "togmal/util/embedded.h"

namespace togmal::analysis::testing {

double CategoryScore::Precision() const {
  const int flagged = true_positives + false_positives;
  return flagged == 0 ? 1.0 : static_cast<double>(true_positives) / flagged;
}
double CategoryScore::Recall() const {
  return positives == 0 ? 1.0 : static_cast<double>(true_positives) / positives;
}
double CategoryScore::F1() const {
  const double p = Precision(), r = Recall();
  return p + r == 0 ? 0 : 2 * p * r / (p + r);
}
double CategoryScore::HardFlagRate() const {
  return hard_negatives == 0 ? 0 : static_cast<double>(hard_flagged) / hard_negatives;
}

std::vector<LabelledCase> LoadTable() {
  // TOGMAL_DETECTION_TABLE_DIR scores another set of table files (e.g. a
  // held-out set) with the same code.
  const char* override_dir = std::getenv("TOGMAL_DETECTION_TABLE_DIR");
  const std::filesystem::path dir =
      override_dir ? std::filesystem::path(override_dir)
                   : std::filesystem::path(TOGMAL_SOURCE_DIR) / "tests/unit/analysis/table";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<LabelledCase> cases;
  for (const auto& file : files) {
    const YAML::Node root = YAML::LoadFile(file.string());
    const std::string category = root["category"].as<std::string>();
    for (const auto& node : root["cases"]) {
      LabelledCase c;
      c.category = category;
      c.expect = node["expect"].as<std::string>();
      c.kind = node["kind"] ? node["kind"].as<std::string>() : "prompt";
      c.text = node["text"].as<std::string>();
      c.context = node["context"] ? node["context"].as<std::string>() : "";
      c.line = node.Mark().line + 1;
      if (c.expect != "positive" && c.expect != "negative" && c.expect != "hard_negative") {
        throw std::runtime_error(file.string() + ":" + std::to_string(c.line) + ": bad expect");
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

const DetectorBank& EmbeddedBank() {
  static const std::unique_ptr<DetectorBank> bank = [] {
    auto yaml = util::FindEmbeddedFile("detectors.yaml");
    if (!yaml) throw std::runtime_error("detectors.yaml not embedded");
    auto catalogue = ParseCatalogue(*yaml, "detectors.yaml");
    if (!catalogue) throw std::runtime_error(catalogue.error());
    auto built = DetectorBank::Build(std::move(catalogue.value()));
    if (!built) throw std::runtime_error(built.error());
    return std::move(built.value());
  }();
  return *bank;
}

std::vector<CategoryScore> Score(const DetectorBank& bank, const std::vector<LabelledCase>& cases) {
  std::vector<CategoryScore> scores;
  for (const auto& category : bank.catalogue().categories) {
    CategoryScore score;
    score.category = category.name;
    scores.push_back(score);
  }
  for (const auto& c : cases) {
    auto it = std::find_if(scores.begin(), scores.end(),
                           [&](const CategoryScore& s) { return s.category == c.category; });
    if (it == scores.end()) continue;
    const Analysis analysis = bank.Analyze(c.text, c.context);
    const CategoryDetection* d = analysis.Find(c.category);
    const bool flagged = d && d->detected;
    const bool positive = c.expect == "positive";
    if (positive) {
      ++it->positives;
      flagged ? ++it->true_positives : ++it->false_negatives;
    } else {
      ++it->negatives;
      if (c.expect == "hard_negative") {
        ++it->hard_negatives;
        if (flagged) ++it->hard_flagged;
      }
      if (flagged) ++it->false_positives;
    }
    if (flagged != positive) {
      std::string words;
      if (d) {
        for (const auto& s : d->signals) words += " [" + s.name + ": " + s.text + "]";
      }
      it->mistakes.push_back(c.category + ".yaml:" + std::to_string(c.line) + " " + c.expect +
                             " conf=" + std::to_string(d ? d->confidence : 0) + words +
                             " :: " + c.text.substr(0, 100));
    }
  }
  return scores;
}

std::string MarkdownReport(const std::vector<CategoryScore>& scores) {
  auto fmt = [](double v) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.2f", v);
    return std::string(buffer);
  };
  std::string out =
      "| category | positives | negatives (hard) | precision | recall | F1 | hard negatives "
      "flagged |\n"
      "|---|---|---|---|---|---|---|\n";
  double f1_sum = 0;
  int hard = 0, hard_flagged = 0;
  for (const auto& s : scores) {
    out += "| " + s.category + " | " + std::to_string(s.positives) + " | " +
           std::to_string(s.negatives) + " (" + std::to_string(s.hard_negatives) + ") | " +
           fmt(s.Precision()) + " | " + fmt(s.Recall()) + " | " + fmt(s.F1()) + " | " +
           std::to_string(s.hard_flagged) + "/" + std::to_string(s.hard_negatives) + " |\n";
    f1_sum += s.F1();
    hard += s.hard_negatives;
    hard_flagged += s.hard_flagged;
  }
  out += "\nMacro-F1: " + fmt(scores.empty() ? 0 : f1_sum / static_cast<double>(scores.size())) +
         "; hard negatives flagged: " + std::to_string(hard_flagged) + "/" + std::to_string(hard) +
         " (" + fmt(hard ? 100.0 * hard_flagged / hard : 0) + " %)\n";
  return out;
}

}  // namespace togmal::analysis::testing
