#include "togmal/analysis/features.h"

#include <cmath>
#include <string>

#include "togmal/util/text.h"

namespace togmal::analysis {
namespace {

// Each feature family hashes from its own seed, so a word and a character
// n-gram with the same bytes land in different buckets.
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;
constexpr std::uint64_t kWordSeed = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kCharSeed = 0x84222325cbf29ce4ULL;
constexpr std::uint64_t kContextSeed = 0x9ae16a3b2f90404fULL;
constexpr std::uint64_t kNamedSeed = 0xc3a5c85c97cb3127ULL;

// The model reads the start of a long text (the RE2 evidence it also gets
// covers all of it): on a 25,000-character text every n-gram would cost more
// than the whole RE2 scan. Character n-grams, two per byte, get the shorter
// window. Every corpus text fits in both.
constexpr std::size_t kMaxCharGramBytes = 2048;

std::uint32_t Bucket(std::uint64_t hash) {
  return static_cast<std::uint32_t>((hash * 0x9E3779B97F4A7C15ULL) >> (64 - kFeatureHashBits));
}

// Letters, digits, '_' and every byte of a multi-byte UTF-8 character: words
// in any script stay whole.
bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c >= 0x80;
}

std::uint64_t HashBytes(std::uint64_t seed, std::string_view bytes) {
  std::uint64_t h = seed;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(util::AsciiLower(c))) * kFnvPrime;
  return h;
}

std::uint64_t Combine(std::uint64_t a, std::uint64_t b) {
  return (a * 0xff51afd7ed558ccdULL) ^ (b + 0x9E3779B97F4A7C15ULL + (a << 6) + (a >> 2));
}

/// Calls emit(hash, start, end) for every word unigram and bigram.
template <typename Emit>
void ForEachWordGram(std::string_view text, std::uint64_t seed, bool bigrams, Emit&& emit) {
  std::size_t i = 0;
  std::uint64_t previous = 0;
  std::size_t previous_start = 0;
  bool has_previous = false;
  while (i < text.size()) {
    if (!IsWordByte(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && IsWordByte(static_cast<unsigned char>(text[i]))) ++i;
    const std::uint64_t h = HashBytes(seed, text.substr(start, i - start));
    emit(h, start, i);
    if (bigrams && has_previous) emit(Combine(previous, h), previous_start, i);
    previous = h;
    previous_start = start;
    has_previous = true;
  }
}

/// Appends the features pushed since `from` scaled by 1/sqrt(their count).
void Normalise(std::vector<Feature>& out, std::size_t from) {
  const std::size_t count = out.size() - from;
  if (count == 0) return;
  const float scale = 1.0f / std::sqrt(static_cast<float>(count));
  for (std::size_t k = from; k < out.size(); ++k) out[k].value = scale;
}

void CharGrams(std::string_view text, std::vector<Feature>& out) {
  // Lower-cased, whitespace runs as one space, a space at each end: the
  // n-grams at word edges carry prefixes and suffixes ("rm -", " nuke").
  std::string normal;
  normal.reserve(text.size() + 2);
  normal.push_back(' ');
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f' || b == '\v') {
      if (normal.back() != ' ') normal.push_back(' ');
    } else {
      normal.push_back(util::AsciiLower(c));
    }
  }
  if (normal.back() != ' ') normal.push_back(' ');
  const std::size_t from = out.size();
  const std::size_t n = normal.size();
  for (std::size_t i = 0; i + 3 <= n; ++i) {
    std::uint64_t h = kCharSeed;
    // 3- and 4-grams: 5-grams were a third of a training's rows and scored no
    // better across writers (docs/detection.md).
    const std::size_t last = std::min(n, i + 4);
    for (std::size_t k = i; k < last; ++k) {
      h = (h ^ static_cast<unsigned char>(normal[k])) * kFnvPrime;
      if (k >= i + 2) out.push_back(Feature{Bucket(h), 1.0f});
    }
  }
  Normalise(out, from);
}

void AddNamed(std::string_view prefix, std::string_view category, std::string_view name,
              float value, std::vector<Feature>& out) {
  std::uint64_t h = HashBytes(kNamedSeed, prefix);
  h = HashBytes(h ^ 0x2f, category);
  h = HashBytes(h ^ 0x2f, name);
  out.push_back(Feature{Bucket(h), value});
}

void RuleFeatures(const Analysis& rules, std::vector<Feature>& out) {
  for (const CategoryDetection& detection : rules.detections) {
    const std::string_view category = detection.category;
    // Each signal once, however many spans it reported.
    auto add_signals = [&](const std::vector<SignalHit>& hits) {
      for (std::size_t k = 0; k < hits.size(); ++k) {
        bool seen = false;
        for (std::size_t j = 0; j < k && !seen; ++j) seen = hits[j].name == hits[k].name;
        if (!seen) AddNamed("signal", category, hits[k].name, 1.0f, out);
      }
    };
    add_signals(detection.signals);
    add_signals(detection.mitigations);
    for (const auto& [name, holds] : detection.checks) {
      if (holds) AddNamed("check", category, name, 1.0f, out);
    }
    if (detection.context_matched) AddNamed("context", category, "", 1.0f, out);
    AddNamed("confidence", category, "", static_cast<float>(detection.confidence), out);
    if (detection.detected) AddNamed("detected", category, "", 1.0f, out);
  }
}

}  // namespace

void ExtractFeatures(std::string_view text, std::string_view context, const Analysis& rules,
                     std::vector<Feature>& out) {
  out.clear();
  std::size_t from = out.size();
  ForEachWordGram(text.substr(0, kMaxWordGramBytes), kWordSeed, true,
                  [&](std::uint64_t h, std::size_t, std::size_t) {
                    out.push_back(Feature{Bucket(h), 1.0f});
                  });
  Normalise(out, from);
  CharGrams(text.substr(0, kMaxCharGramBytes), out);
  from = out.size();
  ForEachWordGram(context.substr(0, kMaxWordGramBytes), kContextSeed, false,
                  [&](std::uint64_t h, std::size_t, std::size_t) {
                    out.push_back(Feature{Bucket(h), 1.0f});
                  });
  Normalise(out, from);
  RuleFeatures(rules, out);
}

std::vector<WordGram> WordGrams(std::string_view text) {
  std::vector<WordGram> grams;
  ForEachWordGram(text.substr(0, kMaxWordGramBytes), kWordSeed, true,
                  [&](std::uint64_t h, std::size_t start, std::size_t end) {
                    grams.push_back(WordGram{Bucket(h), start, end});
                  });
  return grams;
}

}  // namespace togmal::analysis
