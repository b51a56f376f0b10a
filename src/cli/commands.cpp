#include "command.h"

namespace togmal::cli {

std::span<const CommandSpec> Commands() {
  static constexpr CommandSpec kCommands[] = {
      {"allow", "Let a denied or asked call through: once, for a while, or always (its code)",
       DefineAllow},
      {"analyze",
       "Analyse a prompt or response for LLM failure modes: risk level, detections, interventions",
       DefineAnalyze},
      {"audit", "Verify, tail, export, prune or ship the hash-chained audit trail", DefineAudit},
      {"check", "Classify a shell command or tool call: level L0-L3, decision and reasons",
       DefineCheck},
      {"doctor",
       "Check the set-up: hosts that run the hook, configuration layers, database and audit chain",
       DefineDoctor},
      {"evidence", "Record a verdict on a text (a missed failure or a false alarm) for training",
       DefineEvidence},
      {"hook",
       "Agent host pre-tool hook (Claude Code by default, --host for others): judge the tool "
       "call on stdin, print the decision",
       DefineHook},
      {"install",
       "Register togmal with an agent host (claude-code, claude-desktop, gemini, "
       "codex, copilot, cursor)",
       DefineInstall},
      {"report",
       "Write an HTML page of what the agent did: decisions over time, top denied and asked "
       "calls with their allow lines, grants, the audit chain",
       DefineReport},
      {"rules", "Validate policy rules, explain a decision, run policy tests", DefineRules},
      {"scan",
       "Classify the commands a repository runs (scripts, CI, Dockerfile, Makefile, "
       "package.json, hooks): L2/L3 findings as text, JSON or SARIF",
       DefineScan},
      {"serve", "Run the MCP server on stdio (both protocol eras)", DefineServe},
      {"stats", "Show taxonomy and audit trail counts", DefineStats},
      {"statusline", "One line for Claude Code's status line: the guard's state and today's counts",
       DefineStatusline},
      {"train", "Retrain the detection model with the evidence database's verdicts", DefineTrain},
      {"uninstall", "Remove exactly what `togmal install` added to an agent host", DefineUninstall},
      {"version", "Print togmal's version and the protocol versions it speaks", DefineVersion},
  };
  return kCommands;
}

}  // namespace togmal::cli
