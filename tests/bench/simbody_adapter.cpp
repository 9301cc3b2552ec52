/*
** simbody_adapter.cpp — bench_call for Simbody 3.7: forward dynamics of the
** chain of pin joints described in $BENCH_SIMBODY (written by
** articulated_bench.py from spatial_arm.py's or rod_chain.py's `simbody`),
** at the state that file gives.
**
** One call sets q and u (which invalidates every stage from Position on) and
** realizes the state to Stage::Acceleration: kinematics, velocities, the
** gravity forces and the articulated-body recursion for q'', what MuJoCo's
** mj_forward does from qpos and qvel.
**
** The file, one item a line, numbers in C's notation:
**   gravity GX GY GZ
**   pin AXIS PX PY PZ M CX CY CZ IXX IYY IZZ IXY IXZ IYZ Q U
** for each body in order, each the child of the one before (the first of
** Ground): AXIS z or y, the joint's axis in both frames; P the joint in the
** parent's frame; M the mass, C its centre and I its inertia about C, in the
** body's frame; Q and U the joint's angle and rate.
**
** Link with bench_rhs.c (compiled as C) and `pkg-config --libs simbody`;
**   simbody_bench qdd   prints q'' at the state, one a line, for the check
** against lagrangec's rhs (simbody_main below replaces bench_rhs's main then:
** built with -DSIMBODY_QDD).
*/
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <Simbody.h>

extern "C" {
#include "bench_call.h"
}

using namespace SimTK;

namespace {

struct Pin {
    char axis;
    Vec3 joint, centre;
    Real mass, ixx, iyy, izz, ixy, ixz, iyz, q, u;
};

struct Model {
    MultibodySystem system;
    SimbodyMatterSubsystem matter{system};
    GeneralForceSubsystem forces{system};
    State state;
    Vector q, u;
};

Model *model;

[[noreturn]] void fail(const std::string &path, int line, const std::string &why)
{
    std::fprintf(stderr, "simbody_adapter: %s:%d: %s\n", path.c_str(), line, why.c_str());
    std::exit(2);
}

void build(const std::string &path)
{
    std::ifstream in(path);
    if (!in) fail(path, 0, "cannot open");
    Vec3 gravity(0);
    bool has_gravity = false;
    std::vector<Pin> pins;
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        std::istringstream s(text);
        std::string word;
        if (!(s >> word)) continue;
        if (word == "gravity") {
            if (!(s >> gravity[0] >> gravity[1] >> gravity[2])) fail(path, line, "gravity wants GX GY GZ");
            has_gravity = true;
        } else if (word == "pin") {
            Pin p;
            std::string axis;
            if (!(s >> axis >> p.joint[0] >> p.joint[1] >> p.joint[2] >> p.mass >> p.centre[0] >> p.centre[1]
                    >> p.centre[2] >> p.ixx >> p.iyy >> p.izz >> p.ixy >> p.ixz >> p.iyz >> p.q >> p.u)
                || (axis != "z" && axis != "y"))
                fail(path, line, "pin wants AXIS(z|y) PX PY PZ M CX CY CZ IXX IYY IZZ IXY IXZ IYZ Q U");
            p.axis = axis[0];
            pins.push_back(p);
        } else {
            fail(path, line, "expected gravity or pin, got '" + word + "'");
        }
    }
    if (!has_gravity || pins.empty()) fail(path, 0, "wants a gravity line and at least one pin");

    model = new Model;
    Force::UniformGravity(model->forces, model->matter, gravity);
    /* A pin turns about its frames' common z; about y, both frames are the
       body's turned by -pi/2 about x, whose z is the body's y. */
    const Rotation about_y(-Pi / 2, XAxis);
    MobilizedBody parent = model->matter.Ground();
    for (const Pin &p : pins) {
        const Inertia about_centre(Vec3(p.ixx, p.iyy, p.izz), Vec3(p.ixy, p.ixz, p.iyz));
        const Body::Rigid body(MassProperties(p.mass, p.centre, about_centre.shiftFromMassCenter(p.centre, p.mass)));
        const Rotation turn = p.axis == 'z' ? Rotation() : about_y;
        parent = MobilizedBody::Pin(parent, Transform(turn, p.joint), body, Transform(turn, Vec3(0)));
    }
    model->state = model->system.realizeTopology();
    const int n = static_cast<int>(pins.size());
    if (model->state.getNQ() != n || model->state.getNU() != n) fail(path, 0, "the system's q and u are not one per pin");
    model->q.resize(n);
    model->u.resize(n);
    for (int i = 0; i < n; ++i) {
        model->q[i] = pins[i].q;
        model->u[i] = pins[i].u;
    }
}

} // namespace

extern "C" void bench_setup(void)
{
    const char *path = std::getenv("BENCH_SIMBODY");
    if (!path) {
        std::fprintf(stderr, "simbody_adapter: set BENCH_SIMBODY to the model's description\n");
        std::exit(2);
    }
    build(path);
}

/* realize() throws on failure; it has no status, as mj_forward has none. */
extern "C" int bench_call(void)
{
    model->state.updQ() = model->q;
    model->state.updU() = model->u;
    model->system.realize(model->state, Stage::Acceleration);
    return 0;
}

extern "C" double bench_result(void)
{
    const Vector &udot = model->state.getUDot();
    return udot[udot.size() - 1];
}

#ifdef SIMBODY_QDD
int main(int argc, char **argv)
{
    if (argc != 2 || std::string(argv[1]) != "qdd") {
        std::fprintf(stderr, "usage: simbody_qdd qdd\n");
        return 2;
    }
    bench_setup();
    bench_call();
    /* Pin joints: q' = u, so q'' = u'. */
    const Vector &udot = model->state.getUDot();
    for (int i = 0; i < udot.size(); ++i) std::printf("%.17g\n", udot[i]);
    return 0;
}
#endif
