#pragma once
/// Allow codes: the user's way past one deny or ask. Every deny and ask names
/// a short code derived from what the call does (the tool, the input fields
/// that act, the working directory: never the agent's wording of it); the
/// user runs `togmal allow CODE` in their own terminal, and the same action is
/// then let through once, until a time, or always (a user rule). Grants live
/// in the database beside the audit trail, which records every grant, use and
/// revocation.

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/store/database.h"
#include "togmal/util/result.h"

namespace togmal::store {

/// Whether `field` of `tool_name`'s input changes what the call does. False
/// only for the wording fields of a known tool (kWording in allow_grants.cpp:
/// Bash's description, timeout and run_in_background, Read's offset and
/// limit, WebFetch's prompt, Task's description …); every other field acts,
/// including every field of an MCP or unknown tool.
bool FieldActs(std::string_view tool_name, std::string_view field);

/// What the call does: `input` without its wording fields, with a Write's
/// content as "sha256:HEX". A non-object input is kept as it is.
nlohmann::json CallAction(std::string_view tool_name, const nlohmann::json& input);

/// hex SHA-256 of the call's identity: tool name, CallAction as canonical JSON
/// (sorted keys, no whitespace) and the working directory. Two calls with one
/// fingerprint do the same thing, however the agent described them.
std::string CallFingerprint(std::string_view tool_name, const nlohmann::json& input,
                            std::string_view cwd);

/// The four-character code shown to the user for a fingerprint (Crockford
/// base32 of its first 20 bits: no I, L, O or U to misread).
std::string AllowCode(std::string_view fingerprint);

/// `code` upper-cased, with the letters people confuse with digits mapped
/// (O→0, I/L→1), or nullopt when it cannot be a code.
std::optional<std::string> NormalizeAllowCode(std::string_view code);

enum class GrantScope { kOnce, kUntil, kAlways };
std::string_view GrantScopeName(GrantScope scope);  ///< "once", "until", "always"

struct AllowGrant {
  int64_t id = 0;
  std::string code;
  std::string fingerprint;
  std::string tool_name;
  nlohmann::json input;  ///< as stored in the audit trail (redacted)
  std::string cwd;
  GrantScope scope = GrantScope::kOnce;
  std::string expires_at;  ///< kUntil: an audit time (UTC)
  std::string created_at;
  int64_t uses = 0;
  std::string revoked_at;
  std::string rule_id;  ///< kAlways: the user rule written for it
};

/// The newest decision in the audit trail (or what-if question, RememberCall)
/// that carried `code`: what a grant for that code lets through.
struct CodedCall {
  int64_t audit_id = 0;
  std::string time;
  std::string fingerprint;
  std::string tool_name;
  nlohmann::json input;
  std::string cwd;
  std::string decision;
  std::string reason;
};

/// What Grant did: a new grant, an existing one extended (a later expiry,
/// or a once grant made a time grant), or nothing because an active grant
/// for the same action already covers the one asked for.
enum class GrantOutcome { kNew, kExtended, kAlready };

struct GrantResult {
  AllowGrant grant;  ///< the new, extended or existing grant
  GrantOutcome outcome = GrantOutcome::kNew;
};

class AllowGrants {
 public:
  explicit AllowGrants(Database& database) : database_(&database) {}

  /// The newest deny/ask/pass decision, or `togmal check` question, recorded
  /// with `code`, or nullopt.
  Result<std::optional<CodedCall>> FindCall(std::string_view code);

  /// Remembers a what-if question's coded call (`togmal check` records no
  /// decision), so that `togmal allow CODE` finds it. Keeps the newest
  /// kRememberedCalls; the input is stored redacted.
  Result<void> RememberCall(const CodedCall& call);
  static constexpr int kRememberedCalls = 1000;

  /// Grants `call`'s action and records it in the audit trail. One active
  /// once/until grant per action: asking again for no more than it covers
  /// changes nothing (kAlready); asking for more (a later expiry, a time
  /// instead of once) extends it (kExtended, recorded as "extend"). An
  /// always grant is kAlready while one for the action is active.
  Result<GrantResult> Grant(const CodedCall& call, GrantScope scope,
                            std::chrono::system_clock::time_point expires = {},
                            std::string rule_id = {});

  /// The active always grant for `fingerprint`, if any.
  Result<std::optional<AllowGrant>> ActiveAlways(std::string_view fingerprint);

  /// The grant that lets a call with `fingerprint` through now, if any (a
  /// once grant not yet used or a time grant not yet expired; always grants
  /// work through their rule). With `consume`, a once grant is used up and
  /// the use counted, atomically: two processes cannot both spend it.
  Result<std::optional<AllowGrant>> Active(std::string_view fingerprint, bool consume);

  /// Grants not revoked, newest first; `include_spent` adds used and expired ones.
  Result<std::vector<AllowGrant>> List(bool include_spent);

  /// Revokes the active grants for `code` (records it); returns them.
  Result<std::vector<AllowGrant>> Revoke(std::string_view code);

 private:
  Database* database_;
};

}  // namespace togmal::store
