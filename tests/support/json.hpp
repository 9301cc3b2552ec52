// json.hpp — a strict JSON reader for the tests of what the programs print
// (--summary-json, linearize --json): RFC 8259 only, so NaN, Inf, a
// trailing comma or trailing text is an error, as for any JSON consumer.
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace json {

struct Value {
  enum Kind { null, boolean, number, string, array, object } kind = null;
  bool b = false;
  double n = 0;
  std::string s;
  std::vector<Value> items;
  std::map<std::string, Value> members;

  bool is_null() const { return kind == null; }
  // A member of an object; throws naming the key when there is none.
  const Value &operator[](const std::string &key) const {
    auto it = members.find(key);
    if (kind != object || it == members.end()) throw std::runtime_error("no member \"" + key + "\"");
    return it->second;
  }
  const Value &operator[](size_t i) const {
    if (kind != array || i >= items.size()) throw std::runtime_error("no element " + std::to_string(i));
    return items[i];
  }
  double num() const {
    if (kind != number) throw std::runtime_error("not a number");
    return n;
  }
  const std::string &str() const {
    if (kind != string) throw std::runtime_error("not a string");
    return s;
  }
};

class Reader {
 public:
  explicit Reader(const std::string &text) : t_(text) {}

  Value document() {
    Value v = value();
    space();
    if (i_ != t_.size()) fail("text after the value");
    return v;
  }

 private:
  const std::string &t_;
  size_t i_ = 0;

  [[noreturn]] void fail(const std::string &what) {
    throw std::runtime_error("JSON at byte " + std::to_string(i_) + ": " + what);
  }
  void space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
  }
  bool literal(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (t_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }
  void expect(char c) {
    space();
    if (i_ >= t_.size() || t_[i_] != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }

  Value value() {
    space();
    if (i_ >= t_.size()) fail("end of text");
    Value v;
    char c = t_[i_];
    if (c == '{') {
      v.kind = Value::object;
      ++i_;
      space();
      if (t_[i_] == '}') return ++i_, v;
      do {
        space();
        std::string key = text();
        expect(':');
        v.members[key] = value();
        space();
      } while (i_ < t_.size() && t_[i_] == ',' && ++i_);
      expect('}');
    } else if (c == '[') {
      v.kind = Value::array;
      ++i_;
      space();
      if (t_[i_] == ']') return ++i_, v;
      do v.items.push_back(value());
      while (space(), i_ < t_.size() && t_[i_] == ',' && ++i_);
      expect(']');
    } else if (c == '"') {
      v.kind = Value::string;
      v.s = text();
    } else if (literal("null")) {
    } else if (literal("true") || literal("false")) {
      v.kind = Value::boolean;
      v.b = t_[i_ - 1] == 'e' && t_[i_ - 2] == 'u';
    } else {
      v.kind = Value::number;
      v.n = number();
    }
    return v;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and nothing else.
  double number() {
    size_t start = i_;
    auto digits = [&] {
      size_t d = i_;
      while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
      if (i_ == d) fail("a digit expected");
    };
    if (t_[i_] == '-') ++i_;
    if (i_ < t_.size() && t_[i_] == '0')
      ++i_;
    else
      digits();
    if (i_ < t_.size() && t_[i_] == '.') ++i_, digits();
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      ++i_;
      if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
      digits();
    }
    return std::strtod(t_.substr(start, i_ - start).c_str(), nullptr);
  }

  std::string text() {
    if (t_[i_] != '"') fail("a string expected");
    std::string s;
    for (++i_; i_ < t_.size() && t_[i_] != '"'; ++i_) {
      unsigned char c = static_cast<unsigned char>(t_[i_]);
      if (c < 0x20) fail("a control character in a string");
      if (c != '\\') {
        s += char(c);
        continue;
      }
      char e = t_.at(++i_);
      const char *simple = "\"\\/bfnrt", *meaning = "\"\\/\b\f\n\r\t";
      if (const char *p = std::char_traits<char>::find(simple, 8, e)) {
        s += meaning[p - simple];
      } else if (e == 'u' && i_ + 4 < t_.size()) {
        unsigned code = std::stoul(t_.substr(i_ + 1, 4), nullptr, 16);
        if (code >= 0x80) fail("\\u escapes above 0x7f are not read here");
        s += char(code);
        i_ += 4;
      } else {
        fail("a bad escape");
      }
    }
    if (i_ >= t_.size()) fail("an unterminated string");
    ++i_;
    return s;
  }
};

inline Value parse(const std::string &text) { return Reader(text).document(); }

}  // namespace json
