// An in-memory Compiler for tests: answers each request from a table keyed by the submission's bytes and
// counts how often it was asked, so tests can see what a cache in front of it saved.
#pragma once

#include <map>
#include <string>

#include "grader/compile/compiler.h"

namespace gpugrade {

class FakeCompiler : public Compiler {
 public:
  // Every request whose source bytes are `source` gets `output`; other sources get a compile error.
  void answer(const std::string& source, CompileOutput output) { outputs_[source] = std::move(output); }

  CompileOutput compile(const CompileRequest& request) override {
    ++calls_;
    auto known = outputs_.find(request.source.bytes);
    if (known != outputs_.end()) return known->second;
    CompileOutput output;
    Finding finding;
    finding.kind = FindingKind::kCompileError;
    finding.message = "the fake compiler has no answer for this source";
    finding.file = request.display_path;
    output.findings.push_back(finding);
    return output;
  }
  std::string identity() const override { return "fake 1.0"; }
  int calls() const { return calls_; }

 private:
  std::map<std::string, CompileOutput> outputs_;
  int calls_ = 0;
};

}  // namespace gpugrade
