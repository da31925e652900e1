// SPDX-License-Identifier: MIT
#pragma once

#include <functional>

class QMenu;
class QMenuBar;

namespace pe {

struct ModelPreset;

/** Adds a "Presets" menu with one entry per model (src/core/presets.h); `chosen` applies it. */
QMenu* addPresetsMenu(QMenuBar* bar, std::function<void(const ModelPreset&)> chosen);

} // namespace pe
