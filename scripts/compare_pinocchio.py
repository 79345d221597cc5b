#!/usr/bin/env python3
"""Compare routh's generated field with Pinocchio's ABA on the n-link pendulum chain.

Pinocchio (`pip install pin cmeel-eigen`: its C++ headers and libraries, and Eigen's headers) runs
its articulated-body algorithm on the chain of `benches/chain_models.rs` built joint by joint in
`scripts/pinocchio/chain_aba.cpp` (compiled with -O3 -march=native); routh's chain and the O(n)
yardstick of `benches/chain.rs` come from `scripts/chain_scale.py`. Both compute q̈ at the same state;
the table gives the time per call of each and checks that q̈ agrees.

    python3 scripts/compare_pinocchio.py 5 10 20 30 50 100 200

With `--spatial`, the chain of rigid links turning in space about z, y and x in turn (relative
angles) of `routh_macros_core::fixtures::spatial_chain_struct_with` against Pinocchio's ABA on the
same chain (`scripts/pinocchio/chain_aba.cpp N spatial`): a third route for routh's spatial recursion, whose
tests compare it with the dense M⁻¹f of the same model. Each row gives the field's time per joint and the size of its
generated function (`nm -S`): past some 30 KB of straight-line code the time per joint grows. A
second table gives the inverse dynamics and M against Pinocchio's `rnea` and `crba` on the same
chain (agreement, then time per call).

    python3 scripts/compare_pinocchio.py --spatial 6 12 24 48

With `--native` (here, in `chain_scale.py` and in `compare_urdf.py`), routh's side is built with
`-C target-cpu=native` as well — the same instructions as Pinocchio's -march=native; with
`--target-cpu=CPU`, for that CPU (`x86-64-v3`: AVX2 and FMA without AVX-512).

Optional: nothing here runs in the test suite.
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chain_scale  # noqa: E402

HERE = Path(__file__).resolve().parent


def compile_harness(name):
    """Compiles `scripts/pinocchio/<name>.cpp` against the pip package's Pinocchio with -O3
    -march=native into the work directory (once: again only when the source is newer)."""
    import cmeel

    prefix = Path(cmeel.__file__).resolve().parent.parent / "cmeel.prefix"
    source, exe = HERE / "pinocchio" / f"{name}.cpp", chain_scale.WORK / name
    chain_scale.WORK.mkdir(parents=True, exist_ok=True)
    if exe.exists() and exe.stat().st_mtime > source.stat().st_mtime:
        return exe
    print("compiling the Pinocchio harness (about two minutes) ...", flush=True)
    subprocess.run(
        [
            "g++", "-O3", "-march=native", "-DNDEBUG", "-std=c++17", "-w",
            # What Pinocchio's CMake package gives its users (a joint variant of 25 types).
            "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
            "-DBOOST_FUSION_INVOKE_MAX_ARITY=12",
            str(source),
            f"-I{prefix / 'include'}", f"-I{prefix / 'include' / 'eigen3'}", f"-L{prefix / 'lib'}",
            "-lpinocchio_default", f"-Wl,-rpath,{prefix / 'lib'}", "-o", str(exe),
        ],
        check=True,
    )
    return exe


def pinocchio_binary():
    return compile_harness("chain_aba")


# A Rust function timing a call: the best of five rounds of `reps` calls, seconds per call (for the
# generated harnesses here and in compare_urdf.py).
BEST_OF_FIVE = """/// The best of five rounds of `reps` calls, seconds per call.
fn best(reps: usize, mut call: impl FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = std::time::Instant::now();
        for _ in 0..reps {
            call();
        }
        best = best.min(start.elapsed().as_secs_f64() / reps as f64);
    }
    best
}
"""


def timed_field(reps):
    """Rust statements that evaluate `sys.field` at `x` into `field` and time it, the best of five
    rounds of `reps` calls, into `t_field` (seconds per call; `best` of [`BEST_OF_FIVE`])."""
    return f"""    let field = sys.field(0.0, &x).unwrap();
    let reps = {reps};
    let t_field = best(reps, || {{ black_box(sys.field(0.0, black_box(&x)).unwrap()); }});
"""


def spatial_source(n):
    """The chain in space as `routh_macros_core::fixtures::spatial_chain_struct_with` writes it."""
    axes = ["z", "y", "x"]
    frames = ["b1 = rot_z(q1)"] + [f"b{k} = b{k - 1} * rot_{axes[(k - 1) % 3]}(q{k})" for k in range(2, n + 1)]
    joint = lambda k: "" if k == 1 else f"e{k - 1} + "  # noqa: E731
    ends = [f"e{k} = {joint(k)}b{k} * [0, 0, -l]" for k in range(1, n + 1)]
    bodies = [
        f"body(name = r{k}, mass = m, centre = {joint(k)}b{k} * [0, 0, -l / 2], frame = b{k}, inertia = diag(i, i, j))"
        for k in range(1, n + 1)
    ]
    coords = ", ".join(f"q{k}" for k in range(1, n + 1))
    return f"""#![allow(dead_code)]
use routh::nalgebra::SVector;
use routh::prelude::*;
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics(
    coordinates({coords}),
    frame({", ".join(frames)}),
    point({", ".join(ends)}),
    {", ".join(bodies)},
    gravity = [0, 0, -g],
)]
pub struct Spatial {{ pub m: f64, pub l: f64, pub i: f64, pub j: f64, pub g: f64 }}

{BEST_OF_FIVE}
fn main() {{
    let sys = Spatial {{ m: 1.0, l: 0.5, i: 0.02, j: 0.01, g: 9.81 }};
    let x = SVector::<f64, {2 * n}>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0);
{timed_field(f"4_000_000 / ({n} + 20)")}    println!("{{}} {{:e}}", Spatial::DYNAMICS, t_field);
    let qdd: Vec<String> = field.iter().skip({n}).map(|v| format!("{{v:e}}")).collect();
    println!("{{}}", qdd.join(","));
    // The inverse dynamics at the accelerations a_k = 0.3 − 0.17 ((31 k) mod 7) and M: times, then values.
    let a = SVector::<f64, {n}>::from_fn(|k, _| 0.3 - 0.17 * ((k * 31) % 7) as f64);
    let t_id = best(reps, || {{ black_box(sys.inverse_dynamics(0.0, black_box(&x), black_box(&a)).unwrap()); }});
    let t_mass = best(reps / 4 + 1, || {{ black_box(sys.mass_matrix(0.0, black_box(&x))); }});
    println!("{{t_id:e}} {{t_mass:e}}");
    let tau: Vec<String> = sys.inverse_dynamics(0.0, &x, &a).unwrap().iter().map(|v| format!("{{v:e}}")).collect();
    println!("{{}}", tau.join(","));
    let mass: Vec<String> = sys.mass_matrix(0.0, &x).transpose().iter().map(|v| format!("{{v:e}}")).collect();
    println!("{{}}", mass.join(","));
}}
"""


def run_spatial(n):
    """Builds and runs routh's chain in space: (dynamics, field s/call, q̈, (inverse_dynamics s/call,
    mass_matrix s/call), τ, M by rows)."""
    crate = chain_scale.WORK / f"spatial{n}"
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "spatial{n}"\nversion = "0.1.0"\nedition = "2024"\n\n'
        f'[dependencies]\nrouth = {{ path = "{chain_scale.REPO}" }}\n\n[workspace]\n'
    )
    (crate / "src" / "main.rs").write_text(spatial_source(n))
    env = chain_scale.cargo_env()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate, env=env, check=True)
    out = subprocess.run([str(chain_scale.TARGET / "release" / f"spatial{n}")], capture_output=True, text=True, check=True)
    words = out.stdout.split()
    floats = lambda w: [float(v) for v in w.split(",")]  # noqa: E731
    return words[0], float(words[1]), floats(words[2]), (float(words[3]), float(words[4])), floats(words[5]), floats(words[6])


def field_code_size(binary):
    """The size in bytes of the largest function of the model's field in `binary` (`nm -S`; None
    without binutils): straight-line code runs at its arithmetic's rate while it fits the core's
    instruction caches, and at about half past some 30 KB (see docs/guide/performance.md)."""
    try:
        out = subprocess.run(["nm", "-S", "-C", str(binary)], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    sizes = [
        int(words[1], 16)
        for line in out.splitlines()
        if (words := line.split(maxsplit=3)) and len(words) == 4
        and "Spatial" in words[3] and ("accelerations" in words[3] or "field" in words[3])
    ]
    return max(sizes, default=None)


def spatial(sizes):
    exe = pinocchio_binary()
    print()
    print("| n | routh dynamics | routh field per call | per joint | field code | Pinocchio ABA per call | routh / Pinocchio | max |Δq̈| |")
    print("|---|---|---|---|---|---|---|---|")
    others = []
    for n in sizes:
        path, tg, qdd, (t_id, t_mass), tau, mass = run_spatial(n)
        out = subprocess.run([str(exe), str(n), "spatial"], capture_output=True, text=True, check=True).stdout.split()
        tp = float(out[0])
        pin = [float(v) for v in out[1].split(",")]
        diff = max(abs(a - b) for a, b in zip(qdd, pin))
        code = field_code_size(chain_scale.TARGET / "release" / f"spatial{n}")
        code = "?" if code is None else f"{code / 1000:.0f} KB"
        print(
            f"| {n} | {path} | {1e9 * tg:.0f} ns | {1e9 * tg / n:.0f} ns | {code} | {1e9 * tp:.0f} ns | {tg / tp:.2f} | {diff:.0e} |",
            flush=True,
        )
        gap = lambda ours, theirs: max(abs(a - b) for a, b in zip(ours, theirs)) / max(abs(b) for b in theirs)  # noqa: E731
        t_rnea, t_crba = float(out[2]), float(out[3])
        pin_tau, pin_mass = [float(v) for v in out[4].split(",")], [float(v) for v in out[5].split(",")]
        others.append(
            f"| {n} | {gap(tau, pin_tau):.0e} | {gap(mass, pin_mass):.0e} | {1e9 * t_id:.0f} / {1e9 * t_rnea:.0f} ns = {t_id / t_rnea:.2f} "
            f"| {1e9 * t_mass:.0f} / {1e9 * t_crba:.0f} ns = {t_mass / t_crba:.2f} |"
        )
    print()
    print("| n | max |Δτ| / max |τ| | max |ΔM| / max |M| | inverse_dynamics / rnea | mass_matrix / crba |")
    print("|---|---|---|---|---|")
    for row in others:
        print(row)


def main():
    if "--spatial" in sys.argv[1:]:
        spatial([int(a) for a in sys.argv[1:] if not a.startswith("--")] or [6, 12, 24, 48])
        return
    sizes = [int(a) for a in sys.argv[1:] if not a.startswith("--")] or [5, 10, 20, 30, 50]
    exe = pinocchio_binary()
    print("building routh's dependencies once (not timed) ...", flush=True)
    chain_scale.run(2, None)
    print()
    print("| n | routh dynamics | routh field per call | Pinocchio ABA per call | routh / Pinocchio | O(n) yardstick per call | max |Δq̈| |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        path, _build, _peak, tg, ta, _gap, qdd = chain_scale.run(n, None, with_accelerations=True)
        out = subprocess.run([str(exe), str(n)], capture_output=True, text=True, check=True).stdout.split()
        tp = float(out[0])
        pin = [float(v) for v in out[1].split(",")]
        diff = max(abs(a - b) for a, b in zip(qdd, pin))
        print(f"| {n} | {path} | {1e9 * tg:.0f} ns | {1e9 * tp:.0f} ns | {tg / tp:.2f} | {1e9 * ta:.0f} ns | {diff:.0e} |", flush=True)


if __name__ == "__main__":
    main()
