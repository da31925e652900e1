// SPDX-License-Identifier: MIT
#pragma once

/**
 * The Lab tab's engine: the learning lab of src/lab (libtorch) behind LabPanel's pluggable
 * LabTrainer and LabLoader. Built only where libtorch-dev is installed (PE_HAVE_LAB); the panel
 * greys Train and Load without it.
 */

#include <thread>

#include "lab_panel.h"

namespace pe {

/** Trains with pe::lab::runExperiment; the result carries every layer's view and a saver. */
LabTrainer labEngineTrainer();
/** Loads a model.safetensors written by the lab (or `pe-explorer-cli train`). */
LabLoader labEngineLoader();
/** Whether the lab's libtorch module is installed (its file is there). */
bool labEngineAvailable();
/** Starts loading the lab's libtorch module on a thread (the first call; join it before exit). */
std::thread preloadLabEngine();

} // namespace pe
