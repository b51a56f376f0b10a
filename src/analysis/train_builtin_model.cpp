// Build tool: trains the built-in detection model from the corpus in the
// repository (never the sealed sets) and writes it as constant C++ data.
//
//   togmal_train_builtin_model <detectors.yaml> <corpus-dir> <output.cpp>
//       [--selection FILE] [--select FILE [--c-grid 4,16,64]]
//       [--c C] [--hard-repeat N] [--report SET.jsonl]...
//
// --selection trains on every text with the settings chosen across writers
// (data/corpus/selection.json, what the build passes). --select chooses them
// first: leave-one-writer-out validation over the corpus's files (minutes of
// CPU), written to FILE, then the same training. Without either, a fifth of
// the texts is held back to choose them (the older way).
//
// The figures go to stderr (and into the model's header). --report scores the
// trained model (and the rules alone) on a held-out set, e.g. the sealed sets:
// they are read only after training and never train.

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "togmal/analysis/catalogue.h"
#include "togmal/analysis/cross_writer.h"
#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/training.h"

namespace {

int Usage() {
  std::cerr << "usage: togmal_train_builtin_model <detectors.yaml> <corpus-dir> <output.cpp> "
               "[--selection FILE] [--select FILE [--c-grid C,C,...]] [--c C] [--hard-repeat N] "
               "[--check-set DIR] [--report SET.jsonl]...\n";
  return 64;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::vector<double> ParseGrid(const std::string& text) {
  std::vector<double> grid;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) grid.push_back(std::stod(item));
  return grid;
}

/// The bytes as a C++ string literal, in lines of octal escapes.
std::string JsonLines(const std::vector<togmal::analysis::Example>& examples) {
  std::string text;
  for (const togmal::analysis::Example& e : examples) {
    nlohmann::json line = {{"category", e.category},
                           {"label", e.label},
                           {"kind", e.kind},
                           {"writer", e.writer},
                           {"text", e.text}};
    if (!e.context.empty()) line["context"] = e.context;
    text += line.dump() + "\n";
  }
  return text;
}

void WriteLiteral(std::ostream& out, const std::string& bytes) {
  constexpr std::size_t kPerLine = 64;
  for (std::size_t i = 0; i < bytes.size(); i += kPerLine) {
    out << "    \"";
    for (std::size_t k = i; k < std::min(bytes.size(), i + kPerLine); ++k) {
      const auto b = static_cast<unsigned char>(bytes[k]);
      out << '\\' << static_cast<char>('0' + (b >> 6)) << static_cast<char>('0' + ((b >> 3) & 7))
          << static_cast<char>('0' + (b & 7));
    }
    out << "\"\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_st("train"));
  if (argc < 4) return Usage();
  using namespace togmal::analysis;
  TrainOptions options;
  std::vector<std::string> reports;
  std::string selection_path;
  std::string select_path;
  std::string check_set_path;
  CrossWriterOptions cross;
  for (int i = 4; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return Usage();
    if (flag == "--c") {
      options.c = std::stod(argv[++i]);
    } else if (flag == "--hard-repeat") {
      options.hard_negative_repeat = std::stoi(argv[++i]);
    } else if (flag == "--selection") {
      selection_path = argv[++i];
    } else if (flag == "--select") {
      select_path = argv[++i];
    } else if (flag == "--c-grid") {
      cross.c_grid = ParseGrid(argv[++i]);
    } else if (flag == "--check-set") {
      check_set_path = argv[++i];
    } else if (flag == "--report") {
      reports.emplace_back(argv[++i]);
    } else {
      return Usage();
    }
  }
  auto catalogue = ParseCatalogue(ReadFile(argv[1]), argv[1]);
  if (!catalogue) {
    std::cerr << catalogue.error() << "\n";
    return 1;
  }
  auto bank = DetectorBank::Build(std::move(catalogue.value()));
  if (!bank) {
    std::cerr << bank.error() << "\n";
    return 1;
  }
  auto examples = ReadCorpusDirectory(argv[2]);
  if (!examples) {
    std::cerr << examples.error() << "\n";
    return 1;
  }
  // The same examples again as one JSON Lines text, compiled in for `togmal
  // train`; with the sealed writers' texts it checks a retrained model on.
  const std::string corpus = JsonLines(*examples);
  std::string check_set;
  if (!check_set_path.empty()) {
    auto sealed = ReadCorpusDirectory(check_set_path);
    if (!sealed) {
      std::cerr << sealed.error() << "\n";
      return 1;
    }
    check_set = JsonLines(*sealed);
  }

  std::optional<Selection> selection;
  if (!select_path.empty()) {
    auto chosen = SelectAcrossWriters(**bank, *examples, cross);
    if (!chosen) {
      std::cerr << chosen.error() << "\n";
      return 1;
    }
    std::cerr << "Leave-one-writer-out validation:\n";
    for (const std::string& trial : chosen->trials) std::cerr << "  " << trial << "\n";
    for (const auto& [writer, figures] : chosen->per_writer) {
      std::cerr << "\nheld-out writer " << writer << " (C = " << chosen->selection.c << "):\n"
                << figures.Table();
    }
    std::cerr << "\nall writers pooled:\n" << chosen->pooled.Table();
    std::ofstream out(select_path, std::ios::binary | std::ios::trunc);
    out << chosen->selection.Json();
    if (!out.flush()) {
      std::cerr << "cannot write " << select_path << "\n";
      return 1;
    }
    selection = std::move(chosen->selection);
  } else if (!selection_path.empty()) {
    auto parsed = Selection::Parse(ReadFile(selection_path), selection_path);
    if (!parsed) {
      std::cerr << parsed.error() << "\n";
      return 1;
    }
    selection = std::move(*parsed);
    if (selection->corpus_digest != CorpusDigest(*examples)) {
      std::cerr << "warning: the corpus changed since " << selection_path
                << " was chosen; run this tool with --select to choose again\n";
    }
  }
  options.selection = selection ? &*selection : nullptr;
  options.trained_on = "the built-in corpus (" + std::to_string(examples->size()) + " texts)";
  auto trained = Train(**bank, *examples, options);
  if (!trained) {
    std::cerr << trained.error() << "\n";
    return 1;
  }
  if (!selection) {
    std::cerr << "Built-in model, validation split:\n" << trained->validation.Table();
    std::cerr << "Rules alone, validation split:\n"
              << Evaluate(**bank, nullptr, ValidationSplit(*examples)).Table();
  }
  for (const std::string& report : reports) {
    auto held_out = ReadCorpusFile(report);
    if (!held_out) {
      std::cerr << held_out.error() << "\n";
      return 1;
    }
    std::cerr << "\n"
              << report << ", model:\n"
              << Evaluate(**bank, &trained->model, *held_out).Table();
    std::cerr << report << ", rules alone:\n" << Evaluate(**bank, nullptr, *held_out).Table();
  }
  const std::string bytes = trained->model.Serialize();
  const std::string temporary = std::string(argv[3]) + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << "// Generated by togmal_train_builtin_model from data/corpus: do not edit.\n"
           "#include <cstddef>\n\n"
           "namespace togmal::analysis::generated {\n"
           "extern const char kBuiltInModel[];\n"
           "extern const std::size_t kBuiltInModelSize;\n"
           "extern const char kBuiltInCorpus[];\n"
           "extern const std::size_t kBuiltInCorpusSize;\n"
           "extern const char kBuiltInSelection[];\n"
           "extern const std::size_t kBuiltInSelectionSize;\n"
           "extern const char kBuiltInCheckSet[];\n"
           "extern const std::size_t kBuiltInCheckSetSize;\n"
           "alignas(64) const char kBuiltInModel[] =\n";
    WriteLiteral(out, bytes);
    out << "    ;\nconst std::size_t kBuiltInModelSize = " << bytes.size() << ";\n"
        << "// The corpus itself, for `togmal train`.\nconst char kBuiltInCorpus[] =\n";
    WriteLiteral(out, corpus);
    const std::string selection_json = selection ? selection->Json() : std::string();
    out << "    ;\nconst std::size_t kBuiltInCorpusSize = " << corpus.size() << ";\n"
        << "// The settings chosen across writers, for `togmal train` (empty: none).\n"
        << "const char kBuiltInSelection[] =\n";
    WriteLiteral(out, selection_json);
    out << "    \"\";\nconst std::size_t kBuiltInSelectionSize = " << selection_json.size() << ";\n"
        << "// Sealed writers' texts, never trained on: `togmal train`'s check set.\n"
        << "const char kBuiltInCheckSet[] =\n";
    WriteLiteral(out, check_set);
    out << "    \"\";\nconst std::size_t kBuiltInCheckSetSize = " << check_set.size() << ";\n"
        << "}  // namespace togmal::analysis::generated\n";
    if (!out) {
      std::cerr << "cannot write " << temporary << "\n";
      return 1;
    }
  }
  if (std::rename(temporary.c_str(), argv[3]) != 0) {
    std::cerr << "cannot write " << argv[3] << "\n";
    return 1;
  }
  return 0;
}
