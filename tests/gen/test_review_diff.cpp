// test_review_diff.cpp — an edit of a spec changes the generated C only in
// the sections it touches: temporaries are named after a call's symbol
// (cos_psi), a symbol plus a number after the symbol (zH_plus), any other
// after the output entry that first needs it and a count within it
// (M_18_3), never by a count through the whole function, so a review's diff
// shows what changed.
#include "generate.h"

#include <map>
#include <set>
#include <regex>
#include <sstream>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace {

std::string generated_source(const std::string &name, const std::string &text) {
  return lgc::generate(lgc::read_spec_text(name + ".toml", text)).source;
}

// The lines of `a` and `b` that the other does not have (as multisets).
std::vector<std::string> changed_lines(const std::string &a, const std::string &b) {
  std::map<std::string, int> count;
  std::istringstream sa(a), sb(b);
  for (std::string line; std::getline(sa, line);) ++count[line];
  for (std::string line; std::getline(sb, line);) --count[line];
  std::vector<std::string> changed;
  for (auto &[line, n] : count)
    for (int i = 0; i < std::abs(n); ++i) changed.push_back(line);
  return changed;
}

// The changed lines that belong to one of `sections` (its temporaries,
// SECTION_ENTRY_COUNT, or an assignment into out_SECTION).
std::vector<std::string> lines_in_sections(const std::vector<std::string> &changed,
                                           const std::vector<std::string> &sections) {
  std::vector<std::string> hits;
  for (const std::string &section : sections) {
    std::regex mark("\\b" + section + "_[0-9]+_[0-9]+\\b|\\bout_" + section + "\\[");
    for (const std::string &line : changed)
      if (std::regex_search(line, mark)) hits.push_back(line);
  }
  return hits;
}

void assert_untouched(const std::vector<std::string> &changed, const std::vector<std::string> &sections) {
  std::vector<std::string> hits = lines_in_sections(changed, sections);
  for (const std::string &line : hits) print_message("changed in an untouched section: %s\n", line.c_str());
  assert_int_equal(hits.size(), 0);
}

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  assert_true(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// A spring on the rocker: V gains a term, so f = Q - k and the energy
// change; M, J and the stabilised rows do not.
void a_new_potential_changes_neither_m_nor_the_constraints(void **) {
  const std::string text = slurp(SPECS_DIR "/four_bar.toml");
  std::string with_spring = replaced(text, "\n[parameters]\n", "potential = \"5*th4^2\"\n\n[parameters]\n");
  std::vector<std::string> changed = changed_lines(generated_source("four_bar", text),
                                                   generated_source("four_bar", with_spring));
  print_message("four_bar with a spring: %zu lines changed\n", changed.size());
  assert_true(!changed.empty());
  assert_untouched(changed, {"M", "J", "r", "C", "D", "phi", "phi_dot"});
}

// The names a source defines in `sections`: their temporaries.
std::multiset<std::string> temporaries_of(const std::string &source, const std::vector<std::string> &sections) {
  std::multiset<std::string> names;
  for (const std::string &section : sections) {
    std::regex definition("const \\w+ (" + section + "_[0-9]+_[0-9]+) = ");
    for (std::sregex_iterator it(source.begin(), source.end(), definition), end; it != end; ++it)
      names.insert((*it)[1].str());
  }
  return names;
}

// The bicycle's front frame's centre of mass moved along its own axis H.z
// (the front wheel's centre is on its axle and the rear frame does not
// turn with H): zH*H.z becomes (zH + 0.01)*H.z. M, f and the Jacobian's
// blocks change, and nothing else does: every changed line is one that
// reads zH, now zH_plus = zH + 0.01 (or names the place of that value in
// the values the Jacobian reads from the rhs, BICYCLE_TERM_zH_plus), and
// the constraint rows, which do not see that centre, rename none of their
// temporaries.
void a_moved_centre_of_mass_changes_only_the_lines_that_read_it(void **) {
  const std::string text = slurp(SPECS_DIR "/bicycle.toml");
  std::string moved = replaced(text, "+ zH*H.z\"", "+ zH*H.z + 0.01*H.z\"");
  const std::string before = generated_source("bicycle", text), after = generated_source("bicycle", moved);
  std::vector<std::string> changed = changed_lines(before, after);
  const std::vector<std::string> rows = {"J", "r", "C", "D", "phi", "phi_dot", "g"};
  size_t reading_zH = 0;
  std::regex zH("(\\b|_TERM_)zH(_plus)?\\b");
  for (const std::string &line : changed) reading_zH += std::regex_search(line, zH);
  print_message("bicycle with Ho moved by 0.01*H.z: %zu lines changed, %zu of them reading zH, %zu in the constraint rows\n",
                changed.size(), reading_zH, lines_in_sections(changed, rows).size());
  for (const std::string &line : changed)
    if (!std::regex_search(line, zH)) print_message("changed without reading zH: %s\n", line.c_str());
  assert_true(!changed.empty());
  assert_int_equal(reading_zH, changed.size());
  assert_in_range(changed.size(), 1, 299);  // issue 30's bound on this edit's diff
  std::multiset<std::string> old_names = temporaries_of(before, rows), new_names = temporaries_of(after, rows);
  assert_true(!old_names.empty());
  for (auto &name : old_names)
    if (!new_names.count(name)) print_message("gone: %s\n", name.c_str());
  for (auto &name : new_names)
    if (!old_names.count(name)) print_message("new: %s\n", name.c_str());
  assert_true(old_names == new_names);
}

// The same spec generated twice is the same text, byte for byte.
void generation_is_deterministic(void **) {
  const std::string text = slurp(SPECS_DIR "/bicycle.toml");
  const std::string first = generated_source("bicycle", text), second = generated_source("bicycle", text);
  std::vector<std::string> changed = changed_lines(first, second);
  print_message("bicycle generated twice: %zu lines differ\n", changed.size());
  assert_true(first == second);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_new_potential_changes_neither_m_nor_the_constraints),
      cmocka_unit_test(a_moved_centre_of_mass_changes_only_the_lines_that_read_it),
      cmocka_unit_test(generation_is_deterministic),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
