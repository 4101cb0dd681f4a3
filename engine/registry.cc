// Registry's lookups. A registry holds a few tens of entries, so a linear scan finds them.
#include "engine/registry.h"

namespace compiler_gym {

Status Registry::Add(EnvEntry entry) {
  if (Find(entry.id) != nullptr)
    return InvalidArgument("environment id registered twice: " + entry.id);
  if (FindFamily(entry.family) == nullptr) {
    return FailedPrecondition("environment " + entry.id + " of unregistered family " +
                              entry.family);
  }
  entries_.push_back(std::move(entry));
  return Status::Ok();
}

Status Registry::AddFamily(FamilyEntry family) {
  if (FindFamily(family.name) != nullptr) {
    return InvalidArgument("environment family registered twice: " + family.name);
  }
  families_.push_back(std::move(family));
  return Status::Ok();
}

const FamilyEntry* Registry::FindFamily(std::string_view name) const {
  for (const FamilyEntry& family : families_) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

StatusOr<std::string> Registry::CallFamily(std::string_view family, const std::string& method,
                                           const std::string& argument) const {
  const FamilyEntry* entry = FindFamily(family);
  if (entry == nullptr)
    return InvalidArgument("unknown environment family '" + std::string(family) + "'");
  if (!entry->call) return Unimplemented("family " + entry->name + " has no operation " + method);
  return entry->call(method, argument);
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
