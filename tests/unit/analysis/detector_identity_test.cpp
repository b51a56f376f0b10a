// The detector bank's evidence (every signal's spans, every check's truth) is
// the same as running every pattern of the catalogue over the whole text, on
// the texts of the built-in corpus and its sealed check set (each alone, and
// joined into 25 KB pieces as bench/analysis_bench.cpp's unseen benchmark
// does), the warm benchmark's text, and texts made to probe line ends. The
// bank runs most patterns on a few lines only (src/analysis/detector_bank.cpp);
// this is what says that changes nothing.
//
// The reference runs 228 patterns over every byte (about 40 s for the whole
// corpus in a Debug build), so by default every 16th text and piece is
// compared; TOGMAL_DETECTOR_IDENTITY_STRIDE=1 compares them all.

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "detector_evidence.h"
#include "togmal/analysis/active_model.h"
#include "togmal/analysis/catalogue.h"
#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/training.h"

namespace togmal::analysis {
namespace {

std::size_t Stride() {
  const char* value = std::getenv("TOGMAL_DETECTOR_IDENTITY_STRIDE");
  return value ? std::max<std::size_t>(1, std::strtoul(value, nullptr, 10)) : 16;
}

/// Every `stride`th of `all`, from the first.
std::vector<std::string> EveryNth(const std::vector<std::string>& all, std::size_t stride) {
  std::vector<std::string> some;
  for (std::size_t i = 0; i < all.size(); i += stride) some.push_back(all[i]);
  return some;
}

// detector_bank.cpp's kMaxSpansPerSignal: the spans a signal reports beyond min_count.
constexpr int kSpansPerSignal = 3;

/// Every pattern compiled alone, each run over the whole text: no atoms, no lines.
class WholeTextReference {
 public:
  explicit WholeTextReference(const Catalogue& catalogue) : catalogue_(catalogue) {
    for (std::size_t c = 0; c < catalogue.categories.size(); ++c) {
      const CategorySpec& category = catalogue.categories[c];
      for (std::size_t s = 0; s < category.signals.size(); ++s) {
        const SignalSpec& signal = category.signals[s];
        Add(c, false, s, signal.case_sensitive ? signal.pattern : "(?i)" + signal.pattern);
      }
      for (std::size_t k = 0; k < category.checks.size(); ++k) {
        for (const std::string& pattern : category.checks[k].patterns)
          Add(c, true, k, "(?i)" + pattern);
      }
    }
  }

  DetectorEvidence Collect(std::string_view text) const {
    DetectorEvidence evidence;
    for (const CategorySpec& category : catalogue_.categories) {
      evidence.spans.emplace_back(category.signals.size());
      evidence.checks.emplace_back(category.checks.size(), false);
    }
    if (text.empty()) return evidence;
    const re2::StringPiece whole(text.data(), text.size());
    for (const Pattern& pattern : patterns_) {
      if (pattern.check) {
        if (RE2::PartialMatch(whole, *pattern.re))
          evidence.checks[pattern.category][pattern.index] = true;
        continue;
      }
      const SignalSpec& signal = catalogue_.categories[pattern.category].signals[pattern.index];
      const auto wanted = static_cast<std::size_t>(std::max(signal.min_count, kSpansPerSignal));
      auto& spans = evidence.spans[pattern.category][pattern.index];
      std::size_t pos = 0;
      re2::StringPiece match;
      while (pos <= text.size() && spans.size() < wanted &&
             pattern.re->Match(whole, pos, text.size(), RE2::UNANCHORED, &match, 1)) {
        const auto start = static_cast<std::size_t>(match.data() - text.data());
        const std::size_t end = start + match.size();
        spans.push_back(
            SignalHit{signal.name, std::string(match.data(), match.size()), start, end});
        pos = end > start ? end : end + 1;
      }
    }
    return evidence;
  }

 private:
  struct Pattern {
    std::size_t category = 0;
    bool check = false;
    std::size_t index = 0;
    std::unique_ptr<RE2> re;
  };

  void Add(std::size_t category, bool check, std::size_t index, const std::string& pattern) {
    RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_unique<RE2>(pattern, options);
    EXPECT_TRUE(re->ok()) << pattern << ": " << re->error();
    patterns_.push_back(Pattern{category, check, index, std::move(re)});
  }

  const Catalogue& catalogue_;
  std::vector<Pattern> patterns_;
};

/// Empty when `got` equals `want`, else what differs (the first few).
std::string Differences(const Catalogue& catalogue, const DetectorEvidence& got,
                        const DetectorEvidence& want) {
  std::ostringstream out;
  int shown = 0;
  for (std::size_t c = 0; c < catalogue.categories.size() && shown < 5; ++c) {
    const CategorySpec& category = catalogue.categories[c];
    for (std::size_t s = 0; s < category.signals.size(); ++s) {
      const auto& a = got.spans[c][s];
      const auto& b = want.spans[c][s];
      bool same = a.size() == b.size();
      for (std::size_t i = 0; same && i < a.size(); ++i) {
        same = a[i].name == b[i].name && a[i].text == b[i].text && a[i].start == b[i].start &&
               a[i].end == b[i].end;
      }
      if (same) continue;
      ++shown;
      out << category.name << "/" << category.signals[s].name << ": " << a.size() << " spans (";
      for (const auto& hit : a) out << hit.start << "-" << hit.end << " ";
      out << ") instead of " << b.size() << " (";
      for (const auto& hit : b) out << hit.start << "-" << hit.end << " '" << hit.text << "' ";
      out << ")\n";
    }
    for (std::size_t k = 0; k < category.checks.size(); ++k) {
      if (got.checks[c][k] == want.checks[c][k]) continue;
      ++shown;
      out << category.name << "/" << category.checks[k].name << ": " << got.checks[c][k]
          << " instead of " << want.checks[c][k] << "\n";
    }
  }
  return out.str();
}

class DetectorIdentity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto built = SharedDetectorBank();
    ASSERT_TRUE(built) << built.error();
    bank_ = *built;
    reference_ = new WholeTextReference(bank_->catalogue());
  }
  static void TearDownTestSuite() {
    delete reference_;
    reference_ = nullptr;
  }

  /// The number of texts that differ (each reported).
  static int Compare(const std::vector<std::string>& texts, const std::string& what) {
    int differing = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const std::string differences = Differences(
          bank_->catalogue(), CollectEvidence(*bank_, texts[i]), reference_->Collect(texts[i]));
      if (differences.empty()) continue;
      if (++differing <= 5) {
        ADD_FAILURE() << what << " #" << i << " (" << texts[i].size() << " bytes: '"
                      << texts[i].substr(0, 120) << "'):\n"
                      << differences;
      }
    }
    return differing;
  }

  /// Every corpus text and context, parsed once for the suite.
  static const std::vector<std::string>& CorpusTexts() {
    static const std::vector<std::string> texts = [] {
      std::vector<std::string> out;
      for (std::string_view jsonl : {BuiltInCorpus(), BuiltInCheckSet()}) {
        if (jsonl.empty()) continue;
        auto corpus = ParseCorpus(std::string(jsonl), "built-in corpus");
        EXPECT_TRUE(corpus) << corpus.error();
        if (!corpus) continue;
        for (const Example& example : *corpus) {
          out.push_back(example.text);
          if (!example.context.empty()) out.push_back(example.context);
        }
      }
      return out;
    }();
    return texts;
  }

  static const DetectorBank* bank_;
  static WholeTextReference* reference_;
};

const DetectorBank* DetectorIdentity::bank_ = nullptr;
WholeTextReference* DetectorIdentity::reference_ = nullptr;

TEST_F(DetectorIdentity, EveryCorpusTextAlone) {
  const std::vector<std::string>& all = CorpusTexts();
  ASSERT_GT(all.size(), 10000u);
  const std::vector<std::string> texts = EveryNth(all, Stride());
  EXPECT_EQ(Compare(texts, "corpus text"), 0) << "of " << texts.size() << " texts";
}

TEST_F(DetectorIdentity, TheCorpusIn25KbPieces) {
  // As BM_AnalyzeUnseen25000 joins them: many lines, many patterns per text.
  std::vector<std::string> pieces(1);
  for (const std::string& text : CorpusTexts()) {
    if (pieces.back().size() >= 25000) pieces.emplace_back();
    pieces.back() += text + "\n\n";
  }
  pieces = EveryNth(pieces, Stride());
  EXPECT_EQ(Compare(pieces, "25 KB piece"), 0) << "of " << pieces.size() << " pieces";
}

TEST_F(DetectorIdentity, TheWarmBenchmarkText) {
  // bench/analysis_bench.cpp's kParagraph, repeated to 25,000 characters.
  const std::string paragraph =
      "## Deploying the service\n\n"
      "Most teams usually start with a small prototype, then iterate. According to the 2023 "
      "survey, about 40% of developers use containers. Before cleaning up, make a backup "
      "first:\n\n"
      "```bash\ncp -r data data.bak\nrm -rf ./build\nnpm ci && npm run build\n```\n\n"
      "If you have a headache after a long day, consider a break. The theory of relativity is "
      "well tested; quantum gravity remains an open problem. You should definitely review the "
      "config before shipping, because 95% of outages come from bad changes.\n\n";
  std::string text;
  while (text.size() < 25000) text += paragraph;
  text.resize(25000);
  EXPECT_EQ(Compare({text, text.substr(0, 1000), text.substr(0, 100000)}, "warm text"), 0);
}

TEST_F(DetectorIdentity, LineEndsAndFoldedCharacters) {
  // Matches that end at a line's end, start at a line's start, or would need
  // the next line; CRLF; the Kelvin sign and long s that RE2 folds to k and s;
  // text without a final newline; blank lines only.
  std::vector<std::string> texts = {
      "\n\n\n",
      "rm -rf /\nrm -rf /\r\nrm -rf ~\n",
      "you should\ndefinitely\nyou should definitely",
      "I'm convinced\nI\xE2\x80\x99m convinced\nI\xE2\x80\x99M CONVINCED",
      "\xE2\x84\xAAill the process; I'm \xC5\xBFure it works",
      "According to\n the 2023 survey, 95%\nof people\n\n95% of outages\n",
      "https://example.com\nhttps://\n(Smith et al., 2020)\n(Smith\n, 2020)",
  };
  // Each corpus text with its lines cut differently: every space a newline.
  const std::vector<std::string>& corpus = CorpusTexts();
  for (std::size_t i = 3; i < corpus.size(); i += 7 * Stride()) {
    std::string cut = corpus[i];
    std::replace(cut.begin(), cut.end(), ' ', '\n');
    texts.push_back(cut);
  }
  EXPECT_EQ(Compare(texts, "probe"), 0);
}

// Assertions at a line's ends see the whole text: `$` is not the end of the
// text at a '\n', \b and \B look at the next line's first byte, (?m)^ and $
// hold there. A small catalogue of such patterns, on texts made to probe them.
TEST(DetectorIdentityEdges, AssertionsAtLineEnds) {
  constexpr const char* kYaml = R"(
risk_levels: {critical: 1.5, high: 1.0, moderate: 0.5}
interventions:
  web_search: {reason: check it, suggestion: search}
categories:
  edges:
    weight: 1.0
    interventions: [web_search]
    checks:
      ends_text: {factor: 0.5, patterns: ['\bend$', '\Astart']}
    signals:
      - {name: dollar, pattern: 'end$', score: 0.5}
      - {name: multiline_dollar, pattern: '(?m)end$', score: 0.5}
      - {name: caret, pattern: '^start', score: 0.5}
      - {name: multiline_caret, pattern: '(?m)^start\b', score: 0.5}
      - {name: word_end, pattern: 'end\b', score: 0.5}
      - {name: not_word_end, pattern: 'end\B', score: 0.5}
      - {name: not_word_start, pattern: '\Bing\b', score: 0.5}
      - {name: many, pattern: '\bab[a-z]*', score: 0.5, min_count: 5}
      - {name: cased, pattern: 'Kelvin', score: 0.5, case_sensitive: true}
      - {name: spans_lines, pattern: 'start\s+end', score: 0.5}
)";
  auto catalogue = ParseCatalogue(kYaml, "edges.yaml");
  ASSERT_TRUE(catalogue) << catalogue.error();
  auto bank = DetectorBank::Build(std::move(*catalogue));
  ASSERT_TRUE(bank) << bank.error();
  const WholeTextReference reference((*bank)->catalogue());
  const std::vector<std::string> texts = {"end",
                                          "end\n",
                                          "the end\nstart",
                                          "start\nend",
                                          "start end",
                                          "x\nstart\n",
                                          "\nstart",
                                          "endx\nend",
                                          "end\nx",
                                          "sing\ning\nring",
                                          "ab ab\nab abc\nabd\nab ab ab",
                                          "KELVIN\nKelvin",
                                          "start\n\n  end",
                                          "endend\nend",
                                          "\xE2\x84\xAA"
                                          "elvin kelvin Kelvin"};
  for (const std::string& text : texts) {
    EXPECT_EQ(
        Differences((*bank)->catalogue(), CollectEvidence(**bank, text), reference.Collect(text)),
        "")
        << "text '" << text << "'";
  }
}

}  // namespace
}  // namespace togmal::analysis
