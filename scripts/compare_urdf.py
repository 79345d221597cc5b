#!/usr/bin/env python3
"""Read robots from their URDF files into routh and into Pinocchio, and compare q̈ and its cost.

routh reads each file at compile time (`#[mechanics(urdf = "...", gravity = [0, 0, -9.81])]`, in a
crate of its own built with `--release`); Pinocchio reads it with its own parser
(`pin.buildModelFromUrdf`), and `scripts/pinocchio/urdf_aba.cpp`, compiled with -O3 -march=native,
rebuilds that model joint by joint and times its ABA (a model built by the library's parser cannot
cross into code compiled with -march=native: its memory layout differs). Both compute q̈ at the same deterministic state, with the file's joint damping as
the torque −d q̇; the table gives the agreement first, then the time per call of routh's field and
of Pinocchio's ABA, and the cost of building the robot's binary (`cargo build --release` of its
crate once its dependencies are built: wall time and peak memory of the build). Pinocchio's parser ignores `<mimic>` by default (the joint is free), which
routh reads as a constraint: a file with mimic joints is compared as a copy without them, on both
sides (the Panda's second finger).

    pip install pin cmeel-eigen example-robot-data   # Pinocchio, Eigen's headers, robots
    python3 scripts/compare_urdf.py                      # the Panda and the UR5 of example-robot-data
    python3 scripts/compare_urdf.py path/to/robot.urdf   # any file routh reads

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
    return [robots / "panda_description" / "urdf" / "panda.urdf", robots / "ur_description" / "urdf" / "ur5_robot.urdf"]


def pinocchio_binary():
    return compare_pinocchio.compile_harness("urdf_aba")


def pinocchio_tree(urdf):
    """The model Pinocchio's parser builds from `urdf`, one joint per line (see urdf_aba.cpp)."""
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(urdf))
    lines = []
    for j in range(1, model.njoints):
        joint = model.joints[j]
        kind = joint.shortname().removeprefix("JointModel")
        axis = list(joint.extract().axis) if kind.endswith("Unaligned") else [0.0, 0.0, 0.0]
        placement, inertia = model.jointPlacements[j], model.inertias[j]
        numbers = (
            axis + list(placement.rotation.flatten()) + list(placement.translation) + [inertia.mass]
            + list(inertia.lever) + list(inertia.inertia.flatten()) + [model.damping[joint.idx_v]]
        )
        lines.append(" ".join([model.names[j], str(model.parents[j]), kind] + [repr(float(x)) for x in numbers]))
    path = WORK / (Path(urdf).stem + ".tree")
    path.write_text("\n".join(lines) + "\n")
    return path


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
    let x = State::<{{ Robot::STATE_DIM }}>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0 - 0.2 * (i % 2) as f64);
{compare_pinocchio.timed_field("2_000_000 / (n + 20)")}    let join = |v: &[f64]| v.iter().map(|v| format!("{{v:e}}")).collect::<Vec<_>>().join(",");
    println!("{{}} {{:e}}", Robot::DYNAMICS, best);
    println!("{{}}", Robot::COORDINATES.join(","));
    println!("{{}}", join(&x.as_slice()[..n]));
    println!("{{}}", join(&x.as_slice()[n..]));
    println!("{{}}", join(&field.as_slice()[n..]));
}}
"""


def run_routh(urdf):
    """Builds and runs routh's model of `urdf`: (dynamics, field s/call, names, q, v, q̈)."""
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
    return out[0], float(out[1]), out[2], floats(out[3]), floats(out[4]), floats(out[5]), build


def without_mimic(urdf):
    """`urdf` itself, or a copy without its `<mimic .../>` elements where it has some."""
    import re

    text = Path(urdf).read_text()
    stripped = re.sub(r"<mimic\b[^>]*/>", "", text)
    if stripped == text:
        return Path(urdf)
    WORK.mkdir(parents=True, exist_ok=True)
    copy = WORK / (Path(urdf).stem + "_free.urdf")
    copy.write_text(stripped)
    return copy


def main():
    robots = [without_mimic(a) for a in sys.argv[1:]] or [without_mimic(r) for r in default_robots()]
    exe = pinocchio_binary()
    print()
    print("| robot | n | routh dynamics | max |Δq̈| / max |q̈| | routh field per call | Pinocchio ABA per call | routh / Pinocchio | build, peak memory |")
    print("|---|---|---|---|---|---|---|---|")
    for urdf in robots:
        path, tr, names, q, v, qdd, (bs, bm) = run_routh(urdf)
        csv = lambda xs: ",".join(repr(x) for x in xs)  # noqa: E731
        tree = pinocchio_tree(urdf)
        out = subprocess.run([str(exe), str(tree), names, csv(q), csv(v)], capture_output=True, text=True, check=True)
        words = out.stdout.split()
        tp, pin = float(words[0]), [float(x) for x in words[1].split(",")]
        gap = max(abs(a - b) for a, b in zip(qdd, pin)) / max(abs(b) for b in pin)
        print(f"| {urdf.stem} | {len(q)} | {path} | {gap:.1e} | {1e9 * tr:.0f} ns | {1e9 * tp:.0f} ns | {tr / tp:.2f} | {bs:.1f} s, {bm:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
