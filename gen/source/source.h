// source.h — stage 1, the source: the spec's TOML read into texts that keep
// their file positions (spec_reader.cpp), and how a mistake in them is
// reported (diagnostic.cpp). Knows no GiNaC.
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace lgc {

// ---- diagnostic.cpp -------------------------------------------------------

struct SourceLoc {
  std::string file;
  int line = 0;  // 1-based; 0 means "the file as a whole"
  int col = 0;   // 1-based, in code points
};

// A mistake in the user's spec: reported as FILE:LINE:COL, exit status 1.
struct SpecError : std::runtime_error {
  SourceLoc loc;
  SpecError(SourceLoc l, const std::string &msg) : std::runtime_error(msg), loc(std::move(l)) {}
};

[[noreturn]] void error_at(const SourceLoc &loc, const std::string &msg);
// Prints "FILE:LINE:COL: error: MSG" and, when the line is known, the source
// line with a caret under the column.
void print_error(const SpecError &e, const std::string &source_text);
void warn_at(const SourceLoc &loc, const std::string &msg);
// For its lifetime, each warning is printed once: a model derived again
// (RecursionByCount) repeats the first derivation's.
class WarningsOnce {
 public:
  WarningsOnce();
  ~WarningsOnce();
  WarningsOnce(const WarningsOnce &) = delete;
  WarningsOnce &operator=(const WarningsOnce &) = delete;

 private:
  std::set<std::string> printed_;
  std::set<std::string> *outer_;
};
// A bug in the generator, not in the spec.
[[noreturn]] void unreachable(const char *what);

// The functions of the expression language, in alphabetical order: no
// declared name may take one. Their meanings are the expression reader's
// (expressions/expr_reader.cpp), which checks that it knows each of them.
extern const std::vector<std::string> kFunctionNames;
bool is_function_name(const std::string &name);

// ---- spec_reader.cpp ------------------------------------------------------

// An expression as written in the spec, with the file position of each byte
// of its decoded text (plus one past the end), so the expression reader can
// point into the TOML file.
struct SourceText {
  std::string text;
  std::vector<SourceLoc> locs;
  SourceLoc loc_of(size_t offset) const { return locs.at(std::min(offset, locs.size() - 1)); }
};

struct NamedValue {
  std::string name;
  double value = 0;
  SourceLoc loc;
};

// A name the spec refers to (a frame, a body), and where it is written.
struct NameRef {
  std::string name;
  SourceLoc loc;
};

// A named expression of [definitions] or [points], or a frame of [frames]
// (its rotation sequence from a parent: "N z(psi) x(phi)").
struct NamedText {
  std::string name;
  SourceLoc loc;
  SourceText text;
};

// [bodies.NAME]: a rigid body; inertia about the centre of mass, in the
// body's frame or in inertia_frame: 3 principal moments, or the 9 entries
// of the tensor by rows.
struct BodySpec {
  std::string name;
  SourceLoc loc;
  SourceText mass, centre;
  NameRef frame;
  std::vector<SourceText> inertia;
  std::optional<NameRef> inertia_frame;
};

// [particles.NAME]: a point mass.
struct ParticleSpec {
  std::string name;
  SourceLoc loc;
  SourceText mass, point;
};

// [rolling.NAME]: the body `body` rolling without slipping on the plane
// through N's origin with normal `normal`; its centre is the body's unless
// given. Its shape: a disk wheel (`axle`, `radius`; the default), a sphere
// (`radius`), an ellipsoid (`semi_axes` along the body frame's axes), or a
// convex body given by its support function (`support`, an expression of
// the direction ux, uy, uz in the body frame's axes, from the centre).
struct WheelSpec {
  enum Shape { disk, sphere, ellipsoid, support };
  std::string name;
  SourceLoc loc;
  NameRef body;
  Shape shape = disk;
  SourceLoc shape_loc;  // of `shape`, or of the table's name when it is not written
  std::optional<SourceText> centre;
  SourceText axle, radius, normal;  // axle: a disk's; radius: a disk's or a sphere's
  std::vector<SourceText> semi_axes;  // an ellipsoid's a, b, c
  SourceText support_function;        // h(ux, uy, uz)
};

// [events.NAME]: where `when` crosses zero in `direction` (rising: from
// below, falling: from above, both), recorded, or ending the run (stop).
struct EventSpec {
  enum Direction { both = 0, rising = 1, falling = -1 };
  std::string name;
  SourceLoc loc;
  SourceText when;
  Direction direction = both;
  bool stop = false;
};

// [friction.NAME]: Coulomb friction at a contact. `slip`: its tangential
// slip velocities (one, planar, or two, spatial), linear in the velocities,
// which become nonholonomic rows while it sticks (or `wheel`: a rolling
// wheel's no-slip rows are); `normal`: the normal
// force, an expression of the state and the multipliers (lambda1..., mu1...);
// `static` and `kinetic`: the coefficients, expressions of the parameters
// (kinetic defaults to static).
struct FrictionSpec {
  std::string name;
  SourceLoc loc;
  std::vector<SourceText> slip;     // written; empty where `wheel` gives them
  std::optional<NameRef> wheel;     // a [rolling] wheel whose no-slip rows are the slip
  SourceText normal, mu_static;
  std::optional<SourceText> mu_kinetic;
};

// An entry of [units] or [descriptions]: NAME = "TEXT", for a coordinate,
// parameter, input or output (what `lagrangec fmu` declares, NAME.md shows).
struct Annotation {
  std::string name;
  SourceLoc loc;  // of the name
  std::string text;
};

struct Spec {
  std::string path;
  std::string source;  // the file's bytes, for reports and error carets
  // The URDF it includes (urdf = "FILE", or the spec is a URDF): its path
  // and bytes, for reports and the program cache's key; "" without one.
  std::string urdf_path, urdf_source;
  // The URDF's names that are not identifiers, as the spec's names write
  // them: (identifier, "joint 'hip-1'"), for the generated C's comments.
  std::vector<std::pair<std::string, std::string>> urdf_renamed;
  std::string name, title;
  std::vector<NamedValue> coordinates;  // value unused
  std::vector<NamedValue> parameters, inputs;
  // T as written; "0", at the first body or particle, when only they give it.
  SourceText kinetic;
  std::optional<SourceText> potential;
  std::vector<std::optional<SourceText>> forces;  // one per coordinate
  std::vector<SourceText> holonomic, nonholonomic;
  // [constraints] contact: one-sided holonomic rows, phi(q, t) >= 0 free;
  // restitution: Newton's coefficient at their impacts, expressions of the
  // parameters: none (0), one for every contact, or one per contact.
  std::vector<SourceText> contacts;
  std::vector<SourceText> restitution;
  std::vector<FrictionSpec> friction;  // [friction.NAME], in the order written
  // The [initial] tables, expressions of the parameters; nullopt where the
  // spec gives no value (it is 0).
  std::vector<std::optional<SourceText>> initial_q, initial_v;  // one per coordinate
  std::vector<std::optional<SourceText>> initial_mu;  // one per nonholonomic constraint (vakonomic)
  double alpha = 0, beta = 0;
  // form = "recursion" or "dense": rhs's form for a tree of bodies, given
  // rather than chosen by counting operations (docs/theory.md §9); "" when
  // not written. form_loc: where it is written.
  std::string form;
  SourceLoc form_loc;
  // Bodies, frames and wheels, in the order written.
  std::vector<NamedText> definitions, points, frames;
  std::optional<SourceText> gravity;  // a vector
  std::vector<BodySpec> bodies;
  std::vector<ParticleSpec> particles;
  std::vector<WheelSpec> wheels;
  std::vector<NamedText> outputs;  // [outputs] NAME = "EXPR", in the order written
  std::vector<EventSpec> events;   // [events.NAME], in the order written
  // [units] and [descriptions], in the order written; each unit a valid one (read_unit).
  std::vector<Annotation> units, descriptions;
  // The entry for `name`, or nullptr.
  const Annotation *unit_of(const std::string &name) const { return find(units, name); }
  const Annotation *description_of(const std::string &name) const { return find(descriptions, name); }
  static const Annotation *find(const std::vector<Annotation> &list, const std::string &name) {
    for (const Annotation &a : list)
      if (a.name == name) return &a;
    return nullptr;
  }
};

// ---- units.cpp ------------------------------------------------------------

// A unit as FMI 2.0's <Unit>: its text, and where every symbol in it is one
// with an SI definition (m, kg, s, rad, N, J, W, Pa, Hz, deg, min, ..., with
// the SI prefixes), its <BaseUnit>: the exponents of kg, m, s, A, K, mol, cd,
// rad and the factor to them.
struct UnitInfo {
  std::string text;
  bool has_base = false;
  double factor = 1;
  std::array<int, 8> exponents{};
};
// Reads a unit in the syntax FMI 2.0 recommends (Modelica's: "N.m", "m/s2",
// "kg.m2", "1/s", "(m/s)/s"); nullopt with `problem` set when it is not one.
std::optional<UnitInfo> read_unit(const std::string &text, std::string &problem);
// The unit of the rate of a quantity in `unit`: "m" -> "m/s", "m/s" -> "m/s2".
std::string unit_per_second(const std::string &unit);

// ---- urdf_reader.cpp ------------------------------------------------------

// A URDF as the declarations a spec would write for it (docs/spec.md, "From
// a URDF"), each at the position of the element it comes from: a frame and
// an origin point (LINK_origin) per link, a body per moving link with mass
// (its inertia's axes the frame LINK_inertia when turned), the joints'
// coordinates with an effort input (JOINT_effort) as their force, their
// limits as parameters (JOINT_lower, JOINT_upper), a holonomic row per
// <mimic>, a floating joint's position and unit quaternion (JOINT_x, _y, _z,
// JOINT_qw, _qx, _qy, _qz), and gravity 9.81 along -N.z (the root link's
// frame is N).
struct UrdfModel {
  std::string path, source;
  std::string robot;  // the robot's name as an identifier
  SourceLoc loc;      // of <robot>
  // Each name sanitised into an identifier: (identifier, "link 'base link'").
  std::vector<std::pair<std::string, std::string>> renamed;
  std::vector<NamedValue> coordinates, parameters, inputs;
  std::vector<NamedText> frames, points;
  std::vector<BodySpec> bodies;
  std::vector<std::optional<SourceText>> forces;   // one per coordinate
  std::vector<std::optional<SourceText>> initial;  // one per coordinate: a floating joint's w is 1
  std::vector<SourceText> holonomic;
  SourceText gravity;
};
// Reads a URDF; `included_at` is where a spec names it, `written` how (for
// a file that cannot be read). Throws SpecError at the element; prints a
// warning for each element it does not map.
UrdfModel read_urdf(const std::string &path, const SourceLoc &included_at, const std::string &written);
UrdfModel read_urdf_text(const std::string &path, const std::string &text);

// Reads and checks a spec file, or a URDF (a path ending in .urdf) as the
// spec that includes it and adds nothing; throws SpecError.
Spec read_spec(const std::string &path);
// Same, from text already in memory (the fuzzer's entry point).
Spec read_spec_text(const std::string &path, const std::string &text);

}  // namespace lgc
