// SPDX-License-Identifier: MIT
#include "stepper_strip.h"

#include "flow_layout.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace pe {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace

StageStrip::StageStrip(QWidget* parent)
    : QWidget(parent)
    , m_group(new QButtonGroup(this)) {
    // Wraps onto a second line in a narrow window rather than widening it.
    auto* row = new FlowLayout(this, 1);
    m_group->setExclusive(true);
    for (int k = 0; k < kStageCount; ++k) {
        if (k > 0) {
            auto* arrow = new QLabel(QStringLiteral("→"));
            arrow->setStyleSheet(QStringLiteral("color: #888"));
            row->addWidget(arrow);
        }
        auto* b = new QToolButton;
        b->setCheckable(true);
        b->setFocusPolicy(Qt::NoFocus); // the panel keeps the arrow keys
        b->setObjectName(QStringLiteral("stage%1").arg(k));
        m_group->addButton(b, k);
        row->addWidget(b);
        m_buttons.push_back(b);
    }
    connect(m_group, &QButtonGroup::idClicked, this, &StageStrip::stageClicked);
}

void StageStrip::setStages(const std::vector<StageInfo>& stages) {
    for (std::size_t k = 0; k < m_buttons.size() && k < stages.size(); ++k) {
        const StageInfo& s = stages[k];
        QToolButton* b = m_buttons[k];
        b->setText(s.positionEnters ? qs(s.key) + QStringLiteral(" ●") : qs(s.key));
        QString tip = QStringLiteral("<b>%1</b><br>%2<br><i>%3</i>")
                          .arg(qs(s.title).toHtmlEscaped(), qs(s.formula).toHtmlEscaped(),
                               qs(s.note).toHtmlEscaped());
        if (s.positionEnters)
            tip += tr("<br><b>Position enters here.</b>");
        if (!s.applies)
            tip += tr("<br>Not used by this scheme: the input passes through.");
        b->setToolTip(tip);
        QString style = QStringLiteral("QToolButton { padding: 3px 6px; border-radius: 3px; ");
        style += s.positionEnters ? QStringLiteral("border: 2px solid #e07b00; ")
                                  : QStringLiteral("border: 1px solid #aaa; ");
        style += s.applies ? QStringLiteral("color: black; ") : QStringLiteral("color: #999; ");
        style +=
            QStringLiteral("} QToolButton:checked { background: #cfe2ff; font-weight: bold; }");
        b->setStyleSheet(style);
    }
}

void StageStrip::setCurrent(int stage) {
    if (QToolButton* b = button(stage))
        b->setChecked(true);
}

int StageStrip::current() const {
    return m_group->checkedId();
}

QToolButton* StageStrip::button(int stage) const {
    return stage >= 0 && stage < static_cast<int>(m_buttons.size())
               ? m_buttons[static_cast<std::size_t>(stage)]
               : nullptr;
}

TokenBar::TokenBar(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QHBoxLayout(this))
    , m_group(new QButtonGroup(this)) {
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(1);
    m_layout->addStretch(1);
    m_group->setExclusive(true);
    connect(m_group, &QButtonGroup::idClicked, this, &TokenBar::tokenClicked);
}

void TokenBar::setTokens(const QStringList& tokens, int padFrom) {
    for (QToolButton* b : m_buttons)
        delete b;
    m_buttons.clear();
    if (tokens.size() > kMaxTokens)
        return;
    for (int i = 0; i < tokens.size(); ++i) {
        auto* b = new QToolButton;
        const QString& t = tokens.at(i);
        b->setText(t);
        b->setCheckable(true);
        b->setFocusPolicy(Qt::NoFocus);
        const bool pad = i >= padFrom;
        const bool special = t == QLatin1String("[CLS]") || t == QLatin1String("[SEP]");
        b->setToolTip(pad ? tr("position %1: padding (masked as a key)").arg(i)
                          : tr("position %1: click to focus this query").arg(i));
        QFont f = b->font();
        f.setBold(special);
        f.setStrikeOut(pad);
        b->setFont(f);
        b->setStyleSheet(
            QStringLiteral("QToolButton { padding: 1px 3px; border: 1px solid %1; color: %2; "
                           "background: %3; } QToolButton:checked { background: #ffd9a0; }")
                .arg(pad ? QStringLiteral("#ccc") : QStringLiteral("#999"),
                     pad ? QStringLiteral("#999") : QStringLiteral("black"),
                     pad ? QStringLiteral("#eee") : QStringLiteral("white")));
        m_group->addButton(b, i);
        m_layout->insertWidget(i, b);
        m_buttons.push_back(b);
    }
}

void TokenBar::setCurrent(int position) {
    if (QToolButton* b = button(position))
        b->setChecked(true);
}

QToolButton* TokenBar::button(int position) const {
    return position >= 0 && position < static_cast<int>(m_buttons.size())
               ? m_buttons[static_cast<std::size_t>(position)]
               : nullptr;
}

} // namespace pe
