// The one spelling of where something happened in a launch, for findings and figures: a Dim3 as the text
// "(x,y,z)" and as the JSON array [x,y,z], and a PTX `.file` index as its path.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend.h"

namespace gpugrade {

inline std::string to_string(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// nlohmann's hooks: a Dim3 in a finding's details is [x,y,z].
inline void to_json(nlohmann::json& out, const Dim3& d) { out = nlohmann::json::array({d.x, d.y, d.z}); }
inline void from_json(const nlohmann::json& in, Dim3& d) {
  d = {in.at(0).get<uint32_t>(), in.at(1).get<uint32_t>(), in.at(2).get<uint32_t>()};
}

// A Dim3 read back from a finding's details: [x,y,z] of counts, else nothing.
inline std::optional<Dim3> dim3_of(const nlohmann::json& value) {
  if (!value.is_array() || value.size() != 3) return std::nullopt;
  for (const nlohmann::json& v : value)
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > UINT32_MAX) return std::nullopt;
  return value.get<Dim3>();
}

// A details value that should be a Dim3, as text: "(x,y,z)", or the JSON as it is when it is not one.
inline std::string dim3_text(const nlohmann::json& value) {
  const std::optional<Dim3> d = dim3_of(value);
  return d ? to_string(*d) : value.dump();
}

// `files[index]` (files[1] is the PTX's `.file 1`), or "" for an index the module does not have.
inline std::string file_name(const std::vector<std::string>& files, int index) {
  return index >= 0 && static_cast<size_t>(index) < files.size() ? files[static_cast<size_t>(index)] : "";
}

}  // namespace gpugrade
