// Loading the package data: the data directory, vocabularies read once per path and kept for the
// process, and the inst2vec model's embeddings (stored as float16, read into float32).
#include "observations/vocabulary.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

namespace compiler_gym::observations {
namespace {

// Builds both vocabularies and the embeddings.
constexpr const char* kTrainer = "compiler_gym.bin.train_inst2vec";

std::mutex& DataMutex() {
  static std::mutex mutex;
  return mutex;
}
std::string& DataDirectoryOverride() {
  static std::string path;
  return path;
}
// Loaded data by path; entries live until ClearVocabularyCache (callers hold raw pointers, so
// a reload makes a new entry instead of replacing one in use).
struct Loaded {
  std::map<std::string, std::unique_ptr<Vocabulary>> vocabularies;
  std::map<std::string, std::unique_ptr<Inst2vecModel>> inst2vec;
  std::vector<std::unique_ptr<Vocabulary>> retired_vocabularies;
  std::vector<std::unique_ptr<Inst2vecModel>> retired_inst2vec;
};
Loaded& Cache() {
  static Loaded loaded;
  return loaded;
}

// Package data that is missing says which file and the command that makes it.
Status CheckExists(const std::string& path, const char* what, const char* command) {
  if (std::ifstream(path)) return Status::Ok();
  return NotFound(std::string(what) + " was not found at " + path +
                  " (package data; rebuild it with `python -m " + command +
                  "`, or point COMPILER_GYM_DATA_DIR at a directory holding it)");
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t out;
  if (exponent == 0x1f) {  // infinity or NaN
    out = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {  // normal: rebias 15 -> 127
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {  // zero
    out = sign;
  } else {  // subnormal half: normalize, as every half subnormal is a normal float
    int e = -1;
    do {
      ++e;
      mantissa <<= 1;
    } while ((mantissa & 0x400) == 0);
    out = sign | static_cast<uint32_t>(112 - e) << 23 | ((mantissa & 0x3ff) << 13);
  }
  float value;
  std::memcpy(&value, &out, sizeof(value));
  return value;
}

Vocabulary::Vocabulary(std::vector<std::string> entries) : entries_(std::move(entries)) {
  ids_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) ids_.emplace(entries_[i], static_cast<int64_t>(i));
}

StatusOr<Vocabulary> Vocabulary::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("vocabulary not found: " + path);
  std::vector<std::string> entries;
  for (std::string line; std::getline(in, line);) entries.push_back(std::move(line));
  Vocabulary vocabulary(std::move(entries));
  if (vocabulary.ids_.size() != vocabulary.entries_.size()) {
    return InvalidArgument("vocabulary " + path + " has duplicate entries");
  }
  return vocabulary;
}

int64_t Vocabulary::Lookup(std::string_view entry) const {
  auto it = ids_.find(entry);
  return it == ids_.end() ? unknown_id() : it->second;
}

void SetDataDirectory(std::string path) {
  std::lock_guard lock(DataMutex());
  DataDirectoryOverride() = std::move(path);
}

std::string DataDirectory() {
  if (const char* env = std::getenv("COMPILER_GYM_DATA_DIR"); env && *env) return env;
  std::lock_guard lock(DataMutex());
  if (!DataDirectoryOverride().empty()) return DataDirectoryOverride();
  return CG_DEFAULT_DATA_DIR;
}

StatusOr<const Vocabulary*> ProgramlVocabulary() {
  const std::string path = DataDirectory() + "/" + kProgramlVocabularyFile;
  std::lock_guard lock(DataMutex());
  auto& slot = Cache().vocabularies[path];
  if (!slot) {
    RETURN_IF_ERROR(CheckExists(path, "The ProGraML vocabulary", kTrainer));
    ASSIGN_OR_RETURN(Vocabulary vocabulary, Vocabulary::Load(path));
    slot = std::make_unique<Vocabulary>(std::move(vocabulary));
  }
  return slot.get();
}

StatusOr<const Inst2vecModel*> Inst2vecModelData() {
  const std::string dir = DataDirectory();
  const std::string vocabulary_path = dir + "/" + kInst2vecVocabularyFile;
  std::lock_guard lock(DataMutex());
  auto& slot = Cache().inst2vec[vocabulary_path];
  if (!slot) {
    const std::string table_path = dir + "/" + kInst2vecEmbeddingsFile;
    RETURN_IF_ERROR(CheckExists(vocabulary_path, "The inst2vec vocabulary", kTrainer));
    RETURN_IF_ERROR(CheckExists(table_path, "The inst2vec embedding table", kTrainer));
    ASSIGN_OR_RETURN(Vocabulary vocabulary, Vocabulary::Load(vocabulary_path));
    // Raw little-endian float16, as the trainer writes it (numpy's tofile on x86-64).
    const std::string table = ReadBytes(table_path);
    const size_t rows = static_cast<size_t>(vocabulary.size() + 1);
    if (table.size() != rows * kInst2vecDim * sizeof(uint16_t)) {
      return InvalidArgument("inst2vec embeddings: expected " + std::to_string(rows) + " x " +
                             std::to_string(kInst2vecDim) + " float16 values, the file has " +
                             std::to_string(table.size()) + " bytes");
    }
    auto model = std::make_unique<Inst2vecModel>();
    model->vocabulary = std::move(vocabulary);
    model->dim = kInst2vecDim;
    model->embeddings.resize(rows * kInst2vecDim);
    for (size_t i = 0; i < model->embeddings.size(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, table.data() + 2 * i, 2);
      model->embeddings[i] = HalfToFloat(bits);
    }
    slot = std::move(model);
  }
  return slot.get();
}

void ClearVocabularyCache() {
  std::lock_guard lock(DataMutex());
  // Keep the objects alive: environments may still point at them.
  for (auto& [path, v] : Cache().vocabularies) Cache().retired_vocabularies.push_back(std::move(v));
  for (auto& [path, m] : Cache().inst2vec) Cache().retired_inst2vec.push_back(std::move(m));
  Cache().vocabularies.clear();
  Cache().inst2vec.clear();
}

}  // namespace compiler_gym::observations
