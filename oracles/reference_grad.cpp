#include "oracles/reference_grad.h"

#include <c10/core/GradMode.h>
#include <torch/csrc/autograd/autograd.h>

#include "ir/differentiable.h"
#include "ir/precision.h"
#include "ir/unbatch.h"

namespace vf {

namespace {

bool allFinite(const at::Tensor &t) { return t.numel() == 0 || at::isfinite(t).all().item<bool>(); }

/// The batched program's forward, each example alone through the reference interpreter, with
/// the floating inputs as autograd leaves: what both the VJP and the JVP differentiate.
struct Forward {
  std::vector<size_t> gin, gout;      ///< gradInputs, gradOutputs
  std::vector<at::Tensor> wrt;        ///< the leaves of the floating inputs, in gin's order
  std::vector<at::Tensor> outputs;    ///< the stacked outputs, in the physical shapes
};

Forward forward(const Case &c, const std::vector<at::Tensor> &physicalInputs, const RefOptions &opt, double &minMargin,
                double &minKink) {
  Forward f{gradInputs(c.program), gradOutputs(c.program), {}, {}};
  std::vector<at::Tensor> leaves = physicalInputs;
  for (size_t i : f.gin) {
    leaves[i] = physicalInputs[i].detach().clone().requires_grad_(true);
    f.wrt.push_back(leaves[i]);
  }
  const auto precision = valuePrecisions(c.program);
  f.outputs = unbatch(c.spec.levels, leaves, [&](const std::vector<at::Tensor> &ex) {
    return evalProgram(c.program, ex, minMargin, opt.float64, &minKink, nullptr, &precision);
  });
  return f;
}

} // namespace

RefVjp runReferenceVjp(const Case &c, const std::vector<at::Tensor> &physicalInputs,
                       const std::vector<at::Tensor> &cotangents, const RefOptions &opt) {
  RefVjp r;
  try {
    c10::AutoGradMode grad(true);
    const size_t floatingOutputs = gradOutputs(c.program).size();
    if (cotangents.size() != floatingOutputs)
      throw std::invalid_argument("runReferenceVjp: " + std::to_string(cotangents.size()) + " cotangents for " +
                                  std::to_string(floatingOutputs) + " floating outputs");
    auto [gin, gout, wrt, outputs] = forward(c, physicalInputs, opt, r.minMargin, r.minKink);
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
      if (!allFinite(g)) r.finite = false;
      r.gradients.push_back(g);
    }
  } catch (const std::exception &e) {
    r.error = e.what();
  }
  return r;
}

RefJvp runReferenceJvp(const Case &c, const std::vector<at::Tensor> &physicalInputs,
                       const std::vector<at::Tensor> &tangents, const RefOptions &opt) {
  RefJvp r;
  try {
    c10::AutoGradMode grad(true);
    const size_t floatingInputs = gradInputs(c.program).size();
    if (tangents.size() != floatingInputs)
      throw std::invalid_argument("runReferenceJvp: " + std::to_string(tangents.size()) + " tangents for " +
                                  std::to_string(floatingInputs) + " floating inputs");
    auto [gin, gout, wrt, outputs] = forward(c, physicalInputs, opt, r.minMargin, r.minKink);
    // g(u) = J^T u with a cotangent u of every floating output that depends on an input.
    std::vector<at::Tensor> roots, us;
    std::vector<size_t> rootOf; // which floating output (index into gout) each root is
    for (size_t k = 0; k < gout.size(); ++k) {
      const at::Tensor &o = outputs.at(gout[k]);
      if (!o.requires_grad()) continue;
      roots.push_back(o);
      us.push_back(at::zeros_like(o).detach().requires_grad_(true));
      rootOf.push_back(k);
    }
    std::vector<at::Tensor> jt(gout.size());
    if (!roots.empty() && !wrt.empty()) {
      auto g = torch::autograd::grad(roots, wrt, us, /*retain_graph=*/true, /*create_graph=*/true, /*allow_unused=*/true);
      // J t = d<g(u), t>/du: one more reverse pass, through the first one's graph.
      std::vector<at::Tensor> gs, ts;
      for (size_t i = 0; i < g.size(); ++i)
        if (g[i].defined() && g[i].requires_grad()) {
          gs.push_back(g[i]);
          ts.push_back(tangents[i].to(g[i].scalar_type()));
        }
      if (!gs.empty()) {
        auto d = torch::autograd::grad(gs, us, ts, /*retain_graph=*/false, /*create_graph=*/false, /*allow_unused=*/true);
        for (size_t n = 0; n < d.size(); ++n) jt[rootOf[n]] = d[n];
      }
    }
    for (size_t k = 0; k < gout.size(); ++k) {
      const at::Tensor &o = outputs.at(gout[k]);
      at::Tensor t = jt[k].defined() ? jt[k].detach() : at::zeros_like(o).detach();
      if (!allFinite(t)) r.finite = false;
      r.gradients.push_back(t);
    }
  } catch (const std::exception &e) {
    r.error = e.what();
  }
  return r;
}

} // namespace vf
