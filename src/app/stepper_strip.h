// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>
#include <QWidget>

#include <vector>

#include "stages.h"

class QButtonGroup;
class QHBoxLayout;
class QToolButton;

namespace pe {

/**
 * The pipeline as a row of stage buttons joined by arrows (wrapping when narrow). A stage the
 * scheme does not use is greyed (still reachable); a stage where position enters carries an orange
 * frame and a dot.
 */
class StageStrip : public QWidget {
    Q_OBJECT
public:
    explicit StageStrip(QWidget* parent = nullptr);

    void setStages(const std::vector<StageInfo>& stages);
    void setCurrent(int stage);
    int current() const;
    QToolButton* button(int stage) const;

Q_SIGNALS:
    void stageClicked(int stage);

private:
    QButtonGroup* m_group;
    std::vector<QToolButton*> m_buttons;
};

/**
 * The tokens of the sequence as small buttons: click one to focus that query. Special tokens are
 * bold, padded positions grey and struck through. Shown for up to kMaxTokens positions.
 */
class TokenBar : public QWidget {
    Q_OBJECT
public:
    explicit TokenBar(QWidget* parent = nullptr);

    static constexpr int kMaxTokens = 64;
    /** `padFrom`: first padded position (≥ tokens.size() for none). */
    void setTokens(const QStringList& tokens, int padFrom);
    void setCurrent(int position);
    int count() const { return static_cast<int>(m_buttons.size()); }
    QToolButton* button(int position) const;

Q_SIGNALS:
    void tokenClicked(int position);

private:
    QHBoxLayout* m_layout;
    QButtonGroup* m_group;
    std::vector<QToolButton*> m_buttons;
};

} // namespace pe
