#include "togmal/analysis/model.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace togmal::analysis {
namespace {

constexpr std::string_view kMagic = "togmal-model 1\n";

std::uint64_t Fnv64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

std::string Hex(std::uint64_t value) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

Result<std::uint64_t> ParseHex(const std::string& hex) {
  if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    return Fail("bad hash '" + hex + "'");
  return std::stoull(hex, nullptr, 16);
}

}  // namespace

std::uint64_t TextHash(std::string_view text) { return Fnv64(text); }

int Model::Find(std::string_view category) const {
  for (std::size_t c = 0; c < categories.size(); ++c) {
    if (categories[c].name == category) return static_cast<int>(c);
  }
  return -1;
}

void Model::SetWeights(std::vector<std::int8_t> weights) {
  owned_ = std::make_shared<const std::vector<std::int8_t>>(std::move(weights));
  weights_ = *owned_;
}

std::vector<double> Model::Scores(const std::vector<Feature>& features) const {
  const std::size_t n = categories.size();
  std::vector<double> scores(n, 0.0);
  // Integer rows summed in float per feature, scaled once per category.
  std::vector<float> sums(n, 0.0f);
  const std::int8_t* w = weights_.data();
  if (n == 5) {
    // The catalogue's five categories: a fixed-size row the compiler unrolls.
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
    for (const Feature& f : features) {
      const std::int8_t* row = w + static_cast<std::size_t>(f.bucket) * 5;
      s0 += f.value * static_cast<float>(row[0]);
      s1 += f.value * static_cast<float>(row[1]);
      s2 += f.value * static_cast<float>(row[2]);
      s3 += f.value * static_cast<float>(row[3]);
      s4 += f.value * static_cast<float>(row[4]);
    }
    sums = {s0, s1, s2, s3, s4};
  } else {
    for (const Feature& f : features) {
      const std::int8_t* row = w + static_cast<std::size_t>(f.bucket) * n;
      for (std::size_t c = 0; c < n; ++c) sums[c] += f.value * static_cast<float>(row[c]);
    }
  }
  for (std::size_t c = 0; c < n; ++c)
    scores[c] = categories[c].bias + sums[c] * categories[c].scale;
  return scores;
}

double Model::Probability(std::size_t c, double score) const {
  const ModelCategory& category = categories[c];
  return 1.0 / (1.0 + std::exp(-(category.platt_a * score + category.platt_b)));
}

const Verdict* Model::FindVerdict(std::string_view text, std::string_view category) const {
  if (verdicts.empty()) return nullptr;
  auto by_text = verdicts.find(TextHash(text));
  if (by_text == verdicts.end()) return nullptr;
  auto by_category = by_text->second.find(std::string(category));
  return by_category == by_text->second.end() ? nullptr : &by_category->second;
}

std::string Model::Serialize() const {
  nlohmann::json header;
  header["feature_version"] = kFeatureVersion;
  header["hash_bits"] = kFeatureHashBits;
  header["trained_at"] = trained_at;
  header["trained_on"] = trained_on;
  nlohmann::json cats = nlohmann::json::array();
  for (const ModelCategory& c : categories) {
    cats.push_back({{"name", c.name},
                    {"bias", c.bias},
                    {"scale", c.scale},
                    {"platt_a", c.platt_a},
                    {"platt_b", c.platt_b},
                    {"threshold", c.threshold},
                    {"or_rules", c.or_rules}});
  }
  header["categories"] = cats;
  nlohmann::json verdict_list = nlohmann::json::array();
  for (const auto& [hash, by_category] : verdicts) {
    for (const auto& [category, verdict] : by_category) {
      verdict_list.push_back(
          {{"text_hash", Hex(hash)},
           {"category", category},
           {"verdict", verdict == Verdict::kFailure ? "failure" : "false_positive"}});
    }
  }
  header["verdicts"] = verdict_list;
  header["validation"] =
      validation_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(validation_json);
  const std::string_view bytes(reinterpret_cast<const char*>(weights_.data()), weights_.size());
  header["weights_fnv"] = Hex(Fnv64(bytes));
  std::string out(kMagic);
  out += header.dump();
  out += '\n';
  out.append(bytes);
  return out;
}

Result<Model> Model::Parse(std::string_view bytes, std::string origin, bool borrow) {
  if (bytes.substr(0, kMagic.size()) != kMagic) return Fail(origin + ": not a togmal model file");
  bytes.remove_prefix(kMagic.size());
  const std::size_t newline = bytes.find('\n');
  if (newline == std::string_view::npos) return Fail(origin + ": truncated model header");
  Model model;
  model.origin = std::move(origin);
  try {
    const auto header = nlohmann::json::parse(bytes.substr(0, newline));
    if (header.at("feature_version").get<int>() != kFeatureVersion ||
        header.at("hash_bits").get<int>() != kFeatureHashBits) {
      return Fail(model.origin +
                  ": trained for another feature version (retrain with togmal train)");
    }
    model.trained_at = header.at("trained_at").get<std::string>();
    model.trained_on = header.value("trained_on", "");
    for (const auto& c : header.at("categories")) {
      model.categories.push_back(ModelCategory{
          c.at("name").get<std::string>(), c.at("bias").get<double>(), c.at("scale").get<double>(),
          c.at("platt_a").get<double>(), c.at("platt_b").get<double>(),
          c.at("threshold").get<double>(), c.value("or_rules", false)});
    }
    if (model.categories.empty()) return Fail(model.origin + ": the model has no categories");
    for (const auto& v : header.at("verdicts")) {
      auto hash = ParseHex(v.at("text_hash").get<std::string>());
      if (!hash) return Fail(model.origin + ": " + hash.error());
      const std::string verdict = v.at("verdict").get<std::string>();
      if (verdict != "failure" && verdict != "false_positive")
        return Fail(model.origin + ": unknown verdict '" + verdict + "'");
      model.verdicts[*hash][v.at("category").get<std::string>()] =
          verdict == "failure" ? Verdict::kFailure : Verdict::kFalsePositive;
    }
    if (header.contains("validation")) model.validation_json = header.at("validation").dump();
    const std::string_view weights = bytes.substr(newline + 1);
    const std::size_t expected = std::size_t{kFeatureBuckets} * model.categories.size();
    if (weights.size() != expected) {
      return Fail(model.origin + ": the weights are " + std::to_string(weights.size()) +
                  " bytes, expected " + std::to_string(expected));
    }
    if (header.at("weights_fnv").get<std::string>() != Hex(Fnv64(weights)))
      return Fail(model.origin + ": the weights do not match their checksum");
    const auto* data = reinterpret_cast<const std::int8_t*>(weights.data());
    if (borrow) {
      model.weights_ = std::span<const std::int8_t>(data, weights.size());
    } else {
      model.SetWeights(std::vector<std::int8_t>(data, data + weights.size()));
    }
  } catch (const nlohmann::json::exception& e) {
    return Fail(model.origin + ": bad model header: " + e.what());
  }
  return model;
}

}  // namespace togmal::analysis
