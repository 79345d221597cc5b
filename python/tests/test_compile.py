"""`routh.compile`: a model from Python source text, built by cargo, cached, imported; a model the
derive refuses raises with the DSL's error text and the line of the source it points at."""

import pathlib
import subprocess

import numpy as np
import pytest

import routh
import routh._compile

# Builds share the repository's target directory (dependencies compile once for every test).
TARGET = str(pathlib.Path(__file__).resolve().parents[2] / "target" / "python-compile")

SPRING = """
/// A mass on a spring.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x),
    lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2),
)]
pub struct Spring { pub m: f64, pub k: f64 }
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUTH_CACHE", str(tmp_path))
    return tmp_path


def test_a_model_compiled_from_python_runs_and_is_cached(cache, monkeypatch):
    module = routh.compile(SPRING, name="routh_test_spring", release=False, target_dir=TARGET)
    spring = module.Spring(m=2.0, k=8.0)
    assert spring.parameters == ("m", "k")
    run = spring.simulate([1.0, 0.0], (0.0, 1.5), rtol=1e-11, atol=1e-12)
    # x(t) = cos(w t) with w = sqrt(k / m) = 2.
    assert abs(run.x[-1, 0] - np.cos(3.0)) < 1e-8
    assert abs(run.x[-1, 1] + 2.0 * np.sin(3.0)) < 1e-8

    # The same source again: imported from the cache, cargo not run.
    def no_cargo(*args, **kwargs):
        raise AssertionError("cargo ran for a cached model")

    monkeypatch.setattr(subprocess, "run", no_cargo)
    again = routh.compile(SPRING, name="routh_test_spring", release=False, target_dir=TARGET)
    assert again.Spring(m=2.0, k=8.0).field([1.0, 0.0]).tolist() == [0.0, -4.0]


def test_an_invalid_model_raises_with_the_dsl_error_and_its_line(cache):
    bad = SPRING.replace("k / 2 * x.powi(2)", "k / 2 * y.powi(2)")
    with pytest.raises(routh.CompileError) as error:
        routh.compile(bad, name="routh_test_bad_spring", release=False, target_dir=TARGET)
    message = str(error.value)
    assert error.value.kind == "ModelError"
    assert "unknown name `y`" in message and "Known names: x, m, k" in message
    # The source opens with a newline: `lagrangian = ...` is its sixth line.
    assert "model source line 6: lagrangian = m / 2" in message
    assert [d["line"] for d in error.value.diagnostics] == [6]
    assert "DynModel" not in message  # the cascade into the module's export is left out


def test_what_compile_refuses_before_building(cache, monkeypatch):
    with pytest.raises(routh.CompileError, match="no struct with #\\[derive\\(Mechanics\\)\\]"):
        routh.compile("pub struct Nothing;", name="routh_test_nothing")
    with pytest.raises(routh.CompileError, match="not a Python identifier"):
        routh.compile(SPRING, name="not-a-name")
    monkeypatch.setattr(routh._compile.shutil, "which", lambda _: None)
    with pytest.raises(routh.CompileError) as error:
        routh.compile(SPRING, name="routh_test_spring_no_cargo")
    assert error.value.kind == "CargoNotFound" and "cargo" in str(error.value)
