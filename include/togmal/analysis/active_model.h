#pragma once
/// Which model analyses: the user model `togmal train` wrote, else the one
/// compiled into the binary. Nothing here runs before the first analysis, so a
/// process that never analyses (the hook) never reads or touches a model.

#include <memory>
#include <string>
#include <string_view>

#include "togmal/analysis/analysis.h"
#include "togmal/analysis/model.h"
#include "togmal/util/result.h"

namespace togmal::analysis {

/// The model in use: the user model ($XDG_DATA_HOME/togmal/model.bin) when it
/// exists and loads, else the built-in one (a user model that does not load is
/// named in a warning). Re-read when the file changes (its size and time are
/// checked on every call, a microsecond), so a running server picks up `togmal train`. Thread-safe;
/// nothing is loaded before the first call.
std::shared_ptr<const Model> ActiveModel();

/// The corpus the built-in model was trained on (data/corpus/batches as JSON
/// Lines, compiled in), for `togmal train`.
std::string_view BuiltInCorpus();

/// The settings the built-in model was trained with, chosen across writers
/// (data/corpus/selection.json, compiled in; empty if there was none), so that
/// `togmal train` trains the same way.
std::string_view BuiltInSelection();

/// Texts by writers the built-in model never trained on (data/corpus/sealed as
/// JSON Lines, compiled in; empty if the build had none): `togmal train`
/// checks a retrained model on them before installing it.
std::string_view BuiltInCheckSet();

/// Where `togmal train` writes the user model.
std::string UserModelPath();

/// The shared bank with the active model: what the tools and `togmal analyze` use.
Result<Analysis> AnalyzeText(std::string_view text, std::string_view context = {});

}  // namespace togmal::analysis
