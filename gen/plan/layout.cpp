// layout.cpp — buffers as named slices: the state vector, the constraint
// rows, the work of the generated functions. Each layout is computed once
// in the plan, and from it come both the numbers (NWORK, what a caller
// allocates) and every offset the generated C spells with the size macros
// (J + NC*NQ, out_dxdt + 2*NQ), so the two cannot drift apart.
#include "plan/plan.h"

namespace lgc {

const char *size_suffix(Size s) {
  switch (s) {
    case Size::nq: return "NQ";
    case Size::nh: return "NH";
    case Size::nn: return "NN";
    case Size::nc: return "NC";
    case Size::nx: return "NX";
    case Size::np: return "NP";
    case Size::nu: return "NU";
    case Size::nwork: return "NWORK";
  }
  unreachable("unknown size");
}

size_t Sizes::operator[](Size s) const {
  switch (s) {
    case Size::nq: return nq;
    case Size::nh: return nh;
    case Size::nn: return nn;
    case Size::nc: return nc;
    case Size::nx: return nx;
    case Size::np: return np;
    case Size::nu: return nu;
    case Size::nwork: return nwork;
  }
  unreachable("unknown size");
}

namespace {

// Adds e to the sum, merged into a term with the same factors: J + Y is 2*NC*NQ.
void merge(Offset &sum, const Extent &e) {
  for (Extent &t : sum)
    if (t.factors == e.factors) {
      t.count += e.count;
      t.value += e.value;
      return;
    }
  sum.push_back(e);
}

}  // namespace

Extent make_extent(const Sizes &sizes, std::vector<std::vector<Size>> factors, size_t count) {
  Extent e{count, std::move(factors), count};
  for (auto &f : e.factors) {
    size_t sum = 0;
    for (Size s : f) sum += sizes[s];
    e.value *= sum;
  }
  return e;
}

void Layout::add(const std::string &name, std::vector<std::vector<Size>> factors, size_t count) {
  entries_.push_back({name, make_extent(sizes_, std::move(factors), count), 0});
}

void Layout::add_layout(const Layout &inner, Size spelled_as) {
  // Only at the start: the inner slices' offsets are then the buffer's too.
  if (!entries_.empty() || inner.inner_) unreachable("a layout nested other than at the start of another");
  inner_ = make_extent(sizes_, {{spelled_as}});
  if (inner_->value != inner.size()) unreachable("a nested layout whose size macro does not match it");
  for (auto &e : inner.entries_) entries_.push_back({e.name, e.extent, 1});
}

const Layout::Entry &Layout::find(const std::string &slice) const {
  for (auto &e : entries_)
    if (e.name == slice) return e;
  unreachable(("no slice " + slice + " in a layout").c_str());
}

size_t Layout::size() const {
  size_t n = inner_ ? inner_->value : 0;
  for (auto &e : entries_)
    if (e.level == 0) n += e.extent.value;
  return n;
}

size_t Layout::size_after_inner() const { return size() - (inner_ ? inner_->value : 0); }

const Extent &Layout::extent(const std::string &slice) const { return find(slice).extent; }

bool Layout::is_inner(const std::string &slice) const { return find(slice).level == 1; }

Offset Layout::offset(const std::string &slice) const {
  int level = find(slice).level;
  Offset sum;
  if (level == 0 && inner_) merge(sum, *inner_);
  for (auto &e : entries_) {
    if (e.name == slice) break;
    if (e.level == level) merge(sum, e.extent);
  }
  return sum;
}

Offset Layout::between(const std::string &from, const std::string &to) const {
  if (find(from).level != find(to).level) unreachable("an offset between two levels of a layout");
  Offset sum;
  bool inside = false;
  for (auto &e : entries_) {
    if (e.name == from) inside = true;
    if (e.name == to) return sum;
    if (inside) merge(sum, e.extent);
  }
  unreachable(("slice " + from + " does not come before " + to).c_str());
}

std::vector<std::string> Layout::names(int level) const {
  std::vector<std::string> v;
  for (auto &e : entries_)
    if (e.level == level) v.push_back(e.name);
  return v;
}

std::vector<Pointer> pointers(const Layout &layout, const std::string &buffer,
                              const std::vector<std::pair<std::string, std::string>> &slices) {
  std::vector<Pointer> out;
  std::map<int, std::string> last;  // level -> the slice of the last pointer on it
  for (auto &[name, slice] : slices) {
    int level = layout.is_inner(slice) ? 1 : 0;
    auto before = last.find(level);
    if (before == last.end()) {
      out.push_back({name, buffer, layout.offset(slice), slice});
    } else {
      std::string base;
      for (auto &p : out)
        if (p.slice == before->second) base = p.name;
      out.push_back({name, base, layout.between(before->second, slice), slice});
    }
    last[level] = slice;
  }
  return out;
}

}  // namespace lgc
