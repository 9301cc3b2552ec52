// expansion_size.cpp — how many terms expand would make of an expression,
// known before paying for it: a product of k sums of two terms expands to
// 2^k terms, which no time limit short of the universe's would see end.
#include "expressions/expressions.h"

#include <algorithm>

namespace lgc {

namespace {

// a + b or a b, at most cap + 1.
size_t saturating(size_t a, size_t b, bool product, size_t cap) {
  if (product) return a && b > (cap + 1) / a ? cap + 1 : std::min(cap + 1, a * b);
  return std::min(cap + 1, a + b);
}

}  // namespace

size_t expanded_terms(const GiNaC::ex &e, size_t cap) {
  if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
    const bool product = GiNaC::is_a<GiNaC::mul>(e);
    size_t n = product ? 1 : 0;
    for (size_t i = 0; i < e.nops() && n <= cap; ++i) n = saturating(n, expanded_terms(e.op(i), cap), product, cap);
    return n;
  }
  if (GiNaC::is_a<GiNaC::power>(e) && e.op(1).info(GiNaC::info_flags::posint)) {
    size_t base = expanded_terms(e.op(0), cap), n = 1;
    for (long k = GiNaC::ex_to<GiNaC::numeric>(e.op(1)).to_long(); k > 0 && n <= cap; --k)
      n = saturating(n, base, true, cap);
    return n;
  }
  return 1;
}

}  // namespace lgc
