// CompileCache behind one mutex: an LRU list with an index by key, evicted by bytes, and
// CacheKey, which hashes a key's parts (SHA-1) so that keys stay short however long the source.
#include "envs/gcc/compile_cache.h"

#include <list>
#include <mutex>
#include <unordered_map>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA1.h"

namespace compiler_gym::gcc_env {

struct CompileCache::Impl {
  struct Entry {
    std::string key;
    Status status;  // an error compile() returned, or OK with `value`
    Value value;
    int64_t Bytes() const {
      return static_cast<int64_t>(key.size() + status.message().size() +
                                  (value ? value->size() : 0) + 64);
    }
  };
  mutable std::mutex mutex;
  std::list<Entry> lru;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index;
  CompileCacheStats stats{.limit_bytes = int64_t{256} << 20};

  void Evict() {
    while (stats.bytes > stats.limit_bytes && !lru.empty()) {
      stats.bytes -= lru.back().Bytes();
      index.erase(lru.back().key);
      lru.pop_back();
    }
    stats.entries = static_cast<int64_t>(lru.size());
  }
};

CompileCache::CompileCache() : impl_(std::make_unique<Impl>()) {}
CompileCache::~CompileCache() = default;

CompileCache& CompileCache::Get() {
  static CompileCache* cache = new CompileCache();  // never destroyed: used until exit
  return *cache;
}

StatusOr<CompileCache::Value> CompileCache::GetOrCompute(
    const std::string& key, const std::function<StatusOr<std::string>()>& compute) {
  {
    std::lock_guard lock(impl_->mutex);
    auto it = impl_->index.find(key);
    if (it != impl_->index.end()) {
      impl_->lru.splice(impl_->lru.begin(), impl_->lru, it->second);
      ++impl_->stats.hits;
      const Impl::Entry& entry = *it->second;
      if (!entry.status.ok()) return entry.status;
      return entry.value;
    }
    ++impl_->stats.compiles;
  }
  StatusOr<std::string> result = compute();
  Impl::Entry entry;
  entry.key = key;
  if (result.ok()) {
    entry.value = std::make_shared<const std::string>(std::move(*result));
  } else if (result.status().code() == StatusCode::kDeadlineExceeded) {
    return result.status();
  } else {
    entry.status = result.status();
  }
  std::lock_guard lock(impl_->mutex);
  if (impl_->index.count(key) == 0) {
    impl_->stats.bytes += entry.Bytes();
    impl_->lru.push_front(entry);
    impl_->index.emplace(key, impl_->lru.begin());
    impl_->Evict();
  }
  if (!entry.status.ok()) return entry.status;
  return entry.value;
}

CompileCacheStats CompileCache::Stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

void CompileCache::SetLimit(int64_t bytes) {
  std::lock_guard lock(impl_->mutex);
  impl_->stats.limit_bytes = bytes;
  impl_->Evict();
}

void CompileCache::Clear() {
  std::lock_guard lock(impl_->mutex);
  impl_->lru.clear();
  impl_->index.clear();
  impl_->stats = CompileCacheStats{.limit_bytes = impl_->stats.limit_bytes};
}

std::string CacheKey(std::initializer_list<std::string_view> parts) {
  llvm::SHA1 sha1;
  for (std::string_view part : parts) {
    const std::string size = std::to_string(part.size()) + ":";
    sha1.update(llvm::StringRef(size));
    sha1.update(llvm::StringRef(part.data(), part.size()));
  }
  return llvm::toHex(sha1.final());
}

}  // namespace compiler_gym::gcc_env
