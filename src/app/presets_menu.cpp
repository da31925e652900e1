// SPDX-License-Identifier: MIT
#include "presets_menu.h"

#include <QMenu>
#include <QMenuBar>

#include "presets.h"

namespace pe {

QMenu* addPresetsMenu(QMenuBar* bar, std::function<void(const ModelPreset&)> chosen) {
    QMenu* menu = bar->addMenu(QMenu::tr("&Presets"));
    menu->setToolTipsVisible(true);
    for (const ModelPreset& m : modelPresets()) {
        QAction* a = menu->addAction(QString::fromUtf8(m.label.data(), qsizetype(m.label.size())));
        a->setObjectName(QStringLiteral("preset-") +
                         QString::fromUtf8(m.name.data(), qsizetype(m.name.size())));
        a->setToolTip(QString::fromUtf8(m.summary.data(), qsizetype(m.summary.size())));
        a->setStatusTip(a->toolTip());
        QObject::connect(a, &QAction::triggered, menu, [chosen, &m] { chosen(m); });
    }
    return menu;
}

} // namespace pe
