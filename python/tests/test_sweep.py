"""Sweeps on Dask (`routh.sweep`): the table from a 2-worker local cluster equals the in-process
ensemble's to the bit, a failed member is a recorded row, a worker killed mid-way loses nothing,
and a sweep resumed from its Parquet parts runs only what is missing."""

import os
import threading
import time

import numpy as np
import pandas as pd
import pytest

import routh_models as rm
from routh import sweep as rs

distributed = pytest.importorskip("dask.distributed")

PENDULUM = dict(m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=9.81, b=0.0)


def members(n):
    """A grid of released double pendulums; the lower link's length varies, and member 5 has a
    length the model cannot take (NaN)."""
    th1 = np.linspace(-2.0, 2.0, n)
    table = pd.DataFrame({"th1": th1, "th2": 0.5 * th1[::-1], "dot(th1)": 0.0, "dot(th2)": 0.0})
    table["l2"] = np.linspace(0.5, 1.5, n)
    table.loc[5, "l2"] = np.nan
    return table


def assert_same(a, b):
    assert list(a.columns) == list(b.columns)
    assert a["member"].tolist() == b["member"].tolist()
    assert a["status"].tolist() == b["status"].tolist()
    assert a["error_kind"].tolist() == b["error_kind"].tolist()
    for c in a.columns[4:]:
        x, y = a[c].to_numpy(dtype=np.float64), b[c].to_numpy(dtype=np.float64)
        assert np.array_equal(x.view(np.uint64), y.view(np.uint64)), c


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_a_dask_sweep_equals_the_ensemble_in_process(client, tmp_path):
    model = rm.DoublePendulum(**PENDULUM)
    table = members(12)
    reference = rs.in_process(model, table, (0.0, 3.0), rtol=1e-9)
    assert reference["status"].tolist().count("failed") == 1
    failed = reference.loc[5]
    assert failed["error_kind"] == "InvalidParameter" and "l2" in failed["error"] and np.isnan(failed["t_end"])
    assert (reference.loc[reference["status"] == "ok", "t_end"] == 3.0).all()
    here = rs.sweep(model, table, (0.0, 3.0), chunk=5, rtol=1e-9)
    assert_same(here, reference)
    on_dask = rs.sweep(model, table, (0.0, 3.0), client=client, chunk=5, path=str(tmp_path / "s"), rtol=1e-9)
    assert_same(on_dask, reference)
    assert_same(rs.read(str(tmp_path / "s")), reference)


def test_a_killed_worker_loses_nothing_and_a_sweep_resumes(client, tmp_path):
    model = rm.DoublePendulum(**PENDULUM)
    table = members(24)
    path = tmp_path / "sweep"
    span = (0.0, 30.0)
    result = {}

    def run():
        result["table"] = rs.sweep(model, table, span, client=client, chunk=1, path=str(path), rtol=1e-10)

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.monotonic() + 120
    while not list(path.glob("part-*.parquet")) and time.monotonic() < deadline:
        time.sleep(0.01)
    parts_at_kill = len(list(path.glob("part-*.parquet")))
    victim = sorted(client.scheduler_info()["workers"])[0]
    client.run(os._exit, 1, workers=[victim], on_error="ignore")  # the worker dies: no answer
    worker.join()
    assert 1 <= parts_at_kill < 24, "the worker was killed mid-way"
    reference = rs.in_process(model, table, span, rtol=1e-10)
    assert_same(result["table"], reference)
    # Resumed after losing three parts: only those chunks run again.
    for index in (2, 11, 20):
        (path / f"part-{index:05d}.parquet").unlink()
    resumed = rs.sweep(model, table, span, client=client, chunk=1, path=str(path), rtol=1e-10)
    assert resumed.attrs["chunks_run"] == 3
    assert_same(resumed, reference)
    # A path that holds another sweep is refused.
    with pytest.raises(ValueError, match="another sweep"):
        rs.sweep(model, table, (0.0, 1.0), chunk=1, path=str(path))


def test_the_rust_sweep_paths_shards_read_into_the_same_table(tmp_path):
    # The same members run by the Rust sweep path (a job in three shards of JSON Lines, as Slurm
    # array tasks write them) and by routh.sweep in this process: one table, to the bit.
    model = rm.DoublePendulum(**PENDULUM)
    table = members(9).drop(columns=["l2"])
    starts = table[list(model.state_names)].to_numpy().tolist()
    paths = rm.reference_shards(str(tmp_path), list(PENDULUM.values()), starts, 3.0, 1e-9, 3)
    columns = ["t_end", "steps"] + [f"end {n}" for n in model.state_names]
    from_rust = rs.from_shards(paths, columns=columns)
    reference = rs.in_process(model, table, (0.0, 3.0), rtol=1e-9)
    assert_same(from_rust, reference)
    from_rust.to_parquet(tmp_path / "rust.parquet", index=False)
    assert_same(pd.read_parquet(tmp_path / "rust.parquet"), reference)


def test_a_model_compiled_from_python_sweeps_on_dask(client, tmp_path, monkeypatch):
    import pathlib

    import routh

    monkeypatch.setenv("ROUTH_CACHE", str(tmp_path / "cache"))
    target = str(pathlib.Path(__file__).resolve().parents[2] / "target" / "python-compile")
    source = """
#[derive(Mechanics)]
#[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2))]
pub struct Oscillator { pub m: f64, pub k: f64 }
"""
    module = routh.compile(source, name="routh_test_oscillator", release=False, target_dir=target)
    model = module.Oscillator(m=1.0, k=1.0)
    table = pd.DataFrame({"x": np.linspace(0.1, 1.0, 6), "dot(x)": 0.0, "k": np.linspace(1.0, 4.0, 6)})
    swept = rs.sweep(model, table, (0.0, 1.0), client=client, chunk=2, rtol=1e-11, atol=1e-13)
    assert_same(swept, rs.in_process(model, table, (0.0, 1.0), rtol=1e-11, atol=1e-13))
    # x(1) = x0 cos(sqrt(k)).
    expected = table["x"] * np.cos(np.sqrt(table["k"]))
    assert np.max(np.abs(swept["end x"] - expected)) < 1e-9
    # Workers that cannot import a model's module: a typed error before any task, not a hang.
    monkeypatch.setattr(type(model), "__module__", "routh_no_such_module")
    with pytest.raises(routh.RouthError, match="cannot import `routh_no_such_module`") as error:
        rs.sweep(model, table, (0.0, 1.0), client=client, chunk=2)
    assert error.value.kind == "WorkersCannotImport"
