// Pinocchio's ABA on the n-link chain in space of routh_macros_core::fixtures::spatial_chain_struct_with
// (m = 1, l = 0.5, i = 0.02, j = 0.01, g = 9.81): link k a rigid rod turning about its z, y and x
// axis in turn, in relative angles, its joint at the end of link k − 1 (0, 0, −l) and its mass centre
// half a link down, inertia diag(i, i, j) about it. Prints the time per ABA call (seconds) and q̈, for
// scripts/compare_pinocchio.py --spatial.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/aba.hpp>

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10;
  const double m = 1.0, l = 0.5, i = 0.02, j = 0.01;
  using namespace pinocchio;
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
  Data data(model);
  // The benchmark's state x_i = 0.1 + 0.37 ((7919 i) mod 13) / 13: q, then q̇ (relative angles, as routh's).
  Eigen::VectorXd q(n), v(n), tau = Eigen::VectorXd::Zero(n);
  for (int k = 0; k < 2 * n; ++k) {
    const double xk = 0.1 + 0.37 * static_cast<double>((k * 7919) % 13) / 13.0;
    (k < n ? q[k] : v[k - n]) = xk;
  }
  aba(model, data, q, v, tau);
  const Eigen::VectorXd qdd = data.ddq;
  double best = 1e300;
  const long reps = 4000000 / (n + 20);
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) {
      aba(model, data, q, v, tau);
      asm volatile("" : : "r"(data.ddq.data()) : "memory");
    }
    const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
    best = per < best ? per : best;
  }
  std::printf("%.6e\n", best);
  for (int k = 0; k < n; ++k) std::printf(k + 1 < n ? "%.17e," : "%.17e\n", qdd[k]);
  return 0;
}
