#include "togmal/install/installer.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <system_error>

#include "togmal/install/json_file.h"
#include "togmal/install/json_text.h"
#include "togmal/util/json_fields.h"

namespace togmal::install {
namespace {

namespace fs = std::filesystem;
using Pointer = OrderedJson::json_pointer;

std::string PointerText(const std::vector<std::string>& path, std::size_t length) {
  std::string text;
  for (std::size_t i = 0; i < length; ++i) text += "/" + path[i];
  return text;
}

// The togmal command string inside an entry togmal adds.
std::string OurCommand(const OrderedJson& value) {
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    return IsTogmalHookCommand(text) ? text : std::string();
  }
  if (value.is_structured()) {
    for (const auto& item : value) {
      if (std::string found = OurCommand(item); !found.empty()) return found;
    }
  }
  return {};
}

bool HoldsString(const OrderedJson& value, const std::string& wanted) {
  if (value.is_string()) return value.get_ref<const std::string&>() == wanted;
  if (value.is_structured()) {
    for (const auto& item : value) {
      if (HoldsString(item, wanted)) return true;
    }
  }
  return false;
}

// Replaces every togmal hook command in `value` with `command`.
void ReplaceCommands(OrderedJson& value, const std::string& command) {
  if (value.is_string()) {
    if (IsTogmalHookCommand(value.get_ref<const std::string&>())) value = command;
  } else if (value.is_structured()) {
    for (auto& item : value) ReplaceCommands(item, command);
  }
}

std::string PointerOf(const JsonPath& path) { return PointerText(path, path.size()); }

JsonPath Child(JsonPath path, std::string part) {
  path.push_back(std::move(part));
  return path;
}

// Adds `leaf` at `path`, with the objects on the way to it that are missing,
// in one addition (so that it is laid out as one block). Records the
// containers it creates, and the leaf itself when `record_leaf`.
Result<void> AddAt(JsonText& text, const JsonPath& path, const OrderedJson& leaf,
                   const fs::path& file, std::vector<std::string>& created, bool record_leaf) {
  const OrderedJson doc = text.Value();
  const OrderedJson* at = &doc;
  std::size_t missing = 0;
  for (; missing < path.size(); ++missing) {
    auto it = at->find(path[missing]);
    if (it == at->end()) break;
    if (!it->is_object()) {
      return Fail(file.string() + ": " + PointerText(path, missing + 1) +
                  " is not an object; togmal will not rewrite it");
    }
    at = &*it;
  }
  OrderedJson value = leaf;
  for (std::size_t j = path.size() - 1; j > missing; --j) value = OrderedJson{{path[j], value}};
  if (auto added = text.AddMember({path.begin(), path.begin() + static_cast<long>(missing)},
                                  path[missing], value);
      !added) {
    return Fail(file.string() + ": " + added.error());
  }
  for (std::size_t j = missing; j < path.size(); ++j) {
    if (j + 1 < path.size() || record_leaf) created.push_back(PointerText(path, j + 1));
  }
  return {};
}

// The paths, relative to `value`, of the strings in it that run togmal hook.
void CommandPaths(const OrderedJson& value, JsonPath& at, std::vector<JsonPath>& found) {
  if (value.is_string()) {
    if (IsTogmalHookCommand(value.get_ref<const std::string&>())) found.push_back(at);
  } else if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      at.push_back(key);
      CommandPaths(item, at, found);
      at.pop_back();
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      at.push_back(std::to_string(i));
      CommandPaths(value[i], at, found);
      at.pop_back();
    }
  }
}

// Takes one of togmal's hooks out of the array at `path`: a group (an
// object with its own `hooks` array, as Claude Code, Gemini and Codex write
// them) loses only togmal's hooks, and goes when none is left. False when
// there is none left to take.
Result<bool> RemoveOneHook(JsonText& text, const JsonPath& path) {
  const OrderedJson doc = text.Value();
  const Pointer pointer(PointerOf(path));
  if (!doc.contains(pointer) || !doc[pointer].is_array()) return false;
  const OrderedJson& array = doc[pointer];
  for (std::size_t i = 0; i < array.size(); ++i) {
    const OrderedJson& element = array[i];
    if (!HoldsTogmalHook(element)) continue;
    const JsonPath at = Child(path, std::to_string(i));
    auto inner = element.is_object() ? element.find("hooks") : element.end();
    if (inner != element.end() && inner->is_array()) {
      const auto others = std::count_if(inner->begin(), inner->end(), [](const OrderedJson& hook) {
        return !HoldsTogmalHook(hook);
      });
      if (others > 0) {
        for (std::size_t j = inner->size(); j-- > 0;) {
          if (!HoldsTogmalHook((*inner)[j])) continue;
          if (auto removed = text.Remove(Child(Child(at, "hooks"), std::to_string(j))); !removed) {
            return Fail(removed.error());
          }
        }
        return true;
      }
    }
    if (auto removed = text.Remove(at); !removed) return Fail(removed.error());
    return true;
  }
  return false;
}

// "/hooks/PreToolUse" → {"hooks", "PreToolUse"} (togmal's keys need no escapes).
JsonPath PathOf(const std::string& pointer) {
  JsonPath path;
  std::size_t at = 0;
  while (at < pointer.size()) {
    const std::size_t next = std::min(pointer.find('/', at + 1), pointer.size());
    path.push_back(pointer.substr(at + 1, next - at - 1));
    at = next;
  }
  return path;
}

fs::path WritablePath(const fs::path& file) {
  std::error_code error;
  if (fs::is_symlink(fs::symlink_status(file, error))) {
    const fs::path target = fs::canonical(file, error);
    if (!error) return target;
  }
  return file;
}

// Writes `text` to a temporary file beside `target` and renames it over
// `target`, so that a reader sees the old file or the new one, never half.
Result<void> WriteAtomically(const fs::path& target, const std::string& text,
                             bool keep_permissions) {
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (error) {
    return Fail("could not create " + target.parent_path().string() + ": " + error.message());
  }
  fs::path temporary = target;
  temporary += ".togmal-tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      fs::remove(temporary, error);
      return Fail("could not write " + temporary.string());
    }
  }
  if (keep_permissions) {
    const auto permissions = fs::status(target, error).permissions();
    if (!error) fs::permissions(temporary, permissions, error);
  }
  fs::rename(temporary, target, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    return Fail("could not replace " + target.string() + ": " + error.message());
  }
  return {};
}

}  // namespace

bool IsTogmalServer(const OrderedJson& value) {
  if (!value.is_object()) return false;
  auto command = value.find("command");
  return command != value.end() && command->is_string() &&
         fs::path(command->get<std::string>()).filename() == "togmal";
}

namespace {

// A togmal hook or server anywhere in `value`.
bool MentionsTogmal(const OrderedJson& value) {
  if (HoldsTogmalHook(value) || IsTogmalServer(value)) return true;
  if (value.is_structured()) {
    for (const auto& item : value) {
      if (MentionsTogmal(item)) return true;
    }
  }
  return false;
}

}  // namespace

std::string_view FileChange::Verb() const {
  if (remove) return "remove";
  if (!existed) return "create";
  return restore ? "restore" : "update";
}

Result<Manifest> LoadManifest(const fs::path& path) {
  auto file = LoadJsonFile(path);
  if (!file) return Fail(file.error());
  Manifest manifest;
  if (auto folders = file->value.find("folders");
      folders != file->value.end() && folders->is_array()) {
    for (const auto& folder : *folders) {
      if (folder.is_string()) manifest.folders.insert(folder.get<std::string>());
    }
  }
  auto files = file->value.find("files");
  if (files == file->value.end() || !files->is_object()) return manifest;
  for (const auto& [name, entry] : files->items()) {
    ManifestEntry recorded;
    recorded.created_file = util::BoolField(entry, "created_file", false);
    if (auto original = entry.find("original"); original != entry.end() && original->is_string()) {
      recorded.original = original->get<std::string>();
    }
    recorded.original_lost = util::BoolField(entry, "original_lost", false);
    if (auto written = entry.find("written"); written != entry.end() && written->is_string()) {
      recorded.written = written->get<std::string>();
    }
    if (auto created = entry.find("created"); created != entry.end() && created->is_array()) {
      for (const auto& pointer : *created) {
        if (pointer.is_string()) recorded.created.push_back(pointer.get<std::string>());
      }
    }
    manifest.files[name] = std::move(recorded);
  }
  return manifest;
}

Result<void> SaveManifest(const fs::path& path, const Manifest& manifest) {
  OrderedJson files = OrderedJson::object();
  for (const auto& [name, entry] : manifest.files) {
    OrderedJson recorded = {{"created_file", entry.created_file}, {"created", entry.created}};
    if (entry.original) recorded["original"] = *entry.original;
    if (entry.original_lost) recorded["original_lost"] = true;
    if (entry.written) recorded["written"] = *entry.written;
    files[name] = std::move(recorded);
  }
  OrderedJson folders = OrderedJson::array();
  for (const std::string& folder : manifest.folders) folders.push_back(folder);
  return WriteAtomically(
      path, RenderJson({{"version", 2}, {"files", files}, {"folders", folders}}, {}), false);
}

void RecordInstall(Manifest& manifest, const FileChange& change) {
  for (const fs::path& folder : change.new_folders) manifest.folders.insert(folder.string());
  if (!change.Changed()) return;
  ManifestEntry& entry = manifest.files[change.file.string()];
  const bool ours_untouched = entry.written && *entry.written == change.before;
  if (!ours_untouched) {
    const bool had_togmal =
        change.existed && MentionsTogmal(OrderedJson::parse(change.before, nullptr, false));
    if (!had_togmal) {
      // A first install (or togmal's entries were taken out by hand): what
      // the file holds now is what uninstall puts back.
      entry = ManifestEntry{};
      entry.created_file = !change.existed;
      if (change.existed) entry.original = change.before;
    } else {
      // Changed since togmal wrote it, with togmal's entries still in it:
      // the text before install would undo the person's change. Uninstall
      // will cut togmal's entries out instead (and still remove the file
      // install created, should nothing else be left in it).
      entry.original.reset();
      entry.original_lost = true;
    }
  }
  for (const std::string& pointer : change.created) {
    if (std::find(entry.created.begin(), entry.created.end(), pointer) == entry.created.end()) {
      entry.created.push_back(pointer);
    }
  }
  entry.written = change.after;
}

Result<FileChange> PlanInstall(const FilePlan& plan) {
  auto file = LoadJsonFile(plan.file);
  if (!file) return Fail(file.error());
  FileChange change;
  change.file = plan.file;
  change.existed = file->existed;
  change.before = file->text;
  JsonStyle style = file->style;
  std::string text = file->text;
  if (file->value.empty()) {
    // An empty object (or no file) shows no layout to follow: two spaces.
    style.indent = 2;
    style.indent_char = ' ';
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      text = "{}\n";  // a new file ends its last line, as editors write them
    }
  }
  JsonText edited(text, style);
  for (const Edit& edit : plan.edits) {
    const std::string pointer = PointerOf(edit.path);
    const OrderedJson doc = edited.Value();
    const bool there = doc.contains(Pointer(pointer));
    switch (edit.kind) {
      case Edit::Kind::kDefault: {
        if (there) break;
        if (auto added = AddAt(edited, edit.path, edit.value, plan.file, change.created, true);
            !added) {
          return Fail(added.error());
        }
        break;
      }
      case Edit::Kind::kAppendHook: {
        if (!there) {
          if (auto added = AddAt(edited, edit.path, OrderedJson::array({edit.value}), plan.file,
                                 change.created, true);
              !added) {
            return Fail(added.error());
          }
          break;
        }
        const OrderedJson& array = doc[Pointer(pointer)];
        if (!array.is_array()) {
          return Fail(plan.file.string() + ": " + pointer +
                      " is not an array; togmal will not rewrite it");
        }
        const std::string command = OurCommand(edit.value);
        auto ours = std::find_if(array.begin(), array.end(), [](const OrderedJson& element) {
          return HoldsTogmalHook(element);
        });
        if (ours == array.end()) {
          if (auto added = edited.AppendElement(edit.path, edit.value); !added) {
            return Fail(plan.file.string() + ": " + added.error());
          }
        } else if (!HoldsString(*ours, command)) {
          JsonPath at = Child(edit.path, std::to_string(ours - array.begin()));
          std::vector<JsonPath> commands;
          JsonPath inside;
          CommandPaths(*ours, inside, commands);
          for (const JsonPath& relative : commands) {
            JsonPath full = at;
            full.insert(full.end(), relative.begin(), relative.end());
            if (auto replaced = edited.Replace(full, command); !replaced) {
              return Fail(plan.file.string() + ": " + replaced.error());
            }
          }
          change.notes.push_back(pointer + ": togmal's hook command is now " + command);
        }
        break;
      }
      case Edit::Kind::kSetServer: {
        if (!there) {
          if (auto added = AddAt(edited, edit.path, edit.value, plan.file, change.created, false);
              !added) {
            return Fail(added.error());
          }
          break;
        }
        const OrderedJson& server = doc[Pointer(pointer)];
        if (server == edit.value) break;
        if (!IsTogmalServer(server)) {
          return Fail(plan.file.string() + ": " + pointer +
                      " already names another server; rename or remove it first");
        }
        OrderedJson merged = server;
        for (const auto& [key, value] : edit.value.items()) merged[key] = value;
        if (merged == server) break;
        if (auto replaced = edited.Replace(edit.path, merged); !replaced) {
          return Fail(plan.file.string() + ": " + replaced.error());
        }
        change.notes.push_back(pointer + ": now runs " + edit.value.value("command", ""));
        break;
      }
    }
  }
  change.after = edited.text();
  if (change.after == text) change.after = change.before;
  if (!change.existed || change.after != change.before) {
    for (fs::path folder = plan.file.parent_path(); !folder.empty() && !fs::exists(folder);
         folder = folder.parent_path()) {
      change.new_folders.insert(change.new_folders.begin(), folder);
      if (folder == folder.parent_path()) break;
    }
  }
  return change;
}

Result<FileChange> PlanUninstall(const FilePlan& plan, const ManifestEntry* recorded) {
  auto file = LoadJsonFile(plan.file);
  if (!file) return Fail(file.error());
  FileChange change;
  change.file = plan.file;
  change.existed = file->existed;
  change.before = file->text;
  change.after = file->text;
  if (!file->existed) return change;
  if (recorded != nullptr && recorded->written && *recorded->written == file->text &&
      recorded->Restorable()) {
    change.restore = true;
    if (recorded->created_file) {
      change.remove = true;
    } else {
      change.after = *recorded->original;
    }
    return change;
  }
  JsonText edited(file->text, file->style);
  for (const Edit& edit : plan.edits) {
    if (edit.kind == Edit::Kind::kAppendHook) {
      for (;;) {
        auto removed = RemoveOneHook(edited, edit.path);
        if (!removed) return Fail(plan.file.string() + ": " + removed.error());
        if (!*removed) break;
      }
    } else if (edit.kind == Edit::Kind::kSetServer) {
      const OrderedJson doc = edited.Value();
      const Pointer pointer(PointerOf(edit.path));
      if (doc.contains(pointer) && IsTogmalServer(doc[pointer])) {
        if (auto removed = edited.Remove(edit.path); !removed) {
          return Fail(plan.file.string() + ": " + removed.error());
        }
      }
    }
  }
  if (recorded != nullptr) {
    // Deepest first, so that emptying a child can empty its parent.
    std::vector<std::string> created = recorded->created;
    std::sort(created.begin(), created.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (const std::string& pointer : created) {
      const OrderedJson doc = edited.Value();
      if (!doc.contains(Pointer(pointer))) continue;
      const OrderedJson& value = doc[Pointer(pointer)];
      if (value.is_structured() && value.empty()) {
        if (auto removed = edited.Remove(PathOf(pointer)); !removed) {
          return Fail(plan.file.string() + ": " + removed.error());
        }
      }
    }
    // What is left is only what install put there (a format version): it goes too.
    const OrderedJson doc = edited.Value();
    const bool only_ours =
        !doc.empty() && std::all_of(doc.items().begin(), doc.items().end(), [&](const auto& item) {
          return !item.value().is_structured() &&
                 std::find(created.begin(), created.end(), "/" + item.key()) != created.end();
        });
    if (only_ours) {
      for (const auto& item : doc.items()) {
        if (auto removed = edited.Remove({item.key()}); !removed) {
          return Fail(plan.file.string() + ": " + removed.error());
        }
      }
    }
    if (recorded->created_file && edited.Value().empty()) {
      change.remove = true;
      return change;
    }
  }
  change.after = edited.text();
  if (change.after != change.before && recorded != nullptr && recorded->written) {
    change.notes.push_back(
        "changed since togmal installed it: only togmal's entries were taken out");
  }
  return change;
}

fs::path BackupPath(const fs::path& backups, const fs::path& file) {
  return backups / fs::absolute(file).relative_path();
}

bool NeedsBackup(const FileChange& change) {
  return change.existed && !change.restore && !change.remove && change.Changed();
}

Result<fs::path> ApplyChange(const FileChange& change, const fs::path& backups) {
  if (!change.Changed()) return fs::path();
  const fs::path target = WritablePath(change.file);
  std::error_code error;
  fs::path backup;
  if (NeedsBackup(change) && !backups.empty()) {
    backup = BackupPath(backups, change.file);
    fs::create_directories(backup.parent_path(), error);
    if (!error) fs::copy_file(target, backup, fs::copy_options::overwrite_existing, error);
    if (error) return Fail("could not back up " + target.string() + ": " + error.message());
  }
  if (change.remove) {
    fs::remove(target, error);
    if (error) return Fail("could not remove " + target.string() + ": " + error.message());
    return backup;
  }
  if (auto written = WriteAtomically(target, change.after, change.existed); !written) {
    return Fail(written.error());
  }
  return backup;
}

std::vector<fs::path> FoldersLeftEmpty(const std::set<std::string>& recorded,
                                       const std::set<fs::path>& removed) {
  std::vector<fs::path> folders(recorded.begin(), recorded.end());
  // Deepest first: a folder whose only entry is a folder that goes, goes too.
  std::sort(folders.begin(), folders.end(), [](const fs::path& a, const fs::path& b) {
    return a.string().size() > b.string().size();
  });
  std::set<fs::path> gone = removed;
  std::vector<fs::path> empty;
  for (const fs::path& folder : folders) {
    std::error_code error;
    if (!fs::is_directory(fs::symlink_status(folder, error))) continue;
    bool left = false;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
      if (gone.count(entry.path()) == 0) {
        left = true;
        break;
      }
    }
    if (error || left) continue;
    empty.push_back(folder);
    gone.insert(folder);
  }
  return empty;
}

std::vector<Registration> FindRegistrations(const Places& places, const fs::path& binary,
                                            std::string_view only, bool with_mcp) {
  std::vector<Registration> found;
  for (const Target& target : Targets()) {
    if (!only.empty() && target.name != only) continue;
    for (Scope scope : target.scopes) {
      if (scope != Scope::kUser && scope != Scope::kManaged && places.project.empty()) continue;
      auto plans = PlanFor(target, scope, places, binary);
      if (!plans) continue;
      Registration registration{std::string(target.name), scope, {}, false, {}, false, {}};
      for (const FilePlan& plan : *plans) {
        const bool server = std::any_of(plan.edits.begin(), plan.edits.end(), [](const Edit& e) {
          return e.kind == Edit::Kind::kSetServer;
        });
        if (server && !with_mcp) continue;
        (server ? registration.mcp_file : registration.file) = plan.file;
        auto file = LoadJsonFile(plan.file);
        if (!file) {
          registration.error = file.error();
          continue;
        }
        for (const Edit& edit : plan.edits) {
          const Pointer pointer(PointerOf(edit.path));
          if (edit.kind == Edit::Kind::kDefault || !file->value.contains(pointer)) continue;
          const OrderedJson& value = file->value[pointer];
          if (edit.kind == Edit::Kind::kAppendHook) {
            registration.registered =
                registration.registered || (value.is_array() && HoldsTogmalHook(value));
          } else {
            registration.mcp = registration.mcp || IsTogmalServer(value);
          }
        }
      }
      if (with_mcp && target.name == "claude-code" && scope != Scope::kProject &&
          scope != Scope::kManaged) {
        registration.mcp_file = ClaudeStateFile(places);
        auto server = ClaudeMcpServer(places, scope);
        if (!server) {
          registration.error = server.error();
        } else {
          registration.mcp = IsTogmalServer(*server);
        }
      }
      found.push_back(std::move(registration));
    }
  }
  return found;
}

}  // namespace togmal::install
