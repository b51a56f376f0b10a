#include "atom_scanner.h"

#include <re2/re2.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>

#include "togmal/util/text.h"

namespace togmal::analysis {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
/// The high bit of a transition says "an atom ends in the target state", so
/// the scan's loop looks at one table only.
constexpr std::uint32_t kHasOutput = std::uint32_t{1} << 31;

// The UTF-8 of the two non-ASCII characters in the case orbit of an ASCII
// letter (Unicode simple case folding; RE2 folds (?i) by the same orbits).
constexpr std::string_view kKelvinSign = "\xE2\x84\xAA";  // U+212A, folds with k
constexpr std::string_view kLongS = "\xC5\xBF";           // U+017F, folds with s

/// The atom as the automaton sees it: ASCII lower-case, the Kelvin sign and
/// long s as k and s (the scan reads them so from the text).
std::string Fold(std::string_view atom) {
  std::string folded;
  for (std::size_t i = 0; i < atom.size();) {
    if (atom.substr(i, kKelvinSign.size()) == kKelvinSign) {
      folded += 'k';
      i += kKelvinSign.size();
    } else if (atom.substr(i, kLongS.size()) == kLongS) {
      folded += 's';
      i += kLongS.size();
    } else {
      folded += util::AsciiLower(atom[i]);
      ++i;
    }
  }
  return folded;
}

/// Whether RE2's case-insensitive matching of `character` (one UTF-8
/// character) matches that character only, such as ’ or —: then the atom's
/// bytes can be matched as they are. Asked of RE2 itself: every anchored match
/// of (?i)c lies in [min, max], so min == max == c leaves c alone.
bool Caseless(const std::string& character) {
  RE2::Options options;
  options.set_log_errors(false);
  const RE2 folded("(?i)" + RE2::QuoteMeta(character), options);
  std::string min;
  std::string max;
  return folded.ok() && folded.PossibleMatchRange(&min, &max, 8) && min == character &&
         max == character;
}

/// Whether every non-ASCII character of `atom` (already folded) is caseless.
bool ExactBytesMatch(std::string_view atom, std::map<std::string, bool>& caseless) {
  for (std::size_t i = 0; i < atom.size();) {
    const auto lead = static_cast<unsigned char>(atom[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (length == 1 || i + length > atom.size()) return false;  // not UTF-8: not understood
    const std::string character(atom.substr(i, length));
    auto known = caseless.find(character);
    if (known == caseless.end()) known = caseless.emplace(character, Caseless(character)).first;
    if (!known->second) return false;
    i += length;
  }
  return true;
}

}  // namespace

AtomScanner::AtomScanner(const std::vector<std::string>& atoms,
                         const std::vector<bool>& every_occurrence)
    : atom_count_(atoms.size()),
      inexact_(atoms.size(), false),
      every_occurrence_(every_occurrence) {
  every_occurrence_.resize(atoms.size(), false);
  std::vector<std::string> folded;
  folded.reserve(atoms.size());
  std::vector<bool> in_automaton(atoms.size(), false);
  std::map<std::string, bool> caseless;  // per non-ASCII character seen
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    folded.push_back(Fold(atoms[a]));
    if (!ExactBytesMatch(folded.back(), caseless)) {
      non_ascii_atoms_.push_back(static_cast<std::uint32_t>(a));
      inexact_[a] = true;
    } else if (!folded.back().empty()) {
      in_automaton[a] = true;
    }
  }

  // Byte classes: one per distinct byte of the automaton's atoms, upper-case
  // ASCII sharing its lower-case letter's class.
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    if (!in_automaton[a]) continue;
    for (char c : folded[a]) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte_class_[byte] == 0) byte_class_[byte] = static_cast<std::uint8_t>(class_count_++);
    }
  }
  for (unsigned char upper = 'A'; upper <= 'Z'; ++upper) {
    byte_class_[upper] =
        byte_class_[static_cast<unsigned char>(util::AsciiLower(static_cast<char>(upper)))];
  }

  // The trie, with transitions as a dense table that the failure links then
  // complete (so the scan never follows a failure link).
  std::vector<std::uint32_t> goto_table(class_count_, kNone);
  std::vector<std::uint32_t> own_output(1, kNone);  // per state, first atom equal to it
  output_next_.assign(atoms.size(), kNone);
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    if (!in_automaton[a]) continue;
    std::uint32_t state = 0;
    for (char c : folded[a]) {
      const std::size_t slot = state * class_count_ + byte_class_[static_cast<unsigned char>(c)];
      if (goto_table[slot] == kNone) {
        goto_table[slot] = static_cast<std::uint32_t>(own_output.size());
        own_output.push_back(kNone);
        goto_table.resize(goto_table.size() + class_count_, kNone);
      }
      state = goto_table[slot];
    }
    output_next_[a] = own_output[state];  // a duplicate atom chains to the earlier one
    own_output[state] = static_cast<std::uint32_t>(a);
  }
  state_count_ = own_output.size();

  // Breadth first: a state's failure state is shallower, so complete already.
  std::vector<std::uint32_t> failure(state_count_, 0);
  output_.assign(state_count_, kNone);
  output_[0] = own_output[0];
  std::deque<std::uint32_t> queue;
  std::vector<std::uint32_t> breadth_first(1, 0);  // the states, shallowest first
  for (std::size_t c = 0; c < class_count_; ++c) {
    std::uint32_t& slot = goto_table[c];
    if (slot == kNone) {
      slot = 0;
    } else {
      failure[slot] = 0;
      queue.push_back(slot);
    }
  }
  while (!queue.empty()) {
    const std::uint32_t state = queue.front();
    queue.pop_front();
    breadth_first.push_back(state);
    // Atoms ending here: this state's own, then those of its failure state.
    const std::uint32_t inherited = output_[failure[state]];
    if (own_output[state] == kNone) {
      output_[state] = inherited;
    } else {
      output_[state] = own_output[state];
      std::uint32_t last = own_output[state];
      while (output_next_[last] != kNone) last = output_next_[last];
      output_next_[last] = inherited;
    }
    for (std::size_t c = 0; c < class_count_; ++c) {
      std::uint32_t& slot = goto_table[state * class_count_ + c];
      const std::uint32_t via_failure = goto_table[failure[state] * class_count_ + c];
      if (slot == kNone) {
        slot = via_failure;
      } else {
        failure[slot] = via_failure;
        queue.push_back(slot);
      }
    }
  }

  // Transitions as row offsets, flagged when their target reports atoms, with
  // the states renumbered shallowest first: text keeps the automaton near the
  // root, and those rows then share a few cache lines instead of being spread
  // over the whole table (37,000 states by 60 classes, 9 MB).
  std::vector<std::uint32_t> renumbered(state_count_);
  for (std::size_t i = 0; i < breadth_first.size(); ++i) {
    renumbered[breadth_first[i]] = static_cast<std::uint32_t>(i);
  }
  next_.resize(goto_table.size());
  std::vector<std::uint32_t> output(state_count_);
  for (std::uint32_t old_state = 0; old_state < state_count_; ++old_state) {
    const std::size_t row = renumbered[old_state] * class_count_;
    output[renumbered[old_state]] = output_[old_state];
    for (std::size_t c = 0; c < class_count_; ++c) {
      const std::uint32_t target = goto_table[old_state * class_count_ + c];
      next_[row + c] = static_cast<std::uint32_t>(renumbered[target] * class_count_) |
                       (output_[target] != kNone ? kHasOutput : 0);
    }
  }
  output_ = std::move(output);
}

void AtomScanner::Scan(std::string_view text, Result& out) const {
  out.hits.clear();
  out.line_starts.assign(1, 0);
  out.line_ends.clear();
  // (line + 1) of each atom's last hit, so that a line reports an atom once.
  std::vector<std::uint32_t>& last_line = out.last_line;
  last_line.assign(atom_count_, 0);
  std::uint32_t line = 0;
  bool line_non_ascii = false;
  auto report = [&](std::uint32_t atom, std::size_t end) {
    for (; atom != kNone; atom = output_next_[atom]) {
      if (last_line[atom] == line + 1 && !every_occurrence_[atom]) continue;
      last_line[atom] = line + 1;
      out.hits.push_back(Hit{line, atom, end});
    }
  };
  auto end_line = [&](std::size_t end) {
    if (line_non_ascii) {
      for (std::uint32_t atom : non_ascii_atoms_) report(atom, end);
    }
    out.line_ends.push_back(end);
  };

  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::uint32_t row = 0;
  for (std::size_t i = 0; i < size; ++i) {
    unsigned char byte = bytes[i];
    if (byte >= 0x80) [[unlikely]] {
      line_non_ascii = true;
      if (text.substr(i, kKelvinSign.size()) == kKelvinSign) {
        byte = 'k';
        i += kKelvinSign.size() - 1;
      } else if (text.substr(i, kLongS.size()) == kLongS) {
        byte = 's';
        i += kLongS.size() - 1;
      }
    }
    const std::uint32_t next = next_[row + byte_class_[byte]];
    row = next & ~kHasOutput;
    if (next & kHasOutput) report(output_[row / class_count_], i + 1);
    if (byte == '\n') [[unlikely]] {
      end_line(i);
      ++line;
      line_non_ascii = false;
      out.line_starts.push_back(i + 1);
    }
  }
  end_line(size);
}

}  // namespace togmal::analysis
