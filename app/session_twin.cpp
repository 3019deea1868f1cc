// The shared copy of the Session's model (see session_twin.h).
#include "session_twin.h"

#include "tx/session.h"

namespace tx::app {

std::shared_ptr<const Checkpoint> SessionTwin::get(const Session& session) {
    if (!m_copy || m_version != session.model_version()) {
        m_copy = std::make_shared<const Checkpoint>(session.checkpoint());
        m_version = session.model_version();
        ++m_copies_made;
    }
    return m_copy;
}

}  // namespace tx::app
