#pragma once
/// Errors as values (g++ 12 has no std::expected in C++20).
///
/// A failure carries a message written where the failure is understood; the
/// caller adds context or prints it once near main.

#include <string>
#include <utility>
#include <variant>

namespace togmal {

/// The error half of a Result: a human-readable message.
struct Error {
  std::string message;
};

/// Either a value of T or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(data_); }
  const T& value() const& { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const std::string& error() const { return std::get<1>(data_).message; }

 private:
  std::variant<T, Error> data_;
};

/// Result of an operation that yields nothing but can fail.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error.message)), failed_(true) {}  // NOLINT

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
  bool failed_ = false;
};

/// Shorthand for returning a failure: `return Fail("no such file: " + path);`
inline Error Fail(std::string message) { return Error{std::move(message)}; }

}  // namespace togmal
