// Vocabularies and trained tables shipped as package data: the ProGraML node-text vocabulary
// and the inst2vec statement vocabulary with its embeddings.
//
// Files live under the data directory: $COMPILER_GYM_DATA_DIR, else the directory that Python
// sets at import (compiler_gym/data in the installed package), else the source tree's
// python/compiler_gym/data (C++ tests and tools). Each file is read once per process.
//
//   ASSIGN_OR_RETURN(const Vocabulary* vocabulary, ProgramlVocabulary());
//   int64_t id = vocabulary->Lookup("add");  // vocabulary->unknown_id() when not in it
//   ASSIGN_OR_RETURN(const Inst2vecModel* inst2vec, Inst2vecModelData());
//   const float* row = &inst2vec->embeddings[inst2vec->vocabulary.Lookup(s) * inst2vec->dim];
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/status.h"

namespace compiler_gym::observations {

// Entries in id order; an unknown entry maps to size() (the "unknown = last" id).
class Vocabulary {
 public:
  Vocabulary() = default;
  explicit Vocabulary(std::vector<std::string> entries);
  // One entry per line (UTF-8, "\n"-separated, no empty lines). kNotFound when missing,
  // kInvalidArgument for a duplicate entry.
  static StatusOr<Vocabulary> Load(const std::string& path);

  int64_t size() const { return static_cast<int64_t>(entries_.size()); }
  int64_t unknown_id() const { return size(); }
  int64_t Lookup(std::string_view entry) const;
  const std::vector<std::string>& entries() const { return entries_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> entries_;
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> ids_;
};

// Widens one IEEE binary16 value (bits) to float, exactly (subnormals, infinities, NaN).
float HalfToFloat(uint16_t bits);

// The inst2vec vocabulary and its embedding table: (vocabulary size + 1) rows of `dim` floats,
// the last row being the embedding of unknown statements ("!UNK").
struct Inst2vecModel {
  Vocabulary vocabulary;
  int64_t dim = 0;
  std::vector<float> embeddings;
};

inline constexpr int64_t kInst2vecDim = 200;
inline constexpr const char* kProgramlVocabularyFile = "programl/vocabulary.txt";
inline constexpr const char* kInst2vecVocabularyFile = "inst2vec/vocabulary.txt";
// IEEE half precision, little-endian: half the size of float32 (package data stays small), and
// the embeddings lose nothing that matters; widened to float32 on load.
inline constexpr const char* kInst2vecEmbeddingsFile = "inst2vec/embeddings.f16";

void SetDataDirectory(std::string path);
std::string DataDirectory();

// Loaded on first use, then shared. kNotFound naming the file and how to make it when
// the package data is missing.
StatusOr<const Vocabulary*> ProgramlVocabulary();
StatusOr<const Inst2vecModel*> Inst2vecModelData();
// Forgets loaded data (after a retrain, and in tests).
void ClearVocabularyCache();

}  // namespace compiler_gym::observations
