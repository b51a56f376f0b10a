#pragma once
/// Finds which of a fixed list of literal strings (the detector patterns'
/// FilteredRE2 atoms) occur on which line of a text, in one pass: an
/// Aho-Corasick automaton. An RE2::Set over the same atoms builds a new DFA
/// state for every combination of atoms seen so far, which on real text costs
/// 0.3–1.4 ms per 25 KB (docs/performance.md, "Where the scan's time goes");
/// this automaton's states are the atoms' prefixes, so its cost is one table
/// lookup a byte whatever the text.
///
/// Matching is what RE2 does for a case-insensitive atom, or a superset of it:
/// ASCII letters fold, and so do the two non-ASCII characters whose case
/// orbit holds an ASCII letter (U+212A KELVIN SIGN with k, U+017F LONG S with
/// s). Non-ASCII characters without case (’ “ — …, asked of RE2 when the
/// scanner is built) match as their bytes. Other non-ASCII characters fold to
/// non-ASCII ones only, so an atom holding one (ö in "schrödinger") is
/// reported on every line that holds a byte >= 0x80: never missed, sometimes
/// reported where it is not.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace togmal::analysis {

class AtomScanner {
 public:
  /// One atom occurrence: atom `atom` (its index in the list given to the
  /// constructor) ends on line `line` (0-based; lines end at '\n') before
  /// byte `end`. An atom that is not Exact() is reported at its line's end.
  struct Hit {
    std::uint32_t line = 0;
    std::uint32_t atom = 0;
    std::size_t end = 0;
  };

  /// What one scan found. `hits` are in the order of their ends; an atom is
  /// reported once a line unless it is to be reported at every occurrence.
  struct Result {
    std::vector<Hit> hits;
    /// [start, end) of every line; end is the '\n' or the text's end.
    std::vector<std::size_t> line_starts;
    std::vector<std::size_t> line_ends;
    /// Scan's own: per atom, (line + 1) of its last hit.
    std::vector<std::uint32_t> last_line;
  };

  /// `atoms` must be non-empty strings (FilteredRE2 atoms are lower-cased,
  /// but upper-case ones are folded too). `every_occurrence[a]` (if given):
  /// report atom `a` at each occurrence, not once a line.
  explicit AtomScanner(const std::vector<std::string>& atoms,
                       const std::vector<bool>& every_occurrence = {});

  /// Whether `atom`'s hits are where it occurs (not merely on its line).
  bool Exact(std::size_t atom) const { return !inexact_[atom]; }

  /// Scans `text`; `out` is overwritten (its buffers are reused).
  void Scan(std::string_view text, Result& out) const;

  std::size_t atom_count() const { return atom_count_; }
  std::size_t state_count() const { return state_count_; }
  std::size_t class_count() const { return class_count_; }

 private:
  /// The byte classes: every byte that occurs in no atom shares class 0.
  std::uint8_t byte_class_[256] = {};
  std::size_t class_count_ = 1;
  std::size_t atom_count_ = 0;
  std::size_t state_count_ = 0;
  /// Complete transition table, [state * class_count_ + class] -> state.
  std::vector<std::uint32_t> next_;
  /// First atom ending at each state (itself or via a suffix), or kNone.
  std::vector<std::uint32_t> output_;
  /// Per atom, the next (shorter) atom ending at the same position, or kNone.
  std::vector<std::uint32_t> output_next_;
  /// Atoms with a non-ASCII character that has case: on every line with a byte >= 0x80.
  std::vector<std::uint32_t> non_ascii_atoms_;
  std::vector<bool> inexact_;  ///< per atom: one of non_ascii_atoms_
  std::vector<bool> every_occurrence_;
};

}  // namespace togmal::analysis
