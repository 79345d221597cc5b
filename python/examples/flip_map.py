"""The flip map as a Dask sweep, mirroring `cargo run --release --example sweep`: for a grid of
initial angles (th1, th2) released from rest, the time until the lower pendulum first flips over
(|th2| reaches pi) within 10 s, each member a run of the Rust model, the members run as Dask tasks
on a local cluster (any cluster a `dask.distributed.Client` reaches works the same), written as
Parquet parts (a second run resumes from them), checked against the in-process ensemble bit for bit,
and drawn with matplotlib.

Run after `./python/setup.sh`:
`target/python-venv/bin/python python/examples/flip_map.py [n]` (an n x n grid, default 32; writes
out/python_flip/ and out/python_flip_map.svg).
"""

import math
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from dask.distributed import Client, LocalCluster

from routh import sweep
from routh_models import DoublePendulum

HORIZON = 10.0
FLIPS = [
    dict(name="over", state="th2", value=math.pi, terminal=True),
    dict(name="under", state="th2", value=-math.pi, terminal=True),
]


def flip_time(model, run):
    """The outcome of a member: its flip time (HORIZON if it does not flip) and energy error."""
    t = run.events[0][1] if run.events else HORIZON
    drift = abs(model.energy(run.x[-1]) - model.energy(run.x[0]))
    return {"flip_time": t, "energy_error": drift}


def main(n):
    at = -3.0 + 6.0 * (np.arange(n) + 0.5) / n
    th1, th2 = np.meshgrid(at, at)
    members = pd.DataFrame({"th1": th1.ravel(), "th2": th2.ravel(), "dot(th1)": 0.0, "dot(th2)": 0.0})
    model = DoublePendulum(m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=9.81, b=0.0)
    options = dict(rtol=1e-9, atol=1e-11, events=FLIPS, outcome=flip_time)
    path = pathlib.Path("out/python_flip")
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        table = sweep.sweep(model, members, (0.0, HORIZON), client=client, path=str(path), chunk=64, **options)
        print(f"{len(table)} members on {len(client.scheduler_info()['workers'])} Dask workers: "
              f"{table.attrs['chunks_run']} chunks run, the rest read from {path}")
    reference = sweep.in_process(model, members, (0.0, HORIZON), **options)
    same = all(
        np.array_equal(table[c].to_numpy().view(np.uint64), reference[c].to_numpy().view(np.uint64))
        for c in ["flip_time", "energy_error"]
    )
    print(f"equal to the in-process ensemble bit for bit: {same}")
    assert same and (table["status"] == "ok").all()
    flips = table["flip_time"] < HORIZON
    print(f"{flips.mean():.0%} of the grid flips within {HORIZON:g} s; "
          f"worst energy error {table['energy_error'].max():.1e} J")
    grid = table["flip_time"].to_numpy().reshape(n, n)
    fig, ax = plt.subplots(figsize=(6.4, 6))
    image = ax.imshow(np.sqrt(grid / HORIZON), origin="lower", extent=(-3, 3, -3, 3), cmap="Blues_r")
    ax.set_xlabel("θ₁(0)")
    ax.set_ylabel("θ₂(0)")
    ax.set_title("Double pendulum: time to the first flip (darker: sooner)")
    fig.colorbar(image, label="√(t_flip / 10 s)")
    fig.tight_layout()
    fig.savefig("out/python_flip_map.svg")
    print("wrote out/python_flip_map.svg")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 32)
