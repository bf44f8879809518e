// A ChildServer on the lender's side, behind the GradeLender interface. See launcher_lender.h.
#include "harness/gpu/launcher_lender.h"

#include <utility>

namespace gpugrade::gpu {
namespace {

class LauncherLender : public GradeLender {
 public:
  LauncherLender(std::vector<std::string> argv, std::string output_path, std::vector<std::string> environment,
                 ChildLimits reset_limits)
      : server_(std::move(argv), std::move(output_path), std::move(environment)),
        reset_limits_(reset_limits) {}

  Loan lend() override {
    std::string ignored;  // a launcher that cannot start is the grade's to report, from its own attempt
    std::optional<LentChild> lent = server_.lend(&ignored);
    if (!lent) return {};
    return {{std::string(kLentLauncherVariable) + "=" + lent_child_text(*lent)},
            {lent->command_fd, lent->heartbeat_fd}};
  }

  void take_back(bool ended_cleanly) override { server_.take_back(ended_cleanly, reset_limits_); }

 private:
  ChildServer server_;
  ChildLimits reset_limits_;
};

}  // namespace

std::unique_ptr<GradeLender> make_launcher_lender(std::vector<std::string> argv, std::string output_path,
                                                  std::vector<std::string> environment,
                                                  ChildLimits reset_limits) {
  return std::make_unique<LauncherLender>(std::move(argv), std::move(output_path), std::move(environment),
                                          reset_limits);
}

}  // namespace gpugrade::gpu
