// main.cpp — the lagrangec command line: generate, equations, fmu, simulate, linearize, eval, sweep.
#include "generate.h"
#include "program/fmu.h"
#include "program/limits.h"
#include "program/simulate.h"
#include "lagrangec_config.h"
#include "commands.h"  // simulate's, linearize's, eval's and sweep's options, help and exit statuses

#include <cstring>
#include <sys/stat.h>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

enum Exit { kOk = LGC_EXIT_OK, kSpecError = LGC_EXIT_FAILED, kUsage = LGC_EXIT_USAGE };

const char *kUsageText =
    "usage: lagrangec COMMAND [OPTIONS]\n"
    "\n"
    "Turns a constrained mechanical system, written as energies and constraints\n"
    "in a TOML spec, into specialised C, and runs it.\n"
    "\n"
    "commands:\n"
    "  generate SPEC... -o DIR   write NAME.h, NAME.c, NAME_model.c, NAME.md for each spec\n"
    "  equations SPEC            print the derived equations (Markdown with LaTeX)\n"
    "  fmu SPEC -o NAME.fmu      an FMI 2.0 FMU (Model Exchange and Co-Simulation)\n"
    "  simulate SPEC [OPTIONS]   generate, compile (cached), run and summarise\n"
    "  linearize SPEC --at NAME=VALUE... [OPTIONS]\n"
    "                            the linear model about a point on the constraints,\n"
    "                            in independent coordinates and speeds; its eigenvalues\n"
    "  eval SPEC [--at NAME=VALUE...] [OPTIONS]\n"
    "                            the model at one state: q'', the multipliers, M, the\n"
    "                            bias, T and V, the residuals, the outputs\n"
    "  sweep SPEC --runs RUNS.csv|--samples N --vary NAME=DIST... --out DIR [OPTIONS]\n"
    "                            many runs of one model (a table, or Monte-Carlo), over\n"
    "                            worker processes or the ranks of mpirun\n"
    "  sweep --merge DIR... --out DIR\n"
    "                            the directories of a sweep's shards into one\n"
    "\n"
    "Each takes --formulation dalembert|vakonomic: how nonholonomic constraints\n"
    "enter the equations (default dalembert, the d'Alembert-Lagrange equations).\n"
    "\n"
    "Run 'lagrangec COMMAND --help' for a command's options.\n"
    "Exit status: 0 success, 1 an error in a spec (or a failed run), 2 a usage error.\n";

const char *kGenerateHelp =
    "usage: lagrangec generate SPEC... -o DIR [--formulation dalembert|vakonomic] [--no-jacobian]\n"
    "                          [--real double|float] [--strict] [--time-limit SECONDS]\n"
    "\n"
    "Writes DIR/NAME.h and DIR/NAME.c (standalone C99, <math.h> only),\n"
    "DIR/NAME_model.c (the runtime's descriptor) and DIR/NAME.md (the equations)\n"
    "for each spec, creating DIR if needed. Every spec is read and derived\n"
    "before anything is written; on an error nothing is written, and each\n"
    "file is replaced whole.\n"
    "--no-jacobian leaves out NAME_jacobian (df/dx, df/du) and\n"
    "NAME_parameter_jacobian (dq''/dp), which on large models cost more to\n"
    "generate than the rest.\n"
    "--real float writes every real of NAME.h and NAME.c as float, with float\n"
    "literals and libm's float functions (sinf, sqrtf), for an FPU of single\n"
    "precision; the runtime integrates double models only (the default).\n"
    "--strict refuses redundant constraint rows (rows the others imply on the\n"
    "constraints) instead of warning about them and simulating them.\n"
    "--time-limit stops a spec's generation after SECONDS of CPU time (600 by\n"
    "default) with a message, as 4 GiB of memory and a million operations do.\n";

const char *kEquationsHelp =
    "usage: lagrangec equations SPEC [--formulation dalembert|vakonomic]\n"
    "\n"
    "Prints the equations report: the spec, T and V, M, k, Q, the constraints\n"
    "and their Jacobians, and the stabilised system, in Markdown with LaTeX.\n";

const char *kFmuHelp =
    "usage: lagrangec fmu SPEC -o NAME.fmu [--kind cs|me|both] [--formulation dalembert|vakonomic]\n"
    "                     [--no-jacobian] [--strict] [--time-limit SECONDS]\n"
    "\n"
    "Writes an FMI 2.0 FMU: a zip of modelDescription.xml, binaries/linux64/NAME.so\n"
    "(the generated C and the runtime, compiled as simulate compiles its program,\n"
    "with $CC) and sources/ (the same C, to build it elsewhere). Co-Simulation's\n"
    "fmi2DoStep integrates with the runtime's driver (the parameter solver.method,\n"
    "dopri5 by default, the correction onto the constraints, events, contacts);\n"
    "Model Exchange gives the states q, q' (and the integrals of g), their\n"
    "derivatives from the stabilised rhs, event indicators for the spec's events\n"
    "and contacts, and directional derivatives from the generated Jacobian (not\n"
    "with --no-jacobian, nor with contacts).\n"
    "--kind cs, me or both (the default): the kinds modelDescription.xml declares.\n"
    "The other options are generate's. The file is written whole or not at all.\n";

int usage_error(const std::string &msg, const char *help) {
  std::cerr << "lagrangec: " << msg << "\n\n" << help;
  return kUsage;
}

// Takes "--formulation NAME" out of args; false on a bad or missing NAME.
bool take_formulation(std::vector<std::string> &args, lgc::Formulation &f) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--formulation") continue;
    auto parsed = i + 1 < args.size() ? lgc::parse_formulation(args[i + 1]) : std::nullopt;
    if (!parsed) return false;
    f = *parsed;
    args.erase(args.begin() + long(i), args.begin() + long(i) + 2);
    --i;
  }
  return true;
}

bool is_help(const std::string &a) { return a == "--help" || a == "-h"; }

// A warning when the generated functions may not fit a controller's stack.
void warn_stack(const lgc::Spec &spec, const lgc::StackEstimate &stack, lgc::Precision precision) {
  if (stack.bytes <= lgc::StackEstimate::kBound) return;
  const size_t real_size = precision == lgc::Precision::single_precision ? sizeof(float) : sizeof(double);
  std::string msg = "the generated functions may take about " + std::to_string(stack.bytes) +
                    " bytes of stack, past the bound of " + std::to_string(lgc::StackEstimate::kBound) +
                    " that a controller's task may have (estimated: " + stack.block + " holds " +
                    std::to_string(stack.values) + " values of " + std::to_string(real_size) +
                    " bytes at once, a quarter more for the compiler's own, and the routines around it up to " +
                    std::to_string(lgc::StackEstimate::kRoutines) + ")";
  if (stack.block.size() >= 21 && stack.block.compare(stack.block.size() - 21, 21, "_residual_derivatives") == 0)
    msg += "; without " + spec.name + "_jacobian (--no-jacobian) it is smaller";
  lgc::warn_at({spec.path, 0, 0}, msg);
}

int generate_command(std::vector<std::string> args) {
  lgc::Formulation formulation = lgc::Formulation::dalembert;
  if (!take_formulation(args, formulation))
    return usage_error("--formulation takes dalembert or vakonomic", kGenerateHelp);
  std::vector<std::string> specs;
  std::string dir;
  bool with_jacobian = true, strict = false;
  double time_limit = lgc::kGenerationSeconds;
  lgc::Precision precision = lgc::Precision::double_precision;
  for (size_t i = 0; i < args.size(); ++i) {
    if (is_help(args[i])) return std::cout << kGenerateHelp, kOk;
    if (args[i] == "--no-jacobian") {
      with_jacobian = false;
    } else if (args[i] == "--real") {
      auto parsed = i + 1 < args.size() ? lgc::parse_precision(args[i + 1]) : std::nullopt;
      if (!parsed)
        return usage_error("--real takes double or float" +
                               (i + 1 < args.size() ? ", not '" + args[i + 1] + "'" : std::string(", and nothing followed")),
                           kGenerateHelp);
      precision = *parsed;
      ++i;
    } else if (args[i] == "--strict") {
      strict = true;
    } else if (args[i] == "--time-limit") {
      char *end = nullptr;
      const char *text = i + 1 < args.size() ? args[i + 1].c_str() : "";
      time_limit = std::strtod(text, &end);
      if (!*text || *end || !(time_limit > 0 && time_limit <= 1e6))
        return usage_error("--time-limit takes seconds of CPU time, more than 0 and at most 1e6" +
                               (i + 1 < args.size() ? ", not '" + args[i + 1] + "'" : std::string(", and nothing followed")),
                           kGenerateHelp);
      ++i;
    } else if (args[i] == "-o" || args[i] == "--output") {
      if (i + 1 == args.size()) return usage_error("-o needs a directory", kGenerateHelp);
      dir = args[++i];
    } else if (args[i].rfind("-", 0) == 0 && args[i] != "-") {
      return usage_error("unknown option '" + args[i] + "'", kGenerateHelp);
    } else {
      specs.push_back(args[i]);
    }
  }
  if (specs.empty()) return usage_error("no spec given", kGenerateHelp);
  if (dir.empty()) return usage_error("no output directory given (-o DIR)", kGenerateHelp);
  std::vector<std::pair<lgc::Spec, lgc::GeneratedFiles>> out;
  for (auto &path : specs) {
    lgc::Spec spec = lgc::read_spec(path);
    lgc::GeneratedFiles files = lgc::generate(spec, formulation, with_jacobian, precision, strict, time_limit);
    warn_stack(spec, files.stack, precision);
    out.emplace_back(std::move(spec), std::move(files));
  }
  for (auto &[spec, files] : out) lgc::write_generated(spec, files, dir);
  return kOk;
}

// A value after args[i], or a usage error's message saying it is missing.
std::optional<std::string> value_after(const std::vector<std::string> &args, size_t i) {
  return i + 1 < args.size() ? std::optional<std::string>(args[i + 1]) : std::nullopt;
}

int fmu_command(std::vector<std::string> args) {
  lgc::FmuOptions options;
  options.time_limit = lgc::kGenerationSeconds;
  if (!take_formulation(args, options.formulation))
    return usage_error("--formulation takes dalembert or vakonomic", kFmuHelp);
  std::vector<std::string> specs;
  std::string output;
  for (size_t i = 0; i < args.size(); ++i) {
    if (is_help(args[i])) return std::cout << kFmuHelp, kOk;
    auto value = value_after(args, i);
    auto took = [&](const std::string &what) {
      return what + (value ? ", not '" + *value + "'" : std::string(", and nothing followed"));
    };
    if (args[i] == "--no-jacobian") {
      options.with_jacobian = false;
    } else if (args[i] == "--strict") {
      options.strict = true;
    } else if (args[i] == "--kind") {
      if (value == "cs") options.kinds = lgc::kCoSimulation;
      else if (value == "me") options.kinds = lgc::kModelExchange;
      else if (value == "both") options.kinds = lgc::kBothKinds;
      else return usage_error(took("--kind takes cs, me or both"), kFmuHelp);
      ++i;
    } else if (args[i] == "--time-limit") {
      char *end = nullptr;
      options.time_limit = value ? std::strtod(value->c_str(), &end) : 0;
      if (!value || value->empty() || *end || !(options.time_limit > 0 && options.time_limit <= 1e6))
        return usage_error(took("--time-limit takes seconds of CPU time, more than 0 and at most 1e6"), kFmuHelp);
      ++i;
    } else if (args[i] == "--real") {
      return usage_error("an FMU's library runs on the runtime, which integrates double models only: fmu takes "
                         "no --real", kFmuHelp);
    } else if (args[i] == "-o" || args[i] == "--output") {
      if (!value || value->empty()) return usage_error("-o needs the FMU's file (NAME.fmu)", kFmuHelp);
      output = *value;
      ++i;
    } else if (args[i].rfind("-", 0) == 0 && args[i] != "-") {
      return usage_error("unknown option '" + args[i] + "'", kFmuHelp);
    } else {
      specs.push_back(args[i]);
    }
  }
  if (specs.size() != 1) return usage_error(specs.empty() ? "no spec given" : "fmu takes one spec", kFmuHelp);
  if (output.empty()) return usage_error("no FMU file given (-o NAME.fmu)", kFmuHelp);
  struct stat spec_file, out_file;
  if (::stat(specs[0].c_str(), &spec_file) == 0 && ::stat(output.c_str(), &out_file) == 0 &&
      spec_file.st_dev == out_file.st_dev && spec_file.st_ino == out_file.st_ino)
    return usage_error("-o " + output + " is the spec " + specs[0] + ": writing it would destroy the spec", kFmuHelp);
  lgc::export_fmu(specs[0], options, output);
  return kOk;
}

int equations_command(std::vector<std::string> args) {
  lgc::Formulation formulation = lgc::Formulation::dalembert;
  if (!take_formulation(args, formulation))
    return usage_error("--formulation takes dalembert or vakonomic", kEquationsHelp);
  if (args.size() == 1 && is_help(args[0])) return std::cout << kEquationsHelp, kOk;
  if (args.size() != 1 || args[0].rfind("-", 0) == 0) return usage_error("equations takes one spec", kEquationsHelp);
  lgc::Spec spec = lgc::read_spec(args[0]);
  std::cout << lgc::generate(spec, formulation).report;
  return kOk;
}

// An option that names a file the command writes, given the spec itself
// (the same file, by device and inode): the message, else "".
std::string overwrites_spec(const lgc_command *cmd, const std::vector<std::string> &args) {
  struct stat spec, out;
  if (args.empty() || ::stat(args[0].c_str(), &spec) != 0) return "";
  for (size_t i = 1; i + 1 < args.size(); ++i) {
    int k = lgc_command_option(cmd, args[i].c_str());
    if (k < 0 || lgc_command_entry(cmd, k)->kind == LGC_OPTION_FLAG) continue;
    const std::string &path = args[++i];
    if (lgc_command_entry(cmd, k)->kind == LGC_OPTION_OUTPUT && ::stat(path.c_str(), &out) == 0 &&
        out.st_dev == spec.st_dev && out.st_ino == spec.st_ino)
      return args[i - 1] + " " + path + " is the spec " + args[0] + ": writing it would destroy the spec";
  }
  return "";
}

// `simulate`, `linearize`, `eval` and `sweep` run the model's compiled program
// (simulate.cpp); their options and help are the program's own table
// (commands.h), so the help needs no spec and no compile, and `sweep
// --merge` no model at all.
int model_command(const std::string &command, std::vector<std::string> args) {
  const lgc_command *cmd = lgc_command_find(command.c_str());
  const std::string program = "lagrangec " + command + " SPEC";
  const std::string usage = "usage: " + program + " " + cmd->operands + "\n(see 'lagrangec " + command +
                            " --help')\n";
  std::vector<char *> words;
  for (auto &a : args) words.push_back(a.data());
  if (lgc_command_wants_help(cmd, int(words.size()), words.data()))
    return lgc_command_help(cmd, program.c_str(), stdout), kOk;
  if (command == "sweep" && lgc_command_given(cmd, int(words.size()), words.data(), "--merge")) {
    std::string name = "lagrangec sweep";
    words.insert(words.begin(), name.data());
    return lgc_sweep_merge(int(words.size()), words.data());
  }
  lgc::Formulation formulation = lgc::Formulation::dalembert;
  if (!take_formulation(args, formulation))
    return usage_error("--formulation takes dalembert or vakonomic", usage.c_str());
  if (command == "linearize" && formulation == lgc::Formulation::vakonomic)
    return usage_error("linearize takes the d'Alembert-Lagrange equations only (the vakonomic "
                       "multipliers are states with no linearisation on the constraints here)",
                       usage.c_str());
  if (args.empty() || args[0].rfind("-", 0) == 0) return usage_error(command + " needs a spec", usage.c_str());
  std::string clash = overwrites_spec(cmd, args);
  if (!clash.empty()) return usage_error(clash, usage.c_str());
  return lgc::run_model(command, args[0], formulation, std::vector<std::string>(args.begin() + 1, args.end()));
}

}  // namespace

int main(int argc, char **argv) {
  lgc::limit_generator_memory();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage_error("no command given", kUsageText);
  std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (is_help(cmd)) return std::cout << kUsageText, kOk;
    if (cmd == "--version") return std::cout << "lagrangec " << LGC_VERSION << "\n", kOk;
    if (cmd == "generate") return generate_command(args);
    if (cmd == "equations") return equations_command(args);
    if (cmd == "fmu") return fmu_command(args);
    if (cmd == "simulate" || cmd == "linearize" || cmd == "eval" || cmd == "sweep") return model_command(cmd, args);
    return usage_error("unknown command '" + cmd + "'", kUsageText);
  } catch (const lgc::SpecError &e) {
    std::ifstream in(e.loc.file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    lgc::print_error(e, text.str());
    return kSpecError;
  } catch (const std::bad_alloc &) {
    std::cerr << "lagrangec: out of memory: the generator stops at " << (lgc::kGeneratorMemory >> 30)
              << " GiB; the spec's equations are too large to derive\n";
    return kSpecError;
  } catch (const std::exception &e) {
    std::cerr << "lagrangec: " << e.what() << "\n";
    return kSpecError;
  }
}
