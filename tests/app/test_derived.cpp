// Derived<Key, T> (app/derived.h): a result counts only for the key it was made for; a computation
// on a thread is kept by adopt() only if its key is still the current one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "derived.h"

using tx::app::Derived;

namespace {

// adopt(current) until the running computation is taken (at most 10 s); its return value.
bool adopt_when_done(Derived<int, std::string>& d, int current) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (d.running() && std::chrono::steady_clock::now() < deadline) {
        if (d.adopt(current)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

TEST(Derived, AResultIsGivenOnlyForItsOwnKey) {
    Derived<int, std::string> d;
    EXPECT_EQ(d.get(1), nullptr);
    EXPECT_EQ(d.latest_key(), nullptr);
    d.put(1, "one");
    ASSERT_NE(d.get(1), nullptr);
    EXPECT_EQ(*d.get(1), "one");
    EXPECT_EQ(d.get(2), nullptr) << "a result was given for another key";
    ASSERT_NE(d.latest_key(), nullptr);
    EXPECT_EQ(*d.latest_key(), 1);
    EXPECT_EQ(*d.latest(), "one");
}

TEST(Derived, ARequestAtOnceComputesOnlyWhatIsNotHeld) {
    Derived<int, std::string> d;
    int calls = 0;
    auto make = [&] { return std::to_string(++calls); };
    d.request(7, make, /*on_thread=*/false);
    d.request(7, make, false);
    EXPECT_EQ(calls, 1) << "a held result was computed again";
    d.request(8, make, false);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(*d.get(8), "2");
    EXPECT_EQ(d.get(7), nullptr);
}

TEST(Derived, AComputationOnAThreadIsKeptOnlyWhenItsKeyIsStillCurrent) {
    Derived<int, std::string> d;
    d.request(1, [] { return std::string("for 1"); }, /*on_thread=*/true);
    EXPECT_TRUE(d.running());
    EXPECT_FALSE(adopt_when_done(d, /*current=*/2)) << "a result made for key 1 was kept when 2 is current";
    EXPECT_FALSE(d.running());
    EXPECT_EQ(d.latest(), nullptr);

    d.request(2, [] { return std::string("for 2"); }, true);
    EXPECT_TRUE(adopt_when_done(d, 2));
    ASSERT_NE(d.get(2), nullptr);
    EXPECT_EQ(*d.get(2), "for 2");
}

TEST(Derived, NothingStartsWhileAComputationRuns) {
    Derived<int, std::string> d;
    std::atomic<bool> release{false};
    d.request(1, [&] {
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return std::string("slow");
    }, true);
    int started = 0;
    d.request(2, [&] { ++started; return std::string("other"); }, false);
    EXPECT_EQ(started, 0) << "a second computation started beside a running one";
    release = true;
    EXPECT_TRUE(adopt_when_done(d, 1));
    d.request(2, [&] { ++started; return std::string("other"); }, false);
    EXPECT_EQ(started, 1);
}

}  // namespace
