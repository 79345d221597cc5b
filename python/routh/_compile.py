"""`routh.compile`: a model written in Python source text, built into a module without a Rust project.

The source is Rust — the model structs with ``#[derive(Mechanics)]`` and their DSL, as in a
crate — given as a string. ``compile`` writes a crate around it (the models exported with
``routh_python::module!``), builds it with cargo against this clone's routh, caches the built module
by the hash of everything that went into it, and imports it. The derive's compile errors come back
as :class:`routh.errors.CompileError`, with the line of the model source they point at.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

from .errors import CompileError

PRELUDE = "#![forbid(unsafe_code)]\n#![allow(dead_code)]\nuse routh::prelude::*;\n"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MODEL = re.compile(r"#\[\s*derive\s*\(([^)]*)\)\s*\]", re.S)
_STRUCT = re.compile(r"\bstruct\s+([A-Za-z_][A-Za-z0-9_]*)")
_LOCATION = re.compile(r"src/lib\.rs:(\d+):(\d+)")


def source_root() -> pathlib.Path:
    """The routh clone whose crates models are built against: ``$ROUTH_SOURCE``, or the clone this
    package was installed from (``pip install -e python``)."""
    given = os.environ.get("ROUTH_SOURCE")
    root = pathlib.Path(given) if given else pathlib.Path(__file__).resolve().parents[2]
    if not (root / "python" / "Cargo.toml").is_file() or not (root / "runtime" / "Cargo.toml").is_file():
        raise CompileError(
            f"routh.compile builds against routh's sources, and {root} is not a clone of routh: "
            "install this package editable from a clone (pip install -e python) or set ROUTH_SOURCE",
            "NoSources",
        )
    return root


def cache_root() -> pathlib.Path:
    """Where built modules are kept: ``$ROUTH_CACHE``, or ``~/.cache/routh``."""
    given = os.environ.get("ROUTH_CACHE")
    return pathlib.Path(given) if given else pathlib.Path.home() / ".cache" / "routh"


def _sources_digest(root: pathlib.Path) -> str:
    """A digest of routh's own sources (a clone that changed builds anew)."""
    digest = hashlib.sha256()
    for crate in ["symbolic", "macros", "runtime", "src", "python/src", "python/routh/errors.py", "Cargo.toml", "Cargo.lock"]:
        path = root / crate
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for f in files:
            if f.is_file() and (f.suffix in {".rs", ".toml", ".lock", ".py"}) and "target" not in f.parts:
                digest.update(str(f.relative_to(root)).encode())
                digest.update(f.read_bytes())
    return digest.hexdigest()


def models_in(source: str) -> list[str]:
    """The names of the structs of `source` that derive ``Mechanics``, in order."""
    names = []
    for derive in _MODEL.finditer(source):
        if "Mechanics" not in derive.group(1):
            continue
        struct = _STRUCT.search(source, derive.end())
        if struct:
            names.append(struct.group(1))
    return names


def _crate(root: pathlib.Path, name: str, source: str, models: list[str]) -> tuple[str, str]:
    """The crate's manifest and ``src/lib.rs``."""
    manifest = f"""[package]
name = "{name.replace('_', '-')}"
version = "0.1.0"
edition = "2024"
publish = false

[lib]
name = "{name}"
crate-type = ["cdylib"]
path = "src/lib.rs"

[dependencies]
routh = {{ path = {json.dumps(str(root))} }}
routh-python = {{ path = {json.dumps(str(root / "python"))} }}

[workspace]
"""
    lib = PRELUDE + source + f"\n\nrouth_python::module!({name}, [{', '.join(models)}]);\n"
    return manifest, lib


def _diagnostics(stdout: str, source: str) -> list[dict]:
    """The compiler's errors from cargo's JSON messages, each with its line in the model source."""
    offset = PRELUDE.count("\n")
    lines = source.splitlines()
    found = []
    for line in stdout.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("reason") != "compiler-message":
            continue
        diagnostic = message["message"]
        if diagnostic.get("level") not in ("error", "error: internal compiler error"):
            continue
        spans = [s for s in diagnostic.get("spans", []) if s.get("file_name", "").endswith("lib.rs")]
        primary = next((s for s in spans if s.get("is_primary")), spans[0] if spans else None)
        entry = {"message": diagnostic.get("message", ""), "rendered": diagnostic.get("rendered") or "", "line": None}
        if primary is not None:
            number = primary["line_start"] - offset
            if 1 <= number <= len(lines):
                entry["line"] = number
                entry["column"] = primary["column_start"]
                entry["text"] = lines[number - 1]
        entry["rendered"] = _LOCATION.sub(
            lambda m: f"model source:{int(m.group(1)) - offset}:{m.group(2)}", entry["rendered"]
        )
        found.append(entry)
    # An error in the model source leaves the module's export of the model unbuilt: report the
    # source's errors alone when it has any.
    in_source = [d for d in found if d["line"] is not None]
    return in_source or found


def _load(name: str, path: pathlib.Path):
    """Imports the built module: its folder goes on ``sys.path`` (so that ``import name`` and
    unpickling its models work here, and in Dask workers :func:`routh.sweep.sweep` points there)."""
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.__routh_compiled__ = folder
    sys.modules[name] = module
    return module


def compile(source: str, name: str, *, release: bool = True, target_dir: str | None = None, quiet: bool = True):
    """Builds the models of `source` (Rust: structs deriving ``Mechanics``, with their
    ``#[mechanics(...)]``; ``use routh::prelude::*`` is in scope) into the Python module `name` and
    imports it.

    The built module is cached under ``$ROUTH_CACHE`` (default ``~/.cache/routh``) by the hash of
    the source, the name, the profile, the Python version and routh's own sources: compiling the
    same model again imports it at once. Builds share one cargo target directory (the cache's, or
    `target_dir`), so routh and PyO3 compile once. ``release=False`` builds without optimisation
    (faster to build, slower to run).

    Raises :class:`routh.errors.CompileError` for a source that does not build (the message is the
    compiler's, with the model source's line; ``diagnostics`` lists each error's message and line),
    for a machine without cargo, and for a routh package that is not a clone's.
    """
    if not _NAME.match(name):
        raise CompileError(f"the module name `{name}` is not a Python identifier", "InvalidName")
    models = models_in(source)
    if not models:
        raise CompileError("the source has no struct with #[derive(Mechanics)]", "NoModels")
    cargo = shutil.which("cargo")
    if cargo is None:
        raise CompileError(
            "routh.compile builds the model with cargo, Rust's build tool, which is not on PATH: "
            "install Rust (https://rustup.rs) and try again",
            "CargoNotFound",
        )
    root = source_root()
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    key = hashlib.sha256(
        "\0".join([source, name, str(release), sys.version, suffix, str(root), _sources_digest(root)]).encode()
    ).hexdigest()[:20]
    home = cache_root()
    built = home / "modules" / key / f"{name}{suffix}"
    if built.is_file():
        return _load(name, built)
    crate = home / "crates" / key
    (crate / "src").mkdir(parents=True, exist_ok=True)
    manifest, lib = _crate(root, name, source, models)
    (crate / "Cargo.toml").write_text(manifest)
    (crate / "src" / "lib.rs").write_text(lib)
    target = pathlib.Path(target_dir) if target_dir else home / "target"
    command = [cargo, "build", "--message-format=json-diagnostic-rendered-ansi" if not quiet else "--message-format=json"]
    if release:
        command.append("--release")
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), PYO3_BUILD_EXTENSION_MODULE="1", PYO3_PYTHON=sys.executable)
    done = subprocess.run(command, cwd=crate, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        found = _diagnostics(done.stdout, source)
        if not found:
            raise CompileError(f"cargo failed to build `{name}`:\n{done.stderr[-4000:]}", "BuildFailed")
        parts = []
        for d in found:
            where = f"model source line {d['line']}: {d['text'].strip()}\n" if d["line"] else ""
            parts.append(where + d["rendered"].rstrip())
        error = CompileError("\n\n".join(parts), "ModelError")
        error.diagnostics = found
        raise error
    library = target / ("release" if release else "debug") / f"lib{name}.so"
    if not library.is_file():
        raise CompileError(f"cargo built `{name}` but {library} is missing", "BuildFailed")
    built.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(library, built)
    return _load(name, built)
