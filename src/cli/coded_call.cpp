#include "coded_call.h"

#include <iostream>
#include <string>

#include "togmal/store/allow_grants.h"
#include "togmal/store/database.h"

namespace togmal::cli {

void RememberCode(const policy::ToolCall& call, const check::Judgement& judgement,
                  const DatabaseOption& db) {
  if (!judgement.allow_code || judgement.allow_code->grant) return;
  store::CodedCall coded;
  coded.fingerprint = judgement.allow_code->fingerprint;
  coded.tool_name = call.tool_name;
  coded.input = call.tool_input;
  coded.cwd = call.cwd;
  coded.decision = std::string(rules::PermissionName(judgement.decision.permission));
  coded.reason = judgement.decision.reason;
  auto opened = store::Database::Open(db.Resolve());
  Result<void> remembered;
  if (opened) {
    remembered = store::AllowGrants(*opened).RememberCall(coded);
  } else {
    remembered = Fail(opened.error());
  }
  if (!remembered) {
    std::cerr << "warning: `togmal allow " << judgement.allow_code->code
              << "` will not find this call: " << remembered.error() << "\n";
  }
}

}  // namespace togmal::cli
