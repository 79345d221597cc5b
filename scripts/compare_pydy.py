#!/usr/bin/env python3
"""Compare routh with PyDy on PyDy's own benchmark model, the n-link pendulum on a cart.

Optional and outside the test suite (the tests never need Python). Needs `pip install pydy sympy
cython` for the PyDy side; without PyDy it reports routh's numbers alone.

    python3 scripts/compare_pydy.py            # n = 5 10 20
    python3 scripts/compare_pydy.py 5 10 20 30

For each n it writes routh's model of the same physics (`pydy.models.n_link_pendulum_on_cart`:
a cart of mass m0 pushed by F, n point masses on massless links, angles from the ground line) in
a scratch crate under target/compare_pydy, builds it in release (the derive's expansion included;
the dependencies are built once beforehand), and runs it: the time per call of the generated field
and q̇, q̈ at a fixed state. PyDy derives the same system with Kane's method (SymPy), generates and
compiles its Cython right-hand side, and is timed per call from Python. The script prints, per n,
both sides' times and the largest difference of the two right-hand sides.
"""

import os
import pathlib
import subprocess
import sys
import time
import timeit

REPO = pathlib.Path(__file__).resolve().parent.parent
WORK = REPO / "target" / "compare_pydy"
TARGET = WORK / "target"


def routh_source(n):
    """The cart and n links in routh's DSL, and a main that times the field and prints it."""
    coords = ["q0"] + [f"q{k}" for k in range(1, n + 1)]
    defines = []
    for k in range(1, n + 1):
        px, py = ("q0", "0.0") if k == 1 else (f"x{k - 1}", f"y{k - 1}")
        defines.append(f"x{k} = {px} + l{k - 1} * q{k}.cos(), y{k} = {py} + l{k - 1} * q{k}.sin()")
    kinetic = " + ".join(f"m{k} / 2 * (dot(x{k}).powi(2) + dot(y{k}).powi(2))" for k in range(1, n + 1))
    potential = " + ".join(f"m{k} * y{k}" for k in range(1, n + 1))
    fields = "".join(f"m{k}: f64, " for k in range(n + 1)) + "".join(f"l{k}: f64, " for k in range(n))
    inits = "".join(f"m{k}: {mass(k)}, " for k in range(n + 1)) + "".join(f"l{k}: {length(k)}, " for k in range(n))
    d = 2 * (n + 1)
    state = ", ".join(repr(v) for v in state_values(n))
    return f"""use routh::prelude::*;
use std::hint::black_box;

#[derive(Mechanics)]
#[mechanics(
    coordinates({", ".join(coords)}),
    define({", ".join(defines)}),
    lagrangian = m0 / 2 * dot(q0).powi(2) + {kinetic} - g * ({potential}),
    force(q0 = f),
)]
struct Cart {{ {fields}g: f64, f: f64 }}

fn main() {{
    let cart = Cart {{ {inits}g: 9.81, f: 0.5 }};
    let x = routh::nalgebra::SVector::<f64, {d}>::from_row_slice(&[{state}]);
    let dx = cart.field(0.0, &x).unwrap();
    let reps = 2_000_000 / ({n} * {n} + 10);
    let start = std::time::Instant::now();
    for _ in 0..reps {{
        black_box(cart.field(0.0, black_box(&x)).unwrap());
    }}
    let per_call = start.elapsed().as_secs_f64() / reps as f64;
    println!("{{:e}}", per_call);
    println!("{{}}", dx.iter().map(|v| format!("{{v:e}}")).collect::<Vec<_>>().join(","));
}}
"""


def mass(k):
    return 1.0 if k == 0 else 0.1 + 0.01 * k


def length(k):
    return 0.5 / (1.0 + 0.05 * k)


def state_values(n):
    q = [0.1] + [0.3 + 0.1 * k for k in range(n)]
    u = [0.05] + [0.2 - 0.03 * k for k in range(n)]
    return q + u


def routh_run(n):
    crate = WORK / f"cart{n}"
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(
        f'[package]\nname = "cart{n}"\nversion = "0.1.0"\nedition = "2024"\n\n'
        f'[dependencies]\nrouth = {{ path = "{REPO}" }}\n\n[workspace]\n'
    )
    (crate / "src" / "main.rs").write_text(routh_source(n))
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET))
    # Peak memory of this build alone: GNU time where there is one.
    timer = ["/usr/bin/time", "-f", "%M", "-o", str(WORK / "peak.txt")] if os.path.exists("/usr/bin/time") else []
    start = time.perf_counter()
    subprocess.run(timer + ["cargo", "build", "--release", "--quiet"], cwd=crate, env=env, check=True)
    build = time.perf_counter() - start
    peak = float((WORK / "peak.txt").read_text().split()[-1]) * 1e3 if timer else float("nan")
    out = subprocess.run([str(TARGET / "release" / f"cart{n}")], capture_output=True, text=True, check=True).stdout.split()
    per_call = float(out[0])
    dx = [float(v) for v in out[1].split(",")]
    return build, peak / 1e9, per_call, dx


def pydy_run(n):
    try:
        from pydy.models import n_link_pendulum_on_cart
    except ImportError:
        return None
    import numpy as np

    start = time.perf_counter()
    system = n_link_pendulum_on_cart(n, cart_force=True)
    derive = time.perf_counter() - start
    start = time.perf_counter()
    rhs = system.generate_ode_function(generator="cython")
    codegen = time.perf_counter() - start
    values = {}
    for c in system.constants_symbols:
        name = c.name
        if name == "g":
            values[name] = 9.81
        elif name.startswith("m"):
            values[name] = mass(int(name[1:]))
        else:
            values[name] = length(int(name[1:]))
    # An array is PyDy's fast path; its order is the one the generated function documents.
    doc = rhs.__doc__
    start = doc.index("p : ")
    block = doc[start:doc.index("\nReturns\n", start)]
    order = [line.strip()[2:] for line in block.splitlines() if line.strip().startswith("- ")]
    p = np.array([values[name] for name in order])
    r = np.array([0.5])
    x = np.array(state_values(n))
    dx = rhs(x, 0.0, r, p)
    reps = 2000
    per_call = timeit.timeit(lambda: rhs(x, 0.0, r, p), number=reps) / reps
    return derive, codegen, per_call, list(dx)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [5, 10, 20]
    WORK.mkdir(parents=True, exist_ok=True)
    print("building routh's dependencies once (not timed) ...", flush=True)
    routh_run(1)
    rows = []
    for n in sizes:
        print(f"n = {n}: routh ...", flush=True)
        build, peak, routh_call, routh_dx = routh_run(n)
        print(f"n = {n}: PyDy ...", flush=True)
        pydy = pydy_run(n)
        rows.append((n, build, peak, routh_call, routh_dx, pydy))
    print()
    print("| n | routh release build (s) | peak rustc memory (GB) | routh field per call (µs) | PyDy Kane derivation (s) | PyDy Cython codegen (s) | PyDy rhs per call (µs, from Python) | PyDy / routh per call | max |Δ rhs| |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, build, peak, routh_call, routh_dx, pydy in rows:
        if pydy is None:
            print(f"| {n} | {build:.2f} | {peak:.2f} | {1e6 * routh_call:.3f} | — | — | — | — | — |")
            continue
        derive, codegen, pydy_call, pydy_dx = pydy
        diff = max(abs(a - b) for a, b in zip(routh_dx, pydy_dx))
        print(
            f"| {n} | {build:.2f} | {peak:.2f} | {1e6 * routh_call:.3f} | {derive:.2f} | {codegen:.2f} | "
            f"{1e6 * pydy_call:.2f} | {pydy_call / routh_call:.1f}× | {diff:.1e} |"
        )


if __name__ == "__main__":
    main()
