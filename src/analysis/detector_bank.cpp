#include "togmal/analysis/detector_bank.h"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "atom_scanner.h"
#include "detector_evidence.h"
#include "pattern_lines.h"

namespace togmal::analysis {
namespace {

// Bounds what a single analysis reports, not what it scans: the count that a
// min_count signal needs is always found, the rest of the spans are elided.
// Every span after the first is another search from where the last ended, so
// this is most of the second pass's cost: 8 spans made a 25 KB analysis take
// 271 µs, 3 take 182 µs (docs/performance.md).
constexpr int kMaxSpansPerSignal = 3;
// One DFA over every pattern whole never settles on new text (the product of
// 228 patterns' partial matches is a new state at nearly every byte), so each
// pattern keeps its own RE2, run only where the literal strings it needs (its
// FilteredRE2 atoms) occur: one Aho-Corasick pass over the text finds the
// atoms line by line (atom_scanner.h), and a pattern that cannot match a '\n'
// (pattern_lines.h) runs only on the lines whose atoms satisfy its prefilter.
// A pattern that can span lines runs over the whole text when the text's atoms
// satisfy its prefilter (docs/performance.md, "Line-local evaluation").
constexpr int kMinAtomLength = 3;
constexpr std::uint32_t kNoLine = std::numeric_limits<std::uint32_t>::max();

enum class EntryKind { kSignal, kCheck };

/// One pattern: which category and which signal or check it is, and how the
/// bank decides where to run it.
struct Entry {
  std::size_t category = 0;
  EntryKind kind = EntryKind::kSignal;
  std::size_t index = 0;  ///< into the category's signals or checks
  /// This pattern alone, so that its prefilter can be asked about the atoms of
  /// one line (a filter of all 228 costs 4–70 µs a question). Owns `re`.
  std::unique_ptr<re2::FilteredRE2> filter;
  const RE2* re = nullptr;
  /// No match can hold a '\n': the pattern runs on candidate lines only.
  bool line_local = false;
  /// The prefilter needs no atom (too short or none): run on the whole text.
  bool unfiltered = false;
  /// Per atom of `filter` (its index there): whether it alone satisfies the
  /// prefilter, which answers most lines without asking `filter`.
  std::vector<bool> sufficient;
};

/// An atom's use by one entry: the entry and the atom's index in its filter.
struct AtomUse {
  std::uint32_t entry = 0;
  int local = 0;
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

/// Whether `filter`'s one pattern may match given these of its atoms.
bool Potential(const re2::FilteredRE2& filter, const std::vector<int>& atoms) {
  std::vector<int> potentials;
  filter.AllPotentials(atoms, &potentials);
  return !potentials.empty();
}

/// Spans of one pattern in text[from, to] (`text` whole as the context of
/// \b, ^ and $), appended to `spans` until it holds `wanted`; `pos` is where
/// the search resumes (past the last span) and is advanced.
void AppendSpans(const RE2& re, std::string_view text, std::size_t& pos, std::size_t to,
                 const std::string& name, std::size_t wanted, std::vector<SignalHit>& spans) {
  const re2::StringPiece whole(text.data(), text.size());
  re2::StringPiece match;
  while (pos <= to && spans.size() < wanted &&
         re.Match(whole, pos, to, RE2::UNANCHORED, &match, 1)) {
    const auto start = static_cast<std::size_t>(match.data() - text.data());
    const std::size_t end = start + match.size();
    spans.push_back(SignalHit{name, std::string(match.data(), match.size()), start, end});
    pos = end > start ? end : end + 1;  // never loop on an empty match
  }
}

}  // namespace

struct DetectorBank::Impl {
  Catalogue catalogue;
  std::vector<Entry> entries;
  /// Every entry's atoms, each once; null when no pattern has any.
  std::unique_ptr<AtomScanner> scanner;
  /// Per atom of `scanner`, the entries that use it: uses[use_begin[a] ..
  /// use_begin[a + 1]).
  std::vector<std::uint32_t> use_begin;
  std::vector<AtomUse> uses;

  /// Where each entry is to run on one text.
  struct Plan {
    AtomScanner::Result scan;
    /// Per entry: run over the whole text.
    std::vector<bool> whole;
    /// Per line-local entry, the lines whose atoms satisfy its prefilter, ascending.
    std::vector<std::vector<std::uint32_t>> lines;
  };

  Plan MakePlan(std::string_view text) const {
    Plan plan;
    plan.whole.assign(entries.size(), false);
    plan.lines.resize(entries.size());
    for (std::size_t e = 0; e < entries.size(); ++e) plan.whole[e] = entries[e].unfiltered;
    if (scanner == nullptr) return plan;
    scanner->Scan(text, plan.scan);

    // A line-local entry's atoms on the current line that are not enough
    // alone; asked of its filter once the line's atoms are all known.
    std::vector<std::uint32_t> marked(entries.size(), kNoLine);  // line last added
    std::vector<std::uint32_t> pending_on(entries.size(), kNoLine);
    std::vector<std::vector<int>> pending(entries.size());
    std::vector<std::uint32_t> touched;
    // The atoms anywhere in the text, per entry that can span lines.
    std::vector<std::vector<int>> anywhere(entries.size());

    const std::vector<AtomScanner::Hit>& hits = plan.scan.hits;
    for (std::size_t h = 0; h < hits.size();) {
      const std::uint32_t line = hits[h].line;
      for (; h < hits.size() && hits[h].line == line; ++h) {
        const std::uint32_t atom = hits[h].atom;
        for (std::uint32_t u = use_begin[atom]; u < use_begin[atom + 1]; ++u) {
          const AtomUse& use = uses[u];
          const Entry& entry = entries[use.entry];
          if (!entry.line_local) {
            anywhere[use.entry].push_back(use.local);
          } else if (marked[use.entry] == line) {
            continue;
          } else if (entry.sufficient[static_cast<std::size_t>(use.local)]) {
            marked[use.entry] = line;
            plan.lines[use.entry].push_back(line);
          } else {
            if (pending_on[use.entry] != line) {
              pending_on[use.entry] = line;
              pending[use.entry].clear();
              touched.push_back(use.entry);
            }
            pending[use.entry].push_back(use.local);
          }
        }
      }
      for (std::uint32_t e : touched) {
        // One atom that is not enough alone is not enough (the prefilter is
        // monotone); two or more are asked of the entry's own filter.
        if (marked[e] != line && pending[e].size() >= 2 &&
            Potential(*entries[e].filter, pending[e])) {
          marked[e] = line;
          plan.lines[e].push_back(line);
        }
      }
      touched.clear();
    }
    for (std::size_t e = 0; e < entries.size(); ++e) {
      if (entries[e].line_local || entries[e].unfiltered || anywhere[e].empty()) continue;
      std::sort(anywhere[e].begin(), anywhere[e].end());
      anywhere[e].erase(std::unique(anywhere[e].begin(), anywhere[e].end()), anywhere[e].end());
      plan.whole[e] = Potential(*entries[e].filter, anywhere[e]);
    }
    return plan;
  }

  DetectorEvidence Collect(std::string_view text) const {
    DetectorEvidence evidence;
    evidence.spans.resize(catalogue.categories.size());
    evidence.checks.resize(catalogue.categories.size());
    for (std::size_t c = 0; c < catalogue.categories.size(); ++c) {
      evidence.spans[c].resize(catalogue.categories[c].signals.size());
      evidence.checks[c].assign(catalogue.categories[c].checks.size(), false);
    }
    if (text.empty()) return evidence;
    const Plan plan = MakePlan(text);
    const re2::StringPiece whole(text.data(), text.size());
    for (std::size_t e = 0; e < entries.size(); ++e) {
      const Entry& entry = entries[e];
      const std::vector<std::uint32_t>& lines = plan.lines[e];
      if (!plan.whole[e] && lines.empty()) continue;
      if (entry.kind == EntryKind::kCheck) {
        auto holds = evidence.checks[entry.category][entry.index];  // vector<bool>'s proxy
        if (holds) continue;  // another of the check's patterns already matched
        if (plan.whole[e]) {
          holds = RE2::PartialMatch(whole, *entry.re);
          continue;
        }
        for (std::uint32_t line : lines) {
          if (entry.re->Match(whole, plan.scan.line_starts[line], plan.scan.line_ends[line],
                              RE2::UNANCHORED, nullptr, 0)) {
            holds = true;
            break;
          }
        }
        continue;
      }
      const SignalSpec& signal = catalogue.categories[entry.category].signals[entry.index];
      const auto wanted = static_cast<std::size_t>(std::max(signal.min_count, kMaxSpansPerSignal));
      std::vector<SignalHit>& spans = evidence.spans[entry.category][entry.index];
      std::size_t pos = 0;
      if (plan.whole[e]) {
        AppendSpans(*entry.re, text, pos, text.size(), signal.name, wanted, spans);
        continue;
      }
      // No match crosses a line, and every line with a match is in `lines`,
      // so the whole text's first matches are these lines' first matches.
      for (std::uint32_t line : lines) {
        if (spans.size() >= wanted) break;
        pos = std::max(pos, plan.scan.line_starts[line]);
        AppendSpans(*entry.re, text, pos, plan.scan.line_ends[line], signal.name, wanted, spans);
      }
    }
    return evidence;
  }

  /// Whether signal `s` of category `c` fires given the evidence.
  bool Fires(const DetectorEvidence& evidence, std::size_t c, std::size_t s) const {
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

DetectorEvidence CollectEvidence(const DetectorBank& bank, std::string_view text) {
  return bank.impl_->Collect(text);
}

Result<std::unique_ptr<DetectorBank>> DetectorBank::Build(Catalogue catalogue) {
  auto impl = std::make_unique<Impl>();
  std::vector<std::string> atoms;  // every entry's, each once
  std::unordered_map<std::string, std::uint32_t> atom_ids;
  std::vector<std::pair<std::uint32_t, AtomUse>> uses;  // (atom, use)

  auto add = [&](std::size_t c, EntryKind kind, std::size_t index, const std::string& pattern,
                 bool case_sensitive, int line) -> Result<void> {
    const std::string full = WithFlags(pattern, case_sensitive);
    const std::string where = catalogue.source + ":" + std::to_string(line) + ": ";
    Entry entry{c, kind, index, std::make_unique<re2::FilteredRE2>(kMinAtomLength)};
    int id = -1;
    if (entry.filter->Add(full, PatternOptions(), &id) != RE2::NoError) {
      const RE2 bad(full, PatternOptions());
      return Fail(where + "bad pattern '" + pattern + "': " + bad.error());
    }
    std::vector<std::string> own_atoms;
    entry.filter->Compile(&own_atoms);
    entry.re = &entry.filter->GetRE2(id);
    entry.line_local = !MayMatchNewline(full);
    entry.unfiltered = own_atoms.empty() || Potential(*entry.filter, {});
    const auto entry_id = static_cast<std::uint32_t>(impl->entries.size());
    if (!entry.unfiltered) {
      for (std::size_t a = 0; a < own_atoms.size(); ++a) {
        const auto [it, inserted] =
            atom_ids.emplace(own_atoms[a], static_cast<std::uint32_t>(atoms.size()));
        if (inserted) atoms.push_back(own_atoms[a]);
        uses.emplace_back(it->second, AtomUse{entry_id, static_cast<int>(a)});
        entry.sufficient.push_back(entry.line_local &&
                                   Potential(*entry.filter, {static_cast<int>(a)}));
      }
    }
    impl->entries.push_back(std::move(entry));
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
  if (!atoms.empty()) {
    impl->scanner = std::make_unique<AtomScanner>(atoms);
    std::stable_sort(uses.begin(), uses.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    impl->use_begin.assign(atoms.size() + 1, 0);
    for (const auto& [atom, use] : uses) {
      ++impl->use_begin[atom + 1];
      impl->uses.push_back(use);
    }
    for (std::size_t a = 0; a < atoms.size(); ++a) impl->use_begin[a + 1] += impl->use_begin[a];
  }
  impl->catalogue = std::move(catalogue);
  return std::unique_ptr<DetectorBank>(new DetectorBank(std::move(impl)));
}

Analysis DetectorBank::Analyze(std::string_view text, std::string_view context) const {
  const Impl& impl = *impl_;
  const Catalogue& catalogue = impl.catalogue;
  const DetectorEvidence evidence = impl.Collect(text);
  const DetectorEvidence context_evidence = impl.Collect(context);

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
