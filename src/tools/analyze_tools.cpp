#include "togmal/tools/analyze_tools.h"

#include <spdlog/spdlog.h>

#include <string>
#include <utility>

#include "response_format.h"
#include "togmal/analysis/active_model.h"
#include "togmal/analysis/report.h"
#include "togmal/tools/taxonomy_tools.h"
#include "togmal/util/json_fields.h"

namespace togmal::tools {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxSimilarEvidence = 5;

/// Unicode characters (code points) in UTF-8 text, as JSON Schema counts them.
std::size_t CharCount(std::string_view text) {
  std::size_t count = 0;
  for (char c : text) count += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return count;
}

json TextSchema(std::size_t max_chars, std::string description) {
  return {{"type", "string"},
          {"minLength", 1},
          {"maxLength", max_chars},
          {"description", std::move(description)}};
}

json SpanSchema() {
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"text", {{"type", "string"}}},
            {"start", {{"type", "integer"}, {"minimum", 0}}},
            {"end", {{"type", "integer"}, {"minimum", 0}}}}},
          {"required", json::array({"name", "text", "start", "end"})}};
}

json OutputSchema(const char* type) {
  const json detection = {
      {"type", "object"},
      {"properties",
       {{"detected", {{"type", "boolean"}}},
        {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
        {"signals", {{"type", "array"}, {"items", SpanSchema()}}},
        {"mitigations", {{"type", "array"}, {"items", SpanSchema()}}},
        {"checks", {{"type", "object"}, {"additionalProperties", {{"type", "boolean"}}}}},
        {"context_matched", {{"type", "boolean"}}}}},
      {"required", json::array({"detected", "confidence", "signals", "checks"})}};
  const json intervention = {
      {"type", "object"},
      {"properties",
       {{"type", {{"type", "string"}}},
        {"reason", {{"type", "string"}}},
        {"suggestion", {{"type", "string"}}},
        {"categories", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
      {"required", json::array({"type", "reason", "suggestion", "categories"})}};
  const json evidence = {{"type", "object"},
                         {"properties",
                          {{"id", {{"type", {"string", "integer"}}}},
                           {"category", {{"type", "string"}}},
                           {"description", {{"type", "string"}}},
                           {"score", {{"type", "number"}}}}}};
  return {{"type", "object"},
          {"properties",
           {{"type", {{"type", "string"}, {"const", type}}},
            {"risk_level",
             {{"type", "string"}, {"enum", json::array({"low", "moderate", "high", "critical"})}}},
            {"risk_score", {{"type", "number"}, {"minimum", 0}}},
            {"detections", {{"type", "object"}, {"additionalProperties", detection}}},
            {"interventions", {{"type", "array"}, {"items", intervention}}},
            {"similar_evidence",
             {{"type", "array"}, {"maxItems", kMaxSimilarEvidence}, {"items", evidence}}}}},
          {"required", json::array({"type", "risk_level", "risk_score", "detections",
                                    "interventions", "similar_evidence"})}};
}

mcp::ToolAnnotations Annotations(std::string title) {
  mcp::ToolAnnotations annotations;
  annotations.title = std::move(title);
  annotations.read_only = true;
  annotations.destructive = false;
  annotations.idempotent = true;
  annotations.open_world = false;
  return annotations;
}

/// Arguments wrapped as `{"params": {...}}`, a shape clients send: mcp::Server
/// unwraps them before validation (tool_methods.cpp); a handler called
/// directly unwraps them here.
const json& Unwrap(const json& arguments) {
  if (arguments.is_object() && arguments.size() == 1) {
    auto it = arguments.find("params");
    if (it != arguments.end() && it->is_object()) return *it;
  }
  return arguments;
}

json FindSimilar(const SimilarEvidenceFinder& finder, std::string_view text) {
  if (!finder) return json::array();
  try {
    json found = finder(text);
    if (!found.is_array()) return json::array();
    if (found.size() > kMaxSimilarEvidence) {
      found.erase(found.begin() + static_cast<std::ptrdiff_t>(kMaxSimilarEvidence), found.end());
    }
    return found;
  } catch (const std::exception& e) {
    // Similar evidence is a garnish: an analysis without it is still useful.
    spdlog::warn("similar evidence lookup failed: {}", e.what());
    return json::array();
  }
}

struct Spec {
  const char* tool;
  const char* type;
  const char* text_field;
  std::size_t max_chars;
  bool has_context;
};

mcp::ToolResult Analyze(const Spec& spec, const SimilarEvidenceFinder& finder,
                        const json& raw_arguments) {
  const json& arguments = Unwrap(raw_arguments);
  const std::optional<std::string> text = util::OptionalStringField(arguments, spec.text_field);
  if (!text || text->empty()) {
    return mcp::ToolResult::Failure(std::string("'") + spec.text_field +
                                    "' is required: a non-empty string");
  }
  if (CharCount(*text) > spec.max_chars) {
    return mcp::ToolResult::Failure(std::string("'") + spec.text_field + "' is longer than " +
                                    std::to_string(spec.max_chars) + " characters");
  }
  std::string context;
  if (spec.has_context) {
    context = util::StringField(arguments, "context");
    if (CharCount(context) > kMaxContextChars) {
      return mcp::ToolResult::Failure("'context' is longer than " +
                                      std::to_string(kMaxContextChars) + " characters");
    }
  }
  const std::string format = util::StringField(arguments, "response_format", "markdown");
  if (format != "markdown" && format != "json") {
    return mcp::ToolResult::Failure("'response_format' must be \"markdown\" or \"json\"");
  }
  auto analysed = analysis::AnalyzeText(*text, context);
  if (!analysed) {
    return mcp::ToolResult::Failure("the detector catalogue is unusable: " + analysed.error());
  }
  const analysis::Analysis& result = analysed.value();
  json structured = analysis::ToJson(result, spec.type, FindSimilar(finder, *text));
  std::string rendered = format == "json"
                             ? structured.dump(2, ' ', false, json::error_handler_t::replace)
                             : analysis::RenderMarkdown(structured);
  return mcp::ToolResult::Text(CutToolText(std::move(rendered)), std::move(structured));
}

}  // namespace

std::vector<mcp::Tool> AnalyzeTools(SimilarEvidenceFinder similar_evidence) {
  static constexpr Spec kPrompt{"togmal_analyze_prompt", "prompt_analysis", "prompt",
                                kMaxPromptChars, false};
  static constexpr Spec kResponse{"togmal_analyze_response", "response_analysis", "response",
                                  kMaxResponseChars, true};
  std::vector<mcp::Tool> tools;

  mcp::Tool prompt;
  prompt.name = kPrompt.tool;
  prompt.description =
      "Analyse a user prompt before an LLM answers it, for known failure modes: speculative "
      "math/physics, ungrounded medical advice, dangerous file operations, vibe-coding "
      "overreach and unsupported claims. Returns the risk level (low/moderate/high/critical), "
      "per-category detections with the words that triggered them, and recommended "
      "interventions. Local and deterministic.";
  prompt.input_schema = {{"type", "object"},
                         {"properties",
                          {{"prompt", TextSchema(kMaxPromptChars, "The user prompt to analyse")},
                           {"response_format", ResponseFormatSchema()}}},
                         {"required", json::array({"prompt"})}};
  prompt.output_schema = OutputSchema(kPrompt.type);
  prompt.annotations = Annotations("Analyse a prompt for LLM failure modes");
  prompt.handler = [similar_evidence](const json& arguments, mcp::ToolContext&) {
    return Analyze(kPrompt, similar_evidence, arguments);
  };
  tools.push_back(std::move(prompt));

  mcp::Tool response;
  response.name = kResponse.tool;
  response.description =
      "Analyse an LLM response for known failure modes (ungrounded medical advice, dangerous "
      "file operations, unsupported claims, speculative physics, overreaching code). Pass the "
      "original prompt as `context` for better judgement. Returns the risk level, detections "
      "with the triggering words, and recommended interventions.";
  response.input_schema = {
      {"type", "object"},
      {"properties",
       {{"response", TextSchema(kMaxResponseChars, "The LLM response to analyse")},
        {"context",
         {{"type", "string"},
          {"maxLength", kMaxContextChars},
          {"description", "The prompt the response answers (optional)"}}},
        {"response_format", ResponseFormatSchema()}}},
      {"required", json::array({"response"})}};
  response.output_schema = OutputSchema(kResponse.type);
  response.annotations = Annotations("Analyse a response for LLM failure modes");
  response.handler = [similar_evidence](const json& arguments, mcp::ToolContext&) {
    return Analyze(kResponse, similar_evidence, arguments);
  };
  tools.push_back(std::move(response));
  return tools;
}

void RegisterAnalyzeTools(mcp::ToolRegistry& registry, SimilarEvidenceFinder similar_evidence) {
  for (mcp::Tool& tool : AnalyzeTools(std::move(similar_evidence))) registry.Add(std::move(tool));
}

}  // namespace togmal::tools
