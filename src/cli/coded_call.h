#pragma once
// What-if questions (`togmal check`, `togmal rules explain`) record no
// decision, yet their answers name an allow code: remembering the coded call
// lets `togmal allow CODE` accept it (store::AllowGrants::RememberCall).

#include "database_option.h"
#include "togmal/check/judge.h"

namespace togmal::cli {

/// Remembers the allow code `judgement` names for `call`, if it names one. A
/// database that cannot be written leaves the answer as it is: a warning on
/// stderr says that the code will not be found.
void RememberCode(const policy::ToolCall& call, const check::Judgement& judgement,
                  const DatabaseOption& db);

}  // namespace togmal::cli
