"""What calling routh from Python costs, measured side by side in one process.

- One `field` call of the double pendulum from Python against one NumPy ufunc call (`np.sin` on the
  same 4-element array): the binding's overhead per call, in ns.
- A 1000-member ensemble of the double pendulum from Python (`model.ensemble`: every member's
  trajectory returned as NumPy arrays) against the same ensemble run by the typed Rust API in the
  same module (`reference_ensemble`), both on all cores.

Build the module optimised first, then run (the tests rebuild it unoptimised):

    VIRTUAL_ENV=$PWD/target/python-venv target/python-venv/bin/maturin develop --release -m python/models/Cargo.toml
    target/python-venv/bin/python python/benchmarks/overhead.py
"""

import timeit

import numpy as np

import routh_models as rm

P = dict(m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=9.81, b=0.0)


def per_call(stmt, number):
    best = min(timeit.repeat(stmt, number=number, repeat=7))
    return best / number * 1e9


def main():
    p = rm.DoublePendulum(**P)
    x = np.array([1.0, 0.5, 0.2, -0.3])
    field = per_call(lambda: p.field(x), 200_000)
    ufunc = per_call(lambda: np.sin(x), 200_000)
    listed = x.tolist()
    field_list = per_call(lambda: p.field(listed), 200_000)
    print(f"field from Python: {field:.0f} ns per call (a list: {field_list:.0f} ns); "
          f"np.sin on the same array: {ufunc:.0f} ns; ratio {field / ufunc:.2f}")

    starts = np.array([[1.0 + 1e-3 * k, 0.5, 0.0, 0.0] for k in range(1000)])
    args = (list(P.values()), [list(s) for s in starts], 10.0, 1e-8)
    rm.reference_ensemble(*args)
    p.ensemble(starts, (0.0, 10.0), rtol=1e-8)
    rust, python = [], []
    for _ in range(5):
        ends, seconds = rm.reference_ensemble(*args)
        rust.append(seconds)
        t0 = timeit.default_timer()
        runs = p.ensemble(starts, (0.0, 10.0), rtol=1e-8)
        python.append(timeit.default_timer() - t0)
    same = np.array_equal(np.array([r.x[-1] for r in runs]).ravel(), np.array(ends))
    print(f"1000-member ensemble: Rust {min(rust) * 1e3:.1f} ms, from Python {min(python) * 1e3:.1f} ms "
          f"(ratio {min(python) / min(rust):.3f}); the same end states: {same}")


if __name__ == "__main__":
    main()
