#!/usr/bin/env python3
"""Compare routh's generated field with Pinocchio's ABA on the n-link pendulum chain.

Pinocchio (`pip install pin cmeel-eigen`: its C++ headers and libraries, and Eigen's headers) runs
its articulated-body algorithm on the chain of `benches/chain_models.rs` built joint by joint in
`scripts/pinocchio/chain_aba.cpp` (compiled with -O3 -march=native); routh's chain and the O(n)
yardstick of `benches/chain.rs` come from `scripts/chain_scale.py`. Both compute q̈ at the same state;
the table gives the time per call of each and checks that q̈ agrees.

    python3 scripts/compare_pinocchio.py 5 10 20 30 50 100 200

Optional: nothing here runs in the test suite.
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chain_scale  # noqa: E402

HERE = Path(__file__).resolve().parent


def pinocchio_binary():
    import cmeel

    prefix = Path(cmeel.__file__).resolve().parent.parent / "cmeel.prefix"
    exe = chain_scale.WORK / "chain_aba"
    chain_scale.WORK.mkdir(parents=True, exist_ok=True)
    print("compiling the Pinocchio harness (about two minutes) ...", flush=True)
    subprocess.run(
        [
            "g++", "-O3", "-march=native", "-DNDEBUG", "-std=c++17",
            # What Pinocchio's CMake package gives its users (a joint variant of 25 types).
            "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
            str(HERE / "pinocchio" / "chain_aba.cpp"),
            f"-I{prefix / 'include'}", f"-I{prefix / 'include' / 'eigen3'}", f"-L{prefix / 'lib'}",
            "-lpinocchio_default", f"-Wl,-rpath,{prefix / 'lib'}", "-o", str(exe),
        ],
        check=True,
    )
    return exe


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [5, 10, 20, 30, 50]
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
