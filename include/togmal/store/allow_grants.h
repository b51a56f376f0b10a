#pragma once
/// Allow codes: the user's way past one deny or ask. Every deny and ask names
/// a short code derived from the call (tool, input, working directory); the
/// user runs `togmal allow CODE` in their own terminal, and the same call is
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

/// hex SHA-256 of the call's identity: tool name, the input as canonical JSON
/// and the working directory. Two calls with one fingerprint are the same call.
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

/// The newest decision in the audit trail that carried `code`: what a grant
/// for that code lets through.
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

class AllowGrants {
 public:
  explicit AllowGrants(Database& database) : database_(&database) {}

  /// The newest deny/ask decision recorded with `code`, or nullopt.
  Result<std::optional<CodedCall>> FindCall(std::string_view code);

  /// Stores a grant for `call` and records it in the audit trail; returns it.
  Result<AllowGrant> Grant(const CodedCall& call, GrantScope scope,
                           std::chrono::system_clock::time_point expires = {},
                           std::string rule_id = {});

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
