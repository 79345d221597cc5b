// Pinocchio's ABA on a robot read by Pinocchio's own URDF parser, for scripts/compare_urdf.py.
//
//   urdf_aba ROBOT.urdf Q V
//
// Q and V are comma-separated, one value per joint coordinate in the URDF's order of <joint>
// elements (the order of routh's coordinates; fixed joints have none). Prints the time per ABA
// call (seconds) and q̈ in the same order, with the joint torques τ = −damping · q̇ of the file's
// <dynamics damping> (routh's viscous force; Pinocchio reads the damping but ABA takes τ).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <pinocchio/multibody.hpp>
#include <pinocchio/parsers/urdf.hpp>
#include <pinocchio/algorithm/aba.hpp>

using namespace pinocchio;

static std::vector<double> numbers(const char* text) {
  std::vector<double> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) out.push_back(std::atof(item.c_str()));
  return out;
}

static std::vector<std::string> words(const char* text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) out.push_back(item);
  return out;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: urdf_aba ROBOT.urdf NAMES Q V\n");
    return 2;
  }
  Model model;
  pinocchio::urdf::buildModel(argv[1], model);
  model.gravity.linear(Eigen::Vector3d(0.0, 0.0, -9.81));
  Data data(model);
  // routh's coordinates by name (the URDF's joints), placed where Pinocchio keeps them.
  const std::vector<std::string> names = words(argv[2]);
  const std::vector<double> qs = numbers(argv[3]), vs = numbers(argv[4]);
  Eigen::VectorXd q = neutral(model), v = Eigen::VectorXd::Zero(model.nv), tau(model.nv);
  std::vector<int> at(names.size());
  for (size_t k = 0; k < names.size(); ++k) {
    if (!model.existJointName(names[k]) || model.joints[model.getJointId(names[k])].nq() != 1) {
      std::fprintf(stderr, "joint %s: not a one-coordinate joint in Pinocchio's model\n", names[k].c_str());
      return 1;
    }
    const JointIndex j = model.getJointId(names[k]);
    at[k] = model.joints[j].idx_v();
    q[model.joints[j].idx_q()] = qs[k];
    v[at[k]] = vs[k];
  }
  for (int i = 0; i < model.nv; ++i) tau[i] = -model.damping[i] * v[i];
  aba(model, data, q, v, tau);
  const Eigen::VectorXd qdd = data.ddq;
  const long reps = 2000000 / (model.nv + 20);
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) {
      aba(model, data, q, v, tau);
      asm volatile("" : : "r"(data.ddq.data()) : "memory");
    }
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / reps;
    if (dt < best) best = dt;
  }
  std::printf("%e\n", best);
  for (size_t k = 0; k < names.size(); ++k) std::printf("%s%.17e", k ? "," : "", qdd[at[k]]);
  std::printf("\n");
  return 0;
}
