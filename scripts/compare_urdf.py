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

Optional: nothing here runs in the test suite.
"""

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_pinocchio  # noqa: E402
from chain_scale import REPO, TARGET, WORK  # noqa: E402


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


def run_routh(urdf):
    """Builds and runs routh's model of `urdf`: (dynamics, field s/call, position names, velocity
    names, q, v, v̇, build)."""
    name = "urdf_" + "".join(c if c.isalnum() else "_" for c in Path(urdf).stem)
    crate = WORK / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2024"\n\n'
        f'[dependencies]\nrouth = {{ path = "{REPO}" }}\n\n[workspace]\n'
    )
    (crate / "src" / "main.rs").write_text(routh_source(Path(urdf).resolve()))
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET))
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate, env=env, check=True)
    # The build again, timed: the model's crate alone (its dependencies are built).
    (crate / "src" / "main.rs").touch()
    timed = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", "cargo", "build", "--release", "--quiet"], cwd=crate, env=env, check=True,
        capture_output=True, text=True,
    )
    seconds, kb = timed.stderr.strip().splitlines()[-1].split()
    build = (float(seconds), float(kb) / 1024)
    out = subprocess.run([str(TARGET / "release" / name)], capture_output=True, text=True, check=True).stdout.split()
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


def main():
    args = sys.argv[1:]
    wrap = "--floating" in args
    args = [a for a in args if a != "--floating"]
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


if __name__ == "__main__":
    main()
