// SPDX-License-Identifier: Apache-2.0
// Inputs against outputs, by (device, inode) and, for a new file, by (folder's device and inode, name).
#include "core/distinct_files.h"

#include <sys/stat.h>

#include <map>
#include <optional>
#include <tuple>

#include "core/error.h"

namespace pipebench {
namespace {

// What identifies a file, existing or not yet: (device, inode, "") or (folder device, folder inode, name).
using FileId = std::tuple<dev_t, ino_t, std::string>;

std::optional<FileId> existing_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino, ""};
}

std::optional<FileId> output_id(const std::string& path) {
  if (auto id = existing_id(path)) return id;
  std::string name = path;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  const std::string::size_type slash = name.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : name.substr(0, slash);
  const auto dir = existing_id(folder);
  if (!dir) return std::nullopt;  // no folder: the writer says so
  return FileId{std::get<0>(*dir), std::get<1>(*dir), name.substr(slash == std::string::npos ? 0 : slash + 1)};
}

std::string shown(const FileArg& f) { return f.flag.empty() ? f.path : f.flag + " " + f.path; }

}  // namespace

void require_distinct_files(const std::vector<FileArg>& inputs, const std::vector<FileArg>& outputs) {
  std::vector<std::pair<const FileArg*, FileId>> seen;
  for (const auto& out : outputs) {
    if (out.path.empty()) continue;
    const std::optional<FileId> id = output_id(out.path);
    if (!id) continue;
    for (const auto& in : inputs) {
      if (in.path.empty()) continue;
      if (existing_id(in.path) == id) {
        throw UsageError(shown(out) + ": the same file as the input " + shown(in) +
                         "; writing it would replace the input (name another output)");
      }
    }
    for (const auto& [other, other_id] : seen) {
      if (other_id == *id) {
        throw UsageError(shown(out) + ": the same file as " + shown(*other) + " (each output needs its own file)");
      }
    }
    seen.emplace_back(&out, *id);
  }
}

void require_distinct_inputs(const std::vector<FileArg>& inputs) {
  std::map<FileId, const FileArg*> seen;
  for (const auto& in : inputs) {
    if (in.path.empty()) continue;
    const std::optional<FileId> id = existing_id(in.path);
    if (!id) continue;
    const auto [it, is_new] = seen.emplace(*id, &in);
    if (!is_new) {
      throw UsageError(shown(in) + ": the same file as " + shown(*it->second) +
                       "; read twice, it would count twice (give each input once)");
    }
  }
}

}  // namespace pipebench
