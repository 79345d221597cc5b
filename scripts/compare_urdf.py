#!/usr/bin/env python3
"""Read robots from their URDF files into routh and into Pinocchio, and compare q̈ and its cost.

routh reads each file at compile time (`#[mechanics(urdf = "...", gravity = [0, 0, -9.81])]`, in a
crate of its own built with `--release`); Pinocchio reads it with its own parser
(`pin.buildModelFromUrdf`), and `scripts/pinocchio/urdf_aba.cpp`, compiled with -O3 -march=native,
rebuilds that model joint by joint and times its ABA (a model built by the library's parser cannot
cross into code compiled with -march=native: its memory layout differs). Both compute q̈ at the same
deterministic state, with the file's joint damping as the torque −d q̇; the table gives the agreement
first, then the time per call of routh's field and of Pinocchio's ABA, and the cost of building the
robot's binary (`cargo build --release` of its crate once its dependencies are built: wall time and
peak memory of the build). Pinocchio's parser ignores `<mimic>` by default (the joint is free), which
routh reads as a constraint, and Pinocchio's ABA does not apply a joint's Coulomb `friction`, which
routh refuses: a file with either is compared as a copy without them, on both sides (the Panda's
second finger).

The states map onto each other joint by joint: a revolute or prismatic joint's coordinate and rate
as they are; a continuous joint's angle θ as Pinocchio's (cos θ, sin θ); a floating joint's
translation (x, y, z) and quaternion (routh's w first, any norm: its rotation is that of q/|q|) as
Pinocchio's (x, y, z, qx, qy, qz, qw) normalised, routh's rates ẋ in the parent's axes as
Pinocchio's body-frame v = Rᵀ ẋ, the body angular velocity ω as it is — and Pinocchio's
acceleration v̇ back as ẍ = R (v̇ + ω × v). A robot whose file has no floating joint (a quadruped's
URDF usually) is given one with `--floating`: a copy whose root link hangs from a new world link on
a floating joint `root`.

    pip install pin cmeel-eigen example-robot-data   # Pinocchio, Eigen's headers, robots
    python3 scripts/compare_urdf.py                      # the Panda, the UR5, Solo-12 and A1 (floating), and the test quadruped
    python3 scripts/compare_urdf.py path/to/robot.urdf   # any file routh reads
    python3 scripts/compare_urdf.py --floating path/to/quadruped.urdf
    python3 scripts/compare_urdf.py --native             # routh built with -C target-cpu=native too

A second table, for each robot without a floating joint, compares the products a controller asks
for, each against its Pinocchio twin at the same state (the model read with `inputs = u`, a torque
on each joint): the inverse dynamics τ(q, q̇, q̈) (`inverse_dynamics` against `rnea`, plus the
damping's d q̇, a force of routh's model), M (`mass_matrix` against `crba`), and the field's
derivatives ∂q̈/∂q, ∂q̈/∂q̇ and ∂q̈/∂τ = M⁻¹ (`linearize`: A and B, against
`computeABADerivatives`, whose ∂q̈/∂v gets the damping's −M⁻¹ D), and the inverse dynamics'
∂τ/∂q and ∂τ/∂q̇ at the same accelerations (`inverse_dynamics_jacobian` against
`computeRNEADerivatives`, whose ∂τ/∂v gets the damping's D). It prints the agreement of each
(max |Δ| / max |reference|; routh's A also against central differences of its field, h = 10⁻⁶),
then the time per call of each side and their ratio.

Optional: nothing here runs in the test suite.
"""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_pinocchio  # noqa: E402
from chain_scale import REPO, TARGET, WORK, cargo_env  # noqa: E402


def prefix():
    import cmeel

    return Path(cmeel.__file__).resolve().parent.parent / "cmeel.prefix"


def default_robots():
    robots = prefix() / "share" / "example-robot-data" / "robots"
    return [
        robots / "panda_description" / "urdf" / "panda.urdf",
        robots / "ur_description" / "urdf" / "ur5_robot.urdf",
        floating(robots / "solo_description" / "robots" / "solo12.urdf"),
        floating(robots / "a1_description" / "urdf" / "a1.urdf"),
        REPO / "tests" / "robots" / "quadruped.urdf",
    ]


def floating(urdf):
    """A copy of `urdf` whose root link hangs from a new link `world` on a floating joint `root`."""
    import xml.etree.ElementTree as ET

    tree = ET.parse(urdf)
    robot = tree.getroot()
    links = {link.get("name") for link in robot.findall("link")}
    children = {joint.find("child").get("link") for joint in robot.findall("joint")}
    (root,) = sorted(links - children)
    world = ET.SubElement(robot, "link", name="world")
    joint = ET.SubElement(robot, "joint", name="root", type="floating")
    ET.SubElement(joint, "parent", link="world")
    ET.SubElement(joint, "child", link=root)
    del world
    WORK.mkdir(parents=True, exist_ok=True)
    copy = WORK / (Path(urdf).stem + "_floating.urdf")
    tree.write(copy)
    return copy


def pinocchio_binary():
    return compare_pinocchio.compile_harness("urdf_aba")


def pinocchio_tree(urdf):
    """The model Pinocchio's parser builds from `urdf`, one joint per line (see urdf_aba.cpp), and
    the model itself."""
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(urdf))
    lines = []
    for j in range(1, model.njoints):
        joint = model.joints[j]
        kind = joint.shortname().removeprefix("JointModel")
        axis = list(joint.extract().axis) if kind.endswith("Unaligned") else [0.0, 0.0, 0.0]
        placement, inertia = model.jointPlacements[j], model.inertias[j]
        damping = model.damping[joint.idx_v] if joint.nv == 1 else 0.0
        numbers = (
            axis + list(placement.rotation.flatten()) + list(placement.translation) + [inertia.mass]
            + list(inertia.lever) + list(inertia.inertia.flatten()) + [damping]
        )
        lines.append(" ".join([model.names[j], str(model.parents[j]), kind] + [repr(float(x)) for x in numbers]))
    path = WORK / (Path(urdf).stem + ".tree")
    path.write_text("\n".join(lines) + "\n")
    return path, model


def pinocchio_state(model, names, rates, q, v):
    """routh's state (position names `names`, velocity names `rates`, values `q`, `v`) as
    Pinocchio's (q, v) for `model`, and the map of Pinocchio's v̇ back onto routh's q̈."""
    import numpy as np
    import pinocchio as pin

    at = {name: k for k, name in enumerate(names)}
    rate = {name: k for k, name in enumerate(rates)}
    pq, pv = np.array(pin.neutral(model)), np.zeros(model.nv)
    backs = []
    for j in range(1, model.njoints):
        joint, name = model.joints[j], model.names[j]
        kind = joint.shortname().removeprefix("JointModel")
        iq, iv = joint.idx_q, joint.idx_v
        if kind == "FreeFlyer":
            w, x, y, z = (q[at[f"{name}_q_{c}"]] for c in "wxyz")
            norm = (w * w + x * x + y * y + z * z) ** 0.5
            quat = pin.Quaternion(w / norm, x / norm, y / norm, z / norm)
            rot = quat.matrix()
            xdot = np.array([v[rate[f"dot({name}_{c})"]] for c in "xyz"])
            omega = np.array([v[rate[f"omega{k}({name}_q)"]] for k in (1, 2, 3)])
            local = rot.T @ xdot
            pq[iq:iq + 7] = [q[at[f"{name}_{c}"]] for c in "xyz"] + [quat.x, quat.y, quat.z, quat.w]
            pv[iv:iv + 6] = list(local) + list(omega)

            def back(a, out, iv=iv, rot=rot, local=local, omega=omega, name=name):
                xdd = rot @ (a[iv:iv + 3] + np.cross(omega, local))
                for k, c in enumerate("xyz"):
                    out[rate[f"dot({name}_{c})"]] = xdd[k]
                for k in range(3):
                    out[rate[f"omega{k + 1}({name}_q)"]] = a[iv + 3 + k]

            backs.append(back)
        elif joint.nv == 1:
            theta = q[at[name]]
            if joint.nq == 2:
                pq[iq:iq + 2] = [np.cos(theta), np.sin(theta)]
            else:
                pq[iq] = theta
            pv[iv] = v[rate[f"dot({name})"]]
            backs.append(lambda a, out, iv=iv, name=name: out.__setitem__(rate[f"dot({name})"], a[iv]))
        else:
            raise SystemExit(f"joint {name}: {kind} is not mapped onto routh's state here")

    def to_routh(a):
        out = [0.0] * len(rates)
        for back in backs:
            back(np.array(a), out)
        return out

    return pq, pv, to_routh


def routh_source(urdf):
    return f"""#![allow(dead_code)]
use routh::prelude::*;
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics(urdf = "{urdf}", gravity = [0, 0, -g])]
pub struct Robot {{ pub g: f64 }}

fn main() {{
    let sys = Robot {{ g: 9.81 }};
    let n = Robot::DOF;
    let p = Robot::STATE_DIM - n;
    let x = State::<{{ Robot::STATE_DIM }}>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0 - 0.2 * (i % 2) as f64);
{compare_pinocchio.timed_field("2_000_000 / (n + 20)")}    let join = |v: &[f64]| v.iter().map(|v| format!("{{v:e}}")).collect::<Vec<_>>().join(",");
    println!("{{}} {{:e}}", Robot::DYNAMICS, best);
    println!("{{}}", Robot::COORDINATES.join(","));
    println!("{{}}", Robot::STATE_NAMES[p..].join(","));
    println!("{{}}", join(&x.as_slice()[..p]));
    println!("{{}}", join(&x.as_slice()[p..]));
    println!("{{}}", join(&field.as_slice()[p..]));
}}
"""


def control_source(urdf):
    """A main for the second table: the robot with a torque on each joint; prints the times per
    call of the field, `inverse_dynamics`, `mass_matrix` and `linearize` (A and B), then the names
    and the state, the accelerations a given to the inverse dynamics, q̈, τ(a), M, A's q̈ rows, B's
    q̈ rows and the central differences of the field's q̈ rows."""
    return f"""#![allow(dead_code)]
use routh::nalgebra::SVector;
use routh::prelude::*;
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics(urdf(path = "{urdf}", inputs = u), gravity = [0, 0, -g])]
pub struct Robot {{ pub g: f64 }}

const K: usize = Robot::INPUTS.len();
const N: usize = Robot::DOF;
const D: usize = Robot::STATE_DIM;

/// The best of five rounds of `reps` calls, seconds per call.
fn best(reps: usize, mut call: impl FnMut()) -> f64 {{
    let mut best = f64::INFINITY;
    for _ in 0..5 {{
        let start = std::time::Instant::now();
        for _ in 0..reps {{
            call();
        }}
        best = best.min(start.elapsed().as_secs_f64() / reps as f64);
    }}
    best
}}

fn main() {{
    let sys = Robot {{ g: 9.81 }};
    let view = sys.driven([0.0; K]);
    let p = D - N;
    let x = State::<D>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0 - 0.2 * (i % 2) as f64);
    let a = SVector::<f64, N>::from_fn(|i, _| 0.3 - 0.17 * ((i * 31) % 7) as f64);
    let reps = 2_000_000 / (N + 20);
    let t_field = best(reps, || {{ black_box(view.field(0.0, black_box(&x)).unwrap()); }});
    let t_id = best(reps, || {{ black_box(view.inverse_dynamics(0.0, black_box(&x), black_box(&a)).unwrap()); }});
    let t_mass = best(reps, || {{ black_box(view.mass_matrix(0.0, black_box(&x))); }});
    let t_lin = best(reps / 4 + 1, || {{ black_box(sys.linearize(0.0, black_box(&x), [0.0; K]).unwrap()); }});
    let t_idj = best(reps / 4 + 1, || {{ black_box(view.inverse_dynamics_jacobian(0.0, black_box(&x), black_box(&a)).unwrap()); }});
    let (tq, tv) = view.inverse_dynamics_jacobian(0.0, &x, &a).unwrap();
    let field = view.field(0.0, &x).unwrap();
    let tau = view.inverse_dynamics(0.0, &x, &a).unwrap();
    let mass = view.mass_matrix(0.0, &x);
    let lin = sys.linearize(0.0, &x, [0.0; K]).unwrap();
    let h = 1e-6;
    let fd = routh::nalgebra::SMatrix::<f64, D, D>::from_fn(|i, j| {{
        let (mut up, mut down) = (x, x);
        up[j] += h;
        down[j] -= h;
        (view.field(0.0, &up).unwrap()[i] - view.field(0.0, &down).unwrap()[i]) / (2.0 * h)
    }});
    let join = |v: &mut dyn Iterator<Item = f64>| v.map(|v| format!("{{v:e}}")).collect::<Vec<_>>().join(",");
    let rows = |m: &dyn Fn(usize, usize) -> f64, cols: usize| join(&mut (p..D).flat_map(|i| (0..cols).map(move |j| m(i, j))));
    println!("{{t_field:e}} {{t_id:e}} {{t_mass:e}} {{t_lin:e}} {{t_idj:e}}");
    println!("{{}}", Robot::COORDINATES.join(","));
    println!("{{}}", Robot::STATE_NAMES[p..].join(","));
    println!("{{}}", Robot::INPUTS.join(","));
    println!("{{}}", join(&mut x.as_slice()[..p].iter().copied()));
    println!("{{}}", join(&mut x.as_slice()[p..].iter().copied()));
    println!("{{}}", join(&mut a.iter().copied()));
    println!("{{}}", join(&mut field.as_slice()[p..].iter().copied()));
    println!("{{}}", join(&mut tau.iter().copied()));
    println!("{{}}", join(&mut mass.transpose().iter().copied()));
    println!("{{}}", rows(&|i, j| lin.a[(i, j)], D));
    println!("{{}}", rows(&|i, j| lin.b[(i, j)], K));
    println!("{{}}", rows(&|i, j| fd[(i, j)], D));
    println!("{{}}", join(&mut tq.transpose().iter().copied()));
    println!("{{}}", join(&mut tv.transpose().iter().copied()));
}}
"""


def build_crate(name, source, timed=True):
    """Writes the crate `name` with `source` as its main, builds it with `--release`, and (`timed`)
    times the build again (the crate alone: its dependencies are built): (binary, (wall s, peak MB)
    or None)."""
    crate = WORK / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2024"\n\n'
        f'[dependencies]\nrouth = {{ path = "{REPO}" }}\n\n[workspace]\n'
    )
    (crate / "src" / "main.rs").write_text(source)
    env = cargo_env()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate, env=env, check=True)
    if not timed:
        return TARGET / "release" / name, None
    # The build again, timed: the model's crate alone (its dependencies are built).
    (crate / "src" / "main.rs").touch()
    timed = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", "cargo", "build", "--release", "--quiet"], cwd=crate, env=env, check=True,
        capture_output=True, text=True,
    )
    seconds, kb = timed.stderr.strip().splitlines()[-1].split()
    return TARGET / "release" / name, (float(seconds), float(kb) / 1024)


def run_routh(urdf):
    """Builds and runs routh's model of `urdf`: (dynamics, field s/call, position names, velocity
    names, q, v, v̇, build)."""
    name = "urdf_" + "".join(c if c.isalnum() else "_" for c in Path(urdf).stem)
    exe, build = build_crate(name, routh_source(Path(urdf).resolve()))
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    floats = lambda s: [float(v) for v in s.split(",")]  # noqa: E731
    return out[0], float(out[1]), out[2].split(","), out[3].split(","), floats(out[4]), floats(out[5]), floats(out[6]), build


def comparable(urdf):
    """`urdf` itself, or a copy without what the two sides read differently: its `<mimic .../>`
    elements (a constraint in routh, ignored by Pinocchio's parser) and its joints' Coulomb
    friction (refused by routh, not applied by Pinocchio's ABA)."""
    import re

    text = Path(urdf).read_text()
    stripped = re.sub(r"<mimic\b[^>]*/>", "", text)
    stripped = re.sub(r'\bfriction="[^"]*"', 'friction="0"', stripped)
    if stripped == text:
        return Path(urdf)
    WORK.mkdir(parents=True, exist_ok=True)
    copy = WORK / (Path(urdf).stem + "_free.urdf")
    copy.write_text(stripped)
    return copy


def control(urdf, exe):
    """The second table's row for `urdf` (no floating joint)."""
    import numpy as np

    name = "control_" + "".join(c if c.isalnum() else "_" for c in Path(urdf).stem)
    binary, _ = build_crate(name, control_source(Path(urdf).resolve()), timed=False)
    lines = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.splitlines()
    times = [float(w) for w in lines[0].split()]
    names, rates, inputs = (line.split(",") for line in lines[1:4])
    q, v, a, qdd, tau, mass, jac, b, fd, tq, tv = ([float(w) for w in line.split(",")] for line in lines[4:15])
    n, k = len(rates), len(inputs)
    tree, model = pinocchio_tree(urdf)
    pq, pv, _ = pinocchio_state(model, names, rates, q, v)
    # Pinocchio's velocity index of each of routh's (one per joint: no floating joint here).
    order = np.zeros(n, dtype=int)
    for j in range(1, model.njoints):
        order[rates.index(f"dot({model.names[j]})")] = model.joints[j].idx_v
    pa = np.zeros(model.nv)
    pa[order] = a
    csv = lambda xs: ",".join(repr(float(x)) for x in xs)  # noqa: E731
    out = subprocess.run([str(exe), str(tree), csv(pq), csv(pv), csv(pa)], capture_output=True, text=True, check=True)
    words = out.stdout.splitlines()
    t_aba = float(words[0])
    t_rnea, t_crba, t_deriv, t_rnea_deriv = (float(w) for w in words[2].split())
    vec = lambda line: np.array([float(w) for w in line.split(",")])  # noqa: E731
    mat = lambda line: vec(line).reshape(model.nv, model.nv)[np.ix_(order, order)]  # noqa: E731
    p_qdd, p_tau = vec(words[1])[order], vec(words[3])[order]
    p_mass, p_dq, p_dv, p_minv, p_tq, p_tv = (mat(line) for line in words[4:10])
    damping = np.array(model.damping)[order]
    p_tau = p_tau + damping * np.array(v)
    p_dv = p_dv - p_minv * damping[None, :]
    # τ_routh = rnea + D q̇ (the damping is a force of routh's model): ∂τ/∂q̇ gets D; routh's ∂τ/∂q by
    # its coordinates in Pinocchio's order of velocities.
    p_tv = p_tv + np.diag(damping)
    jac = np.array(jac).reshape(n, 2 * n)
    position = [names.index(name) for name in rates_to_names(rates)]
    r_dq, r_dv = jac[:, position], jac[:, n:]
    # B's column of the input on each joint: u_<joint>.
    columns = [inputs.index(f"u_{name}") for name in rates_to_names(rates)]
    r_minv = np.array(b).reshape(n, k)[:, columns]
    gap = lambda mine, theirs: float(np.max(np.abs(np.asarray(mine) - theirs)) / np.max(np.abs(theirs)))  # noqa: E731
    fd_gap = gap(jac, np.array(fd).reshape(n, 2 * n))
    r_tq = np.array(tq).reshape(n, n)[:, position]
    r_tv = np.array(tv).reshape(n, n)
    agreement = [gap(qdd, p_qdd), gap(tau, p_tau), gap(np.array(mass).reshape(n, n), p_mass),
                 gap(r_dq, p_dq), gap(r_dv, p_dv), gap(r_minv, p_minv), gap(r_tq, p_tq), gap(r_tv, p_tv), fd_gap]
    t_field, t_id, t_mass, t_lin, t_idj = times
    print(
        f"| {Path(urdf).stem} | {n} | " + " | ".join(f"{g:.0e}" for g in agreement)
        + f" | {1e9 * t_field:.0f} / {1e9 * t_aba:.0f} ns = {t_field / t_aba:.2f}"
        + f" | {1e9 * t_id:.0f} / {1e9 * t_rnea:.0f} ns = {t_id / t_rnea:.2f}"
        + f" | {1e9 * t_mass:.0f} / {1e9 * t_crba:.0f} ns = {t_mass / t_crba:.2f}"
        + f" | {1e9 * t_lin:.0f} / {1e9 * t_deriv:.0f} ns = {t_lin / t_deriv:.2f}"
        + f" | {1e9 * t_idj:.0f} / {1e9 * t_rnea_deriv:.0f} ns = {t_idj / t_rnea_deriv:.2f} |",
        flush=True,
    )


def rates_to_names(rates):
    """The joint of each velocity `dot(name)`."""
    return [r.removeprefix("dot(").removesuffix(")") for r in rates]


def main():
    args = sys.argv[1:]
    wrap = "--floating" in args
    args = [a for a in args if a not in ("--floating", "--native")]
    robots = [comparable(floating(a) if wrap else a) for a in args] or [comparable(r) for r in default_robots()]
    exe = pinocchio_binary()
    print()
    print("| robot | n | routh dynamics | max |Δq̈| / max |q̈| | routh field per call | Pinocchio ABA per call | routh / Pinocchio | build, peak memory |")
    print("|---|---|---|---|---|---|---|---|")
    for urdf in robots:
        path, tr, names, rates, q, v, qdd, (bs, bm) = run_routh(urdf)
        csv = lambda xs: ",".join(repr(float(x)) for x in xs)  # noqa: E731
        tree, model = pinocchio_tree(urdf)
        pq, pv, to_routh = pinocchio_state(model, names, rates, q, v)
        out = subprocess.run([str(exe), str(tree), csv(pq), csv(pv)], capture_output=True, text=True, check=True)
        words = out.stdout.split()
        tp, pin = float(words[0]), to_routh([float(x) for x in words[1].split(",")])
        gap = max(abs(a - b) for a, b in zip(qdd, pin)) / max(abs(b) for b in pin)
        print(f"| {urdf.stem} | {len(v)} | {path} | {gap:.1e} | {1e9 * tr:.0f} ns | {1e9 * tp:.0f} ns | {tr / tp:.2f} | {bs:.1f} s, {bm:.0f} MB |", flush=True)
    fixed = [urdf for urdf in robots if 'type="floating"' not in Path(urdf).read_text()]
    if fixed:
        print()
        print("Agreement (max |Δ| / max |Pinocchio's|), then routh / Pinocchio per call:")
        print()
        print("| robot | n | q̈ | τ | M | ∂q̈/∂q | ∂q̈/∂q̇ | ∂q̈/∂τ | ∂τ/∂q | ∂τ/∂q̇ | A vs differences | field / ABA | inverse_dynamics / rnea | mass_matrix / crba | linearize / computeABADerivatives | inverse_dynamics_jacobian / computeRNEADerivatives |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for urdf in fixed:
            control(urdf, exe)


if __name__ == "__main__":
    main()
