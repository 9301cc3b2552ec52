// articulated.cpp — the bodies as a tree of links for the articulated-body
// recursion (gen/kernels/articulated.c): each link a frame that turns from
// the link before it about one of its axes by a + s q_j (one coordinate,
// s = ±1, a constant), with the constant turns and offsets between them, and
// the mass, first moment and inertia of the bodies it carries. Read from the
// frame tree and the bodies' centres, which are sums of terms each constant
// in its frame:
//  - a link's origin O_L is the sum of a body's terms in the frames above L
//    (strictly), the same for every body at or below L; r, from the parent
//    link's origin, is constant in the parent's axes because the frames
//    between them turn by constants;
//  - a body's centre in its link's axes is the sum of its terms at or below
//    the link, and its inertia is turned into the link's axes.
// A free joint is a frame turned from N by a quaternion of four coordinates
// (its norm the model's holonomic row) whose origin moves by three more
// along the axes of the frame it turns from: the bodies' terms above it
// carry those three, once each, and constants.
// What does not fit (any other coordinate in a centre's components, a
// quaternion below a joint, a coordinate turning two frames, a kinetic
// energy or constraint written beside the bodies) leaves the tree absent,
// with the reason.
#include "model/model.h"

#include <algorithm>

#include <set>

namespace lgc {

namespace {

using GiNaC::ex;

class TreeReader {
 public:
  TreeReader(const FrameTree &frames, const SymbolTable &s) : frames_(frames), s_(s), link_of_frame_(frames.size(), -2) {}

  ArticulatedTree read(const std::vector<BodyEnergy> &bodies, const std::vector<ex> &tau) {
    ArticulatedTree out;
    out.tau = tau;
    try {
      for (int f = 1; f < frames_.size(); ++f) frame_link(f);
      if (free_ >= 0) free_translation(bodies);
      const size_t joint_coordinates = links_.size() + (free_ >= 0 ? 6 : 0);
      if (joint_coordinates != s_.q.size())
        throw Absent("a coordinate turns no frame (or one frame turns by two): " + std::to_string(joint_coordinates) +
                     " joint coordinates for " + std::to_string(s_.q.size()) + " coordinates");
      for (const BodyEnergy &b : bodies) add(b);
      gravity(bodies, out);
      for (size_t i = 0; i < links_.size(); ++i) finish(i);
    } catch (const Absent &why) {
      out.absent = why.what();
      return out;
    }
    out.links = std::move(links_);
    return out;
  }

 private:
  struct Absent : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  const FrameTree &frames_;
  const SymbolTable &s_;
  std::vector<int> link_of_frame_;  // -1: rigid with N; -2: not yet known
  std::vector<ArticulatedTree::Link> links_;
  std::vector<int> link_frame_;                          // per link: its frame node
  std::vector<std::optional<std::map<int, Components>>> origin_;  // per link: O_L as terms
  int free_ = -1;                                        // the free joint's link, if any
  std::set<size_t> free_coordinates_;                    // its seven coordinates

  // Constant, or (`translation`) a sum of constants and the free joint's coordinates.
  bool constant(const ex &e, bool translation) const {
    if (!translation || free_ < 0) return constant(e);
    ex rest = e;
    for (size_t j = 0; j < 3; ++j) rest = rest.subs(s_.q[links_[size_t(free_)].free[j]] == 0);
    return constant(rest);
  }
  bool constant(const ex &e) const {
    return !s_.has_kind(e, SymbolKind::coordinate) && !s_.has_kind(e, SymbolKind::velocity) &&
           !s_.has_kind(e, SymbolKind::input) && !e.has(s_.t);
  }
  bool constant(const Components &c, bool translation = false) const {
    return constant(c[0], translation) && constant(c[1], translation) && constant(c[2], translation);
  }
  static bool same(const Components &a, const Components &b) {
    for (int c = 0; c < 3; ++c)
      if (!(a[c] - b[c]).expand().is_zero()) return false;
    return true;
  }
  int frame_of_link(int link) const { return link < 0 ? FrameTree::N : link_frame_[size_t(link)]; }

  // The link a frame moves with; a frame turned by a coordinate starts one.
  int frame_link(int f) {
    if (f == FrameTree::N) return -1;
    if (link_of_frame_[size_t(f)] != -2) return link_of_frame_[size_t(f)];
    const FrameTree::Node &n = frames_.node(f);
    int parent = frame_link(n.parent);
    if (n.is_quaternion()) return link_of_frame_[size_t(f)] = free_link(f, parent);
    if (constant(n.angle)) return link_of_frame_[size_t(f)] = parent;
    std::optional<size_t> coordinate;
    for (size_t j = 0; j < s_.q.size(); ++j)
      if (n.angle.has(s_.q[j])) {
        if (coordinate) throw Absent("a frame turns by two coordinates");
        coordinate = j;
      }
    if (!coordinate) throw Absent("a frame turns by an angle of time or the inputs");
    ex sign = n.angle.diff(s_.q[*coordinate]), offset = (n.angle - sign * s_.q[*coordinate]).expand();
    if (!(sign == 1 || sign == -1) || !constant(offset))
      throw Absent("a frame turns by an angle that is not a coordinate plus a constant");
    for (auto &l : links_)
      if (l.coordinate == *coordinate) throw Absent("a coordinate turns two frames");
    if (free_coordinates_.count(*coordinate)) throw Absent("a coordinate of the free joint turns another frame");
    ArticulatedTree::Link l;
    l.parent = parent;
    l.axis = n.axis;
    l.coordinate = *coordinate;
    l.offset = offset;
    l.sign = sign;
    l.mass = 0;
    l.first_moment = {0, 0, 0};
    l.inertia = GiNaC::matrix(3, 3);
    links_.push_back(l);
    link_frame_.push_back(f);
    origin_.emplace_back();
    return link_of_frame_[size_t(f)] = int(links_.size()) - 1;
  }

  // The free joint a quaternion frame starts: from N, by four coordinates.
  int free_link(int f, int parent) {
    const FrameTree::Node &n = frames_.node(f);
    if (parent >= 0) throw Absent("a frame turns by a quaternion below a joint (only a free joint from N is taken)");
    if (free_ >= 0) throw Absent("two frames turn by quaternions (the recursion takes one free joint)");
    ArticulatedTree::Link l;
    for (size_t k = 0; k < 4; ++k) {
      std::optional<size_t> coordinate;
      for (size_t j = 0; j < s_.q.size(); ++j)
        if (n.angle.op(k).is_equal(s_.q[j])) coordinate = j;
      if (!coordinate || free_coordinates_.count(*coordinate))
        throw Absent("a quaternion's components are not four coordinates");
      for (auto &other : links_)
        if (other.coordinate == *coordinate) throw Absent("a coordinate of the free joint turns another frame");
      free_coordinates_.insert(*coordinate);
      l.free[3 + k] = *coordinate;
    }
    l.parent = -1;
    l.axis = -1;
    l.coordinate = l.free[3];
    l.offset = 0;
    l.sign = 1;
    l.mass = 0;
    l.first_moment = {0, 0, 0};
    l.inertia = GiNaC::matrix(3, 3);
    links_.push_back(l);
    link_frame_.push_back(f);
    origin_.emplace_back();
    return free_ = int(links_.size()) - 1;
  }

  // The free joint's translation: the three coordinates, other than the
  // quaternion's and the turns', that the bodies' centres carry.
  void free_translation(const std::vector<BodyEnergy> &bodies) {
    std::set<size_t> turning;
    for (auto &l : links_)
      if (l.axis >= 0) turning.insert(l.coordinate);
    std::vector<size_t> found;
    for (size_t j = 0; j < s_.q.size(); ++j) {
      if (turning.count(j) || free_coordinates_.count(j)) continue;
      bool carried = false;
      for (const BodyEnergy &b : bodies)
        for (auto &[f, c] : b.centre.terms) carried = carried || c[0].has(s_.q[j]) || c[1].has(s_.q[j]) || c[2].has(s_.q[j]);
      if (carried) found.push_back(j);
    }
    if (found.size() != 3)
      throw Absent("the free joint's origin moves by " + std::to_string(found.size()) + " coordinates, not 3");
    auto &L = links_[size_t(free_)];
    for (size_t k = 0; k < 3; ++k) {
      L.free[k] = found[k];
      free_coordinates_.insert(found[k]);
    }
  }

  bool above(int ancestor, int f) const { return ancestor != f && frames_.common_ancestor(ancestor, f) == ancestor; }

  void add(const BodyEnergy &b) {
    int deepest = b.frame >= 0 ? b.frame : FrameTree::N;
    for (auto &[f, c] : b.centre.terms)
      if (frames_.node(f).depth > frames_.node(deepest).depth) deepest = f;
    for (auto &[f, c] : b.centre.terms) {
      if (frames_.common_ancestor(f, deepest) != f)
        throw Absent("the centre of '" + b.name + "' has terms in frames on two branches");
      if (!constant(c, free_ >= 0 && above(f, link_frame_[size_t(free_)])))
        throw Absent("the centre of '" + b.name + "' moves in a frame (a sliding joint)");
    }
    if (b.frame >= 0 && frames_.common_ancestor(b.frame, deepest) != b.frame)
      throw Absent("the centre of '" + b.name + "' is not on its frame's branch");
    int link = frame_link(deepest);
    if (b.frame >= 0 && frame_link(b.frame) != link)
      throw Absent("'" + b.name + "' turns with one joint and moves with another");
    if (link < 0) return;  // fixed in N
    // Each link's origin from this body, checked against the others'.
    for (int l = link; l >= 0; l = links_[size_t(l)].parent) {
      std::map<int, Components> o;
      for (auto &[f, c] : b.centre.terms)
        if (above(f, link_frame_[size_t(l)])) o.emplace(f, c);
      auto &known = origin_[size_t(l)];
      if (!known) {
        known = o;
        continue;
      }
      bool agree = known->size() == o.size();
      for (auto a = known->begin(), c = o.begin(); agree && a != known->end(); ++a, ++c)
        agree = a->first == c->first && same(a->second, c->second);
      if (!agree) throw Absent("the bodies under one joint place it differently");
    }
    const int home = link_frame_[size_t(link)];
    Components centre = {0, 0, 0};
    for (auto &[f, c] : b.centre.terms)
      if (!above(f, home)) centre = plus(centre, frames_.express(c, f, home));
    auto &L = links_[size_t(link)];
    L.mass += b.mass;
    L.first_moment = plus(L.first_moment, scaled(b.mass, centre));
    // The inertia about the centre in the link's axes, moved to its origin.
    GiNaC::matrix I(3, 3);
    if (b.frame >= 0) {
      GiNaC::matrix R = turn(b.axes, home);
      if (!constant_matrix(R) && frames_.common_ancestor(b.axes, b.frame) == b.axes) R = turn(b.frame, home);
      if (!constant_matrix(R)) throw Absent("the inertia of '" + b.name + "' is given in axes that turn in its link");
      I = R.mul(b.inertia).mul(R.transpose());
    }
    ex cc = dot(centre, centre);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c)
        L.inertia(a, c) += I(a, c) + b.mass * ((a == c ? cc : ex(0)) - centre[a] * centre[c]);
  }

  // Columns: the axes of `from` in `to`'s.
  GiNaC::matrix turn(int from, int to) const {
    GiNaC::matrix R(3, 3);
    for (int k = 0; k < 3; ++k) {
      Components unit = {0, 0, 0};
      unit[k] = 1;
      Components c = frames_.express(unit, from, to);
      for (int a = 0; a < 3; ++a) R(a, k) = c[a];
    }
    return R;
  }
  bool constant_matrix(const GiNaC::matrix &R) const {
    for (unsigned a = 0; a < 3; ++a)
      for (unsigned c = 0; c < 3; ++c)
        if (!constant(R(a, c))) return false;
    return true;
  }

  void gravity(const std::vector<BodyEnergy> &bodies, ArticulatedTree &out) {
    out.gravity = {0, 0, 0};
    for (const BodyEnergy &b : bodies) {
      if (b.weight.terms.empty()) continue;
      Components w = components_in(frames_, b.weight, FrameTree::N);
      if (!constant(w)) throw Absent("the weight of '" + b.name + "' turns");
      out.gravity = {(w[0] / b.mass).normal(), (w[1] / b.mass).normal(), (w[2] / b.mass).normal()};
    }
  }

  // E and r of a link, from its parent link's axes.
  void finish(size_t i) {
    auto &L = links_[i];
    const int f = link_frame_[i], pf = frames_.node(f).parent, P = frame_of_link(L.parent);
    L.E = turn(pf, P);
    if (!constant_matrix(L.E)) throw Absent("a joint's frame turns in its parent link");
    L.r = {0, 0, 0};
    if (!origin_[i]) throw Absent("a joint carries no body");
    for (auto &[g, c] : *origin_[i])
      if (!above(g, P)) L.r = plus(L.r, frames_.express(c, g, P));
    if (L.axis < 0) {  // the free joint: r + E (x, y, z), (x, y, z) the three coordinates along pf's axes
      Components in_joint = {0, 0, 0};
      for (auto &[g, c] : *origin_[i]) in_joint = plus(in_joint, frames_.express(c, g, pf));
      std::array<size_t, 3> along{};  // the coordinate along each axis
      std::set<size_t> axes;
      for (size_t k = 0; k < 3; ++k) {
        int axis = -1;
        for (int a = 0; a < 3; ++a) {
          ex d = in_joint[size_t(a)].diff(s_.q[L.free[k]]).expand();
          if (d == 1 && axis < 0) axis = a;
          else if (!d.is_zero()) axis = 3;
        }
        if (axis < 0 || axis > 2 || !axes.insert(size_t(axis)).second)
          throw Absent("the free joint's origin does not move by its coordinates along its joint frame's axes");
        along[size_t(axis)] = L.free[k];
      }
      for (size_t a = 0; a < 3; ++a) L.free[a] = along[a];
      GiNaC::exmap at_zero;
      for (size_t k = 0; k < 3; ++k) at_zero[s_.q[L.free[k]]] = 0;
      for (auto &c : L.r) c = c.subs(at_zero);
    }
    if (!constant(L.r)) throw Absent("a joint's position moves in its parent link");
  }
};

}  // namespace

namespace {

// The operations of e read as a tree (count_ops.py's rule: every + - * /
// and call 1), constants free: an estimate of what lowering it costs.
size_t tree_operations(const ex &e) {
  if (GiNaC::is_a<GiNaC::numeric>(e) || GiNaC::is_a<GiNaC::symbol>(e)) return 0;
  size_t ops = GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e) ? e.nops() - 1 : 1;
  for (size_t i = 0; i < e.nops(); ++i) ops += tree_operations(e.op(i));
  return ops;
}

// Whether E turns by other than exact quarter turns: an entry not 0, 1 or -1
// (a URDF's rpy of pi/2 in decimals is general too: cos gives 6e-17).
bool general_turn(const GiNaC::matrix &E) {
  for (unsigned a = 0; a < 3; ++a)
    for (unsigned c = 0; c < 3; ++c)
      if (!(E(a, c).is_zero() || E(a, c).is_equal(1) || E(a, c).is_equal(-1))) return true;
  return false;
}

}  // namespace

void choose_form(ArticulatedTree &tree, size_t nq, size_t rows) {
  size_t terms = 0, entries = 0, turns = 0;  // turns: general fixed turns summed over the entries' paths
  bool planar = true;
  for (const auto &L : tree.links) {
    for (unsigned a = 0; a < 3; ++a)
      for (unsigned c = 0; c < 3; ++c) {
        terms += tree_operations(L.E(a, c));
        planar = planar && (L.E(a, c) - (a == c ? 1 : 0)).is_zero();
        if (a <= c) terms += tree_operations(L.inertia(a, c));
      }
    for (int a = 0; a < 3; ++a) terms += tree_operations(L.r[size_t(a)]) + tree_operations(L.first_moment[size_t(a)]);
    terms += tree_operations(L.offset) + tree_operations(L.mass);
    planar = planar && L.axis == tree.links[0].axis;
    // M's lower triangle: a turning link's row has an entry per turning ancestor and seven per free one, each past
    // the general turns between the two links; the free joint's own block, 28.
    if (L.axis < 0) {
      entries += 28;
    } else {
      size_t between = 0;  // from L up to l
      for (int l = int(&L - &tree.links[0]); l >= 0; l = tree.links[size_t(l)].parent) {
        const size_t here = tree.links[size_t(l)].axis < 0 ? 7 : 1;
        entries += here;
        turns += here * between;
        between += general_turn(tree.links[size_t(l)].E);
      }
    }
  }
  for (const ex &e : tree.tau) terms += tree_operations(e);
  for (const ex &e : tree.gravity) terms += tree_operations(e);
  const size_t per_entry = planar ? ArticulatedTree::kOpsPerEntryPlanar : ArticulatedTree::kOpsPerEntry;
  tree.recursion_ops = tree.ops_per_link() * tree.cost_in_links() + terms;
  tree.dense_ops = per_entry * entries + ArticulatedTree::kOpsPerTurn * turns + nq * nq * nq / 6 + 2 * nq * nq;
  // The rows on top: a solve pass each and S = J Y against Y = L^-1 J^T and S = Y^T Y; both then S's factor,
  // r - J a0 and a0 + Y nu (counted on neither side).
  tree.recursion_ops += rows * (tree.solve_ops_per_link() * tree.cost_in_links() + rows * nq);
  tree.dense_ops += rows * (nq * nq / 2 + rows * nq / 2);
  tree.chosen = tree.recursion_ops < tree.dense_ops;
  tree.reason = "about " + std::to_string(tree.recursion_ops) + " operations in the articulated-body recursion" +
                (tree.planar_axis() ? " in the plane" : "") + " (its cost per link by time, and its table's) against "
                "about " + std::to_string(tree.dense_ops) +
                " for M, f and their solve (estimated from the tree: " + std::to_string(per_entry) + " per entry of "
                "M's lower triangle, " + std::to_string(entries) + " of them" + (planar ? ", its joints' axes all one" : "") +
                (turns ? ", " + std::to_string(ArticulatedTree::kOpsPerTurn) + " per general fixed turn between an "
                         "entry's two links, " + std::to_string(turns) + " such" : std::string()) +
                ", and n^3/6 + 2 n^2 for the factor and the solve)" +
                (rows ? "; with its " + std::to_string(rows) + " constraint row" + (rows > 1 ? "s" : "") +
                            " solved on top of either: a solve pass of the recursion per row (" +
                            std::to_string(tree.solve_ops_per_link()) + " per link) and m^2 n for S, "
                            "against m n^2/2 + m^2 n/2 for L^-1 J^T and S"
                      : std::string());
}

std::optional<int> ArticulatedTree::planar_axis() const {
  if (links.empty() || links[0].axis < 0) return std::nullopt;
  const unsigned axis = unsigned(links[0].axis);
  for (const auto &L : links) {
    if (L.axis != int(axis)) return std::nullopt;
    for (unsigned a = 0; a < 3; ++a)
      if (!(L.E(a, axis) - (a == axis ? 1 : 0)).expand().is_zero()) return std::nullopt;
  }
  return int(axis);
}

void choose_recursion_by_count(ArticulatedTree &tree, const RecursionByCount &count) {
  tree.chosen = true;
  tree.reason = "counted exactly, M, f and their solve take " + std::to_string(count.dense_ops) + " operations, more "
                "than " + std::to_string(ArticulatedTree::kRecountFactor) + " times the recursion's estimated " +
                std::to_string(tree.recursion_ops) + ", though the estimate from the tree chose them (" + tree.reason +
                ")";
}

bool ArticulatedTree::couples(size_t i, size_t j) const {
  auto link_of = [&](size_t q) {
    for (size_t l = 0; l < links.size(); ++l) {
      const Link &L = links[l];
      if (L.axis < 0 ? std::find(L.free.begin(), L.free.end(), q) != L.free.end() : L.coordinate == q) return int(l);
    }
    return -1;
  };
  const int a = link_of(i), b = link_of(j);
  if (a < 0 || b < 0) return i == j;
  for (int l = a; l >= 0; l = links[size_t(l)].parent)
    if (l == b) return true;
  for (int l = b; l >= 0; l = links[size_t(l)].parent)
    if (l == a) return true;
  return false;
}

std::optional<size_t> free_norm_row(const Model &m) {
  const ArticulatedTree::Link *free = nullptr;
  for (auto &L : m.articulated.links)
    if (L.axis < 0) free = &L;
  if (!free) return std::nullopt;
  ex norm = -1;
  for (size_t k = 3; k < 7; ++k) norm += GiNaC::pow(m.symbols.q[free->free[k]], 2);
  for (size_t c = 0; c < m.nh; ++c)
    if ((m.phi[c] - norm).expand().is_zero()) return c;
  return std::nullopt;
}

bool only_free_norm_row(const Model &m) { return m.nh == 1 && m.nn == 0 && m.mu.empty() && free_norm_row(m) == 0; }

std::string rows_refused_on_recursion(const Model &m) {
  if (m.formulation == Formulation::vakonomic)
    return "its constraints are vakonomic: the multipliers are states whose terms in Lagrange's equations (mu times "
           "the derivatives of the rows) the recursion's joint forces do not carry";
  if (m.ncontact) return "it has one-sided contacts, whose rows the runtime switches on and off in its own KKT solve";
  if (!m.friction.empty()) return "it has friction, whose sticking rows the runtime switches on and off in its own KKT solve";
  return "";
}

std::vector<size_t> rows_on_top(const Model &m) {
  const std::optional<size_t> norm = free_norm_row(m);
  std::vector<size_t> rows;
  for (size_t c = 0; c < m.nc(); ++c)
    if (c != norm && std::find(m.redundant.begin(), m.redundant.end(), c) == m.redundant.end()) rows.push_back(c);
  return rows;
}

ArticulatedTree articulated_tree(const FrameTree &frames, const SymbolTable &s, const std::vector<BodyEnergy> &bodies,
                                 const std::vector<ex> &tau) {
  if (bodies.empty()) {
    ArticulatedTree none;
    none.absent = "no bodies";
    return none;
  }
  return TreeReader(frames, s).read(bodies, tau);
}

}  // namespace lgc
