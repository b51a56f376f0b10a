#include "togmal/analysis/detector_bank.h"

#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <re2/set.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>
#include <vector>

namespace togmal::analysis {
namespace {

// Bounds what a single analysis reports, not what it scans: the count that a
// min_count signal needs is always found, the rest of the spans are elided.
// Every span after the first is another search from where the last ended, so
// this is most of the second pass's cost: 8 spans made a 25 KB analysis take
// 271 µs, 3 take 182 µs (docs/performance.md).
constexpr int kMaxSpansPerSignal = 3;
// One DFA over every pattern whole never settles on new text: the windows
// (`[^.\n]{0,40}`) of a few dozen patterns combine into a new DFA state at
// nearly every byte, so each unseen text was built state by state (2.6 µs a
// byte, two threads queued on the DFA's lock). Instead the set holds only
// the literal strings each pattern needs (RE2's FilteredRE2 atoms), a DFA of
// a few thousand states that settles, and only the patterns whose atoms are
// all present are run, each on its own small DFA.
constexpr int kMinAtomLength = 3;
constexpr int64_t kAtomSetMaxMem = int64_t{16} << 20;

enum class EntryKind { kSignal, kCheck };

/// One pattern of the set: which category and which signal or check it is.
struct Entry {
  std::size_t category = 0;
  EntryKind kind = EntryKind::kSignal;
  std::size_t index = 0;    ///< into the category's signals or checks
  const RE2* re = nullptr;  ///< owned by DetectorBank::Impl::filter
};

std::string WithFlags(const std::string& pattern, bool case_sensitive) {
  return case_sensitive ? pattern : "(?i)" + pattern;
}

RE2::Options PatternOptions() {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_case_sensitive(true);  // per pattern via (?i)
  return options;
}

}  // namespace

struct DetectorBank::Impl {
  Catalogue catalogue;
  std::vector<Entry> entries;
  re2::FilteredRE2 filter{kMinAtomLength};
  /// The atoms filter's patterns need, case-insensitive; null when none has any.
  std::unique_ptr<RE2::Set> atoms;

  /// Indices of the entries whose atoms all occur in `text` (a superset of
  /// the entries that match), in ascending order.
  std::vector<int> Candidates(std::string_view text) const {
    const re2::StringPiece whole(text.data(), text.size());
    std::vector<int> found_atoms;
    if (atoms != nullptr) {
      RE2::Set::ErrorInfo error;
      if (!atoms->Match(whole, &found_atoms, &error) && error.kind != RE2::Set::kNoError) {
        // Out of memory: every entry is a candidate (still linear, pattern by pattern).
        spdlog::warn("detector atom scan failed (error {}); trying every pattern",
                     static_cast<int>(error.kind));
        std::vector<int> all(entries.size());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
        return all;
      }
    }
    std::vector<int> candidates;
    filter.AllPotentials(found_atoms, &candidates);
    std::sort(candidates.begin(), candidates.end());
    return candidates;
  }

  /// Spans of one pattern; stops once `wanted` matches are found.
  static std::vector<SignalHit> Spans(const RE2& re, std::string_view text, const std::string& name,
                                      int wanted) {
    std::vector<SignalHit> spans;
    const re2::StringPiece whole(text.data(), text.size());
    std::size_t pos = 0;
    re2::StringPiece match;
    while (pos <= text.size() && static_cast<int>(spans.size()) < wanted &&
           re.Match(whole, pos, text.size(), RE2::UNANCHORED, &match, 1)) {
      const auto start = static_cast<std::size_t>(match.data() - text.data());
      const std::size_t end = start + match.size();
      spans.push_back(SignalHit{name, std::string(match.data(), match.size()), start, end});
      pos = end > start ? end : end + 1;  // never loop on an empty match
    }
    return spans;
  }

  struct Evidence {
    std::vector<std::vector<std::vector<SignalHit>>> spans;  ///< [category][signal]
    std::vector<std::vector<bool>> checks;                   ///< [category][check]
  };

  Evidence Collect(std::string_view text) const {
    Evidence evidence;
    evidence.spans.resize(catalogue.categories.size());
    evidence.checks.resize(catalogue.categories.size());
    for (std::size_t c = 0; c < catalogue.categories.size(); ++c) {
      evidence.spans[c].resize(catalogue.categories[c].signals.size());
      evidence.checks[c].assign(catalogue.categories[c].checks.size(), false);
    }
    if (text.empty()) return evidence;
    const re2::StringPiece whole(text.data(), text.size());
    for (int candidate : Candidates(text)) {
      const Entry& entry = entries[static_cast<std::size_t>(candidate)];
      if (entry.kind == EntryKind::kCheck) {
        if (RE2::PartialMatch(whole, *entry.re))
          evidence.checks[entry.category][entry.index] = true;
        continue;
      }
      const SignalSpec& signal = catalogue.categories[entry.category].signals[entry.index];
      evidence.spans[entry.category][entry.index] =
          Spans(*entry.re, text, signal.name, std::max(signal.min_count, kMaxSpansPerSignal));
    }
    return evidence;
  }

  /// Whether signal `s` of category `c` fires given the evidence.
  bool Fires(const Evidence& evidence, std::size_t c, std::size_t s) const {
    const CategorySpec& category = catalogue.categories[c];
    const SignalSpec& signal = category.signals[s];
    if (static_cast<int>(evidence.spans[c][s].size()) < signal.min_count) return false;
    if (!signal.unless_check.empty()) {
      for (std::size_t k = 0; k < category.checks.size(); ++k) {
        if (category.checks[k].name == signal.unless_check && evidence.checks[c][k]) return false;
      }
    }
    return true;
  }
};

DetectorBank::DetectorBank(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DetectorBank::~DetectorBank() = default;

const Catalogue& DetectorBank::catalogue() const { return impl_->catalogue; }

Result<std::unique_ptr<DetectorBank>> DetectorBank::Build(Catalogue catalogue) {
  auto impl = std::make_unique<Impl>();

  auto add = [&](std::size_t c, EntryKind kind, std::size_t index, const std::string& pattern,
                 bool case_sensitive, int line) -> Result<void> {
    const std::string full = WithFlags(pattern, case_sensitive);
    const std::string where = catalogue.source + ":" + std::to_string(line) + ": ";
    int id = -1;
    if (impl->filter.Add(full, PatternOptions(), &id) != RE2::NoError) {
      const RE2 bad(full, PatternOptions());
      return Fail(where + "bad pattern '" + pattern + "': " + bad.error());
    }
    impl->entries.push_back(Entry{c, kind, index, &impl->filter.GetRE2(id)});
    return {};
  };
  for (std::size_t c = 0; c < catalogue.categories.size(); ++c) {
    const CategorySpec& category = catalogue.categories[c];
    for (std::size_t s = 0; s < category.signals.size(); ++s) {
      const SignalSpec& signal = category.signals[s];
      if (auto added =
              add(c, EntryKind::kSignal, s, signal.pattern, signal.case_sensitive, signal.line);
          !added) {
        return Fail(added.error());
      }
    }
    for (std::size_t k = 0; k < category.checks.size(); ++k) {
      for (const std::string& pattern : category.checks[k].patterns) {
        if (auto added = add(c, EntryKind::kCheck, k, pattern, false, category.checks[k].line);
            !added) {
          return Fail(added.error());
        }
      }
    }
  }
  if (!impl->entries.empty()) {
    std::vector<std::string> atoms;
    impl->filter.Compile(&atoms);
    if (!atoms.empty()) {
      RE2::Options atom_options;
      atom_options.set_log_errors(false);
      atom_options.set_case_sensitive(false);  // the atoms are lower-cased
      atom_options.set_max_mem(kAtomSetMaxMem);
      impl->atoms = std::make_unique<RE2::Set>(atom_options, RE2::UNANCHORED);
      for (const std::string& atom : atoms) {
        std::string error;
        if (impl->atoms->Add(RE2::QuoteMeta(atom), &error) < 0) {
          return Fail(catalogue.source + ": detector atom '" + atom + "': " + error);
        }
      }
      if (!impl->atoms->Compile()) {
        return Fail(catalogue.source + ": the detector atoms do not fit in the regex set's memory");
      }
    }
  }
  impl->catalogue = std::move(catalogue);
  return std::unique_ptr<DetectorBank>(new DetectorBank(std::move(impl)));
}

Analysis DetectorBank::Analyze(std::string_view text, std::string_view context) const {
  const Impl& impl = *impl_;
  const Catalogue& catalogue = impl.catalogue;
  const Impl::Evidence evidence = impl.Collect(text);
  const Impl::Evidence context_evidence = impl.Collect(context);

  Analysis analysis;
  for (std::size_t c = 0; c < catalogue.categories.size(); ++c) {
    const CategorySpec& category = catalogue.categories[c];
    CategoryDetection detection;
    detection.category = category.name;
    double evidence_for = 0;
    double evidence_against = 0;
    bool positive = false;
    std::vector<bool> checks = evidence.checks[c];
    for (std::size_t s = 0; s < category.signals.size(); ++s) {
      if (!impl.Fires(evidence, c, s)) continue;
      const SignalSpec& signal = category.signals[s];
      (signal.score > 0 ? evidence_for : evidence_against) += signal.score;
      auto& into = signal.score > 0 ? detection.signals : detection.mitigations;
      const auto& spans = evidence.spans[c][s];
      into.insert(into.end(), spans.begin(), spans.end());
      positive = positive || signal.score > 0;
      for (const std::string& cancelled : signal.cancels) {
        for (std::size_t k = 0; k < category.checks.size(); ++k) {
          if (category.checks[k].name == cancelled) checks[k] = false;
        }
      }
    }
    for (std::size_t s = 0; s < category.signals.size() && !context.empty(); ++s) {
      if (category.signals[s].score > 0 && impl.Fires(context_evidence, c, s)) {
        detection.context_matched = true;
        break;
      }
    }
    if (positive && detection.context_matched) evidence_for += category.context_boost;
    // Positive evidence saturates; benign framing then pulls it down, so a
    // warning about `rm -rf /` is not outweighed by how alarming the command is.
    double confidence = std::clamp(std::min(evidence_for, 1.0) + evidence_against, 0.0, 1.0);
    for (std::size_t k = 0; k < category.checks.size(); ++k) {
      detection.checks.emplace_back(category.checks[k].name, checks[k]);
      if (checks[k]) confidence *= category.checks[k].factor;
    }
    std::sort(detection.signals.begin(), detection.signals.end(),
              [](const SignalHit& a, const SignalHit& b) { return a.start < b.start; });
    detection.confidence = confidence;
    // The epsilon keeps 0.3 + 0.15 at a 0.45 threshold a detection.
    detection.detected = positive && confidence + 1e-9 >= category.threshold;
    analysis.detections.push_back(std::move(detection));
  }

  ScoreRisk(catalogue, analysis);
  return analysis;
}

void ScoreRisk(const Catalogue& catalogue, Analysis& analysis) {
  analysis.risk_score = 0;
  analysis.interventions.clear();
  for (std::size_t c = 0; c < catalogue.categories.size(); ++c) {
    const CategoryDetection& detection = analysis.detections[c];
    if (detection.detected)
      analysis.risk_score += detection.confidence * catalogue.categories[c].weight;
  }
  const RiskThresholds& t = catalogue.thresholds;
  const double score = analysis.risk_score;
  analysis.risk_level = score >= t.critical   ? RiskLevel::kCritical
                        : score >= t.high     ? RiskLevel::kHigh
                        : score >= t.moderate ? RiskLevel::kModerate
                                              : RiskLevel::kLow;
  // A detected failure is never "low" risk: that would read as "nothing to
  // see" beside the detection. A light category alone is moderate.
  const bool any_detected = std::any_of(analysis.detections.begin(), analysis.detections.end(),
                                        [](const CategoryDetection& d) { return d.detected; });
  if (any_detected && analysis.risk_level == RiskLevel::kLow) {
    analysis.risk_level = RiskLevel::kModerate;
  }

  // One entry per intervention type, in order of first need, naming every
  // detected category that calls for it.
  for (std::size_t c = 0; c < catalogue.categories.size(); ++c) {
    if (!analysis.detections[c].detected) continue;
    for (const std::string& type : catalogue.categories[c].interventions) {
      auto existing = std::find_if(analysis.interventions.begin(), analysis.interventions.end(),
                                   [&](const Intervention& i) { return i.type == type; });
      if (existing == analysis.interventions.end()) {
        const InterventionSpec* spec = catalogue.FindIntervention(type);
        analysis.interventions.push_back(
            Intervention{type, spec ? spec->reason : "", spec ? spec->suggestion : "", {}});
        existing = std::prev(analysis.interventions.end());
      }
      existing->categories.push_back(catalogue.categories[c].name);
    }
  }
}

Result<const DetectorBank*> SharedDetectorBank() {
  // Built on first use so that processes that never analyse (the hook) never
  // pay for compiling the catalogue.
  struct Holder {
    std::unique_ptr<DetectorBank> bank;
    std::string error;
  };
  static const Holder holder = [] {
    Holder h;
    auto catalogue = LoadCatalogue();
    if (!catalogue) {
      h.error = catalogue.error();
      return h;
    }
    auto bank = DetectorBank::Build(std::move(catalogue.value()));
    if (!bank) {
      h.error = bank.error();
      return h;
    }
    h.bank = std::move(bank.value());
    return h;
  }();
  if (!holder.bank) return Fail(holder.error);
  return static_cast<const DetectorBank*>(holder.bank.get());
}

std::string_view RiskLevelName(RiskLevel level) {
  switch (level) {
    case RiskLevel::kLow:
      return "low";
    case RiskLevel::kModerate:
      return "moderate";
    case RiskLevel::kHigh:
      return "high";
    case RiskLevel::kCritical:
      return "critical";
  }
  return "low";
}

const CategoryDetection* Analysis::Find(std::string_view category) const {
  for (const auto& detection : detections) {
    if (detection.category == category) return &detection;
  }
  return nullptr;
}

}  // namespace togmal::analysis
