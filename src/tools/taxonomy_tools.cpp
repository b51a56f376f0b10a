#include "togmal/tools/taxonomy_tools.h"

#include <memory>
#include <string_view>
#include <utility>

#include "response_format.h"
#include "togmal/analysis/active_model.h"
#include "togmal/util/json_fields.h"
#include "togmal/util/text.h"

namespace togmal::tools {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxToolTextChars = 25000;
constexpr const char* kSubmitTool = "togmal_submit_evidence";

json EnumSchema(auto const& names, std::string description) {
  json values = json::array();
  for (std::string_view name : names) values.push_back(name);
  return {{"type", "string"}, {"enum", values}, {"description", std::move(description)}};
}

bool WantsJson(const json& arguments) {
  return util::StringField(arguments, "response_format") == "json";
}

// Result text: the structured content as JSON, or the markdown rendering.
mcp::ToolResult Respond(const json& arguments, const json& structured, std::string markdown) {
  std::string text = WantsJson(arguments)
                         ? structured.dump(2, ' ', false, json::error_handler_t::replace)
                         : std::move(markdown);
  return mcp::ToolResult::Text(CutToolText(std::move(text)), structured);
}

json EvidenceJson(const store::Evidence& evidence, bool with_score) {
  json entry = {{"id", evidence.id},
                {"created_at", evidence.created_at},
                {"category", evidence.category},
                {"severity", evidence.severity},
                {"description", evidence.description},
                {"prompt", evidence.prompt},
                {"response", evidence.response},
                {"reason", evidence.reason.empty() ? json(nullptr) : json(evidence.reason)},
                {"verdict", evidence.verdict},
                {"judged", evidence.judged}};
  if (with_score) entry["score"] = evidence.score;
  return entry;
}

/// Which detection model analyses, and when it was trained.
json ModelJson() {
  const std::shared_ptr<const analysis::Model> model = analysis::ActiveModel();
  return {{"origin", model->origin},
          {"trained_at", model->trained_at},
          {"trained_on", model->trained_on},
          {"verdicts", model->verdicts.size()}};
}

json StatisticsJson(const store::TaxonomyStatistics& statistics, const store::AuditCounts& audit) {
  return {{"total", statistics.total},
          {"by_category", statistics.by_category},
          {"by_severity", statistics.by_severity},
          {"capacity", statistics.capacity},
          {"used", statistics.used},
          {"model", ModelJson()},
          {"audit",
           {{"total", audit.total},
            {"by_kind", audit.by_kind},
            {"by_decision", audit.by_decision},
            {"first_time", audit.first_time.empty() ? json(nullptr) : json(audit.first_time)},
            {"last_time", audit.last_time.empty() ? json(nullptr) : json(audit.last_time)}}}};
}

Result<json> ReadStatistics(const TaxonomyToolsOptions& options) {
  return options.database->With([&](store::Database& db) -> Result<json> {
    auto statistics = store::Taxonomy(db, options.capacity).Statistics();
    if (!statistics) return Fail(statistics.error());
    auto counts = store::AuditLog(db).Counts();
    if (!counts) return Fail(counts.error());
    return StatisticsJson(*statistics, *counts);
  });
}

// ---- togmal_submit_evidence ----------------------------------------------

json SubmitResult(std::optional<int64_t> id, std::string_view status, const std::string& message,
                  const store::EvidenceSubmission& submission) {
  return {{"id", id ? json(*id) : json(nullptr)},
          {"status", status},
          {"category", submission.category},
          {"severity", submission.severity},
          {"message", message}};
}

// The person's answer to "store this?".
struct Confirmation {
  bool needs_input = false;            ///< asked; the client's retry brings the answer
  std::optional<std::string> refused;  ///< why not, unless confirmed
};

// Asks the person to confirm.
Confirmation Confirm(mcp::ToolContext& context, const store::EvidenceSubmission& submission) {
  const json params = {{"message", "Store this evidence in the togmal taxonomy?\n\nCategory: " +
                                       submission.category + " (" + submission.severity +
                                       ")\nDescription: " + submission.description +
                                       "\nPrompt: " + util::OneLine(submission.prompt, 300) +
                                       "\nResponse: " + util::OneLine(submission.response, 300)},
                       {"requestedSchema",
                        {{"type", "object"},
                         {"properties",
                          {{"confirm",
                            {{"type", "boolean"},
                             {"title", "Store this evidence"},
                             {"description", "Adds the example to the local taxonomy database"},
                             {"default", true}}}}},
                         {"required", json::array({"confirm"})}}}};
  const mcp::AskResult answer = context.Ask("confirm_evidence", "elicitation/create", params);
  if (answer.needs_input()) return {.needs_input = true, .refused = std::nullopt};
  auto refused = [](std::string why) {
    return Confirmation{.needs_input = false, .refused = std::move(why)};
  };
  if (!answer) return refused("no confirmation from the client (" + answer.error() + ")");
  const std::string action = answer->value("action", std::string());
  if (action == "decline") return refused("the person declined to store it");
  if (action != "accept") return refused("the person cancelled");
  const json content = answer->value("content", json::object());
  if (content.is_object() && content.contains("confirm") && content["confirm"].is_boolean() &&
      !content["confirm"].get<bool>()) {
    return refused("the person chose not to store it");
  }
  return {};
}

mcp::ToolResult SubmitEvidence(const TaxonomyToolsOptions& options, const json& arguments,
                               mcp::ToolContext& context) {
  store::EvidenceSubmission submission{.category = util::StringField(arguments, "category"),
                                       .prompt = util::StringField(arguments, "prompt"),
                                       .response = util::StringField(arguments, "response"),
                                       .description = util::StringField(arguments, "description"),
                                       .severity = util::StringField(arguments, "severity"),
                                       .reason = util::StringField(arguments, "reason"),
                                       .verdict = util::StringField(arguments, "verdict"),
                                       .client = context.ClientName(),
                                       .judged = util::StringField(arguments, "judged")};
  if (submission.verdict.empty()) submission.verdict = "failure";
  // A verdict on a prompt alone: the response is stored as not given.
  if (submission.response.empty() && !arguments.contains("response")) {
    submission.response = std::string(store::kTextNotGiven);
  }
  if (auto problems = store::ValidateSubmission(submission); !problems.empty()) {
    std::string message = "Invalid evidence:";
    for (const std::string& problem : problems) message += "\n- " + problem;
    return mcp::ToolResult::Failure(message);
  }
  // A duplicate needs no confirmation: nothing would be stored.
  auto duplicate = options.database->With([&](store::Database& db) {
    return store::Taxonomy(db, options.capacity).FindDuplicate(submission);
  });
  if (!duplicate) return mcp::ToolResult::Failure("Cannot store evidence: " + duplicate.error());
  if (*duplicate) {
    const std::string message = "Already in the taxonomy as entry #" + std::to_string(**duplicate) +
                                "; nothing new was stored.";
    return Respond(arguments, SubmitResult(**duplicate, "duplicate", message, submission), message);
  }
  // Ask before any side effect: the modern era re-runs this handler.
  if (context.ClientSupports(mcp::ClientFeature::kElicitation)) {
    const Confirmation confirmation = Confirm(context, submission);
    if (confirmation.needs_input) return mcp::ToolResult::NeedsInput();
    if (const auto& refused = confirmation.refused) {
      const std::string message = "Not stored: " + *refused + ".";
      return Respond(arguments, SubmitResult(std::nullopt, "cancelled", message, submission),
                     message);
    }
  }
  auto outcome = options.database->With([&](store::Database& db) {
    store::AuditLog audit(db, options.audit);
    return store::Taxonomy(db, options.capacity).Submit(submission, &audit);
  });
  if (!outcome) return mcp::ToolResult::Failure("Cannot store evidence: " + outcome.error());
  const bool stored = outcome->status == store::SubmitStatus::kStored;
  const std::string message = stored
                                  ? "Stored as entry #" + std::to_string(outcome->id) + " (" +
                                        std::to_string(outcome->used) + " of " +
                                        std::to_string(outcome->capacity) + " entries used)."
                                  : "Already in the taxonomy as entry #" +
                                        std::to_string(outcome->id) + "; nothing new was stored.";
  json structured = SubmitResult(outcome->id, stored ? "stored" : "duplicate", message, submission);
  structured["used"] = outcome->used;
  structured["capacity"] = outcome->capacity;
  if (outcome->audit_id) structured["audit_id"] = *outcome->audit_id;
  if (stored && options.resource_changed) {
    options.resource_changed("taxonomy://statistics");
    options.resource_changed("audit://recent");
  }
  return Respond(arguments, structured, message);
}

// ---- togmal_get_taxonomy -------------------------------------------------

Result<int64_t> IntegerArgument(const json& arguments, const char* key, int64_t fallback) {
  auto it = arguments.find(key);
  if (it == arguments.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) return Fail(std::string(key) + " must be an integer");
  return it->get<int64_t>();
}

mcp::ToolResult GetTaxonomy(const TaxonomyToolsOptions& options, const json& arguments) {
  store::TaxonomyQuery query;
  query.category = util::OptionalStringField(arguments, "category");
  query.min_severity = util::OptionalStringField(arguments, "min_severity");
  query.query = util::OptionalStringField(arguments, "query");
  auto limit = IntegerArgument(arguments, "limit", 20);
  if (!limit) return mcp::ToolResult::Failure(limit.error());
  auto offset = IntegerArgument(arguments, "offset", 0);
  if (!offset) return mcp::ToolResult::Failure(offset.error());
  query.limit = *limit;
  query.offset = *offset;
  auto page = options.database->With(
      [&](store::Database& db) { return store::Taxonomy(db, options.capacity).Query(query); });
  if (!page) return mcp::ToolResult::Failure(page.error());

  const bool full_text = query.query.has_value();
  json entries = json::array();
  for (const store::Evidence& evidence : page->entries) {
    entries.push_back(EvidenceJson(evidence, full_text));
  }
  const json structured = {{"entries", entries},
                           {"total", page->total},
                           {"limit", page->limit},
                           {"offset", page->offset},
                           {"has_more", page->has_more}};
  std::string markdown;
  if (page->entries.empty()) {
    markdown = page->total == 0 ? "No taxonomy entries match."
                                : "No entries at offset " + std::to_string(page->offset) + " (" +
                                      std::to_string(page->total) + " match).";
  } else {
    markdown = "# Taxonomy entries " + std::to_string(page->offset + 1) + "–" +
               std::to_string(page->offset + static_cast<int64_t>(page->entries.size())) + " of " +
               std::to_string(page->total) + "\n";
    for (const store::Evidence& evidence : page->entries) {
      markdown += "\n## #" + std::to_string(evidence.id) + " " + evidence.category + " (" +
                  evidence.severity + ", " + evidence.verdict + " about the " + evidence.judged +
                  ")\n" + evidence.description +
                  "\n- Prompt: " + util::OneLine(evidence.prompt, 200) +
                  "\n- Response: " + util::OneLine(evidence.response, 200) + "\n";
    }
    if (page->has_more) {
      markdown += "\nMore entries: call again with offset " +
                  std::to_string(page->offset + static_cast<int64_t>(page->entries.size())) + ".\n";
    }
  }
  return Respond(arguments, structured, markdown);
}

// ---- togmal_get_statistics -----------------------------------------------

mcp::ToolResult GetStatistics(const TaxonomyToolsOptions& options, const json& arguments) {
  auto statistics = ReadStatistics(options);
  if (!statistics) return mcp::ToolResult::Failure(statistics.error());
  const json& s = *statistics;
  std::string markdown = "# Taxonomy statistics\n\n" + std::to_string(s["used"].get<int64_t>()) +
                         " of " + std::to_string(s["capacity"].get<int64_t>()) +
                         " entries used.\n\n## By category\n";
  for (const auto& [category, count] : s["by_category"].items()) {
    markdown += "- " + category + ": " + std::to_string(count.get<int64_t>()) + "\n";
  }
  markdown += "\n## By severity\n";
  for (std::string_view severity : store::kSeverities) {
    markdown += "- " + std::string(severity) + ": " +
                std::to_string(s["by_severity"][std::string(severity)].get<int64_t>()) + "\n";
  }
  markdown += "\n## Detection model\n" + s["model"]["origin"].get<std::string>() + ", trained " +
              s["model"]["trained_at"].get<std::string>() + "\n";
  markdown +=
      "\n## Audit trail\n" + std::to_string(s["audit"]["total"].get<int64_t>()) + " entries";
  for (const auto& [kind, count] : s["audit"]["by_kind"].items()) {
    markdown += "; " + kind + ": " + std::to_string(count.get<int64_t>());
  }
  markdown += "\n";
  return Respond(arguments, s, markdown);
}

// ---- schemas ---------------------------------------------------------------

json EvidenceSchema() {
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "integer"}}},
            {"created_at", {{"type", "string"}}},
            {"category", {{"type", "string"}}},
            {"severity", {{"type", "string"}}},
            {"description", {{"type", "string"}}},
            {"prompt", {{"type", "string"}}},
            {"response", {{"type", "string"}}},
            {"reason", {{"type", json::array({"string", "null"})}}},
            {"verdict", {{"type", "string"}}},
            {"judged", {{"type", "string"}, {"enum", json::array({"prompt", "response"})}}},
            {"score", {{"type", "number"}}}}},
          {"required", {"id", "category", "severity", "description", "prompt", "response"}}};
}

json CountsSchema() {
  return {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}};
}

}  // namespace

std::string CutToolText(std::string text) {
  // Characters, not bytes: count UTF-8 lead bytes.
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;
    if (characters == kMaxToolTextChars) {
      text.resize(i);
      text += "\n\n[Output cut at 25,000 characters; structuredContent has everything.]";
      return text;
    }
    ++characters;
  }
  return text;
}

std::vector<mcp::Tool> TaxonomyTools(const TaxonomyToolsOptions& options) {
  std::vector<mcp::Tool> tools;

  mcp::Tool submit;
  submit.name = kSubmitTool;
  submit.description =
      "Submit an example of an LLM failure (prompt, response, why it is a failure) to the "
      "local taxonomy, or a false alarm (verdict \"false_positive\"). `judged` says which text "
      "the verdict is about: the response (default when one is given) or the prompt (a "
      "prompt alone needs no response). The same category + prompt + response is stored once "
      "(status "
      "\"duplicate\" with the existing id). When the client supports elicitation the person is "
      "asked to confirm first; declining gives status \"cancelled\" and stores nothing.";
  submit.input_schema = {
      {"type", "object"},
      {"properties",
       {{"category", EnumSchema(store::kEvidenceCategories, "Which failure mode this shows")},
        {"prompt",
         {{"type", "string"},
          {"minLength", 1},
          {"maxLength", store::kMaxPromptChars},
          {"description", "The prompt that led to the failure"}}},
        {"response",
         {{"type", "string"},
          {"minLength", 1},
          {"maxLength", store::kMaxResponseChars},
          {"description", "The model's response (optional when the verdict is about the prompt)"}}},
        {"judged", EnumSchema(store::kJudgedTexts,
                              "Which text the verdict is about (default: the response when given, "
                              "else the prompt)")},
        {"description",
         {{"type", "string"},
          {"minLength", store::kMinDescriptionChars},
          {"maxLength", store::kMaxDescriptionChars},
          {"description", "Why the text is a failure (or why the flag was wrong)"}}},
        {"severity", EnumSchema(store::kSeverities, "How harmful the failure is")},
        {"reason", EnumSchema(store::kEvidenceReasons, "Why it is submitted (optional)")},
        {"verdict",
         EnumSchema(store::kVerdicts,
                    "\"failure\" (default): the text shows the failure; \"false_positive\": "
                    "togmal flagged this category wrongly. `togmal train` learns from both")},
        {"response_format", ResponseFormatSchema()}}},
      {"required", {"category", "prompt", "description", "severity"}},
      {"additionalProperties", false}};
  submit.output_schema = {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", json::array({"integer", "null"})}}},
        {"status",
         {{"type", "string"}, {"enum", json::array({"stored", "duplicate", "cancelled"})}}},
        {"category", {{"type", "string"}}},
        {"severity", {{"type", "string"}}},
        {"message", {{"type", "string"}}},
        {"used", {{"type", "integer"}}},
        {"capacity", {{"type", "integer"}}},
        {"audit_id", {{"type", "integer"}}}}},
      {"required", {"id", "status", "message"}}};
  submit.annotations = {.title = "Submit evidence to the taxonomy",
                        .read_only = false,
                        .destructive = false,
                        .idempotent = true,
                        .open_world = false};
  submit.handler = [options](const json& arguments, mcp::ToolContext& context) {
    return SubmitEvidence(options, arguments, context);
  };
  tools.push_back(std::move(submit));

  mcp::Tool taxonomy;
  taxonomy.name = "togmal_get_taxonomy";
  taxonomy.description =
      "List taxonomy entries, filtered by category and minimum severity, optionally searched "
      "by full text (`query`: plain words, all must match, best matches first); paginated "
      "with limit/offset, `has_more` says whether another page exists.";
  taxonomy.input_schema = {
      {"type", "object"},
      {"properties",
       {{"category", EnumSchema(store::kEvidenceCategories, "Only this category")},
        {"min_severity", EnumSchema(store::kSeverities, "Only this severity or worse")},
        {"query",
         {{"type", "string"}, {"maxLength", 1000}, {"description", "Words to search for"}}},
        {"limit",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", 100},
          {"default", 20},
          {"description", "Entries per page"}}},
        {"offset",
         {{"type", "integer"}, {"minimum", 0}, {"default", 0}, {"description", "Entries to skip"}}},
        {"response_format", ResponseFormatSchema()}}},
      {"additionalProperties", false}};
  taxonomy.output_schema = {{"type", "object"},
                            {"properties",
                             {{"entries", {{"type", "array"}, {"items", EvidenceSchema()}}},
                              {"total", {{"type", "integer"}}},
                              {"limit", {{"type", "integer"}}},
                              {"offset", {{"type", "integer"}}},
                              {"has_more", {{"type", "boolean"}}}}},
                            {"required", {"entries", "total", "limit", "offset", "has_more"}}};
  taxonomy.annotations = {.title = "Browse the taxonomy",
                          .read_only = true,
                          .destructive = false,
                          .idempotent = true,
                          .open_world = false};
  taxonomy.handler = [options](const json& arguments, mcp::ToolContext&) {
    return GetTaxonomy(options, arguments);
  };
  tools.push_back(std::move(taxonomy));

  mcp::Tool statistics;
  statistics.name = "togmal_get_statistics";
  statistics.description =
      "Counts of taxonomy entries by category and severity, capacity used, the detection model "
      "in use (built-in or trained by `togmal train`, and when), and audit trail counts by kind "
      "and decision.";
  statistics.input_schema = {{"type", "object"},
                             {"properties", {{"response_format", ResponseFormatSchema()}}},
                             {"additionalProperties", false}};
  statistics.output_schema = {
      {"type", "object"},
      {"properties",
       {{"total", {{"type", "integer"}}},
        {"by_category", CountsSchema()},
        {"by_severity", CountsSchema()},
        {"capacity", {{"type", "integer"}}},
        {"used", {{"type", "integer"}}},
        {"model",
         {{"type", "object"},
          {"properties",
           {{"origin", {{"type", "string"}}},
            {"trained_at", {{"type", "string"}}},
            {"trained_on", {{"type", "string"}}},
            {"verdicts", {{"type", "integer"}}}}}}},
        {"audit",
         {{"type", "object"},
          {"properties",
           {{"total", {{"type", "integer"}}},
            {"by_kind", CountsSchema()},
            {"by_decision", CountsSchema()},
            {"first_time", {{"type", json::array({"string", "null"})}}},
            {"last_time", {{"type", json::array({"string", "null"})}}}}}}}}},
      {"required", {"total", "by_category", "by_severity", "capacity", "used", "audit"}}};
  statistics.annotations = {.title = "Taxonomy and audit statistics",
                            .read_only = true,
                            .destructive = false,
                            .idempotent = true,
                            .open_world = false};
  statistics.handler = [options](const json& arguments, mcp::ToolContext&) {
    return GetStatistics(options, arguments);
  };
  tools.push_back(std::move(statistics));
  return tools;
}

std::vector<mcp::Resource> StoreResources(const TaxonomyToolsOptions& options) {
  std::vector<mcp::Resource> resources;
  resources.push_back(
      {.uri = "taxonomy://statistics",
       .name = "Taxonomy statistics",
       .description = "Taxonomy entries by category and severity, capacity, audit counts",
       .mime_type = "application/json",
       .read = [options]() -> Result<std::string> {
         auto statistics = ReadStatistics(options);
         if (!statistics) return Fail(statistics.error());
         return statistics->dump(2);
       }});
  resources.push_back(
      {.uri = "audit://recent",
       .name = "Recent audit entries",
       .description = "The last 100 audit entries (with their hash chain fields) and counts",
       .mime_type = "application/json",
       .read = [options]() -> Result<std::string> {
         return options.database->With([](store::Database& db) -> Result<std::string> {
           store::AuditLog log(db);
           auto tail = log.Tail(100);
           if (!tail) return Fail(tail.error());
           auto counts = log.Counts();
           if (!counts) return Fail(counts.error());
           json entries = json::array();
           for (const store::AuditEntry& entry : *tail) entries.push_back(store::ToJson(entry));
           json body = {{"entries", entries},
                        {"counts",
                         {{"total", counts->total},
                          {"by_kind", counts->by_kind},
                          {"by_decision", counts->by_decision}}}};
           return body.dump(2, ' ', false, json::error_handler_t::replace);
         });
       }});
  return resources;
}

std::function<json(std::string_view)> SimilarEvidenceFinderFor(
    std::shared_ptr<store::SharedDatabase> database) {
  return [database](std::string_view text) -> json {
    auto similar = database->With(
        [text](store::Database& db) { return store::Taxonomy(db).Similar(text, 5); });
    if (!similar) return json::array();
    return store::ToJson(*similar);
  };
}

void RegisterTaxonomyTools(mcp::ToolRegistry& tools, mcp::ResourceRegistry& resources,
                           const TaxonomyToolsOptions& options) {
  for (mcp::Tool& tool : TaxonomyTools(options)) tools.Add(std::move(tool));
  for (mcp::Resource& resource : StoreResources(options)) resources.Add(std::move(resource));
}

}  // namespace togmal::tools
