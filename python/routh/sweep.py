"""Sweeps on Dask: many runs of a model as Dask tasks, gathered into one table, written as Parquet,
resumable.

A sweep is a model, a table of members (one row each: the start state by the model's state names,
and optionally some of its parameters by name) and what to keep of each run (an ``outcome``
function of the model and the run, returning a dict of numbers; by default the end time and state).
:func:`sweep` cuts the members into chunks, runs each chunk as one Dask task (``model.ensemble`` on
the worker, the GIL released) on the cluster the given client reaches — or in this process without
one — and returns a pandas DataFrame with one row per member, in the members' order:

- ``member`` (the row's index in the members), ``status`` (``"ok"`` or ``"failed"``),
  ``error_kind`` and ``error`` (routh's typed error for a failed member: it is a recorded failure,
  not a lost row), then the outcome's columns (NaN for a failed member).

With ``path`` each chunk's rows are written as ``path/part-NNNNN.parquet`` as soon as the chunk is
done (beside ``path/sweep.json``, what the sweep is); a sweep started again with the same ``path``
reads the parts that exist and runs only the missing chunks (after a crash, a killed job or a lost
worker), and refuses a path that holds another sweep. The table is the same, to the bit, as the
members run in one process by ``model.ensemble``: each member's run is the same deterministic
computation wherever it runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
from typing import Callable, Optional

import numpy as np

STATUS_COLUMNS = ["member", "status", "error_kind", "error"]


def end_state(model, run) -> dict:
    """The default outcome: the end time, the end state by name, and the number of steps."""
    out = {"t_end": float(run.t[-1]), "steps": float(run.steps)}
    for i, name in enumerate(model.state_names):
        out[f"end {name}"] = float(run.x[-1, i])
    return out


def _members(model, members) -> tuple[np.ndarray, Optional[np.ndarray]]:
    """The starts (rows of the state) and parameter rows (or None) of a table of members."""
    import pandas as pd

    frame = pd.DataFrame(members)
    missing = [n for n in model.state_names if n not in frame.columns]
    if missing:
        raise ValueError(f"the members need a column per state component: {', '.join(missing)} missing")
    unknown = [c for c in frame.columns if c not in model.state_names and c not in model.parameters]
    if unknown:
        raise ValueError(f"columns {unknown} are neither state components {model.state_names} nor parameters {model.parameters}")
    starts = frame[list(model.state_names)].to_numpy(dtype=np.float64)
    given = [p for p in model.parameters if p in frame.columns]
    if not given:
        return starts, None
    base = model.parameter_values
    rows = np.array([[base[p] for p in model.parameters]] * len(frame), dtype=np.float64)
    for p in given:
        rows[:, model.parameters.index(p)] = frame[p].to_numpy(dtype=np.float64)
    return starts, rows


def _rows(model, first: int, runs, outcome) -> list[dict]:
    """One row per run of a chunk starting at member `first`."""
    import routh

    rows = []
    for k, run in enumerate(runs):
        row = {"member": first + k, "status": "ok", "error_kind": None, "error": None}
        if isinstance(run, BaseException):
            kind = getattr(run, "kind", None) or type(run).__name__
            row.update(status="failed", error_kind=kind, error=str(run))
        else:
            try:
                row.update(outcome(model, run))
            except routh.RouthError as e:
                row.update(status="failed", error_kind=e.kind, error=str(e))
        rows.append(row)
    return rows


def run_chunk(model, first: int, starts, parameters, t_span, options: dict, outcome) -> list[dict]:
    """Runs one chunk of members (a Dask task): `model.ensemble` over its rows, one row each."""
    runs = model.ensemble(starts, tuple(t_span), parameters=parameters, **options)
    return _rows(model, first, runs, outcome)


def _frame(rows: list[dict], columns: Optional[list[str]] = None):
    import pandas as pd

    frame = pd.DataFrame(rows)
    for column in STATUS_COLUMNS:
        if column not in frame.columns:
            frame[column] = None
    frame["member"] = frame["member"].astype("int64")
    for column in ("status", "error_kind", "error"):
        frame[column] = frame[column].astype("object")
    outcome = [c for c in frame.columns if c not in STATUS_COLUMNS]
    for c in outcome:
        frame[c] = frame[c].astype("float64")
    if columns is not None:
        for c in columns:
            if c not in frame.columns:
                frame[c] = np.nan
        outcome = [c for c in columns if c not in STATUS_COLUMNS]
    return frame[STATUS_COLUMNS + outcome].sort_values("member", kind="stable").reset_index(drop=True)


def _concat(frames):
    """The chunks' tables as one, in the members' order, with every outcome column any chunk has
    (NaN where a chunk has none: one whose members all failed)."""
    import pandas as pd

    columns = []
    for f in frames:
        columns += [c for c in f.columns if c not in columns]
    rows = [f for f in frames if len(f)]
    return _frame(pd.concat(rows, ignore_index=True).to_dict("records"), columns) if rows else _frame([], columns)


def _describe(model, starts, parameters, t_span, options, chunk, outcome) -> dict:
    digest = hashlib.sha256(starts.tobytes())
    if parameters is not None:
        digest.update(parameters.tobytes())
    return {
        "model": type(model).__module__ + "." + type(model).__name__,
        "parameters": model.parameter_values,
        "members": int(len(starts)),
        "members_sha256": digest.hexdigest(),
        "t_span": list(t_span),
        "options": {k: (list(v) if isinstance(v, (list, tuple, np.ndarray)) else v) for k, v in options.items()},
        "chunk": chunk,
        "outcome": getattr(outcome, "__module__", "?") + "." + getattr(outcome, "__qualname__", repr(outcome)),
    }


def _import_error(module: str):
    """None if `module` imports here (on a worker), else why not."""
    import importlib

    try:
        importlib.import_module(module)
    except Exception as e:  # reported to the caller
        return f"{type(e).__name__}: {e}"
    return None


def _add_path(folder: str) -> None:
    import sys

    if folder not in sys.path:
        sys.path.insert(0, folder)


def _write_part(path: pathlib.Path, index: int, frame) -> None:
    final = path / f"part-{index:05d}.parquet"
    partial = path / f".part-{index:05d}.parquet.tmp"
    frame.to_parquet(partial, index=False)
    os.replace(partial, final)


def sweep(
    model,
    members,
    t_span,
    *,
    client=None,
    path: Optional[str] = None,
    chunk: int = 64,
    outcome: Callable = end_state,
    threads: Optional[int] = 1,
    **options,
):
    """Runs `model` from every row of `members` over `t_span` and returns the table (see the module
    docs). `client`: a ``dask.distributed.Client`` (each chunk of `chunk` members one task; without
    one, the chunks run here, one after another); `path`: a directory for the Parquet parts and
    resumption; `outcome(model, run) -> dict`; `threads`: the ensemble's threads per task;
    `options`: ``simulate``'s (``rtol``, ``atol``, ``method``, ``inputs``, ``mode``, ``t_eval``, ``dt``,
    ``max_steps``). ``table.attrs["chunks_run"]`` says how many chunks this call ran.
    """
    starts, parameters = _members(model, members)
    count = len(starts)
    chunks = [(first, min(first + chunk, count)) for first in range(0, count, chunk)]
    run_options = dict(options, threads=threads)
    described = _describe(model, starts, parameters, t_span, options, chunk, outcome)
    done: dict[int, object] = {}
    folder = pathlib.Path(path) if path is not None else None
    if folder is not None:
        import pandas as pd

        folder.mkdir(parents=True, exist_ok=True)
        record = folder / "sweep.json"
        if record.is_file():
            previous = json.loads(record.read_text())
            if previous != json.loads(json.dumps(described)):
                raise ValueError(f"{folder} holds another sweep ({previous['model']}, {previous['members']} members)")
        else:
            record.write_text(json.dumps(described, indent=1))
        for index in range(len(chunks)):
            part = folder / f"part-{index:05d}.parquet"
            if part.is_file():
                done[index] = pd.read_parquet(part)
    todo = [i for i in range(len(chunks)) if i not in done]

    def arguments(index):
        first, end = chunks[index]
        rows = None if parameters is None else parameters[first:end]
        return (model, first, starts[first:end], rows, t_span, run_options, outcome)

    if client is None:
        for index in todo:
            frame = _frame(run_chunk(*arguments(index)))
            if folder is not None:
                _write_part(folder, index, frame)
            done[index] = frame
    else:
        from dask.distributed import as_completed

        # A model compiled from Python (`routh.compile`) is imported from its folder in the cache:
        # point the workers there (they share this machine's files, as a local cluster's do).
        import sys

        module = type(model).__module__
        compiled = getattr(sys.modules.get(module), "__routh_compiled__", None)
        if compiled is not None:
            client.run(_add_path, compiled)
        # A worker that cannot import the model's module cannot unpickle a task: say so now.
        missing = {w: e for w, e in client.run(_import_error, module).items() if e is not None}
        if missing:
            from .errors import RouthError

            worker, error = next(iter(missing.items()))
            raise RouthError(
                f"{len(missing)} Dask worker(s) cannot import `{module}`, the module of {type(model).__name__} "
                f"({worker}: {error}): install it where the workers run",
                "WorkersCannotImport",
            )
        futures = {client.submit(run_chunk, *arguments(index), pure=False): index for index in todo}
        for future in as_completed(list(futures)):
            index = futures[future]
            first, end = chunks[index]
            try:
                frame = _frame(future.result())
            except Exception as e:  # the task itself failed (e.g. its workers kept dying): recorded
                rows = [
                    {"member": m, "status": "failed", "error_kind": type(e).__name__, "error": str(e)}
                    for m in range(first, end)
                ]
                frame = _frame(rows)
                done[index] = frame
                continue  # not written: a resumed sweep runs the chunk again
            if folder is not None:
                _write_part(folder, index, frame)
            done[index] = frame
    table = _concat([done[i] for i in range(len(chunks))])
    table.attrs["chunks_run"] = len(todo)
    return table


def in_process(model, members, t_span, *, outcome: Callable = end_state, threads: Optional[int] = None, **options):
    """The same table from one ``model.ensemble`` over every member, in this process: what
    :func:`sweep` must equal."""
    starts, parameters = _members(model, members)
    runs = model.ensemble(starts, tuple(t_span), parameters=parameters, threads=threads, **options)
    return _frame(_rows(model, 0, runs, outcome))


def read(path: str):
    """The table of a sweep written to `path` (its parts, in the members' order)."""
    import pandas as pd

    parts = sorted(pathlib.Path(path).glob("part-*.parquet"))
    if not parts:
        raise FileNotFoundError(f"{path} has no parts of a sweep")
    return _concat([pd.read_parquet(p) for p in parts])


def from_shards(paths, columns=None):
    """The table of a sweep run by the Rust sweep path (``routh::runtime::sweep``: shards of JSON
    Lines, as Slurm array tasks write them): one row per member in the members' order, in the
    same columns as :func:`sweep`'s — ``member``, ``status``, ``error_kind`` (the variant of
    routh's typed error), ``error`` (the error as JSON) — then the members' results: a number is
    ``result``, a list of numbers is named by `columns` (or ``result 0``, ``result 1``, ...), a dict
    by its keys. ``to_parquet`` writes it as :func:`sweep` does.
    """
    rows = []
    for path in paths:
        with open(path) as shard:
            for number, line in enumerate(shard):
                line = line.strip()
                if not line:
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # a last line cut short by a crash (the Rust side drops it too)
                if number == 0 and "index" not in entry:
                    continue  # the shard's header
                row = {"member": entry["index"], "status": "ok", "error_kind": None, "error": None}
                result = entry["result"]
                if "Err" in result:
                    error = result["Err"]
                    kind = error if isinstance(error, str) else next(iter(error))
                    row.update(status="failed", error_kind=kind, error=json.dumps(error))
                else:
                    value = result["Ok"]
                    if isinstance(value, dict):
                        row.update({k: _number(v) for k, v in value.items()})
                    elif isinstance(value, list):
                        names = columns or [f"result {i}" for i in range(len(value))]
                        if len(names) != len(value):
                            raise ValueError(f"{len(value)} results per member but {len(names)} columns")
                        row.update({n: _number(v) for n, v in zip(names, value)})
                    else:
                        row["result"] = _number(value)
                rows.append(row)
    members = [r["member"] for r in rows]
    if len(set(members)) != len(members):
        raise ValueError("a member appears in more than one shard line")
    return _frame(rows)


def _number(value):
    """A result written by serde: a number, or null / a name for a non-finite one."""
    if value is None:
        return float("nan")
    if isinstance(value, str):
        return {"NaN": float("nan"), "inf": float("inf"), "-inf": float("-inf")}.get(value, float("nan"))
    return float(value)


def main(argv=None) -> int:
    """``python -m routh.sweep OUT.parquet SHARD.jsonl... [--columns a,b,...]``: the Rust sweep path's
    shards as one Parquet table."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m routh.sweep", description=main.__doc__.splitlines()[0])
    parser.add_argument("out", help="the Parquet file to write")
    parser.add_argument("shards", nargs="+", help="the shards' JSON Lines files")
    parser.add_argument("--columns", help="names of a list result's entries, comma-separated")
    args = parser.parse_args(argv)
    table = from_shards(args.shards, columns=args.columns.split(",") if args.columns else None)
    table.to_parquet(args.out, index=False)
    failed = int((table["status"] == "failed").sum())
    print(f"{len(table)} members ({failed} failed) written to {args.out}")
    return 0


__all__ = ["end_state", "from_shards", "in_process", "read", "run_chunk", "sweep"]

if __name__ == "__main__":
    raise SystemExit(main())
