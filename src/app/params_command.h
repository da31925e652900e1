// SPDX-License-Identifier: MIT
#pragma once

#include <QUndoCommand>

#include <functional>

#include "session.h"

namespace pe {

/** One parameter change, undoable. The change is already applied when the command is pushed. */
class ParamsCommand : public QUndoCommand {
public:
    using Apply = std::function<void(const Session&)>;
    ParamsCommand(Session before, Session after, Apply apply)
        : m_before(std::move(before))
        , m_after(std::move(after))
        , m_apply(std::move(apply)) {
        setText(QStringLiteral("parameter change"));
    }
    void undo() override { m_apply(m_before); }
    void redo() override {
        if (m_first) {
            m_first = false;
            return;
        }
        m_apply(m_after);
    }

private:
    Session m_before;
    Session m_after;
    Apply m_apply;
    bool m_first = true;
};

} // namespace pe
