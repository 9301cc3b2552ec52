// cmocka.hpp — cmocka from C++: the headers it expects before its own.
#pragma once
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <csetjmp>
extern "C" {
#include <cmocka.h>
}
