// Pinocchio's ABA on the n-link planar pendulum chain of benches/chain_models.rs (unit masses at the
// ends of massless unit links, angles from the downward vertical, g = 9.81): revolute joints about z,
// each body a point mass one unit down its joint frame. Prints the time per ABA call (seconds) and
// q̈ in the chain's absolute angles, for scripts/compare_pinocchio.py.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/aba.hpp>

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10;
  using namespace pinocchio;
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
  Data data(model);
  // The benchmark's state x_i = 0.1 + 0.37 ((7919 i) mod 13) / 13 in absolute angles, made relative.
  Eigen::VectorXd q(n), v(n), tau = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < 2 * n; ++i) {
    const double xi = 0.1 + 0.37 * static_cast<double>((i * 7919) % 13) / 13.0;
    (i < n ? q[i] : v[i - n]) = xi;
  }
  Eigen::VectorXd theta = q, dtheta = v;
  for (int k = n - 1; k > 0; --k) {
    theta[k] -= q[k - 1];
    dtheta[k] -= v[k - 1];
  }
  aba(model, data, theta, dtheta, tau);
  Eigen::VectorXd qdd = data.ddq;
  for (int k = 1; k < n; ++k) qdd[k] += qdd[k - 1];
  double best = 1e300;
  const long reps = 4000000 / (n + 20);
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) {
      aba(model, data, theta, dtheta, tau);
      asm volatile("" : : "r"(data.ddq.data()) : "memory");
    }
    const double per = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
    best = per < best ? per : best;
  }
  std::printf("%.6e\n", best);
  for (int k = 0; k < n; ++k) std::printf(k + 1 < n ? "%.17e," : "%.17e\n", qdd[k]);
  return 0;
}
