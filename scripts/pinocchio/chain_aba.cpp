// Pinocchio's ABA on routh's benchmark chains, for scripts/compare_pinocchio.py. Prints the time per
// ABA call (seconds) and q̈; for the chain in space also the times per call of `rnea` (at q, v and
// a_k = 0.3 − 0.17 ((31 k) mod 7)) and `crba`, then that τ and M (by rows, crba's upper triangle
// mirrored).
//
//   chain_aba N           the n-link planar pendulum chain of benches/chain_models.rs (unit masses at
//                         the ends of massless unit links, angles from the downward vertical,
//                         g = 9.81): revolute joints about z, each body a point mass one unit down its
//                         joint frame; q̈ in the chain's absolute angles.
//   chain_aba N spatial   the chain in space of routh_macros_core::fixtures::spatial_chain_struct_with
//                         (m = 1, l = 0.5, i = 0.02, j = 0.01, g = 9.81): link k a rigid rod turning
//                         about its z, y and x axis in turn, in relative angles, its joint at the end
//                         of link k − 1 (0, 0, −l) and its mass centre half a link down, inertia
//                         diag(i, i, j) about it.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea.hpp>

using namespace pinocchio;

static Model planar(int n) {
  Model model;
  model.gravity.linear(Eigen::Vector3d(0.0, -9.81, 0.0));
  JointIndex parent = 0;
  SE3 placement = SE3::Identity();
  const Eigen::Vector3d down(0.0, -1.0, 0.0);
  for (int k = 0; k < n; ++k) {
    const JointIndex j = model.addJoint(parent, JointModelRZ(), placement, "joint" + std::to_string(k));
    model.appendBodyToJoint(j, Inertia(1.0, down, Eigen::Matrix3d::Zero()), SE3::Identity());
    parent = j;
    placement = SE3(Eigen::Matrix3d::Identity(), down);
  }
  return model;
}

static Model spatial(int n) {
  const double m = 1.0, l = 0.5, i = 0.02, j = 0.01;
  Model model;
  model.gravity.linear(Eigen::Vector3d(0.0, 0.0, -9.81));
  JointIndex parent = 0;
  SE3 placement = SE3::Identity();
  const Inertia rod(m, Eigen::Vector3d(0.0, 0.0, -l / 2), Eigen::Vector3d(i, i, j).asDiagonal());
  for (int k = 0; k < n; ++k) {
    const std::string name = "joint" + std::to_string(k);
    JointIndex joint;
    switch (k % 3) {
      case 0: joint = model.addJoint(parent, JointModelRZ(), placement, name); break;
      case 1: joint = model.addJoint(parent, JointModelRY(), placement, name); break;
      default: joint = model.addJoint(parent, JointModelRX(), placement, name); break;
    }
    model.appendBodyToJoint(joint, rod, SE3::Identity());
    parent = joint;
    placement = SE3(Eigen::Matrix3d::Identity(), Eigen::Vector3d(0.0, 0.0, -l));
  }
  return model;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10;
  const bool in_space = argc > 2 && std::strcmp(argv[2], "spatial") == 0;
  const Model model = in_space ? spatial(n) : planar(n);
  Data data(model);
  // The benchmark's state x_i = 0.1 + 0.37 ((7919 i) mod 13) / 13: q, then q̇.
  Eigen::VectorXd q(n), v(n), tau = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < 2 * n; ++i) {
    const double xi = 0.1 + 0.37 * static_cast<double>((i * 7919) % 13) / 13.0;
    (i < n ? q[i] : v[i - n]) = xi;
  }
  // The planar chain's angles are absolute: Pinocchio's joints are relative.
  if (!in_space) {
    for (int k = n - 1; k > 0; --k) {
      q[k] -= q[k - 1];
      v[k] -= v[k - 1];
    }
  }
  aba(model, data, q, v, tau);
  Eigen::VectorXd qdd = data.ddq;
  if (!in_space) {
    for (int k = 1; k < n; ++k) qdd[k] += qdd[k - 1];
  }
  const long reps = 4000000 / (n + 20);
  // The best of five rounds of `reps` calls, seconds per call.
  const auto timed = [&](long count, auto&& call) {
    double best = 1e300;
    for (int round = 0; round < 5; ++round) {
      const auto start = std::chrono::steady_clock::now();
      for (long r = 0; r < count; ++r) {
        call();
        asm volatile("" : : : "memory");
      }
      const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / count;
      best = per < best ? per : best;
    }
    return best;
  };
  const double best = timed(reps, [&] { aba(model, data, q, v, tau); });
  std::printf("%.6e\n", best);
  for (int k = 0; k < n; ++k) std::printf(k + 1 < n ? "%.17e," : "%.17e\n", qdd[k]);
  if (in_space) {
    Eigen::VectorXd a(n);
    for (int k = 0; k < n; ++k) a[k] = 0.3 - 0.17 * static_cast<double>((k * 31) % 7);
    const double t_rnea = timed(reps, [&] { rnea(model, data, q, v, a); });
    const double t_crba = timed(reps / 4 + 1, [&] { crba(model, data, q); });
    std::printf("%.6e %.6e\n", t_rnea, t_crba);
    rnea(model, data, q, v, a);
    for (int k = 0; k < n; ++k) std::printf(k + 1 < n ? "%.17e," : "%.17e\n", data.tau[k]);
    crba(model, data, q);
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) {
        const double e = r <= c ? data.M(r, c) : data.M(c, r);
        std::printf(r + 1 < n || c + 1 < n ? "%.17e," : "%.17e\n", e);
      }
    }
  }
  return 0;
}
