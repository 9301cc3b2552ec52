// limits.h — the generator's memory ceiling, lagrangec's own: the processes
// it starts (the C compiler, the model's program) get the user's limit back.
#pragma once

namespace lgc {

// ---- limits.cpp -----------------------------------------------------------

// The generator's address space (RLIMIT_AS): a spec whose equations grow
// past it stops with a message (std::bad_alloc).
constexpr unsigned long long kGeneratorMemory = 4ull << 30;
// Lowers this process's soft RLIMIT_AS to kGeneratorMemory (if it is higher).
void limit_generator_memory();
// Puts the user's limit back, for good (before an exec).
void restore_user_limits();
// The user's limit while it lives (around the start of a child process),
// the generator's again after.
struct UserLimits {
  UserLimits();
  ~UserLimits();
  UserLimits(const UserLimits &) = delete;
  UserLimits &operator=(const UserLimits &) = delete;
};

}  // namespace lgc
