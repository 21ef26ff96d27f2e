#pragma once
// costdsl's own exception types. Every message names the field, the value and
// the rule that was broken (and file:line:column for data files).
#include <stdexcept>
#include <string>

namespace costdsl {

// Base of every costdsl error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A model/parallel configuration breaks a rule ("tp 16 does not divide num_kv_heads 8").
class ConfigError : public Error {
 public:
  using Error::Error;
};

// A data file (profile CSV, config.json, gpus.json, manifest) is malformed.
class DataError : public Error {
 public:
  using Error::Error;
};

// A per-call input is out of range (negative, absurd, wrong phase).
class InputError : public Error {
 public:
  using Error::Error;
};

}  // namespace costdsl
