#include "oracles/reference_grad.h"

#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>

#include "ir/differentiable.h"
#include "ir/precision.h"
#include "ir/unbatch.h"

namespace vf {

RefVjp runReferenceVjp(const Case &c, const std::vector<at::Tensor> &physicalInputs,
                       const std::vector<at::Tensor> &cotangents, const RefOptions &opt) {
  RefVjp r;
  try {
    c10::AutoGradMode grad(true);
    auto gin = gradInputs(c.program);
    auto gout = gradOutputs(c.program);
    if (cotangents.size() != gout.size())
      throw std::invalid_argument("runReferenceVjp: " + std::to_string(cotangents.size()) + " cotangents for " +
                                  std::to_string(gout.size()) + " floating outputs");
    std::vector<at::Tensor> leaves = physicalInputs, wrt;
    for (size_t i : gin) {
      leaves[i] = physicalInputs[i].detach().clone().requires_grad_(true);
      wrt.push_back(leaves[i]);
    }
    const auto precision = valuePrecisions(c.program);
    auto outputs = unbatch(c.spec.levels, leaves, [&](const std::vector<at::Tensor> &ex) {
      return evalProgram(c.program, ex, r.minMargin, opt.float64, &r.minKink, nullptr, &precision);
    });
    std::vector<at::Tensor> roots, seeds;
    for (size_t k = 0; k < gout.size(); ++k) {
      const at::Tensor &o = outputs.at(gout[k]);
      if (!o.requires_grad()) continue; // does not depend on a floating input
      roots.push_back(o);
      seeds.push_back(cotangents[k].to(o.scalar_type()));
    }
    std::vector<at::Tensor> grads(wrt.size());
    if (!roots.empty() && !wrt.empty())
      grads = torch::autograd::grad(roots, wrt, seeds, /*retain_graph=*/false, /*create_graph=*/false,
                                    /*allow_unused=*/true);
    for (size_t k = 0; k < wrt.size(); ++k) {
      at::Tensor g = grads[k].defined() ? grads[k].detach() : at::zeros_like(wrt[k]).detach();
      if (g.numel() > 0 && !at::isfinite(g).all().item<bool>()) r.finite = false;
      r.gradients.push_back(g);
    }
  } catch (const std::exception &e) {
    r.error = e.what();
  }
  return r;
}

} // namespace vf
