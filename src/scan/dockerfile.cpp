// Dockerfiles: `RUN` (and `ONBUILD RUN`) in shell form, with continuation
// lines (comment lines inside are dropped, as Docker does), in exec form
// (`RUN ["sh", "-c", "…"]`), and BuildKit heredocs (`RUN <<EOF … EOF`).
#include <cctype>
#include <string>
#include <vector>

#include "command_split.h"
#include "togmal/scan/extractors.h"
#include "togmal/util/json_parse.h"
#include "togmal/util/text.h"

namespace togmal::scan {
namespace {

std::string Upper(std::string_view word) {
  std::string out(word);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool IsComment(std::string_view line) { return util::TrimLeft(line).starts_with('#'); }

// `word` as one shell word in single quotes.
// The heredoc delimiters a line opens (`<<EOF`, `<<-"EOF"`, `<<'EOF'`).
std::vector<std::string> HeredocDelimiters(std::string_view line) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while ((at = line.find("<<", at)) != std::string_view::npos) {
    at += 2;
    if (at < line.size() && line[at] == '<') continue;  // a here-string `<<<`
    if (at < line.size() && line[at] == '-') ++at;
    std::string word;
    while (at < line.size() && (std::isalnum(static_cast<unsigned char>(line[at])) ||
                                line[at] == '_' || line[at] == '"' || line[at] == '\'')) {
      if (line[at] != '"' && line[at] != '\'') word.push_back(line[at]);
      ++at;
    }
    if (!word.empty()) out.push_back(word);
  }
  return out;
}

// Length of `RUN`, `ONBUILD RUN` and the `--mount=…`-style flags before the command.
std::size_t CommandStart(std::string_view line) {
  std::size_t at = 0;
  while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
  auto word_end = [&](std::size_t from) {
    while (from < line.size() && line[from] != ' ' && line[from] != '\t') ++from;
    return from;
  };
  std::size_t end = word_end(at);
  if (Upper(line.substr(at, end - at)) == "ONBUILD") {
    at = end;
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    end = word_end(at);
  }
  at = end;
  for (;;) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
    if (line.substr(at, 2) != "--") return at;
    at = word_end(at);
  }
}

}  // namespace

Extraction ExtractDockerfile(std::string_view text) {
  Extraction out;
  const std::vector<std::string_view> lines = Lines(text);
  char escape = '\\';
  std::size_t i = 0;
  // Parser directives come first: `# escape=`` ` switches the continuation character.
  for (; i < lines.size() && IsComment(lines[i]); ++i) {
    std::string directive(util::TrimLeft(util::TrimLeft(lines[i]).substr(1)));
    directive = util::AsciiLower(directive);
    if (directive.starts_with("escape=") && directive.size() > 7) escape = directive[7];
  }
  i = 0;
  while (i < lines.size()) {
    const std::string_view first = util::TrimLeft(lines[i]);
    if (first.empty() || first.starts_with('#')) {
      ++i;
      continue;
    }
    // One instruction: its first line and every continuation line.
    const std::size_t start = i;
    std::vector<std::string_view> instruction{lines[i]};
    // Comment lines inside a continuation are dropped and do not end it.
    std::string_view last = lines[i];
    while (util::TrimRight(last).ends_with(escape) && i + 1 < lines.size()) {
      ++i;
      instruction.push_back(lines[i]);
      if (!IsComment(lines[i])) last = lines[i];
    }
    ++i;
    std::vector<std::string> heredocs;
    for (const std::string_view line : instruction) {
      for (std::string& word : HeredocDelimiters(line)) heredocs.push_back(std::move(word));
    }
    // Heredoc bodies follow the instruction, each up to its delimiter line.
    std::vector<std::string_view> body;
    for (const std::string& delimiter : heredocs) {
      while (i < lines.size() && util::TrimLeft(util::TrimRight(lines[i])) != delimiter)
        body.push_back(lines[i++]);
      if (i < lines.size()) body.push_back(lines[i++]);
    }
    std::size_t name_end = first.find_first_of(" \t");
    std::string name = Upper(first.substr(0, name_end));
    if (name == "ONBUILD" && name_end != std::string_view::npos) {
      const std::string_view rest = util::TrimLeft(first.substr(name_end));
      name = Upper(rest.substr(0, rest.find_first_of(" \t")));
    }
    if (name != "RUN") continue;

    ScriptSource source;
    source.line = static_cast<int>(start) + 1;
    source.origin = "Dockerfile RUN";
    const std::string_view head = instruction.front().substr(CommandStart(instruction.front()));
    if (util::TrimLeft(head).starts_with('[')) {
      // Exec form: a JSON array of words, run without a shell.
      std::string joined;
      for (std::size_t k = 0; k < instruction.size(); ++k) {
        std::string_view part = k == 0 ? head : instruction[k];
        if (k + 1 < instruction.size())
          part = util::TrimRight(part).substr(0, util::TrimRight(part).size() - 1);
        joined += part;
      }
      auto words = util::ParseJson(joined);
      if (!words || !words->is_array()) {
        out.problems.push_back({source.line, "RUN [ … ] is not a JSON array of strings"});
        continue;
      }
      std::string command;
      for (const auto& word : *words) {
        if (!word.is_string()) continue;
        if (!command.empty()) command.push_back(' ');
        command += util::ShellQuote(word.get<std::string>());
      }
      for (std::size_t k = 0; k < instruction.size(); ++k) {
        if (k > 0) {
          source.text.push_back('\n');
          source.shell.push_back('\n');
        }
        source.text += instruction[k];
      }
      source.shell.insert(0, command);
      out.scripts.push_back(std::move(source));
      continue;
    }
    if (heredocs.size() == 1 && util::TrimLeft(util::TrimRight(head)).starts_with("<<") &&
        HeredocDelimiters(head).size() == 1 &&
        util::TrimRight(head).find_first_of(" \t") == std::string_view::npos && !body.empty()) {
      // `RUN <<EOF`: the body is the script.
      source.line = static_cast<int>(start + instruction.size()) + 1;
      for (std::size_t k = 0; k + 1 < body.size(); ++k) {
        if (k > 0) source.text.push_back('\n');
        source.text += body[k];
      }
      out.scripts.push_back(std::move(source));
      continue;
    }
    // Shell form: the same lines for the shell, with the instruction word and
    // flags blanked, comment lines inside continuations as bare continuations.
    for (std::size_t k = 0; k < instruction.size(); ++k) {
      if (k > 0) {
        source.text.push_back('\n');
        source.shell.push_back('\n');
      }
      source.text += instruction[k];
      std::string line(instruction[k]);
      if (k == 0) {
        const std::size_t blank = CommandStart(line);
        for (std::size_t c = 0; c < blank; ++c) line[c] = ' ';
      } else if (IsComment(line)) {
        line = std::string(1, escape);
      }
      if (escape != '\\' && util::TrimRight(line).ends_with(escape)) {
        line[util::TrimRight(line).size() - 1] = '\\';
      }
      source.shell += line;
    }
    for (const std::string_view line : body) {
      source.text += "\n";
      source.text += line;
      source.shell += "\n";
      source.shell += line;
    }
    out.scripts.push_back(std::move(source));
  }
  return out;
}

}  // namespace togmal::scan
