#include "bench/model/cycle_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace xfer::bench {
namespace {

TEST(CycleClockTest, CalibratedTicksTrackTheMonotonicClock) {
  CycleCalibration calibration;
  calibration.Begin();
  const uint64_t ns_before = NowNs();
  const uint64_t ticks_before = ReadCycles();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const uint64_t ticks_after = ReadCycles();
  const uint64_t ns_after = NowNs();
  calibration.End();

  const uint64_t converted = calibration.ToNs(ticks_after) - calibration.ToNs(ticks_before);
  const uint64_t measured = ns_after - ns_before;
  // Both intervals hold the same 50 ms sleep; they differ only by the few
  // instructions between the paired reads.
  EXPECT_NEAR(static_cast<double>(converted), static_cast<double>(measured),
              0.02 * static_cast<double>(measured));
  EXPECT_GE(converted, 50'000'000u * 98 / 100);
}

TEST(CycleClockTest, ConversionKeepsUnstampedSlotsAtZeroAndOrderIntact) {
  CycleCalibration calibration;
  calibration.Begin();
  std::vector<uint64_t> stamps = {ReadCycles(), 0, 0, 0};
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  stamps[3] = ReadCycles();
  calibration.End();
  calibration.ToNs(stamps);
  EXPECT_EQ(stamps[1], 0u);
  EXPECT_EQ(stamps[2], 0u);
  EXPECT_GT(stamps[3], stamps[0]);
  EXPECT_GE(stamps[3] - stamps[0], 1'900'000u);
}

}  // namespace
}  // namespace xfer::bench
