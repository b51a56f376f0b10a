// The baseline file (`--write-baseline`, `--baseline`): accepted findings,
// matched by file and fingerprint.
#include "togmal/scan/baseline.h"

#include <cstdint>
#include <vector>

#include "togmal/util/json_parse.h"

namespace togmal::scan {
namespace {

// The command as the fingerprint sees it: blanks run together, so that
// re-indenting a script or aligning a continuation does not make it new.
std::string Normalized(std::string_view command) {
  std::string out;
  bool blank = false;
  for (const char c : command) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string Fingerprint(const Finding& finding) {
  // FNV-1a: small, stable across platforms and versions, and enough to tell
  // one command of a file from another (this is not a security boundary).
  std::uint64_t hash = 14695981039346656037ull;
  const auto mix = [&hash](std::string_view text) {
    for (const char c : text) {
      hash ^= static_cast<unsigned char>(c);
      hash *= 1099511628211ull;
    }
  };
  mix(policy::LevelName(finding.level));
  mix("\n");
  mix(Normalized(finding.command));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = kHex[hash & 15];
    hash >>= 4;
  }
  return out;
}

nlohmann::json BaselineJson(const ScanReport& report) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& finding : report.findings) {
    // line and command are for the people who read the file; only file and
    // fingerprint are matched.
    findings.push_back({{"file", finding.file},
                        {"fingerprint", Fingerprint(finding)},
                        {"level", policy::LevelName(finding.level)},
                        {"line", finding.line},
                        {"command", finding.command}});
  }
  return {{"togmal_scan_baseline", kBaselineVersion}, {"findings", std::move(findings)}};
}

Result<Baseline> ParseBaseline(std::string_view text, std::string_view source) {
  auto parsed = util::ParseJson(text);
  if (!parsed) return Fail(std::string(source) + ": not valid JSON: " + parsed.error());
  const nlohmann::json& root = *parsed;
  if (!root.is_object() || !root.contains("togmal_scan_baseline")) {
    return Fail(std::string(source) + ": not a togmal scan baseline (no togmal_scan_baseline)");
  }
  if (root["togmal_scan_baseline"] != kBaselineVersion) {
    return Fail(std::string(source) + ": baseline version " + root["togmal_scan_baseline"].dump() +
                " is not " + std::to_string(kBaselineVersion) +
                " (write it again with --write-baseline)");
  }
  const auto findings = root.find("findings");
  if (findings == root.end() || !findings->is_array()) {
    return Fail(std::string(source) + ": findings is not a list");
  }
  Baseline baseline;
  std::size_t index = 0;
  for (const nlohmann::json& entry : *findings) {
    if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string() ||
        !entry.contains("fingerprint") || !entry["fingerprint"].is_string()) {
      return Fail(std::string(source) + ": findings[" + std::to_string(index) +
                  "] needs a file and a fingerprint (strings)");
    }
    ++baseline.counts[{entry["file"].get<std::string>(), entry["fingerprint"].get<std::string>()}];
    ++index;
  }
  return baseline;
}

void ApplyBaseline(const Baseline& baseline, ScanReport& report) {
  auto left = baseline.counts;
  std::vector<Finding> kept;
  for (Finding& finding : report.findings) {
    const auto entry = left.find({finding.file, Fingerprint(finding)});
    if (entry != left.end() && entry->second > 0) {
      --entry->second;
      ++report.baselined;
      continue;
    }
    kept.push_back(std::move(finding));
  }
  report.findings = std::move(kept);
}

}  // namespace togmal::scan
