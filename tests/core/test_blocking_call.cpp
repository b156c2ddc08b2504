// The guard that keeps the dashboard's UI thread from waiting (common/blocking_call.h): it fires on
// the forbidden thread only, names what was about to wait, and can be lifted.
#include "common/blocking_call.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

using namespace stepscope;

TEST(BlockingCall, FiresOnTheForbiddenThreadOnly)
{
    std::vector<std::string> caught;
    forbidBlockingOnThisThread([&caught](std::string_view what) { caught.emplace_back(what); });
    EXPECT_TRUE(blockingForbiddenHere());
    blockingCall("python --version");
    bool elsewhere = true;
    std::thread other([&elsewhere] {
        elsewhere = blockingForbiddenHere();
        blockingCall("nvidia-smi topo -m"); // another thread may wait
    });
    other.join();
    EXPECT_FALSE(elsewhere);
    ASSERT_EQ(caught.size(), 1u);
    EXPECT_EQ(caught.front(), "python --version");

    allowBlocking();
    EXPECT_FALSE(blockingForbiddenHere());
    blockingCall("scan of the cache folder");
    EXPECT_EQ(caught.size(), 1u);
}

TEST(BlockingCall, MovesToTheThreadThatAsksLast)
{
    int fired = 0;
    std::thread other([&fired] { forbidBlockingOnThisThread([&fired](std::string_view) { ++fired; }); });
    other.join();
    blockingCall("on the first thread, no longer forbidden");
    EXPECT_EQ(fired, 0);
    allowBlocking();
}
