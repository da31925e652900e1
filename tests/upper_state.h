// SPDX-License-Identifier: MIT
#pragma once

// For the tests of vector_state.h: 256-bit code that returns without VZEROUPPER, as Qt 6.4's
// AVX2 fills do. An assembler routine: the compiler adds VZEROUPPER to a function of its own
// that touches a ymm register. Call only where upperVectorStateKnown() (the CPU has AVX).
// It defines a global symbol: include it in one translation unit per program.

#if defined(__x86_64__) && defined(__GNUC__)
asm(".text\n"
    ".globl pe_test_leave_upper_halves_in_use\n"
    ".type pe_test_leave_upper_halves_in_use, @function\n"
    "pe_test_leave_upper_halves_in_use:\n"
    "    vcmpps $0, %ymm15, %ymm15, %ymm15\n" // ymm15 = all ones; ymm15 is call-clobbered
    "    ret\n"
    ".size pe_test_leave_upper_halves_in_use, .-pe_test_leave_upper_halves_in_use\n");
extern "C" void pe_test_leave_upper_halves_in_use();
inline void leaveUpperHalvesInUse() {
    pe_test_leave_upper_halves_in_use();
}
#else
inline void leaveUpperHalvesInUse() {}
#endif
