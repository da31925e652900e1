// SPDX-License-Identifier: MIT
#include "command_support.h"

#include <exception>
#include <iostream>
#include <new>
#include <sstream>

namespace pe {

std::vector<std::string> splitComma(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty())
            out.push_back(item);
    }
    return out;
}

int runReportingErrors(const std::function<int()>& body) {
    try {
        return body();
    } catch (const CommandFailure& f) {
        std::cerr << "pe-explorer-cli: error: " << f.message << "\n";
        return f.code;
    } catch (const std::bad_alloc&) {
        std::cerr << "pe-explorer-cli: error: out of memory\n";
        return kExitFailure;
    } catch (const std::exception& e) {
        std::cerr << "pe-explorer-cli: error: " << e.what() << "\n";
        return kExitFailure;
    }
}

} // namespace pe
