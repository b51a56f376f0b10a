#pragma once
// Sets (or removes) an environment variable for one scope of a test and
// restores what was there before. For in-process tests of code that reads the
// environment (paths, database location); child processes take EnvChanges.

#include <stdlib.h>

#include <string>

namespace togmal::testing {

class ScopedEnv {
 public:
  /// `value` null removes the variable.
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) {
      old_ = old;
      had_ = true;
    }
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace togmal::testing
