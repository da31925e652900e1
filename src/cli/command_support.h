// SPDX-License-Identifier: MIT
#pragma once

/** What the commands share: exit statuses, the error that ends a command, comma lists. */

#include <functional>
#include <string>
#include <vector>

namespace pe {

/** Exit statuses of the commands. */
enum ExitCode { kExitOk = 0, kExitFailure = 1, kExitUsage = 2 };

/** Thrown inside a command to end it with one line on stderr and the given exit status. */
struct CommandFailure {
    std::string message;
    int code = kExitUsage;
};

/** The items of a comma-separated list, trimmed, empty ones dropped. */
std::vector<std::string> splitComma(const std::string& s);

/**
 * Runs a command's body. A CommandFailure, std::bad_alloc or other exception becomes one line
 * "pe-explorer-cli: error: …" on stderr and the matching exit status.
 */
int runReportingErrors(const std::function<int()>& body);

} // namespace pe
