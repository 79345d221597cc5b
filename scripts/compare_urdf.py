#!/usr/bin/env python3
"""Read robots from their URDF files into routh and into Pinocchio, and compare q̈ and its cost.

routh reads each file at compile time (`#[mechanics(urdf = "...", gravity = [0, 0, -9.81])]`, in a
crate of its own built with `--release`); Pinocchio reads it with its own parser
(`pinocchio::urdf::buildModel`, in `scripts/pinocchio/urdf_aba.cpp` compiled with -O3
-march=native). Both compute q̈ at the same deterministic state, with the file's joint damping as
the torque −d q̇; the table gives the agreement first, then the time per call of routh's field and
of Pinocchio's ABA.

    pip install pin cmeel-eigen cmeel-urdfdom-headers example-robot-data   # Pinocchio, headers, robots
    python3 scripts/compare_urdf.py                      # the Panda and the UR5 of example-robot-data
    python3 scripts/compare_urdf.py path/to/robot.urdf   # any file routh reads

Optional: nothing here runs in the test suite.
"""

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = Path(os.environ.get("ROUTH_SCALE_DIR", "/tmp/routh_chain_scale"))
TARGET = WORK / "target"


def prefix():
    import cmeel

    return Path(cmeel.__file__).resolve().parent.parent / "cmeel.prefix"


def default_robots():
    robots = prefix() / "share" / "example-robot-data" / "robots"
    return [robots / "panda_description" / "urdf" / "panda.urdf", robots / "ur_description" / "urdf" / "ur5_robot.urdf"]


def pinocchio_binary():
    exe = WORK / "urdf_aba"
    WORK.mkdir(parents=True, exist_ok=True)
    if exe.exists() and exe.stat().st_mtime > (HERE / "pinocchio" / "urdf_aba.cpp").stat().st_mtime:
        return exe
    p = prefix()
    print("compiling the Pinocchio harness (about two minutes) ...", flush=True)
    subprocess.run(
        [
            "g++", "-O3", "-march=native", "-DNDEBUG", "-std=c++17",
            "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
            "-DPINOCCHIO_WITH_URDFDOM",
            str(HERE / "pinocchio" / "urdf_aba.cpp"),
            f"-I{p / 'include'}", f"-I{p / 'include' / 'eigen3'}", f"-I{p / 'include' / 'urdfdom_headers'}", f"-L{p / 'lib'}",
            "-lpinocchio_parsers", "-lpinocchio_default", "-lurdfdom_model", f"-Wl,-rpath,{p / 'lib'}", "-o", str(exe),
        ],
        check=True,
    )
    return exe


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
    let field = sys.field(0.0, &x).unwrap();
    let reps = 2_000_000 / (n + 20);
    let mut best = f64::INFINITY;
    for _ in 0..5 {{
        let start = std::time::Instant::now();
        for _ in 0..reps {{
            black_box(sys.field(0.0, black_box(&x)).unwrap());
        }}
        best = best.min(start.elapsed().as_secs_f64() / reps as f64);
    }}
    let join = |v: &[f64]| v.iter().map(|v| format!("{{v:e}}")).collect::<Vec<_>>().join(",");
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
    out = subprocess.run([str(TARGET / "release" / name)], capture_output=True, text=True, check=True).stdout.split()
    floats = lambda s: [float(v) for v in s.split(",")]  # noqa: E731
    return out[0], float(out[1]), out[2], floats(out[3]), floats(out[4]), floats(out[5])


def main():
    robots = [Path(a) for a in sys.argv[1:]] or default_robots()
    exe = pinocchio_binary()
    print()
    print("| robot | n | routh dynamics | max |Δq̈| / max |q̈| | routh field per call | Pinocchio ABA per call | routh / Pinocchio |")
    print("|---|---|---|---|---|---|---|")
    for urdf in robots:
        path, tr, names, q, v, qdd = run_routh(urdf)
        csv = lambda xs: ",".join(repr(x) for x in xs)  # noqa: E731
        out = subprocess.run([str(exe), str(urdf), names, csv(q), csv(v)], capture_output=True, text=True, check=True)
        words = out.stdout.split()
        tp, pin = float(words[0]), [float(x) for x in words[1].split(",")]
        gap = max(abs(a - b) for a, b in zip(qdd, pin)) / max(abs(b) for b in pin)
        print(f"| {urdf.stem} | {len(q)} | {path} | {gap:.1e} | {1e9 * tr:.0f} ns | {1e9 * tp:.0f} ns | {tr / tp:.2f} |", flush=True)


if __name__ == "__main__":
    main()
