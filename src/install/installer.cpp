#include "togmal/install/installer.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <system_error>

#include "togmal/install/json_file.h"

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

bool IsTogmalServer(const OrderedJson& value) {
  if (!value.is_object()) return false;
  auto command = value.find("command");
  return command != value.end() && command->is_string() &&
         fs::path(command->get<std::string>()).filename() == "togmal";
}

// Makes sure the containers on `path` exist (objects, the last one `last`),
// recording the ones it creates.
Result<OrderedJson*> Container(OrderedJson& doc, const std::vector<std::string>& path,
                               OrderedJson last, const fs::path& file,
                               std::vector<std::string>& created) {
  OrderedJson* at = &doc;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const bool is_last = i + 1 == path.size();
    auto it = at->find(path[i]);
    if (it == at->end()) {
      (*at)[path[i]] = is_last ? last : OrderedJson::object();
      created.push_back(PointerText(path, i + 1));
      at = &(*at)[path[i]];
      continue;
    }
    const bool want_array = is_last && last.is_array();
    if (want_array ? !it->is_array() : !it->is_object()) {
      return Fail(file.string() + ": " + PointerText(path, i + 1) + " is not " +
                  (want_array ? "an array" : "an object") + "; togmal will not rewrite it");
    }
    at = &*it;
  }
  return at;
}

// Removes togmal's hooks from one hooks array. A group (an object with its
// own `hooks` array, as Claude Code, Gemini and Codex write them) loses only
// togmal's hooks, and goes when none is left.
bool RemoveHooks(OrderedJson& array) {
  bool changed = false;
  OrderedJson kept = OrderedJson::array();
  for (auto& element : array) {
    if (!HoldsTogmalHook(element)) {
      kept.push_back(std::move(element));
      continue;
    }
    changed = true;
    auto inner = element.is_object() ? element.find("hooks") : element.end();
    if (element.is_object() && inner != element.end() && inner->is_array()) {
      OrderedJson others = OrderedJson::array();
      for (auto& hook : *inner) {
        if (!HoldsTogmalHook(hook)) others.push_back(std::move(hook));
      }
      if (!others.empty()) {
        *inner = std::move(others);
        kept.push_back(std::move(element));
      }
    }
  }
  if (changed) array = std::move(kept);
  return changed;
}

void Erase(OrderedJson& doc, const std::string& pointer) {
  const Pointer at(pointer);
  if (at.empty() || !doc.contains(at)) return;
  OrderedJson& parent = doc[at.parent_pointer()];
  if (parent.is_object()) parent.erase(at.back());
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

Result<Manifest> LoadManifest(const fs::path& path) {
  auto file = LoadJsonFile(path);
  if (!file) return Fail(file.error());
  Manifest manifest;
  auto files = file->value.find("files");
  if (files == file->value.end() || !files->is_object()) return manifest;
  for (const auto& [name, entry] : files->items()) {
    ManifestEntry recorded;
    recorded.created_file = entry.value("created_file", false);
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
    files[name] = {{"created_file", entry.created_file}, {"created", entry.created}};
  }
  return WriteAtomically(path, RenderJson({{"version", 1}, {"files", files}}, {}), false);
}

Result<FileChange> PlanInstall(const FilePlan& plan) {
  auto file = LoadJsonFile(plan.file);
  if (!file) return Fail(file.error());
  FileChange change;
  change.file = plan.file;
  change.existed = file->existed;
  change.before = file->text;
  OrderedJson& doc = file->value;
  bool modified = false;
  for (const Edit& edit : plan.edits) {
    const std::string pointer = PointerText(edit.path, edit.path.size());
    switch (edit.kind) {
      case Edit::Kind::kDefault: {
        if (doc.contains(Pointer(pointer))) break;
        auto parent = Container(doc, {edit.path.begin(), edit.path.end() - 1},
                                OrderedJson::object(), plan.file, change.created);
        if (!parent) return Fail(parent.error());
        (**parent)[edit.path.back()] = edit.value;
        change.created.push_back(pointer);
        modified = true;
        break;
      }
      case Edit::Kind::kAppendHook: {
        auto array = Container(doc, edit.path, OrderedJson::array(), plan.file, change.created);
        if (!array) return Fail(array.error());
        const std::string command = OurCommand(edit.value);
        auto ours =
            std::find_if((*array)->begin(), (*array)->end(),
                         [](const OrderedJson& element) { return HoldsTogmalHook(element); });
        if (ours == (*array)->end()) {
          (*array)->push_back(edit.value);
          modified = true;
        } else if (!HoldsString(*ours, command)) {
          ReplaceCommands(*ours, command);
          change.notes.push_back(pointer + ": togmal's hook command is now " + command);
          modified = true;
        }
        break;
      }
      case Edit::Kind::kSetServer: {
        auto parent = Container(doc, {edit.path.begin(), edit.path.end() - 1},
                                OrderedJson::object(), plan.file, change.created);
        if (!parent) return Fail(parent.error());
        OrderedJson& servers = **parent;
        auto it = servers.find(edit.path.back());
        if (it == servers.end()) {
          servers[edit.path.back()] = edit.value;
          modified = true;
        } else if (*it != edit.value) {
          if (!IsTogmalServer(*it)) {
            return Fail(plan.file.string() + ": " + pointer +
                        " already names another server; rename or remove it first");
          }
          for (const auto& [key, value] : edit.value.items()) (*it)[key] = value;
          change.notes.push_back(pointer + ": now runs " + edit.value.value("command", ""));
          modified = true;
        }
        break;
      }
    }
  }
  change.after = modified ? RenderJson(doc, file->style) : change.before;
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
  OrderedJson& doc = file->value;
  bool modified = false;
  for (const Edit& edit : plan.edits) {
    const Pointer pointer(PointerText(edit.path, edit.path.size()));
    if (!doc.contains(pointer)) continue;
    OrderedJson& value = doc[pointer];
    if (edit.kind == Edit::Kind::kAppendHook && value.is_array()) {
      modified = RemoveHooks(value) || modified;
    } else if (edit.kind == Edit::Kind::kSetServer && IsTogmalServer(value)) {
      Erase(doc, pointer.to_string());
      modified = true;
    }
  }
  if (recorded != nullptr) {
    // Deepest first, so that emptying a child can empty its parent.
    std::vector<std::string> created = recorded->created;
    std::sort(created.begin(), created.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (const std::string& pointer : created) {
      if (!doc.contains(Pointer(pointer))) continue;
      const OrderedJson& value = doc[Pointer(pointer)];
      if (value.is_structured() && value.empty()) {
        Erase(doc, pointer);
        modified = true;
      }
    }
    // What is left is only what install put there (a format version): it goes too.
    const bool only_ours =
        std::all_of(doc.items().begin(), doc.items().end(), [&](const auto& item) {
          return !item.value().is_structured() &&
                 std::find(created.begin(), created.end(), "/" + item.key()) != created.end();
        });
    if (only_ours && !doc.empty()) {
      doc = OrderedJson::object();
      modified = true;
    }
    if (recorded->created_file && doc.empty()) {
      change.remove = true;
      return change;
    }
  }
  if (modified) change.after = RenderJson(doc, file->style);
  return change;
}

Result<fs::path> ApplyChange(const FileChange& change, const std::string& stamp) {
  if (!change.Changed()) return fs::path();
  const fs::path target = WritablePath(change.file);
  std::error_code error;
  fs::path backup;
  // A file uninstall removes held only what install put there: no backup.
  if (change.existed && !stamp.empty() && !change.remove) {
    backup = change.file;
    backup += ".togmal-backup-" + stamp;
    fs::copy_file(target, backup, fs::copy_options::overwrite_existing, error);
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

std::vector<Registration> FindRegistrations(const Places& places, const fs::path& binary,
                                            std::string_view only) {
  std::vector<Registration> found;
  for (const Target& target : Targets()) {
    if (!only.empty() && target.name != only) continue;
    for (Scope scope : target.scopes) {
      if (scope != Scope::kUser && places.project.empty()) continue;
      auto plans = PlanFor(target, scope, places, binary);
      if (!plans) continue;
      for (const FilePlan& plan : *plans) {
        Registration registration{std::string(target.name), scope, plan.file, false, {}};
        auto file = LoadJsonFile(plan.file);
        if (!file) {
          registration.error = file.error();
        } else {
          for (const Edit& edit : plan.edits) {
            const Pointer pointer(PointerText(edit.path, edit.path.size()));
            if (edit.kind == Edit::Kind::kDefault || !file->value.contains(pointer)) continue;
            const OrderedJson& value = file->value[pointer];
            registration.registered =
                registration.registered ||
                (edit.kind == Edit::Kind::kAppendHook ? value.is_array() && HoldsTogmalHook(value)
                                                      : IsTogmalServer(value));
          }
        }
        found.push_back(std::move(registration));
      }
    }
  }
  return found;
}

}  // namespace togmal::install
