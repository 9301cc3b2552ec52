// urdf_reader.cpp — a URDF read into the spec's own declarations: each link a
// frame, a point at its origin and, where it has mass, a body; each joint its
// coordinates, effort input, limit parameters and <mimic> row. Every text
// points at the element it comes from. urdfdom is the parser that must accept
// the file and gives the tree (links, joints, types); TinyXML, which urdfdom
// parses with, gives the positions urdfdom drops, so the checks that report a
// position run on it first, and the numbers are read from it as written (an
// rpy through urdfdom's quaternion comes back off by up to 1e-8 near pitch
// ±pi/2).
#include "source/source.h"

#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace lgc {

namespace {

using Triple = std::array<double, 3>;

// urdfdom reports through console_bridge; its last error becomes the
// message when it refuses a file the checks here passed.
class LastError : public console_bridge::OutputHandler {
 public:
  std::string message;
  void log(const std::string &text, console_bridge::LogLevel level, const char *, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) message = text;
  }
};

// The shortest text that reads back as v: "0.1", not "0.10000000000000001",
// which the expression reader would take exactly.
std::string number_text(double v) {
  for (int digits = 1;; ++digits) {
    std::ostringstream s;
    s.precision(digits);
    s << v;
    if (digits == 17 || std::strtod(s.str().c_str(), nullptr) == v) return s.str();
  }
}

bool is_zero(const Triple &v) { return v[0] == 0 && v[1] == 0 && v[2] == 0; }

// R_z(yaw) R_y(pitch) R_x(roll) v: URDF's fixed-axis roll, pitch, yaw.
Triple rotated(const Triple &rpy, Triple v) {
  auto turn = [&v](int axis, double angle) {
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    double c = std::cos(angle), s = std::sin(angle), vi = v[i], vj = v[j];
    v[i] = c * vi - s * vj;
    v[j] = s * vi + c * vj;
  };
  turn(0, rpy[0]);
  turn(1, rpy[1]);
  turn(2, rpy[2]);
  return v;
}

// More links and joints than any robot description lagrangec can derive in
// its time limit: refused as the file is read.
constexpr size_t kMaxElements = 2000;

class UrdfReader {
 public:
  UrdfReader(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {}

  UrdfModel read() {
    parse_xml();
    check_tree();
    parse_urdfdom();
    UrdfModel out;
    out.path = path_;
    out.source = text_;
    out.robot = sanitised(robot_->Attribute("name") ? robot_->Attribute("name") : "robot", "robot_");
    if (robot_->Attribute("name")) renamed(robot_->Attribute("name"), out.robot, "robot", out);
    out.loc = at(robot_);
    out.gravity = text_at("-9.81*N.z", out.loc);
    for (const TiXmlElement *l : link_elements_) map_link(l, out);
    for (const TiXmlElement *j : joint_elements_) map_joint(j, out);
    for (const TiXmlElement *l : link_elements_) renamed(l->Attribute("name"), frame_name(l->Attribute("name")), "link", out);
    for (const TiXmlElement *j : joint_elements_)
      renamed(j->Attribute("name"), sanitised(j->Attribute("name"), "joint_"), "joint", out);
    warn_unmapped();
    return out;
  }

 private:
  std::string path_, text_;
  TiXmlDocument doc_;
  const TiXmlElement *robot_ = nullptr;
  std::vector<const TiXmlElement *> link_elements_, joint_elements_;
  std::map<std::string, const TiXmlElement *> links_, joints_;
  std::map<std::string, const TiXmlElement *> parent_joint_;  // by child link
  urdf::ModelInterfaceSharedPtr model_;

  SourceLoc at(const TiXmlBase *e) const { return {path_, e->Row(), e->Column()}; }
  // Where `attr` of `e` is written; e's position if it is absent.
  SourceLoc at(const TiXmlElement *e, const char *attr) const {
    for (const TiXmlAttribute *a = e->FirstAttribute(); a; a = a->Next())
      if (std::strcmp(a->Name(), attr) == 0) return at(a);
    return at(e);
  }

  static SourceText text_at(std::string text, const SourceLoc &loc) {
    SourceText s{std::move(text), {}};
    s.locs.assign(s.text.size() + 1, loc);
    return s;
  }

  // A URDF name as an identifier: each character outside [A-Za-z0-9_]
  // becomes '_', and a name that would start with a digit or '_' gets
  // `prefix` ("joint_", "link_"); the reader's checks refuse the rest
  // (a C keyword, a name the generated C uses) at the element.
  static std::string sanitised(const std::string &name, const char *prefix) {
    std::string s;
    for (unsigned char c : name) s += std::isalnum(c) || c == '_' ? char(c) : '_';
    if (s.empty() || std::isdigit((unsigned char)s[0]) || s[0] == '_') s = prefix + s;
    return s;
  }

  const char *required_attribute(const TiXmlElement *e, const char *attr, const char *what) const {
    const char *v = e->Attribute(attr);
    if (!v || !*v) error_at(at(e), std::string("<") + e->Value() + "> has no '" + attr + "' (" + what + ")");
    return v;
  }

  // `count` finite numbers separated by white space, the attribute `attr`
  // of `e`; `fallback` when it is absent.
  std::vector<double> numbers(const TiXmlElement *e, const char *attr, size_t count,
                              std::vector<double> fallback) const {
    const char *text = e ? e->Attribute(attr) : nullptr;
    if (!text) return fallback;
    std::vector<double> out;
    const char *p = text;
    while (true) {
      while (std::isspace((unsigned char)*p)) ++p;
      if (!*p) break;
      char *end;
      double v = std::strtod(p, &end);
      if (end == p || !(std::isspace((unsigned char)*end) || !*end) || !std::isfinite(v))
        error_at(at(e, attr), std::string("'") + attr + "' of <" + e->Value() + "> is \"" + text + "\": expected " +
                            std::to_string(count) + (count == 1 ? " finite number" : " finite numbers"));
      out.push_back(v);
      p = end;
    }
    if (out.size() != count)
      error_at(at(e, attr), std::string("'") + attr + "' of <" + e->Value() + "> has " + std::to_string(out.size()) +
                          (out.size() == 1 ? " number" : " numbers") + ", not " + std::to_string(count));
    return out;
  }
  double number(const TiXmlElement *e, const char *attr, double fallback) const {
    return numbers(e, attr, 1, {fallback})[0];
  }
  Triple triple(const TiXmlElement *e, const char *attr, Triple fallback = {0, 0, 0}) const {
    auto v = numbers(e, attr, 3, {fallback[0], fallback[1], fallback[2]});
    return {v[0], v[1], v[2]};
  }

  void parse_xml() {
    doc_.SetTabSize(1);  // columns in characters, as the caret counts them
    doc_.Parse(text_.c_str(), nullptr, TIXML_ENCODING_UTF8);
    if (doc_.Error())
      error_at({path_, std::max(doc_.ErrorRow(), 1), std::max(doc_.ErrorCol(), 1)},
               std::string("invalid XML: ") + doc_.ErrorDesc());
    robot_ = doc_.RootElement();
    if (!robot_ || std::strcmp(robot_->Value(), "robot") != 0)
      error_at(robot_ ? at(robot_) : SourceLoc{path_, 1, 1}, "a URDF's root element is <robot>");
    for (const TiXmlElement *e = robot_->FirstChildElement(); e; e = e->NextSiblingElement()) {
      bool link = std::strcmp(e->Value(), "link") == 0;
      if (!link && std::strcmp(e->Value(), "joint") != 0) continue;
      std::string name = required_attribute(e, "name", link ? "the link's name" : "the joint's name");
      auto &seen = link ? links_ : joints_;
      if (!seen.emplace(name, e).second)
        error_at(at(e), std::string(link ? "a link" : "a joint") + " named '" + name + "' is declared twice");
      (link ? link_elements_ : joint_elements_).push_back(e);
      if (link_elements_.size() + joint_elements_.size() > kMaxElements)
        error_at(at(e), "the URDF has more than " + std::to_string(kMaxElements) +
                            " links and joints: lagrangec's equations grow like the square of a tree's size or "
                            "faster (the 29-joint humanoid g1.urdf makes 14 MB of C), so a tree this large is "
                            "refused here rather than after minutes of derivation");
    }
    if (link_elements_.empty()) error_at(at(robot_), "the URDF has no <link>");
  }

  const TiXmlElement *child(const TiXmlElement *e, const char *name) const { return e->FirstChildElement(name); }

  // The link a joint's <parent> or <child> names, checked to exist.
  std::string joint_link(const TiXmlElement *joint, const char *which) const {
    const TiXmlElement *e = child(joint, which);
    if (!e) error_at(at(joint), std::string("<joint> has no <") + which + " link=\"...\"/>");
    std::string name = required_attribute(e, "link", "the name of a link");
    if (!links_.count(name)) error_at(at(e, "link"), "no link named '" + name + "' (the " + which + " of joint '" +
                                                  joint->Attribute("name") + "')");
    return name;
  }

  // Every check that has a position: joint types, parents and children,
  // one parent per link, no loop, one root, the numbers.
  void check_tree() {
    static const std::set<std::string> kTypes = {"revolute", "continuous", "prismatic", "fixed", "floating", "planar"};
    for (const TiXmlElement *j : joint_elements_) {
      std::string type = required_attribute(j, "type", "revolute, continuous, prismatic, fixed, floating or planar");
      if (!kTypes.count(type))
        error_at(at(j, "type"), "joint type '" + type + "' is not one of revolute, continuous, prismatic, fixed, floating, "
                        "planar");
      std::string parent = joint_link(j, "parent"), link = joint_link(j, "child");
      if (parent == link) error_at(at(j), "joint '" + std::string(j->Attribute("name")) + "' joins link '" + link +
                                              "' to itself");
      if (!parent_joint_.emplace(link, j).second)
        error_at(at(j), "link '" + link + "' is the child of two joints, '" +
                            parent_joint_.at(link)->Attribute("name") + "' and '" + j->Attribute("name") +
                            "': a URDF is a tree (close a loop with a constraint in a spec that includes it)");
      check_numbers(j);
    }
    // Up from each link until a link known to hang from the root (or to be
    // the root): a loop comes back to the path. Each link is walked once, so
    // a chain of a hundred thousand links is checked at once, not in N^2.
    std::set<std::string> rooted;
    for (auto &[name, joint] : parent_joint_) {
      std::vector<std::string> path = {name};
      std::set<std::string> on_path = {name};
      for (auto p = parent_joint_.find(joint_link(joint, "parent")); p != parent_joint_.end() && !rooted.count(p->first);
           p = parent_joint_.find(joint_link(p->second, "parent"))) {
        if (!on_path.insert(p->first).second)
          error_at(at(p->second), "joint '" + std::string(p->second->Attribute("name")) +
                                      "' closes a loop of links: a URDF is a tree");
        path.push_back(p->first);
      }
      rooted.insert(path.begin(), path.end());
    }
    const TiXmlElement *root = nullptr;
    for (const TiXmlElement *l : link_elements_) {
      if (parent_joint_.count(l->Attribute("name"))) continue;
      if (root)
        error_at(at(l), "link '" + std::string(l->Attribute("name")) + "' has no parent joint, and neither has '" +
                            root->Attribute("name") + "': a URDF is one tree with one root");
      root = l;
    }
    for (const TiXmlElement *l : link_elements_) check_inertial(child(l, "inertial"));
  }

  void check_numbers(const TiXmlElement *j) {
    triple(child(j, "origin"), "xyz");
    triple(child(j, "origin"), "rpy");
    if (is_zero(triple(child(j, "axis"), "xyz", {1, 0, 0})))
      error_at(at(child(j, "axis"), "xyz"), "'xyz' of <axis> is the zero vector: it must give a direction");
    for (const char *attr : {"lower", "upper", "effort", "velocity"}) number(child(j, "limit"), attr, 0);
    for (const char *attr : {"multiplier", "offset"}) number(child(j, "mimic"), attr, 0);
    for (const char *attr : {"damping", "friction"}) number(child(j, "dynamics"), attr, 0);
    if (const TiXmlElement *m = child(j, "mimic")) {
      std::string ref = required_attribute(m, "joint", "the joint it follows");
      if (!joints_.count(ref)) error_at(at(m, "joint"), "no joint named '" + ref + "' for <mimic> to follow");
      const char *type = joints_.at(ref)->Attribute("type");
      static const std::set<std::string> kOneCoordinate = {"revolute", "continuous", "prismatic"};
      if (!type || !kOneCoordinate.count(type))
        error_at(at(m, "joint"), "<mimic> follows joint '" + ref + "', which is " + (type ? type : "of no type") +
                                     ": it may follow a revolute, continuous or prismatic joint");
    }
  }

  void check_inertial(const TiXmlElement *inertial) {
    if (!inertial) return;
    triple(child(inertial, "origin"), "xyz");
    triple(child(inertial, "origin"), "rpy");
    const TiXmlElement *mass = child(inertial, "mass");
    if (!mass) error_at(at(inertial), "<inertial> has no <mass value=\"...\"/>");
    if (number(mass, "value", 0) < 0) error_at(at(mass, "value"), "a mass must be >= 0");
    const TiXmlElement *I = child(inertial, "inertia");
    if (!I) error_at(at(inertial), "<inertial> has no <inertia ixx=... iyy=... izz=.../>");
    for (const char *attr : {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}) number(I, attr, 0);
  }

  void parse_urdfdom() {
    LastError log;
    console_bridge::useOutputHandler(&log);
    try {
      model_ = urdf::parseURDF(text_);
    } catch (const std::exception &e) {  // urdfdom throws on some attributes (a bad version)
      log.message = e.what();
    }
    console_bridge::restorePreviousOutputHandler();
    if (!model_)
      error_at(at(robot_), "urdfdom refuses the file: " + (log.message.empty() ? "no reason given" : log.message));
  }

  static std::string frame_name(const std::string &link) { return sanitised(link, "link_"); }

  // A name the C writes otherwise than the URDF: kept for its comments.
  static void renamed(const std::string &name, const std::string &identifier, const char *kind, UrdfModel &out) {
    if (name != identifier) out.renamed.emplace_back(identifier, std::string(kind) + " '" + name + "'");
  }
  std::string parent_frame(const std::string &link) const {
    return parent_joint_.count(link) ? frame_name(link) : "N";
  }

  // " z(yaw) y(pitch) x(roll)": the intrinsic sequence of URDF's fixed-axis
  // roll, pitch, yaw (R = Rz(yaw) Ry(pitch) Rx(roll)); zero turns left out.
  static std::string rpy_turns(const Triple &rpy) {
    std::string s;
    if (rpy[2] != 0) s += " z(" + number_text(rpy[2]) + ")";
    if (rpy[1] != 0) s += " y(" + number_text(rpy[1]) + ")";
    if (rpy[0] != 0) s += " x(" + number_text(rpy[0]) + ")";
    return s;
  }

  // The turn by `angle` about the unit vector `axis`: a coordinate axis
  // directly, else A z(angle) A^T with A = R_z(phi) R_y(theta) taking z
  // to the axis.
  static std::string axis_turn(const Triple &axis, const std::string &angle) {
    for (int i = 0; i < 3; ++i)
      if (std::fabs(axis[i]) == 1) return std::string(" ") + char('x' + i) + (axis[i] > 0 ? "(" : "(-") + angle + ")";
    double theta = std::atan2(std::hypot(axis[0], axis[1]), axis[2]), phi = std::atan2(axis[1], axis[0]);
    std::string to = (phi != 0 ? " z(" + number_text(phi) + ")" : "") + " y(" + number_text(theta) + ")";
    std::string back = " y(" + number_text(-theta) + ")" + (phi != 0 ? " z(" + number_text(-phi) + ")" : "");
    return to + " z(" + angle + ")" + back;
  }

  // "c*F.x + ..." for components c in frame F, zero terms left out; "" for 0.
  static std::string in_frame(const Triple &c, const std::string &frame) {
    std::string s;
    for (int i = 0; i < 3; ++i)
      if (c[i] != 0) s += (s.empty() ? "" : " + ") + std::string("(") + number_text(c[i]) + ")*" + frame + "." + char('x' + i);
    return s;
  }

  // a + b for vector texts, "" being the zero vector.
  static std::string plus(const std::string &a, const std::string &b) {
    if (a.empty() || b.empty()) return a + b;
    return a + " + " + b;
  }

  // A link: its origin as a point; a body where it has mass and moves.
  void map_link(const TiXmlElement *l, UrdfModel &out) {
    std::string link = l->Attribute("name"), frame = frame_name(link);
    SourceLoc loc = at(l);
    if (!parent_joint_.count(link)) {  // the root: fixed in N
      if (const TiXmlElement *inertial = child(l, "inertial"))
        warn_at(at(inertial), "the <inertial> of the root link '" + link + "' is not read: the root is fixed in N");
      out.frames.push_back({frame, loc, text_at("N", loc)});
      out.points.push_back({frame + "_origin", loc, text_at("0", loc)});
      return;
    }
    const TiXmlElement *inertial = child(l, "inertial");
    if (!inertial) return;
    const TiXmlElement *origin = child(inertial, "origin"), *I = child(inertial, "inertia");
    double mass = number(child(inertial, "mass"), "value", 0);
    std::array<double, 6> i;  // ixx ixy ixz iyy iyz izz
    int k = 0;
    for (const char *attr : {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}) i[k++] = number(I, attr, 0);
    if (mass == 0 && i == std::array<double, 6>{}) return;
    BodySpec b;
    b.name = frame;
    b.loc = at(inertial);
    b.mass = text_at(number_text(mass), b.loc);
    b.frame = {frame, b.loc};
    b.centre = text_at(plus(frame + "_origin", in_frame(triple(origin, "xyz"), frame)), b.loc);
    std::array<double, 9> tensor = {i[0], i[1], i[2], i[1], i[3], i[4], i[2], i[4], i[5]};
    bool diagonal = i[1] == 0 && i[2] == 0 && i[4] == 0;
    for (int e = 0; e < 9; ++e)
      if (!diagonal || e % 4 == 0) b.inertia.push_back(text_at(number_text(tensor[e]), at(I)));
    Triple rpy = triple(origin, "rpy");
    if (!is_zero(rpy)) {
      out.frames.push_back({frame + "_inertia", b.loc, text_at(frame + rpy_turns(rpy), at(origin))});
      b.inertia_frame = NameRef{frame + "_inertia", b.loc};
    }
    out.bodies.push_back(std::move(b));
  }

  // A joint: its child link's frame and origin, its coordinates, and what
  // acts on them.
  void map_joint(const TiXmlElement *j, UrdfModel &out) {
    const urdf::JointConstSharedPtr joint = model_->getJoint(j->Attribute("name"));
    if (!joint) unreachable("urdfdom lost a joint the checks saw");
    std::string q = sanitised(joint->name, "joint_");
    std::string parent = parent_frame(joint->parent_link_name), frame = frame_name(joint->child_link_name);
    SourceLoc loc = at(j);
    const TiXmlElement *origin = child(j, "origin");
    Triple xyz = triple(origin, "xyz"), rpy = triple(origin, "rpy"), axis = triple(child(j, "axis"), "xyz", {1, 0, 0});
    double norm = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (double &a : axis) a /= norm;
    std::string turns = parent + rpy_turns(rpy);
    std::string origin_point = plus(parent == "N" ? "" : parent + "_origin", in_frame(xyz, parent));
    auto coordinate = [&](const std::string &name) { out.coordinates.push_back({name, 0, loc}); };
    switch (joint->type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
        coordinate(q);
        turns += axis_turn(axis, q);
        break;
      case urdf::Joint::PRISMATIC:
        coordinate(q);
        origin_point = plus(origin_point, q + "*(" + in_frame(axis, frame) + ")");
        break;
      case urdf::Joint::PLANAR: {  // in the plane normal to the axis
        Triple u = axis[2] == 1 || axis[2] == -1 ? Triple{1, 0, 0} : Triple{-axis[1], axis[0], 0};
        double un = std::hypot(u[0], u[1]);
        u = {u[0] / un, u[1] / un, 0};
        Triple v = {axis[1] * u[2] - axis[2] * u[1], axis[2] * u[0] - axis[0] * u[2], axis[0] * u[1] - axis[1] * u[0]};
        for (auto [name, direction] : {std::pair{q + "_x", u}, std::pair{q + "_y", v}}) {
          coordinate(name);
          origin_point = plus(origin_point, name + "*(" + in_frame(rotated(rpy, direction), parent) + ")");
        }
        coordinate(q + "_angle");
        turns += axis_turn(axis, q + "_angle");
        break;
      }
      case urdf::Joint::FLOATING:  // a unit quaternion, starting at the identity: no singular configuration
        for (int i = 0; i < 3; ++i) {
          Triple e = {0, 0, 0};
          e[i] = 1;
          std::string name = q + "_" + char('x' + i);
          coordinate(name);
          origin_point = plus(origin_point, name + "*(" + in_frame(rotated(rpy, e), parent) + ")");
        }
        for (const char *part : {"_qw", "_qx", "_qy", "_qz"}) coordinate(q + part);
        out.initial.resize(out.coordinates.size());
        out.initial[out.coordinates.size() - 4] = text_at("1", loc);
        turns += " quaternion(" + q + "_qw, " + q + "_qx, " + q + "_qy, " + q + "_qz)";
        break;
      case urdf::Joint::FIXED:
        break;
      default:
        unreachable("a joint type the checks passed");
    }
    out.frames.push_back({frame, loc, text_at(turns, loc)});
    out.points.push_back({frame + "_origin", loc, text_at(origin_point.empty() ? "0" : origin_point, loc)});
    bool one_coordinate = joint->type == urdf::Joint::REVOLUTE || joint->type == urdf::Joint::CONTINUOUS ||
                          joint->type == urdf::Joint::PRISMATIC;
    out.forces.resize(out.coordinates.size());
    out.initial.resize(out.coordinates.size());
    if (!one_coordinate) {
      if (const TiXmlElement *mimic = child(j, "mimic"))
        warn_at(at(mimic), "<mimic> of the " + std::string(j->Attribute("type")) + " joint '" + joint->name +
                               "' is not mapped: only a revolute, continuous or prismatic joint follows another");
      return;
    }
    out.inputs.push_back({q + "_effort", 0, loc});
    std::string force = q + "_effort";
    if (const TiXmlElement *d = child(j, "dynamics")) {
      if (double damping = number(d, "damping", 0)) force += " - (" + number_text(damping) + ")*" + q + "'";
      if (number(d, "friction", 0) != 0)
        warn_at(at(d), "the friction of joint '" + joint->name + "' is not mapped (its damping is)");
    }
    out.forces.back() = text_at(force, loc);
    if (const TiXmlElement *limit = child(j, "limit"); limit && joint->type != urdf::Joint::CONTINUOUS)
      for (const char *bound : {"lower", "upper"})
        out.parameters.push_back({q + "_" + bound, number(limit, bound, 0), at(limit)});
    if (const TiXmlElement *mimic = child(j, "mimic")) {
      std::string ref = sanitised(mimic->Attribute("joint"), "joint_");
      out.holonomic.push_back(text_at(q + " - ((" + number_text(number(mimic, "multiplier", 1)) + ")*" + ref + " + (" +
                                          number_text(number(mimic, "offset", 0)) + "))",
                                      at(mimic)));
    }
  }

  // Every element not read gets a warning at its position: geometry
  // (<visual>, <collision>, <material>) one per kind, at the first.
  void warn_unmapped() {
    static const std::map<std::string, std::set<std::string>> kMapped = {
        {"robot", {"link", "joint"}},
        {"link", {"inertial"}},
        {"inertial", {"origin", "mass", "inertia"}},
        {"joint", {"origin", "parent", "child", "axis", "limit", "mimic", "dynamics"}}};
    static const std::set<std::string> kGeometry = {"visual", "collision", "material"};
    std::map<std::string, std::pair<int, SourceLoc>> geometry;
    std::function<void(const TiXmlElement *)> walk = [&](const TiXmlElement *e) {
      auto mapped = kMapped.find(e->Value());
      for (const TiXmlElement *c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
        std::string kind = c->Value();
        if (mapped != kMapped.end() && mapped->second.count(kind)) {
          walk(c);
        } else if (kGeometry.count(kind)) {
          auto &[count, first] = geometry.emplace(kind, std::pair{0, at(c)}).first->second;
          (void)first;
          ++count;
        } else if (mapped != kMapped.end()) {
          warn_at(at(c), "<" + kind + "> in <" + e->Value() + "> is not mapped: lagrangec reads links' inertials and "
                         "joints");
        }
      }
    };
    walk(robot_);
    for (auto &[kind, seen] : geometry)
      warn_at(seen.second, std::to_string(seen.first) + " <" + kind + "> element" + (seen.first == 1 ? " is" : "s are") +
                               " not mapped (geometry and appearance are not dynamics); the first is here");
  }
};

}  // namespace

UrdfModel read_urdf(const std::string &path, const SourceLoc &included_at, const std::string &written) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    error_at(included_at, "cannot read the URDF '" + written + "' (a path from the spec's folder): " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return UrdfReader(path, s.str()).read();
}

UrdfModel read_urdf_text(const std::string &path, const std::string &text) { return UrdfReader(path, text).read(); }

}  // namespace lgc
