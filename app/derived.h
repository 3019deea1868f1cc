// Derived<Key, T>: one result computed from the model and the input (a generation trace, the Look
// inside views, a known-words list …), held with the key of everything it was computed from: a
// model or run version (tx::Session), the input, the result's own settings.
//
// The one rule for such results: a result counts only for the key it was made for. get(key) gives
// it when the key asked for is its key, and nothing otherwise; nobody resets or invalidates a
// result by hand, because a change of model, input or settings is a change of key. A computation
// runs at once on the calling thread or on a thread of its own; a finished one is taken by
// adopt(current), which keeps it only if its key is still the current one.
//
// Not thread-safe itself: call every member from one thread (the Workbench's).
#pragma once
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <utility>

namespace tx::app {

template <class Key, class T>
class Derived {
public:
    // The result made for `key`; nullptr when none is held or the held one was made for another key.
    std::shared_ptr<const T> get(const Key& key) const { return m_key && *m_key == key ? m_result : nullptr; }
    // The last result kept, whatever its key, and that key (nullptr before the first): for a view
    // that goes on showing an older result while the current one is computed.
    std::shared_ptr<const T> latest() const { return m_result; }
    const Key* latest_key() const { return m_key ? &*m_key : nullptr; }
    // A computation started on a thread and not yet taken by adopt().
    bool running() const { return m_running.valid(); }

    // Makes the result for `key` unless it is held or being made: at once, or (on_thread) on a
    // thread of its own for a later adopt(). While another key's computation runs nothing starts:
    // ask again after adopt() has taken it. `make` returns a T.
    template <class Make>
    void request(const Key& key, Make make, bool on_thread) {
        if (get(key) || running()) return;
        if (!on_thread) {
            put(key, make());
            return;
        }
        m_running_key = key;
        m_running = std::async(std::launch::async, [make = std::move(make)]() mutable {
            return std::make_shared<const T>(make());
        });
    }
    // Keeps a result made at once by the caller, for `key`.
    void put(const Key& key, T value) {
        m_key = key;
        m_result = std::make_shared<const T>(std::move(value));
    }
    // Takes a finished computation: kept when it was made for `current`, dropped otherwise (the
    // model, input or settings changed while it ran). True when a result was kept.
    bool adopt(const Key& current) {
        if (!running() || m_running.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
        std::shared_ptr<const T> result = m_running.get();   // leaves m_running empty (not running)
        if (!(*m_running_key == current)) return false;
        m_key = std::move(m_running_key);
        m_result = std::move(result);
        return true;
    }

private:
    std::optional<Key> m_key;                          // the held result's key; empty: none held
    std::shared_ptr<const T> m_result;
    std::optional<Key> m_running_key;                  // the key of the computation in m_running
    std::future<std::shared_ptr<const T>> m_running;
};

}  // namespace tx::app
