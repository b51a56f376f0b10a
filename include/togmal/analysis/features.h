#pragma once
/// What the detection model sees of a text: hashed word 1–2-grams, hashed
/// character 3–4-grams, the context's words, and what the RE2 detectors found
/// (each signal that fired, each check that held, the rules' own confidence).
/// Training and analysis call the same code, so a model always sees features
/// the way it was trained on them.

#include <cstdint>
#include <string_view>
#include <vector>

#include "togmal/analysis/analysis.h"

namespace togmal::analysis {

/// Hash buckets of the feature space. A model file names the version and the
/// bucket count it was trained with; another value means it cannot be used.
inline constexpr int kFeatureHashBits = 18;
inline constexpr std::uint32_t kFeatureBuckets = std::uint32_t{1} << kFeatureHashBits;
inline constexpr int kFeatureVersion = 2;
/// How much of a text (and of its context) the word n-grams read, in bytes.
inline constexpr std::size_t kMaxWordGramBytes = 8192;

/// One feature occurrence: duplicates are summed by whoever needs them merged.
struct Feature {
  std::uint32_t bucket = 0;
  float value = 0;
};

/// The features of `text` (with `context`, the prompt a response answers) and
/// `rules`, the RE2 detectors' analysis of the same text. Word n-grams come
/// from the first kMaxWordGramBytes, character n-grams from the first 2,048
/// bytes (the cost of a long text; RE2 reads all of it). Each n-gram family is
/// scaled by 1/sqrt(its count), so a long text weighs no more than a short one.
/// Appends to `out` (cleared first).
void ExtractFeatures(std::string_view text, std::string_view context, const Analysis& rules,
                     std::vector<Feature>& out);

/// One word 1- or 2-gram with its byte span in the text, for explanations.
struct WordGram {
  std::uint32_t bucket = 0;
  std::size_t start = 0;
  std::size_t end = 0;
};

/// The word 1- and 2-grams of `text` (its first kMaxWordGramBytes) with their spans.
std::vector<WordGram> WordGrams(std::string_view text);

}  // namespace togmal::analysis
