// stack_estimate.cpp — how much stack a model's generated functions may
// take, estimated without a compiler for the target, so that `generate`
// can warn where a controller's stack would not hold them. All memory the
// generated code works in is the caller's (the work arrays); what lands on
// the stack is what the straight-line blocks hold at once: the state,
// parameters and inputs they load, and the temporaries alive at one time.
// Counting each as a stack slot of the real type is the compiler spilling
// everything, and it keeps more than the schedule's count at once (the
// bicycle's Jacobian: 794 slots for 662 values in float), so a quarter is
// added; the routines around the blocks (the step, the rhs, the solves)
// add frames of a few dozen bytes each. tests/embed/cross_build.py sets the
// estimate beside what arm-none-eabi-gcc -fstack-usage reports, per model,
// and fails where it is below.
#include "plan/plan.h"

#include <algorithm>
#include <functional>

namespace lgc {

namespace {

// The most temporaries a block's schedule holds at once: each lives from
// its statement to the last statement that reads it.
size_t peak_temporaries(const Graph &g, const Schedule &s) {
  std::map<int, size_t> last_read;  // temporary node -> statement
  for (size_t k = 0; k < s.code.size(); ++k) {
    if (s.code[k].kind == Statement::read) continue;  // a load: it reads no temporary
    const int top = s.code[k].node;
    std::function<void(int)> read = [&](int id) {
      if (id != top && s.temps.count(id)) {
        last_read[id] = k;
        return;
      }
      auto r = s.reuse.find(id);
      if (r != s.reuse.end()) {
        read(r->second.base);
        for (auto &term : r->second.rest) read(term.second);
        return;
      }
      for (auto &operand : g.node(id).terms) read(operand.second);
    };
    read(top);
  }
  std::vector<int> change(s.code.size() + 1, 0);  // live count changes at each statement
  for (size_t k = 0; k < s.code.size(); ++k) {
    if (s.code[k].kind == Statement::output) continue;  // temporaries and the shared terms read live
    auto last = last_read.find(s.code[k].node);
    ++change[k];
    --change[(last == last_read.end() ? k : last->second) + 1];
  }
  size_t peak = 0;
  long live = 0;
  for (int c : change) peak = std::max(peak, size_t(live += c));
  return peak;
}

}  // namespace

StackEstimate estimate_stack(const Plan &plan) {
  StackEstimate e;
  const size_t real_size = plan.real.single() ? sizeof(float) : sizeof(double);
  std::vector<const Block *> blocks = {&plan.kkt_entries, &plan.residuals, &plan.energy, &plan.energies, &plan.inverse_dynamics,
                                       &plan.bias, &plan.gravity, &plan.mass_matrix,
                                       &plan.constraint_jacobian, &plan.constraint_coordinate_jacobian,
                                       &plan.initial_state_at};
  if (plan.tree_jacobian)
    for (const Block *b : {&plan.tau_derivatives, &plan.rows_derivatives}) blocks.push_back(b);
  else if (plan.with_jacobian)
    for (const Block *b : {&plan.residual_derivatives, &plan.residual_parameter_derivatives}) blocks.push_back(b);
  if (plan.model.integral == Model::Integral::jacobi) blocks.push_back(&plan.jacobi_integral);
  if (plan.regressor.available())
    for (const Block *b : {&plan.base_regressor, &plan.base_parameters, &plan.standard_regressor, &plan.standard_parameters})
      blocks.push_back(b);
  for (const Block *b : blocks) {
    size_t values = b->loads.size() + peak_temporaries(plan.graph, b->schedule);
    if (values > e.values) {
      e.values = values;
      e.block = b->signature.name;
    }
  }
  if (plan.articulated.chosen) {  // the functions over the tables: their table, tau and link work, then the table's block
    const size_t links = plan.model.articulated.links.size();
    size_t fill = 0;  // the larger of the blocks that fill it, called one after the other
    for (const Block *terms : {&plan.articulated_terms, &plan.articulated_rest})
      fill = std::max(fill, terms->loads.size() + peak_temporaries(plan.graph, terms->schedule));
    size_t values = links * (ArticulatedForm::kTable + ArticulatedForm::kWork) + 3 + 3 * plan.sizes.nq +
                    plan.sizes.nu + 4 + fill;
    if (values > e.values) {
      e.values = values;
      e.block = plan.mass_matrix.signature.name;
    }
  }
  e.bytes = e.values * real_size * 5 / 4 + StackEstimate::kRoutines;
  return e;
}

}  // namespace lgc
