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
URDF usually) is given one with `--floating`: routh reads the file with `urdf(path = ...,
root = floating)`, Pinocchio a copy whose root link hangs from a new world link on a floating joint
`root`.

    pip install pin cmeel-eigen example-robot-data   # Pinocchio, Eigen's headers, robots
    python3 scripts/compare_urdf.py                      # the Panda, the UR5, Solo-12 and A1 (floating), and the test quadruped
    python3 scripts/compare_urdf.py path/to/robot.urdf   # any file routh reads
    python3 scripts/compare_urdf.py --floating path/to/quadruped.urdf
    python3 scripts/compare_urdf.py --native             # routh built with -C target-cpu=native too
    python3 scripts/compare_urdf.py --target-cpu=x86-64-v3   # routh built for AVX2 and FMA
    python3 scripts/compare_urdf.py --round-angles=1e-9  # routh reads each file with round_angles = 1e-9
    python3 scripts/compare_urdf.py --repeat=5           # each side's least time of five runs, interleaved
    python3 scripts/compare_urdf.py --lock=elbow=0.7,wrist_2 path   # joints held fixed on both sides

`--round-angles=TOL` reads each file into routh with `urdf(path = ..., round_angles = TOL)`: an angle
within TOL of a multiple of π/4 or π/6 (the UR5's 1.57079632679) as that multiple; Pinocchio reads
it as written, so that q̈ then agrees to about TOL rather than to round-off.

A second table, for each robot, compares the products a controller asks for, each against its
Pinocchio twin at the same state (the model read with `inputs = u`, a torque on each joint; a
floating base's velocities, forces and derivatives mapped onto routh's chart by `Base`): the inverse dynamics τ(q, q̇, q̈) (`inverse_dynamics` against `rnea`, plus the
damping's d q̇, a force of routh's model), M (`mass_matrix` against `crba`), and the field's
derivatives ∂q̈/∂q, ∂q̈/∂q̇ and ∂q̈/∂τ = M⁻¹ (`linearize`: A and B, against
`computeABADerivatives`, whose ∂q̈/∂v gets the damping's −M⁻¹ D), and the inverse dynamics'
∂τ/∂q and ∂τ/∂q̇ at the same accelerations (`inverse_dynamics_jacobian` against
`computeRNEADerivatives`, whose ∂τ/∂v gets the damping's D), and the gravity torques g(q) that
hold the robot still (`static_forces` against `computeGeneralizedGravity`). It prints the agreement of each
(max |Δ| / max |reference|; routh's A also against central differences of its field, h = 10⁻⁶),
then the time per call of each side and their ratio. A floating robot's `linearize` cell also
gives `linearize_chart` and `linearize_tangent` against `computeABADerivatives`: the same
derivatives in the chart of the base's body rotation vector (Pinocchio's own tangent space, where
`linearize` is in the quaternion's components), A and B as fixed-size matrices, and the same with
the chart's names, embedding and the mechanical form M δq̈ + C δq̇ + K δq = B δu.

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
        floating(comparable(robots / "solo_description" / "robots" / "solo12.urdf")),
        floating(comparable(robots / "a1_description" / "urdf" / "a1.urdf")),
        REPO / "tests" / "robots" / "quadruped.urdf",
    ]


# Each floating copy (Pinocchio's file) by the file it was made from, which routh reads with
# `root = floating` (the same joint `root`, added by routh's reader).
ROOTED = {}


def floating(urdf):
    """A copy of `urdf` whose root link hangs from a new link `world` on a floating joint `root`,
    for Pinocchio; routh reads `urdf` itself with `root = floating`."""
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
    ROOTED[str(copy.resolve())] = Path(urdf).resolve()
    return copy


def pinocchio_binary():
    return compare_pinocchio.compile_harness("urdf_aba")


def pinocchio_tree(urdf):
    """The model Pinocchio's parser builds from `urdf`, one joint per line (see urdf_aba.cpp), and
    the model itself."""
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(urdf))
    if LOCK:
        import numpy as np

        reference = pin.neutral(model)
        ids = []
        for name, value in LOCK:
            joint = model.joints[model.getJointId(name)]
            if joint.nq == 2:  # a continuous joint's (cos, sin)
                reference[joint.idx_q : joint.idx_q + 2] = [np.cos(value), np.sin(value)]
            else:
                reference[joint.idx_q] = value
            ids.append(model.getJointId(name))
        model = pin.buildReducedModel(model, ids, reference)
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


# `--round-angles=TOL`: the files read into routh with `round_angles = TOL` (see the docstring).
ROUND = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--round-angles=")), None)
# `--repeat=K`: each side's binary run K times, the two alternating, and each time the least of its
# K (single runs on a shared 2-core machine move by up to a half).
REPEAT = int(next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--repeat=")), "1"))
# `--lock=elbow=0.7,wrist_2`: the joints held fixed (at the value given, or 0) on both sides —
# routh's `lock = [...]`, Pinocchio's `buildReducedModel` at that configuration.
LOCK = [
    (name, float(value) if value else 0.0)
    for name, _, value in (
        entry.partition("=")
        for entry in next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--lock=")), "").split(",")
        if entry
    )
]


def urdf_item(urdf, inputs=False):
    """The model's `urdf(...)` item for `urdf`, with a torque on each joint (`inputs`) and the
    angles rounded as asked."""
    extra = (", inputs = u" if inputs else "") + (f", round_angles = {ROUND}" if ROUND else "")
    if LOCK:
        extra += ", lock = [" + ", ".join(f"{name} = {value!r}" for name, value in LOCK) + "]"
    original = ROOTED.get(str(Path(urdf).resolve()))
    if original is not None:
        return f'urdf(path = "{original}", root = floating{extra})'
    return f'urdf(path = "{urdf}"{extra})'


def crate_name(prefix, urdf):
    """The name of the crate of `urdf`'s model (rounded angles apart)."""
    return prefix + "".join(c if c.isalnum() else "_" for c in Path(urdf).stem) + ("_rounded" if ROUND else "")


def routh_source(urdf):
    return f"""#![allow(dead_code)]
use routh::prelude::*;
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics({urdf_item(urdf)}, gravity = [0, 0, -g])]
pub struct Robot {{ pub g: f64 }}

{compare_pinocchio.BEST_OF_FIVE}
fn main() {{
    let sys = Robot {{ g: 9.81 }};
    let n = Robot::DOF;
    let p = Robot::STATE_DIM - n;
    let x = State::<{{ Robot::STATE_DIM }}>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0 - 0.2 * (i % 2) as f64);
{compare_pinocchio.timed_field("2_000_000 / (n + 20)")}    let join = |v: &[f64]| v.iter().map(|v| format!("{{v:e}}")).collect::<Vec<_>>().join(",");
    println!("{{}} {{:e}}", Robot::DYNAMICS, t_field);
    println!("{{}}", Robot::COORDINATES.join(","));
    println!("{{}}", Robot::STATE_NAMES[p..].join(","));
    println!("{{}}", join(&x.as_slice()[..p]));
    println!("{{}}", join(&x.as_slice()[p..]));
    println!("{{}}", join(&field.as_slice()[p..]));
}}
"""


def control_source(urdf, tangent=False):
    """A main for the second table: the robot with a torque on each joint; prints the times per
    call of the field, `inverse_dynamics`, `mass_matrix`, `linearize` (A and B),
    `inverse_dynamics_jacobian`, `static_forces` and (`tangent`: a robot with a floating base)
    `linearize_tangent`, then the names and the state, the
    accelerations a given to the inverse dynamics, q̈, τ(a), M, A's q̈ rows, B's q̈ rows, the
    central differences of the field's q̈ rows, ∂τ/∂q, ∂τ/∂q̇ and the static forces."""
    return f"""#![allow(dead_code)]
use routh::nalgebra::SVector;
use routh::prelude::*;
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics({urdf_item(urdf, inputs=True)}, gravity = [0, 0, -g])]
pub struct Robot {{ pub g: f64 }}

const K: usize = Robot::INPUTS.len();
const N: usize = Robot::DOF;
const D: usize = Robot::STATE_DIM;

{compare_pinocchio.BEST_OF_FIVE}
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
    let t_static = best(reps, || {{ black_box(view.static_forces(0.0, black_box(&x))); }});
    {tangent_timing(tangent)}
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
    println!("{{t_field:e}} {{t_id:e}} {{t_mass:e}} {{t_lin:e}} {{t_idj:e}} {{t_static:e}} {{t_tan:e}} {{t_chart:e}}");
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
    println!("{{}}", join(&mut view.static_forces(0.0, &x).iter().copied()));
}}
"""


def tangent_timing(tangent):
    """The harness's `t_tan` and `t_chart`: `linearize_tangent` and `linearize_chart` (its A and B as
    fixed-size matrices) per call for a robot with an orientation (its floating base), 0 without one
    (the methods exist only with orientations)."""
    if not tangent:
        return "let (t_tan, t_chart) = (0.0_f64, 0.0_f64);"
    return (
        "let t_tan = best(reps / 4 + 1, || { black_box(view.linearize_tangent(0.0, black_box(&x)).unwrap()); });\n"
        "    let t_chart = best(reps / 4 + 1, || { black_box(view.linearize_chart(0.0, black_box(&x)).unwrap()); });"
    )


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


def run_routh(urdf, build=True):
    """Builds and runs routh's model of `urdf`: (dynamics, field s/call, position names, velocity
    names, q, v, v̇, build) — without `build`, runs the binary built before (no build time)."""
    name = crate_name("urdf_", urdf)
    exe, build = build_crate(name, routh_source(Path(urdf).resolve())) if build else (TARGET / "release" / name, None)
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
    """The second table's row for `urdf` (at most one floating joint, see `Base`)."""
    import numpy as np

    name = crate_name("control_", urdf)
    tangent = 'type="floating"' in Path(urdf).read_text()
    binary, _ = build_crate(name, control_source(Path(urdf).resolve(), tangent), timed=False)
    lines = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.splitlines()
    times = [float(w) for w in lines[0].split()]
    routh_again = lambda: [float(w) for w in subprocess.run(  # noqa: E731
        [str(binary)], capture_output=True, text=True, check=True).stdout.splitlines()[0].split()]
    names, rates, inputs = (line.split(",") for line in lines[1:4])
    q, v, a, qdd, tau, mass, jac, b, fd, tq, tv, held = ([float(w) for w in line.split(",")] for line in lines[4:16])
    n, k, p = len(rates), len(inputs), len(names)
    tree, model = pinocchio_tree(urdf)
    pq, pv, _ = pinocchio_state(model, names, rates, q, v)
    # Pinocchio's velocity index of each of routh's.
    order = np.zeros(n, dtype=int)
    for j in range(1, model.njoints):
        joint, jname = model.joints[j], model.names[j]
        if joint.shortname() == "JointModelFreeFlyer":
            for i, rate in enumerate([f"dot({jname}_{c})" for c in "xyz"] + [f"omega{c}({jname}_q)" for c in (1, 2, 3)]):
                order[rates.index(rate)] = joint.idx_v + i
        else:
            order[rates.index(f"dot({jname})")] = joint.idx_v
    base = Base(model, names, rates, q, v)
    pa = np.zeros(model.nv)
    pa[order] = base.to_pinocchio_accelerations(np.array(a))
    csv = lambda xs: ",".join(repr(float(x)) for x in xs)  # noqa: E731
    run_pinocchio = lambda: subprocess.run(  # noqa: E731
        [str(exe), str(tree), csv(pq), csv(pv), csv(pa)], capture_output=True, text=True, check=True).stdout.splitlines()
    words = run_pinocchio()
    t_aba = float(words[0])
    t_rnea, t_crba, t_deriv, t_rnea_deriv, t_gravity = (float(w) for w in words[2].split())
    for _ in range(REPEAT - 1):
        times = [min(a, b) for a, b in zip(times, routh_again())]
        again = run_pinocchio()
        t_aba = min(t_aba, float(again[0]))
        pin_times = (t_rnea, t_crba, t_deriv, t_rnea_deriv, t_gravity)
        t_rnea, t_crba, t_deriv, t_rnea_deriv, t_gravity = (min(a, float(b)) for a, b in zip(pin_times, again[2].split()))
    vec = lambda line: np.array([float(w) for w in line.split(",")])  # noqa: E731
    mat = lambda line: vec(line).reshape(model.nv, model.nv)[np.ix_(order, order)]  # noqa: E731
    p_qdd, p_tau = vec(words[1])[order], vec(words[3])[order]
    p_mass, p_dq, p_dv, p_minv, p_tq, p_tv = (mat(line) for line in words[4:10])
    # g(q) by power in routh's velocities (Tᵀ g: the trunk's force in the world's axes).
    p_held = base.t.T @ vec(words[10])[order] if base.floating else vec(words[10])[order]
    # Pinocchio's derivatives do not see the damping (τ is an argument): τ_routh = rnea + D q̇ (a
    # force of routh's model), so ∂τ/∂q̇ gets D and ∂q̈/∂q̇ gets −M⁻¹ D.
    damping = np.array(model.damping)[order]
    p_tau = p_tau + damping * np.array(pv)[order]
    p_dv = p_dv - p_minv * damping[None, :]
    p_tv = p_tv + np.diag(damping)
    # Pinocchio's products in routh's velocities and chart (the identity without a floating joint).
    p_qdd, p_tau, p_mass, p_dq, p_dv, p_tq, p_tv = base.to_routh(p_qdd, p_tau, p_mass, p_dq, p_dv, p_tq, p_tv, np.array(a))
    # ∂q̈/∂τ: the inputs' columns (a torque on each joint, none on a floating base) of T⁻¹ M⁻¹.
    joints = [i for i, r in enumerate(rates) if r.startswith("dot(") and f"u_{rates_to_names([r])[0]}" in inputs]
    p_minv = (base.t_inv @ p_minv)[:, joints]
    columns = [inputs.index(f"u_{name}") for name in rates_to_names([rates[i] for i in joints])]
    r_minv = np.array(b).reshape(n, k)[:, columns]
    jac = np.array(jac).reshape(n, p + n)
    # ∂q̈/∂q along the chart: each position column as it is, an orientation's along its body
    # rotation vector (K(q) = ∂q̇/∂v, the chart of `inverse_dynamics_jacobian`).
    r_dq, r_dv = jac[:, :p] @ base.rates, jac[:, p:]
    gap = lambda mine, theirs: float(np.max(np.abs(np.asarray(mine) - theirs)) / np.max(np.abs(theirs)))  # noqa: E731
    fd_gap = gap(jac, np.array(fd).reshape(n, p + n))
    r_tq = np.array(tq).reshape(n, n)
    if not base.floating:
        # Without orientations routh's ∂τ/∂q is over the coordinates, in their order.
        r_tq = r_tq[:, [names.index(name) for name in rates_to_names(rates)]]
    r_tv = np.array(tv).reshape(n, n)
    agreement = [gap(qdd, p_qdd), gap(tau, p_tau), gap(np.array(mass).reshape(n, n), p_mass),
                 gap(r_dq, p_dq), gap(r_dv, p_dv), gap(r_minv, p_minv), gap(r_tq, p_tq), gap(r_tv, p_tv), gap(held, p_held),
                 fd_gap]
    t_field, t_id, t_mass, t_lin, t_idj, t_static, t_tan, t_chart = times
    # With a floating base, `linearize_chart` and `linearize_tangent` too: the same derivatives in
    # the chart of the orientation's body rotation vector (Pinocchio's own tangent space), the
    # second with its names, embedding and mechanical form.
    tangent_cell = (
        f" (`linearize_chart` {1e9 * t_chart:.0f} ns = {t_chart / t_deriv:.2f}, "
        f"`linearize_tangent` {1e9 * t_tan:.0f} ns = {t_tan / t_deriv:.2f})"
        if t_tan > 0
        else ""
    )
    print(
        f"| {Path(urdf).stem} | {n} | " + " | ".join(f"{g:.0e}" for g in agreement)
        + f" | {1e9 * t_field:.0f} / {1e9 * t_aba:.0f} ns = {t_field / t_aba:.2f}"
        + f" | {1e9 * t_id:.0f} / {1e9 * t_rnea:.0f} ns = {t_id / t_rnea:.2f}"
        + f" | {1e9 * t_mass:.0f} / {1e9 * t_crba:.0f} ns = {t_mass / t_crba:.2f}"
        + f" | {1e9 * t_lin:.0f} / {1e9 * t_deriv:.0f} ns = {t_lin / t_deriv:.2f}{tangent_cell}"
        + f" | {1e9 * t_idj:.0f} / {1e9 * t_rnea_deriv:.0f} ns = {t_idj / t_rnea_deriv:.2f}"
        + f" | {1e9 * t_static:.0f} / {1e9 * t_gravity:.0f} ns = {t_static / t_gravity:.2f} |",
        flush=True,
    )


class Base:
    """The map between Pinocchio's free-flyer and routh's floating joint, for the second table.

    routh's rates u are the translation's ẋ in the parent's axes and the body angular velocity ω;
    Pinocchio's v = T u with T = Rᵀ on the translation's rates (its body-frame linear velocity),
    the identity elsewhere, and its v̇ = T u̇ + Ṫ u, Ṫ u = (Rᵀ ẋ) × ω. Generalized forces map by
    power, τ_routh = Tᵀ τ_Pinocchio, and M_routh = Tᵀ M T. Pinocchio differentiates along q ⊕ δ,
    δ = (δp in the body's axes, δθ): the position moves by R δp and the rotation to R exp(δθ);
    routh's chart moves the translation by δx = R δp (δp = T δx) and the quaternion to
    q ⊗ exp(δθ/2), the same δθ. Differentiating v̇_P(q, T(q) u) = T(q) u̇ + Ṫ(q, u) u and
    τ_R = Tᵀ τ_P(q, T u, T a + Ṫ u) at fixed (u, a) with ∂(Rᵀ y)/∂δθ = [(Rᵀ y)×] and
    ∂(R y)/∂δθ = −R [y×] gives `to_routh`. Without a floating joint every map is the identity."""

    def __init__(self, model, names, rates, q, v):
        import numpy as np

        n, p = len(rates), len(names)
        self.n = n
        self.t, self.t_inv = np.eye(n), np.eye(n)
        # K(q) = ∂q̇/∂u over routh's positions: 1 for a coordinate's own rate, ½ q ⊗ (0, e_k) for
        # a quaternion's ω_k.
        self.rates = np.zeros((p, n))
        for i, rate in enumerate(rates):
            if rate.startswith("dot("):
                self.rates[names.index(rates_to_names([rate])[0]), i] = 1.0
        floating = [model.names[j] for j in range(1, model.njoints) if model.joints[j].shortname() == "JointModelFreeFlyer"]
        if len(floating) > 1:
            raise SystemExit("more than one floating joint: not mapped onto routh's state here")
        self.floating = bool(floating)
        if not floating:
            return
        (name,) = floating
        w, x, y, z = (q[names.index(f"{name}_q_{c}")] for c in "wxyz")
        quat = np.array([w, x, y, z])
        norm = np.linalg.norm(quat)
        qw, qv = w / norm, quat[1:] / norm
        skew = lambda u: np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])  # noqa: E731
        self.r = (qw * qw - qv @ qv) * np.eye(3) + 2 * np.outer(qv, qv) + 2 * qw * skew(qv)
        self.skew = skew
        self.lin = [rates.index(f"dot({name}_{c})") for c in "xyz"]
        self.ang = [rates.index(f"omega{c}({name}_q)") for c in (1, 2, 3)]
        quaternion = [names.index(f"{name}_q_{c}") for c in "wxyz"]
        for k, i in enumerate(self.ang):
            e = np.eye(3)[k]
            self.rates[quaternion, i] = 0.5 * np.concatenate([[-quat[1:] @ e], w * e + np.cross(quat[1:], e)])
        self.t[np.ix_(self.lin, self.lin)] = self.r.T
        self.t_inv[np.ix_(self.lin, self.lin)] = self.r
        u = np.array(v)
        self.omega, self.vlin = u[self.ang], self.r.T @ u[self.lin]

    def block(self, m3, rows=None, cols=None):
        """An n × n matrix with the 3 × 3 `m3` at (translation rates, rotation columns)."""
        import numpy as np

        out = np.zeros((self.n, self.n))
        out[np.ix_(rows or self.lin, cols or self.ang)] = m3
        return out

    def bias(self):
        """Ṫ u over routh's velocities: (Rᵀ ẋ) × ω on the translation's rows."""
        import numpy as np

        out = np.zeros(self.n)
        if self.floating:
            out[self.lin] = np.cross(self.vlin, self.omega)
        return out

    def to_pinocchio_accelerations(self, a):
        """Pinocchio's v̇ = T a + Ṫ u of routh's accelerations `a`."""
        return self.t @ a + self.bias()

    def to_routh(self, qdd, tau, mass, dq, dv, tq, tv, a):
        """Pinocchio's v̇, τ (at v̇ = T a + Ṫ u), M, ∂v̇/∂q, ∂v̇/∂v, ∂τ/∂q, ∂τ/∂v in routh's
        velocities and chart (routh's order of velocities throughout)."""
        import numpy as np

        t, ti = self.t, self.t_inv
        if not self.floating:
            return qdd, tau, mass, dq, dv, tq, tv
        sk, r = self.skew, self.r
        # ∂(Ṫ u)/∂u: −[ω×] Rᵀ along ẋ, [(Rᵀ ẋ)×] along ω.
        g = self.block(-sk(self.omega) @ r.T, cols=self.lin) + self.block(sk(self.vlin))
        u_dot = ti @ (qdd - self.bias())
        # Along δθ at fixed u: ∂v_P = [(Rᵀ ẋ)×], ∂(T u̇) = [(Rᵀ ẍ)×] u̇, ∂(Ṫ u) = −[ω×] [(Rᵀ ẋ)×].
        vq, cq = self.block(sk(self.vlin)), self.block(-sk(self.omega) @ sk(self.vlin))
        r_dv = ti @ (dv @ t - g)
        r_dq = ti @ (dq @ t + dv @ vq - self.block(sk(r.T @ u_dot[self.lin])) - cq)
        r_tv = t.T @ (tv @ t + mass @ g)
        r_tq = self.block(-r @ sk(tau[self.lin])) + t.T @ (tq @ t + tv @ vq + mass @ (self.block(sk(r.T @ a[self.lin])) + cq))
        return u_dot, t.T @ tau, t.T @ mass @ t, r_dq, r_dv, r_tq, r_tv


def rates_to_names(rates):
    """The joint of each velocity `dot(name)`."""
    return [r.removeprefix("dot(").removesuffix(")") for r in rates]


def main():
    args = sys.argv[1:]
    wrap = "--floating" in args
    args = [
        a for a in args
        if a not in ("--floating", "--native") and not a.startswith(("--round-angles=", "--repeat=", "--target-cpu=", "--lock="))
    ]
    robots = [floating(comparable(a)) if wrap else comparable(a) for a in args] or [comparable(r) for r in default_robots()]
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
        for _ in range(REPEAT - 1):
            tr = min(tr, run_routh(urdf, build=False)[1])
            again = subprocess.run([str(exe), str(tree), csv(pq), csv(pv)], capture_output=True, text=True, check=True)
            tp = min(tp, float(again.stdout.split()[0]))
        gap = max(abs(a - b) for a, b in zip(qdd, pin)) / max(abs(b) for b in pin)
        print(f"| {urdf.stem} | {len(v)} | {path} | {gap:.1e} | {1e9 * tr:.0f} ns | {1e9 * tp:.0f} ns | {tr / tp:.2f} | {bs:.1f} s, {bm:.0f} MB |", flush=True)
    if robots:
        print()
        print("Agreement (max |Δ| / max |Pinocchio's|), then routh / Pinocchio per call:")
        print()
        print("| robot | n | q̈ | τ | M | ∂q̈/∂q | ∂q̈/∂q̇ | ∂q̈/∂τ | ∂τ/∂q | ∂τ/∂q̇ | g | A vs differences | field / ABA | inverse_dynamics / rnea | mass_matrix / crba | linearize / computeABADerivatives | inverse_dynamics_jacobian / computeRNEADerivatives | static_forces / computeGeneralizedGravity |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for urdf in robots:
            control(urdf, exe)


if __name__ == "__main__":
    main()
