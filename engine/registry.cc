#include "engine/registry.h"

namespace compiler_gym {

Status Registry::Add(EnvEntry entry) {
  if (Find(entry.id) != nullptr)
    return InvalidArgument("environment id registered twice: " + entry.id);
  entries_.push_back(std::move(entry));
  return Status::Ok();
}

const EnvEntry* Registry::Find(std::string_view id) const {
  for (const EnvEntry& entry : entries_) {
    if (entry.id == id) return &entry;
  }
  return nullptr;
}

StatusOr<std::unique_ptr<Env>> Registry::Make(std::string_view id) const {
  const EnvEntry* entry = Find(id);
  if (entry == nullptr) {
    std::string known;
    for (const EnvEntry& e : entries_) known += (known.empty() ? "" : ", ") + e.id;
    return NotFound("unknown environment id '" + std::string(id) + "' (known: " + known + ")");
  }
  return entry->factory();
}

}  // namespace compiler_gym
