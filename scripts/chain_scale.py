#!/usr/bin/env python3
"""Scale of routh's generated field on the n-link pendulum chain, n up to a few hundred.

For each n it writes a crate holding the chain (the same model as `benches/chain_models.rs`, by
default with the dynamics routh picks; `--dense` asks for `dynamics = dense`) and a main that times,
interleaved in one process, the generated field and the specialised O(n) articulated-body
evaluation of `benches/chain.rs` (`recursive_field`, read from that file), after checking that they
agree. It reports the release build's wall time and peak memory (GNU time where available), the
macro's generated token count is not measured here (see `cargo bench --bench chain -- expand/`).

    python3 scripts/chain_scale.py 5 10 20 30 50 100 200
    python3 scripts/chain_scale.py --dense 30
    python3 scripts/chain_scale.py --native 30   # routh built with -C target-cpu=native too

Optional: nothing here runs in the test suite. Needs only cargo (and /usr/bin/time for memory).
"""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = Path(os.environ.get("ROUTH_SCALE_DIR", "/tmp/routh_chain_scale"))
# `--native` (any of the scripts): routh's crates built with `-C target-cpu=native`, as Pinocchio's
# code is with -march=native, in a target directory of their own; `--target-cpu=CPU` with any CPU
# rustc names (`x86-64-v3`: AVX2 and FMA without AVX-512, which on an EPYC slows the derivatives'
# solves), likewise.
CPU = next(
    (a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--target-cpu=")),
    "native" if "--native" in sys.argv[1:] else None,
)
NATIVE = CPU is not None
TARGET = WORK / (f"target-{CPU}" if NATIVE else "target")


def cargo_env():
    """The environment of a build of routh's crates: the shared target directory, and with `--native`
    (or `--target-cpu=CPU`) that CPU's instructions."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET))
    if NATIVE:
        env["RUSTFLAGS"] = (env.get("RUSTFLAGS", "") + f" -C target-cpu={CPU}").strip()
    return env


def chain_source(n, dynamics):
    """The chain as `routh_macros_core::fixtures::pendulum_chain` writes it."""
    coords = ", ".join(f"q{k}" for k in range(1, n + 1))
    defines = ["x1 = l1 * q1.sin(), y1 = -l1 * q1.cos()"] + [
        f"x{k} = x{k - 1} + l{k} * q{k}.sin(), y{k} = y{k - 1} - l{k} * q{k}.cos()" for k in range(2, n + 1)
    ]
    kinetic = " + ".join(f"m{k} / 2 * (dot(x{k}).powi(2) + dot(y{k}).powi(2))" for k in range(1, n + 1))
    potential = " + ".join(f"m{k} * y{k}" for k in range(1, n + 1))
    fields = "".join(f"pub m{k}: f64, pub l{k}: f64, " for k in range(1, n + 1))
    inits = "".join(f"m{k}: 1.0, l{k}: 1.0, " for k in range(1, n + 1))
    extra = f"dynamics = {dynamics}," if dynamics else ""
    return f"""
#[derive(Mechanics)]
#[mechanics(
    coordinates({coords}),
    define({", ".join(defines)}),
    lagrangian = {kinetic} - g * ({potential}),
    {extra}
)]
pub struct Chain {{ {fields}pub g: f64 }}

fn chain() -> Chain {{
    Chain {{ {inits}g: 9.81 }}
}}
"""


def yardstick():
    """`recursive_field` of benches/chain.rs, verbatim."""
    text = (REPO / "benches" / "chain.rs").read_text()
    start = text.index("fn recursive_field<")
    end = text.index("\n}\n", start) + 3
    return text[start:end]


def main_source(n, dynamics):
    d = 2 * n
    return f"""#![allow(dead_code)]
use routh::nalgebra::SVector;
use routh::prelude::*;
use std::hint::black_box;
{chain_source(n, dynamics)}
{yardstick()}

fn per_call(f: &dyn Fn() -> SVector<f64, {d}>) -> f64 {{
    let reps = 4_000_000 / ({n} + 20);
    let start = std::time::Instant::now();
    for _ in 0..reps {{
        black_box(f());
    }}
    start.elapsed().as_secs_f64() / reps as f64
}}

fn main() {{
    let sys = chain();
    let x = SVector::<f64, {d}>::from_fn(|i, _| 0.1 + 0.37 * ((i * 7919) % 13) as f64 / 13.0);
    let generated = sys.field(0.0, &x).unwrap();
    let aba = recursive_field::<{n}, {d}>(1.0, 1.0, 9.81, &x);
    let gap = (generated - aba).amax() / (1.0 + aba.amax());
    assert!(gap < 1e-10, "the generated field and the ABA differ by {{gap:e}}");
    let (mut tg, mut ta) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..5 {{
        tg = tg.min(per_call(&|| sys.field(0.0, black_box(&x)).unwrap()));
        ta = ta.min(per_call(&|| recursive_field::<{n}, {d}>(1.0, 1.0, 9.81, black_box(&x))));
    }}
    println!("{{}} {{:e}} {{:e}} {{:e}}", Chain::DYNAMICS, tg, ta, gap);
    let qdd: Vec<String> = generated.iter().skip({n}).map(|v| format!("{{v:e}}")).collect();
    println!("{{}}", qdd.join(","));
}}
"""


def run(n, dynamics, with_accelerations=False):
    """Builds and runs the chain: (dynamics, build s, peak GB, field s/call, ABA s/call, gap[, q̈])."""
    crate = WORK / f"chain{n}{dynamics or ''}"
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "chain{n}{dynamics or ""}"\nversion = "0.1.0"\nedition = "2024"\n\n'
        f'[dependencies]\nrouth = {{ path = "{REPO}" }}\n\n[workspace]\n'
    )
    (crate / "src" / "main.rs").write_text(main_source(n, dynamics))
    env = cargo_env()
    timer = ["/usr/bin/time", "-f", "%M", "-o", str(WORK / "peak.txt")] if os.path.exists("/usr/bin/time") else []
    start = time.perf_counter()
    subprocess.run(timer + ["cargo", "build", "--release", "--quiet"], cwd=crate, env=env, check=True)
    build = time.perf_counter() - start
    peak = float((WORK / "peak.txt").read_text().split()[-1]) / 1e6 if timer else float("nan")
    name = re.sub(r"[^a-z0-9_]", "_", f"chain{n}{dynamics or ''}")
    out = subprocess.run([str(TARGET / "release" / name)], capture_output=True, text=True, check=True).stdout.split()
    result = (out[0], build, peak, float(out[1]), float(out[2]), float(out[3]))
    return result + ([float(v) for v in out[4].split(",")],) if with_accelerations else result


def main():
    args = sys.argv[1:]
    dynamics = "dense" if "--dense" in args else None
    sizes = [int(a) for a in args if not a.startswith("--")] or [5, 10, 20, 30, 50]
    WORK.mkdir(parents=True, exist_ok=True)
    print("building routh's dependencies once (not timed) ...", flush=True)
    run(2, dynamics)
    print()
    print("| n | dynamics | release build (s) | peak memory (GB) | field per call | O(n) ABA per call | field / ABA | max gap |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        path, build, peak, tg, ta, gap = run(n, dynamics)
        print(f"| {n} | {path} | {build:.1f} | {peak:.2f} | {1e9 * tg:.0f} ns | {1e9 * ta:.0f} ns | {tg / ta:.2f} | {gap:.0e} |", flush=True)


if __name__ == "__main__":
    main()
