// definitions.cpp — the spec's named values and frames: [definitions]
// (scalars or vectors), [points] (positions) and [frames] (rotation
// sequences), each read the first time an expression names it, so they may
// be written in any order; one that needs itself is an error naming the
// cycle. A definition is its expression: Ia = "m*R^2/2" follows --param.
#include "expressions/expressions.h"

#include <algorithm>

namespace lgc {

Scope::Scope(const Spec &s, const SymbolTable &table) : spec(s), symbols(table) {
  for (auto &d : spec.definitions) entries_.emplace(d.name, Entry{&d, 'd', Entry::unread, {}, -1});
  for (auto &p : spec.points) entries_.emplace(p.name, Entry{&p, 'p', Entry::unread, {}, -1});
  for (auto &f : spec.frames) entries_.emplace(f.name, Entry{&f, 'f', Entry::unread, {}, -1});
}

void Scope::read_all() {
  for (auto *list : {&spec.frames, &spec.definitions, &spec.points})
    for (auto &d : *list) resolve(entries_.at(d.name), d.name, d.loc);
}

const Value *Scope::value(const std::string &name, const SourceLoc &use) {
  auto it = entries_.find(name);
  if (it == entries_.end() || it->second.kind == 'f') return nullptr;
  return &resolve(it->second, name, use).value;
}

std::optional<int> Scope::frame(const std::string &name, const SourceLoc &use) {
  if (name == "N") return FrameTree::N;
  auto it = entries_.find(name);
  if (it == entries_.end() || it->second.kind != 'f') return std::nullopt;
  return resolve(it->second, name, use).node;
}

int Scope::frame(const NameRef &ref) {
  if (auto node = frame(ref.name, ref.loc)) return *node;
  std::vector<std::string> frames = frame_names();
  std::string list;
  for (auto &f : frames) list += (list.empty() ? "" : ", ") + f;
  bool value = symbols.by_name.count(ref.name) || entries_.count(ref.name);
  error_at(ref.loc, (value ? "'" + ref.name + "' is not a frame" : "unknown frame '" + ref.name + "'") +
                        did_you_mean(ref.name, frames) + "; the frames are " + list);
}

std::vector<std::string> Scope::frame_names() const {
  std::vector<std::string> names = {"N"};
  for (auto &f : spec.frames) names.push_back(f.name);
  return names;
}

std::vector<std::string> Scope::value_names() const {
  std::vector<std::string> names;
  for (auto *list : {&spec.definitions, &spec.points})
    for (auto &d : *list) names.push_back(d.name);
  return names;
}

Scope::Entry &Scope::resolve(Entry &e, const std::string &name, const SourceLoc &use) {
  if (e.state == Entry::read) return e;
  if (e.state == Entry::reading) {
    auto from = std::find(reading_.begin(), reading_.end(), name);
    std::string chain;
    bool frames_only = true;
    for (auto it = from; it != reading_.end(); ++it) {
      chain += *it + " -> ";
      frames_only = frames_only && entries_.at(*it).kind == 'f';
    }
    chain += name;
    if (frames_only) error_at(use, "frame '" + name + "' is its own ancestor: a cycle of parent frames, " + chain);
    const char *kind = e.kind == 'd' ? "definition" : e.kind == 'p' ? "point" : "frame";
    error_at(use, std::string(kind) + " '" + name + "' depends on itself: " + chain);
  }
  e.state = Entry::reading;
  reading_.push_back(name);
  const SourceText &text = e.text->text;
  if (e.kind == 'd') {
    std::string what = "definition '" + name + "'";
    e.value = read_value(text, *this, {what.c_str()});
  } else if (e.kind == 'p') {
    std::string what = "point '" + name + "'";
    e.value = Value{true, 0, read_vector(text, *this, {what.c_str(), false, false})};
  } else {
    std::string what = "frame '" + name + "'";
    e.node = read_frame(text, *this, {what.c_str(), false, false});
  }
  reading_.pop_back();
  e.state = Entry::read;
  return e;
}

}  // namespace lgc
