// limits.cpp — the generator's memory ceiling, for lagrangec's own process
// only: a spec whose equations explode stops with a message instead of
// driving the machine out of memory, while the C compiler and the model's
// program, which need what they need, get the user's own limit back.
#include "program/limits.h"

#include <sys/resource.h>

namespace lgc {

namespace {

rlimit user_limit;     // RLIMIT_AS as lagrangec was started with
bool lowered = false;  // limit_generator_memory lowered it

}  // namespace

void limit_generator_memory() {
#if !defined(__SANITIZE_ADDRESS__)  // sanitizer builds reserve terabytes of address space for their shadow
  rlimit r;
  if (getrlimit(RLIMIT_AS, &r) != 0 || (r.rlim_cur != RLIM_INFINITY && r.rlim_cur <= kGeneratorMemory)) return;
  user_limit = r;
  r.rlim_cur = kGeneratorMemory;
  lowered = setrlimit(RLIMIT_AS, &r) == 0;
#endif
}

void restore_user_limits() {
  if (lowered) setrlimit(RLIMIT_AS, &user_limit);  // the soft limit back up to its own value, under the hard one
}

UserLimits::UserLimits() { restore_user_limits(); }

UserLimits::~UserLimits() {
  if (!lowered) return;
  rlimit r = user_limit;
  r.rlim_cur = kGeneratorMemory;
  setrlimit(RLIMIT_AS, &r);
}

}  // namespace lgc
