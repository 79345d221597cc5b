// Pinocchio's ABA on a robot read by Pinocchio's own URDF parser, for scripts/compare_urdf.py.
//
//   urdf_aba TREE Q V [A]
//
// TREE is the model Pinocchio's parser built from the URDF (in Python, `pin.buildModelFromUrdf`),
// written one joint per line by compare_urdf.py: name, parent, type (RX, RY, RZ, PX, PY, PZ,
// RevoluteUnaligned, PrismaticUnaligned, RUBX, RUBY, RUBZ, RevoluteUnboundedUnaligned — a
// continuous joint, (cos, sin) in q — or FreeFlyer — a floating joint, translation and quaternion
// (x, y, z, w) in q, the body-frame linear and angular velocity in v), axis, placement (R by rows,
// p), inertia (mass, centre, rotational inertia by rows) and damping. It is rebuilt here joint by
// joint — the library's own parser is compiled without -march=native, and a model crossing into
// code compiled with it has another memory layout. Q and V are Pinocchio's configuration and
// velocity (comma-separated; compare_urdf.py maps routh's state onto them). Prints the time per ABA
// call (seconds) and q̈ in Pinocchio's order, with the torques τ = −damping · v of the file's
// <dynamics damping> (routh's viscous force; Pinocchio reads the damping, ABA takes τ).
//
// With A (accelerations, comma-separated), the products for control after those two lines: the
// times per call of `rnea` (at q, v, A), `crba`, `computeABADerivatives` (at q, v, τ),
// `computeRNEADerivatives` (at q, v, A) and `computeGeneralizedGravity` (at q), then τ = rnea(q, v,
// A), M (row by row, crba's upper triangle mirrored), ∂q̈/∂q, ∂q̈/∂v, M⁻¹, ∂τ/∂q and ∂τ/∂v (row by
// row) and the gravity torques g(q) — each a line. Pinocchio's
// derivatives do not see the damping (τ is an argument): compare_urdf.py adds its −M⁻¹ D to ∂q̈/∂v
// and its D to ∂τ/∂v.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <fstream>

#include <pinocchio/multibody.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>

using namespace pinocchio;

static std::vector<double> numbers(const char* text) {
  std::vector<double> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) out.push_back(std::atof(item.c_str()));
  return out;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: urdf_aba TREE Q V\n");
    return 2;
  }
  Model model;
  model.gravity.linear(Eigen::Vector3d(0.0, 0.0, -9.81));
  std::ifstream tree(argv[1]);
  std::vector<double> damping;
  std::string name, type;
  long parent;
  while (tree >> name >> parent >> type) {
    double a[3], r[9], p[3], mass, c[3], in[9], d;
    for (double& x : a) tree >> x;
    for (double& x : r) tree >> x;
    for (double& x : p) tree >> x;
    tree >> mass;
    for (double& x : c) tree >> x;
    for (double& x : in) tree >> x;
    tree >> d;
    const Eigen::Vector3d axis(a[0], a[1], a[2]);
    const SE3 placement(Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(r), Eigen::Vector3d(p[0], p[1], p[2]));
    JointIndex j;
    if (type == "RX") j = model.addJoint(parent, JointModelRX(), placement, name);
    else if (type == "RY") j = model.addJoint(parent, JointModelRY(), placement, name);
    else if (type == "RZ") j = model.addJoint(parent, JointModelRZ(), placement, name);
    else if (type == "PX") j = model.addJoint(parent, JointModelPX(), placement, name);
    else if (type == "PY") j = model.addJoint(parent, JointModelPY(), placement, name);
    else if (type == "PZ") j = model.addJoint(parent, JointModelPZ(), placement, name);
    else if (type == "RevoluteUnaligned") j = model.addJoint(parent, JointModelRevoluteUnaligned(axis), placement, name);
    else if (type == "PrismaticUnaligned") j = model.addJoint(parent, JointModelPrismaticUnaligned(axis), placement, name);
    else if (type == "RUBX") j = model.addJoint(parent, JointModelRUBX(), placement, name);
    else if (type == "RUBY") j = model.addJoint(parent, JointModelRUBY(), placement, name);
    else if (type == "RUBZ") j = model.addJoint(parent, JointModelRUBZ(), placement, name);
    else if (type == "RevoluteUnboundedUnaligned")
      j = model.addJoint(parent, JointModelRevoluteUnboundedUnaligned(axis), placement, name);
    else if (type == "FreeFlyer") j = model.addJoint(parent, JointModelFreeFlyer(), placement, name);
    else {
      std::fprintf(stderr, "joint %s: type %s is not rebuilt here\n", name.c_str(), type.c_str());
      return 1;
    }
    const Eigen::Matrix3d rotational = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(in);
    model.appendBodyToJoint(j, Inertia(mass, Eigen::Vector3d(c[0], c[1], c[2]), rotational), SE3::Identity());
    for (int k = 0; k < model.joints[j].nv(); ++k) damping.push_back(d);
  }
  Data data(model);
  const std::vector<double> qs = numbers(argv[2]), vs = numbers(argv[3]);
  if ((long)qs.size() != model.nq || (long)vs.size() != model.nv) {
    std::fprintf(stderr, "Q has %zu values for nq = %d, V %zu for nv = %d\n", qs.size(), model.nq, vs.size(), model.nv);
    return 1;
  }
  const Eigen::VectorXd q = Eigen::Map<const Eigen::VectorXd>(qs.data(), model.nq);
  const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(vs.data(), model.nv);
  Eigen::VectorXd tau(model.nv);
  for (int i = 0; i < model.nv; ++i) tau[i] = -damping[i] * v[i];
  aba(model, data, q, v, tau);
  const Eigen::VectorXd qdd = data.ddq;
  const long reps = 2000000 / (model.nv + 20);
  // The best of five rounds of `rounds` calls of `call`, seconds per call.
  const auto timed = [&](long rounds, const auto& call) {
    double best = 1e9;
    for (int round = 0; round < 5; ++round) {
      const auto start = std::chrono::steady_clock::now();
      for (long r = 0; r < rounds; ++r) {
        call();
        asm volatile("" : : "r"(&data) : "memory");
      }
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / rounds);
    }
    return best;
  };
  std::printf("%e\n", timed(reps, [&] { aba(model, data, q, v, tau); }));
  const auto row = [](const double* x, long n) {
    for (long k = 0; k < n; ++k) std::printf("%s%.17e", k ? "," : "", x[k]);
    std::printf("\n");
  };
  row(qdd.data(), model.nv);
  if (argc < 5) return 0;
  const std::vector<double> as = numbers(argv[4]);
  if ((long)as.size() != model.nv) {
    std::fprintf(stderr, "A has %zu values for nv = %d\n", as.size(), model.nv);
    return 1;
  }
  const Eigen::VectorXd a = Eigen::Map<const Eigen::VectorXd>(as.data(), model.nv);
  const double t_rnea = timed(reps, [&] { rnea(model, data, q, v, a); });
  const Eigen::VectorXd torque = data.tau;
  const double t_crba = timed(reps, [&] { crba(model, data, q); });
  crba(model, data, q);
  Eigen::MatrixXd mass = data.M;
  mass.triangularView<Eigen::StrictlyLower>() = mass.transpose();
  const double t_derivatives = timed(reps / 4 + 1, [&] { computeABADerivatives(model, data, q, v, tau); });
  computeABADerivatives(model, data, q, v, tau);
  Eigen::MatrixXd minv = data.Minv;
  minv.triangularView<Eigen::StrictlyLower>() = minv.transpose();
  const double t_rnea_derivatives = timed(reps / 4 + 1, [&] { computeRNEADerivatives(model, data, q, v, a); });
  computeRNEADerivatives(model, data, q, v, a);
  const Eigen::MatrixXd dtau_dq = data.dtau_dq, dtau_dv = data.dtau_dv;
  const double t_gravity = timed(reps, [&] { computeGeneralizedGravity(model, data, q); });
  computeGeneralizedGravity(model, data, q);
  const Eigen::VectorXd gravity = data.g;
  // Row by row (Eigen stores by columns).
  const auto matrix = [&](const Eigen::MatrixXd& m) {
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows = m;
    row(rows.data(), rows.size());
  };
  std::printf("%e %e %e %e %e\n", t_rnea, t_crba, t_derivatives, t_rnea_derivatives, t_gravity);
  row(torque.data(), model.nv);
  matrix(mass);
  matrix(data.ddq_dq);
  matrix(data.ddq_dv);
  matrix(minv);
  matrix(dtau_dq);
  matrix(dtau_dv);
  row(gravity.data(), model.nv);
  return 0;
}
