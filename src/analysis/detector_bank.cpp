#include "togmal/analysis/detector_bank.h"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
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
// (pattern_lines.h) runs only on the lines whose atoms satisfy its prefilter;
// one that can, but not some other byte (`you\s+should` never holds a '.'),
// on the stretches between such bytes whose atoms do. The rest run over the
// whole text when the text's atoms satisfy their prefilter
// (docs/performance.md, "Line-local evaluation").
// Atoms are taken at least 3 bytes long where that leaves the pattern any
// (shorter ones occur on more lines); 20 of the 28 patterns that would have
// none, such as `\brm\s+-\w*r`, have some of 2 (`rm`) and are still run only
// where those occur. 1 byte would leave one pattern without atoms instead of
// 8, but atoms such as ` ` or a digit make the scan report most bytes.
constexpr int kMinAtomLengths[] = {3, 2};
// A pattern's run on one line or segment costs about as much as this many more
// bytes of a whole-text run (RE2::Match's set-up per call), so a pattern whose
// lines would cost more than the whole text runs on the whole text: the same
// matches, found in one call.
constexpr std::size_t kLineRunOverhead = 256;
// Patterns with up to this many atoms have the pairs of atoms that satisfy
// their prefilter worked out when the bank is built (Entry::pairs).
constexpr std::size_t kMaxPairAtoms = 160;
constexpr std::uint32_t kNoLine = std::numeric_limits<std::uint32_t>::max();

enum class EntryKind { kSignal, kCheck };

/// How far a match of a pattern can reach, which decides where it is run.
enum class Reach {
  kLine,     ///< never a '\n': on the lines whose atoms satisfy its prefilter
  kSegment,  ///< a '\n' but not some other byte: on the stretches between those bytes
  kWhole,    ///< anything (or no atoms): on the whole text
};

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
  /// Where the pattern runs: its candidate lines, its candidate segments
  /// (stretches without a byte of `boundary`), or the whole text.
  Reach reach = Reach::kWhole;
  /// The bytes no match holds (MatchableBytes' complement), for kSegment.
  std::bitset<256> boundary;
  /// The prefilter needs no atom (too short or none): run on the whole text.
  bool unfiltered = false;
  /// Per atom of `filter` (its index there): whether it alone satisfies the
  /// prefilter, which answers most lines without asking `filter`.
  std::vector<bool> sufficient;
  /// For a pattern with at most kMaxPairAtoms atoms: per atom, a bit per
  /// other atom with which it satisfies the prefilter (`pair_words` words an
  /// atom). Most lines with two atoms that are not enough alone are then
  /// answered without asking `filter` (two allocations and a tree walk a
  /// question, most of the planning's time).
  std::vector<std::uint64_t> pairs;
  std::size_t pair_words = 0;
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

/// Whether `filter`'s one pattern may match given these of its atoms, none of
/// which is enough alone (`atoms` is sorted and made unique here; a segment's
/// atoms come once per occurrence). One atom that is not enough alone is not
/// enough, since the prefilter is monotone, so only two or more are asked.
///
/// What is still asked is kept in `known` (keyed by the entry and its atoms),
/// which the thread keeps from one text to the next while it analyses with
/// the same bank: the same few combinations recur line after line.
bool PotentialFromSeveral(std::uint32_t e, const Entry& entry, std::vector<int>& atoms,
                          std::unordered_map<std::string, bool>& known) {
  if (atoms.size() < 2) return false;
  std::sort(atoms.begin(), atoms.end());
  atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
  if (atoms.size() < 2) return false;
  if (entry.pair_words > 0) {
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      const std::uint64_t* row =
          &entry.pairs[static_cast<std::size_t>(atoms[i]) * entry.pair_words];
      for (std::size_t j = i + 1; j < atoms.size(); ++j) {
        const auto b = static_cast<std::size_t>(atoms[j]);
        if (row[b / 64] >> (b % 64) & 1) return true;
      }
    }
    if (atoms.size() == 2) return false;  // the one pair, known not to be enough
  }
  std::string key(sizeof e + atoms.size() * sizeof(int), '\0');
  std::memcpy(key.data(), &e, sizeof e);
  std::memcpy(key.data() + sizeof e, atoms.data(), atoms.size() * sizeof(int));
  const auto [it, inserted] = known.emplace(std::move(key), false);
  if (inserted) it->second = Potential(*entry.filter, atoms);
  return it->second;
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

/// Threads that compile a bank's patterns, the calling thread among them.
constexpr unsigned kMaxBuildThreads = 4;

/// One catalogue pattern to compile: a signal's, or one of a check's.
struct PatternSpec {
  std::size_t category = 0;
  EntryKind kind = EntryKind::kSignal;
  std::size_t index = 0;
  const std::string* pattern = nullptr;
  bool case_sensitive = false;
  int line = 0;
};

/// A compiled pattern: its entry and its atoms (in its filter's numbering),
/// or what is wrong with it.
struct CompiledPattern {
  Entry entry;
  std::vector<std::string> atoms;
  std::string error;
};

/// Compiles one pattern with its prefilter, where it may run, and the tables
/// that answer its prefilter for one atom and for pairs. Touches nothing
/// shared, so patterns compile in parallel.
CompiledPattern CompilePattern(const PatternSpec& spec, const std::string& source) {
  CompiledPattern out;
  const std::string& pattern = *spec.pattern;
  const std::string full = WithFlags(pattern, spec.case_sensitive);
  Entry& entry = out.entry;
  entry.category = spec.category;
  entry.kind = spec.kind;
  entry.index = spec.index;
  std::vector<std::string>& own_atoms = out.atoms;
  int id = -1;
  for (int min_length : kMinAtomLengths) {
    entry.filter = std::make_unique<re2::FilteredRE2>(min_length);
    if (entry.filter->Add(full, PatternOptions(), &id) != RE2::NoError) {
      const RE2 bad(full, PatternOptions());
      out.error = source + ":" + std::to_string(spec.line) + ": bad pattern '" + pattern +
                  "': " + bad.error();
      return out;
    }
    entry.filter->Compile(&own_atoms);
    entry.unfiltered = own_atoms.empty() || Potential(*entry.filter, {});
    if (!entry.unfiltered) break;
  }
  entry.re = &entry.filter->GetRE2(id);
  const std::bitset<256> matchable = MatchableBytes(full);
  entry.boundary = ~matchable;
  entry.reach = !matchable['\n']       ? Reach::kLine
                : entry.boundary.any() ? Reach::kSegment
                                       : Reach::kWhole;
  if (entry.unfiltered) {
    entry.reach = Reach::kWhole;
    own_atoms.clear();
    return out;
  }
  for (std::size_t a = 0; a < own_atoms.size(); ++a) {
    entry.sufficient.push_back(entry.reach != Reach::kWhole &&
                               Potential(*entry.filter, {static_cast<int>(a)}));
  }
  if (entry.reach != Reach::kWhole && own_atoms.size() <= kMaxPairAtoms) {
    const std::size_t k = own_atoms.size();
    entry.pair_words = (k + 63) / 64;
    entry.pairs.assign(k * entry.pair_words, 0);
    for (std::size_t a = 0; a < k; ++a) {
      for (std::size_t b = a + 1; b < k; ++b) {
        if (entry.sufficient[a] || entry.sufficient[b]) continue;  // never asked
        if (Potential(*entry.filter, {static_cast<int>(a), static_cast<int>(b)})) {
          entry.pairs[a * entry.pair_words + b / 64] |= std::uint64_t{1} << (b % 64);
          entry.pairs[b * entry.pair_words + a / 64] |= std::uint64_t{1} << (a % 64);
        }
      }
    }
  }
  return out;
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

  /// A stretch of text [start, end) that one entry runs on.
  struct Range {
    std::size_t start = 0;
    std::size_t end = 0;
  };

  /// Where each entry is to run on one text.
  struct Plan {
    AtomScanner::Result scan;
    /// Per entry: run over the whole text.
    std::vector<bool> whole;
    /// Per entry that runs on lines or segments, those whose atoms satisfy
    /// its prefilter, ascending.
    std::vector<std::vector<Range>> ranges;
  };

  /// An atom occurrence for an entry that runs on segments.
  struct SegmentHit {
    std::size_t end = 0;  ///< one past the atom's last byte
    int local = 0;        ///< the atom's index in the entry's filter
  };

  /// What one analysis works in, kept per thread from one text to the next:
  /// on a 1 KB text, allocating these per entry cost more than the scan. The
  /// prefilter's answers (`known`) are facts about the bank, not the text, so
  /// they are kept too while the thread analyses with the same bank.
  struct Scratch {
    std::uint64_t bank = 0;  ///< Impl::id of the bank `known` belongs to
    Plan plan;
    std::vector<std::uint32_t> marked;      ///< per entry: the line last added
    std::vector<std::uint32_t> pending_on;  ///< per entry: the line `pending` is of
    /// Per line entry, its atoms on the current line that are not enough alone.
    std::vector<std::vector<int>> pending;
    std::vector<std::uint32_t> touched;
    /// Per entry that runs on the whole text, its atoms anywhere in it.
    std::vector<std::vector<int>> anywhere;
    std::vector<std::vector<SegmentHit>> segment_hits;
    std::vector<bool> use_seen;                   ///< for `anywhere`, each atom once
    std::vector<int> atoms;                       ///< a segment's atoms
    std::unordered_map<std::string, bool> known;  ///< PotentialFromSeveral's answers
  };
  /// Drops `known` past this many answers (an adversarial text could make
  /// many combinations); real text needs a few hundred.
  static constexpr std::size_t kMaxKnown = 1 << 16;

  /// Tells one bank's scratch answers from another's (a bank may be freed and
  /// another built at its address).
  std::uint64_t id = 0;

  /// This thread's scratch, with `known` emptied if another bank filled it.
  Scratch& ThreadScratch() const {
    thread_local Scratch scratch;
    if (scratch.bank != id || scratch.known.size() > kMaxKnown) {
      scratch.known.clear();
      scratch.bank = id;
    }
    return scratch;
  }

  /// Adds `segment` (a maximal stretch without a byte of the entry's
  /// `boundary`) to `ranges` when its atoms satisfy the entry's prefilter:
  /// one of them alone (`satisfied`) or `atoms`, those not enough alone.
  static void CloseSegment(std::uint32_t e, const Entry& entry, Range segment, bool satisfied,
                           std::vector<int>& atoms, std::unordered_map<std::string, bool>& known,
                           std::vector<Range>& ranges) {
    if (satisfied || PotentialFromSeveral(e, entry, atoms, known)) {
      ranges.push_back(segment);
    }
  }

  /// Entry `e`'s candidate segments, from its atoms' `hits`, into `ranges`.
  void Segments(std::uint32_t e, std::string_view text, const std::vector<SegmentHit>& hits,
                std::vector<int>& atoms, std::unordered_map<std::string, bool>& known,
                std::vector<Range>& ranges) const {
    const Entry& entry = entries[e];
    ranges.clear();
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    Range segment;
    bool open = false;
    bool satisfied = false;
    atoms.clear();
    for (const SegmentHit& hit : hits) {
      // Hits come in the order of their ends, and an atom holds no boundary
      // byte (it is part of every match), so a hit that ends past the open
      // segment starts past it too.
      if (!open || hit.end > segment.end) {
        if (open) CloseSegment(e, entry, segment, satisfied, atoms, known, ranges);
        segment.start = hit.end - 1;
        while (segment.start > 0 && !entry.boundary[bytes[segment.start - 1]]) --segment.start;
        segment.end = hit.end;
        while (segment.end < text.size() && !entry.boundary[bytes[segment.end]]) ++segment.end;
        open = true;
        satisfied = false;
        atoms.clear();
      }
      if (satisfied) continue;
      if (entry.sufficient[static_cast<std::size_t>(hit.local)]) {
        satisfied = true;
      } else {
        atoms.push_back(hit.local);
      }
    }
    if (open) CloseSegment(e, entry, segment, satisfied, atoms, known, ranges);
  }

  /// Where each entry is to run on `text`, in `scratch.plan`.
  const Plan& MakePlan(std::string_view text, Scratch& scratch) const {
    Plan& plan = scratch.plan;
    const std::size_t n = entries.size();
    plan.whole.assign(n, false);
    plan.ranges.resize(n);
    for (std::size_t e = 0; e < n; ++e) {
      plan.whole[e] = entries[e].unfiltered;
      plan.ranges[e].clear();
    }
    if (scanner == nullptr) return plan;
    scanner->Scan(text, plan.scan);

    // A line entry's atoms on the current line that are not enough alone are
    // asked of its filter once the line's atoms are all known.
    std::vector<std::uint32_t>& marked = scratch.marked;
    std::vector<std::uint32_t>& pending_on = scratch.pending_on;
    std::vector<std::vector<int>>& pending = scratch.pending;
    std::vector<std::uint32_t>& touched = scratch.touched;
    std::vector<std::vector<int>>& anywhere = scratch.anywhere;
    std::vector<std::vector<SegmentHit>>& segment_hits = scratch.segment_hits;
    std::vector<bool>& use_seen = scratch.use_seen;
    std::unordered_map<std::string, bool>& known = scratch.known;
    marked.assign(n, kNoLine);
    pending_on.assign(n, kNoLine);
    pending.resize(n);
    anywhere.resize(n);
    segment_hits.resize(n);
    for (std::size_t e = 0; e < n; ++e) {
      anywhere[e].clear();
      segment_hits[e].clear();
    }
    touched.clear();
    use_seen.assign(uses.size(), false);

    const std::vector<AtomScanner::Hit>& hits = plan.scan.hits;
    for (std::size_t h = 0; h < hits.size();) {
      const std::uint32_t line = hits[h].line;
      const Range line_range{plan.scan.line_starts[line], plan.scan.line_ends[line]};
      for (; h < hits.size() && hits[h].line == line; ++h) {
        const std::uint32_t atom = hits[h].atom;
        for (std::uint32_t u = use_begin[atom]; u < use_begin[atom + 1]; ++u) {
          const AtomUse& use = uses[u];
          const Entry& entry = entries[use.entry];
          if (entry.reach == Reach::kWhole) {
            if (!use_seen[u]) anywhere[use.entry].push_back(use.local);
            use_seen[u] = true;
          } else if (entry.reach == Reach::kSegment) {
            segment_hits[use.entry].push_back(SegmentHit{hits[h].end, use.local});
          } else if (marked[use.entry] == line) {
            continue;
          } else if (entry.sufficient[static_cast<std::size_t>(use.local)]) {
            marked[use.entry] = line;
            plan.ranges[use.entry].push_back(line_range);
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
        if (marked[e] != line && PotentialFromSeveral(e, entries[e], pending[e], known)) {
          marked[e] = line;
          plan.ranges[e].push_back(line_range);
        }
      }
      touched.clear();
    }
    for (std::size_t e = 0; e < entries.size(); ++e) {
      if (!segment_hits[e].empty()) {
        Segments(static_cast<std::uint32_t>(e), text, segment_hits[e], scratch.atoms, known,
                 plan.ranges[e]);
      }
      std::size_t cost = 0;
      for (const Range& range : plan.ranges[e]) cost += range.end - range.start + kLineRunOverhead;
      if (cost > text.size()) {
        plan.whole[e] = true;
        plan.ranges[e].clear();
      }
    }
    for (std::size_t e = 0; e < entries.size(); ++e) {
      if (entries[e].reach != Reach::kWhole || entries[e].unfiltered || anywhere[e].empty()) {
        continue;
      }
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
    const Plan& plan = MakePlan(text, ThreadScratch());
    const re2::StringPiece whole(text.data(), text.size());
    for (std::size_t e = 0; e < entries.size(); ++e) {
      const Entry& entry = entries[e];
      const std::vector<Range>& ranges = plan.ranges[e];
      if (!plan.whole[e] && ranges.empty()) continue;
      if (entry.kind == EntryKind::kCheck) {
        auto holds = evidence.checks[entry.category][entry.index];  // vector<bool>'s proxy
        if (holds) continue;  // another of the check's patterns already matched
        if (plan.whole[e]) {
          holds = RE2::PartialMatch(whole, *entry.re);
          continue;
        }
        for (const Range& range : ranges) {
          if (entry.re->Match(whole, range.start, range.end, RE2::UNANCHORED, nullptr, 0)) {
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
      // No match crosses a range's bounds, and every stretch with a match is
      // in `ranges`, so the whole text's first matches are these ranges' first
      // matches.
      for (const Range& range : ranges) {
        if (spans.size() >= wanted) break;
        pos = std::max(pos, range.start);
        AppendSpans(*entry.re, text, pos, range.end, signal.name, wanted, spans);
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
  static std::atomic<std::uint64_t> banks_built{0};
  impl->id = ++banks_built;
  std::vector<std::string> atoms;  // every entry's, each once
  std::unordered_map<std::string, std::uint32_t> atom_ids;
  std::vector<std::pair<std::uint32_t, AtomUse>> uses;  // (atom, use)

  // Each pattern is compiled on its own (its RE2, its filter, its tables),
  // which is most of the bank's cost, so the patterns are shared out among
  // threads; the atoms are then numbered across entries in catalogue order.
  std::vector<PatternSpec> specs;
  for (std::size_t c = 0; c < catalogue.categories.size(); ++c) {
    const CategorySpec& category = catalogue.categories[c];
    for (std::size_t s = 0; s < category.signals.size(); ++s) {
      const SignalSpec& signal = category.signals[s];
      specs.push_back(PatternSpec{c, EntryKind::kSignal, s, &signal.pattern, signal.case_sensitive,
                                  signal.pattern_line > 0 ? signal.pattern_line : signal.line});
    }
    for (std::size_t k = 0; k < category.checks.size(); ++k) {
      const CheckSpec& check = category.checks[k];
      for (std::size_t i = 0; i < check.patterns.size(); ++i) {
        const int line = i < check.pattern_lines.size() ? check.pattern_lines[i] : check.line;
        specs.push_back(PatternSpec{c, EntryKind::kCheck, k, &check.patterns[i], false, line});
      }
    }
  }
  std::vector<CompiledPattern> compiled(specs.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < specs.size(); i = next++) {
      try {
        compiled[i] = CompilePattern(specs[i], catalogue.source);
      } catch (const std::exception& e) {  // out of memory: not to end the thread
        compiled[i].error =
            catalogue.source + ":" + std::to_string(specs[i].line) + ": " + e.what();
      }
    }
  };
  {
    const unsigned helpers =
        std::min(std::max(std::thread::hardware_concurrency(), 1u), kMaxBuildThreads) - 1;
    std::vector<std::jthread> threads;
    for (unsigned t = 0; t < helpers && t + 1 < specs.size(); ++t) threads.emplace_back(work);
    work();
  }
  for (CompiledPattern& pattern : compiled) {
    if (!pattern.error.empty()) return Fail(pattern.error);
    Entry& entry = impl->entries.emplace_back(std::move(pattern.entry));
    if (entry.unfiltered) continue;
    const auto entry_id = static_cast<std::uint32_t>(impl->entries.size() - 1);
    for (std::size_t a = 0; a < pattern.atoms.size(); ++a) {
      const auto [it, inserted] =
          atom_ids.emplace(pattern.atoms[a], static_cast<std::uint32_t>(atoms.size()));
      if (inserted) atoms.push_back(pattern.atoms[a]);
      uses.emplace_back(it->second, AtomUse{entry_id, static_cast<int>(a)});
    }
  }
  if (!atoms.empty()) {
    // Segments need every occurrence of their atoms, lines one per line.
    std::vector<bool> every_occurrence(atoms.size(), false);
    for (const auto& [atom, use] : uses) {
      if (impl->entries[use.entry].reach == Reach::kSegment) every_occurrence[atom] = true;
    }
    impl->scanner = std::make_unique<AtomScanner>(atoms, every_occurrence);
    // An atom found only as "somewhere on this line" (one with a cased
    // non-ASCII character) cannot place a segment: such entries run whole.
    for (const auto& [atom, use] : uses) {
      Entry& entry = impl->entries[use.entry];
      if (entry.reach == Reach::kSegment && !impl->scanner->Exact(atom))
        entry.reach = Reach::kWhole;
    }
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
