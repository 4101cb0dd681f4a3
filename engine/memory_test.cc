// Tests of the memory projection behind make_vec's refusal: CheckProjectedMemory on made-up
// figures, and MemorySample on this machine's own.
#include "engine/memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace compiler_gym {
namespace {

TEST(MemoryTest, ProjectionRefusesWhatDoesNotFit) {
  // 1000 more at 1 MiB each need 1000 MiB: fits in 1 GiB, not in 512 MiB.
  EXPECT_TRUE(CheckProjectedMemory(1 << 20, 1000, int64_t{1} << 30, "envs").ok());
  const Status refused = CheckProjectedMemory(1 << 20, 1000, int64_t{512} << 20, "envs");
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.message(),
            "1000 more envs need about 1.0 GiB (1024 KiB each) where 0.5 GiB is available: use "
            "fewer");
}

TEST(MemoryTest, ProjectionWithoutAFigureRefusesNothing) {
  EXPECT_TRUE(CheckProjectedMemory(1 << 20, 1000, -1, "envs").ok());  // unknown headroom
  EXPECT_TRUE(CheckProjectedMemory(0, 1000, 0, "envs").ok());         // nothing measured
  EXPECT_TRUE(CheckProjectedMemory(1 << 20, 0, 0, "envs").ok());      // nothing to come
}

TEST(MemoryTest, ProjectionOfAHugeCountDoesNotOverflow) {
  const Status refused = CheckProjectedMemory(int64_t{1} << 40, INT64_MAX, int64_t{1} << 50, "x");
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
}

TEST(MemoryTest, ReadsThisMachinesFigures) {
  EXPECT_GT(AvailableMemoryBytes(), 0);
  EXPECT_GT(ResidentBytes(), 0);
}

TEST(MemoryTest, SampleSeesWhatWasAllocated) {
  MemorySample sample;
  // 64 items of 4 MiB each, touched so that they are resident.
  std::vector<std::unique_ptr<char[]>> items;
  for (int i = 0; i < 64; ++i) {
    items.emplace_back(new char[4 << 20]);
    for (int j = 0; j < (4 << 20); j += 4096) items.back()[j] = 1;
  }
  // A trillion more would need 4 EiB: refused whatever the machine; ten more fit.
  EXPECT_EQ(sample.CheckFits(64, int64_t{1} << 40, "items").code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(sample.CheckFits(64, 10, "items").ok());
}

}  // namespace
}  // namespace compiler_gym
