#pragma once
/// Analysis with the model: the RE2 detector bank finds the evidence (spans,
/// checks, its own confidence), the model decides. Per category of the model,
/// `confidence` is the model's calibrated probability and `detected` its
/// threshold (or the rules' own detection where the model was trained to add
/// it); the n-grams that weighed most join the RE2 spans in `signals`. A
/// category the model does not know keeps the rules' answer. An exact text a
/// person gave a verdict on gets that verdict. Risk score and interventions
/// follow from the detections as before.

#include <string_view>

#include "togmal/analysis/analysis.h"
#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/model.h"

namespace togmal::analysis {

/// Name of the SignalHit entries that report an n-gram of the model.
inline constexpr std::string_view kModelSignalName = "model_ngram";

/// Analyses `text` with `bank`'s evidence and `model`'s decision (rules alone
/// when `model` is null).
Analysis AnalyzeWithModel(const DetectorBank& bank, const Model* model, std::string_view text,
                          std::string_view context = {});

}  // namespace togmal::analysis
