// SessionTwin: the one copy of a Session's model that the work done beside the Session reads (the
// Generate panel's timing, Look inside, Precision, a fine-tuning's start): config, vocabulary and
// parameters as Session::checkpoint() gives them. Made on first use after the model changed and
// shared read-only, so a computation on another thread keeps its copy while the Session moves on.
// Keyed on Session::model_version(): a new model, new weights or another attention scaling make a
// new copy, and nothing else does; no caller invalidates it.
#pragma once
#include <cstdint>
#include <memory>

#include "tx/checkpoint.h"

namespace tx {
class Session;
}

namespace tx::app {

class SessionTwin {
public:
    // The copy of `session`'s model as it is now: the one made before while the model is unchanged.
    // Call it on the Session's thread (on CUDA it downloads the parameters).
    std::shared_ptr<const Checkpoint> get(const Session& session);
    // How many copies have been made (one per model version, however many users ask).
    uint64_t copies_made() const { return m_copies_made; }

private:
    std::shared_ptr<const Checkpoint> m_copy;
    uint64_t m_version = 0;        // Session::model_version() of m_copy (versions start at 1)
    uint64_t m_copies_made = 0;
};

}  // namespace tx::app
