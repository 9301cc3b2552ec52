// lsan_suppressions.cpp — sanitized builds only: LeakSanitizer's suppressions,
// third-party only. CLN (GiNaC's numbers) and GiNaC keep tables allocated for
// the process's lifetime; our own leaks are still reported.
extern "C" const char *__lsan_default_suppressions() { return "leak:libcln.so\nleak:libginac.so\n"; }
// Quietly: tests compare lagrangec's stderr, which must not list suppressions.
extern "C" const char *__lsan_default_options() { return "print_suppressions=0"; }
