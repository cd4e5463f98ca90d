// RecvQueue keeps posting order across wrap-around and growth.
#include "transport/shm/recv_queue.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace xfer::transport::shm {
namespace {

PostedRecv Numbered(size_t n) { return PostedRecv{nullptr, n, nullptr}; }

TEST(RecvQueueTest, KeepsOrderWhenGrowingAfterWrapAround) {
  RecvQueue queue;
  size_t next_in = 0, next_out = 0;
  // Cycle so the head sits mid-ring, then outgrow the ring twice.
  for (int i = 0; i < 100; ++i) {
    queue.push_back(Numbered(next_in++));
    queue.push_back(Numbered(next_in++));
    ASSERT_EQ(queue.front().capacity, next_out++);
    queue.pop_front();
  }
  for (int i = 0; i < 300; ++i) queue.push_back(Numbered(next_in++));
  EXPECT_EQ(queue.size(), next_in - next_out);
  while (queue.size() > 10) {
    ASSERT_EQ(queue.front().capacity, next_out++);
    queue.pop_front();
  }
  auto rest = queue.TakeAll();
  ASSERT_EQ(rest.size(), 10u);
  for (const PostedRecv& r : rest) EXPECT_EQ(r.capacity, next_out++);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(next_out, next_in);
}

}  // namespace
}  // namespace xfer::transport::shm
