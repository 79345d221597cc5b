"""Type stubs (``.pyi``) for a module of routh models, for editors and type checkers.

``python -m routh.stubs <module> [--out DIR]`` imports the module and writes ``<name>.pyi`` beside
its extension file (or into ``DIR``): the shared ``Model`` and ``Solution`` classes and one class per
model, whose constructor takes the model's parameters as keyword arguments.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pathlib
import sys

HEADER = '''\
# Type stubs of a module of routh models, written by `python -m routh.stubs`.
from typing import Any, Callable, ClassVar, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from routh.errors import ArgumentError, ParameterError, RouthError, SimulationError

ArrayLike = Union[npt.ArrayLike, Sequence[float]]
__routh_version__: str

class Solution:
    """The result of a run."""
    t: npt.NDArray[np.float64]
    x: npt.NDArray[np.float64]
    modes: npt.NDArray[np.int64]
    outputs: dict[str, npt.NDArray[np.float64]]
    events: list[tuple[str, float, npt.NDArray[np.float64]]]
    impacts: list[dict]
    state_names: tuple[str, ...]
    finished: bool
    stop: str
    steps: int
    rejected: int
    evaluations: int
    def __len__(self) -> int: ...

class Model:
    """The base class of the module's models."""
    parameters: ClassVar[tuple[str, ...]]
    coordinates: ClassVar[tuple[str, ...]]
    state_names: ClassVar[tuple[str, ...]]
    inputs: ClassVar[tuple[str, ...]]
    outputs: ClassVar[tuple[str, ...]]
    modes: ClassVar[tuple[str, ...]]
    impacts: ClassVar[tuple[str, ...]]
    state_dim: ClassVar[int]
    discrete_rule: ClassVar[Optional[str]]
    discrete_kind: ClassVar[Optional[str]]
    discrete_state_names: ClassVar[tuple[str, ...]]
    discrete_cyclic: ClassVar[tuple[str, ...]]
    position_limits: ClassVar[Optional[npt.NDArray[np.float64]]]
    effort_limits: ClassVar[Optional[npt.NDArray[np.float64]]]
    velocity_limits: ClassVar[Optional[npt.NDArray[np.float64]]]
    friction: ClassVar[Optional[npt.NDArray[np.float64]]]
    @property
    def parameter_values(self) -> dict[str, float]: ...
    def with_parameters(self, **changes: float) -> "Model": ...
    def field(self, x: ArrayLike, t: float = 0.0, u: Optional[ArrayLike] = None, mode: int = 0) -> npt.NDArray[np.float64]: ...
    def energy(self, x: ArrayLike, t: float = 0.0, mode: int = 0) -> float: ...
    def momenta(self, x: ArrayLike, t: float = 0.0, mode: int = 0) -> npt.NDArray[np.float64]: ...
    def mass_matrix(self, x: ArrayLike, t: float = 0.0, mode: int = 0) -> npt.NDArray[np.float64]: ...
    def inverse_dynamics(
        self, x: ArrayLike, qdd: ArrayLike, t: float = 0.0, u: Optional[ArrayLike] = None, mode: int = 0
    ) -> npt.NDArray[np.float64]: ...
    def static_forces(self, x: ArrayLike, t: float = 0.0, u: Optional[ArrayLike] = None, mode: int = 0) -> npt.NDArray[np.float64]: ...
    def inverse_dynamics_jacobian(
        self, x: ArrayLike, qdd: ArrayLike, t: float = 0.0, u: Optional[ArrayLike] = None, mode: int = 0
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def output_values(self, x: ArrayLike, t: float = 0.0, u: Optional[ArrayLike] = None, mode: int = 0) -> dict[str, float]: ...
    def output_jacobian(self, x: ArrayLike, t: float = 0.0, mode: int = 0) -> npt.NDArray[np.float64]: ...
    def linearize(
        self, x: ArrayLike, u: Optional[ArrayLike] = None, t: float = 0.0, mode: int = 0
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def linearize_tangent(
        self, x: ArrayLike, u: Optional[ArrayLike] = None, t: float = 0.0, mode: int = 0
    ) -> dict[str, Any]: ...
    def lqr(
        self, x: ArrayLike, u: ArrayLike, q: ArrayLike, r: ArrayLike, t: float = 0.0, mode: int = 0, tangent: bool = False
    ) -> npt.NDArray[np.float64]: ...
    def step(
        self,
        x: ArrayLike,
        u: ArrayLike,
        dt: float,
        t: float = 0.0,
        mode: int = 0,
        tangent: bool = False,
        scheme: str = "rk4",
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def advance(
        self, x: ArrayLike, u: ArrayLike, dt: float, t: float = 0.0, mode: int = 0, scheme: str = "rk4"
    ) -> npt.NDArray[np.float64]: ...
    def dlqr(
        self,
        x: ArrayLike,
        u: ArrayLike,
        q: ArrayLike,
        r: ArrayLike,
        dt: float,
        t: float = 0.0,
        mode: int = 0,
        tangent: bool = False,
        scheme: str = "rk4",
    ) -> npt.NDArray[np.float64]: ...
    def ilqr(
        self,
        x0: ArrayLike,
        guess: ArrayLike,
        dt: float,
        goal: ArrayLike,
        q: ArrayLike,
        r: ArrayLike,
        qf: ArrayLike,
        *,
        t0: float = 0.0,
        reference: Optional[ArrayLike] = None,
        path: Optional[tuple[ArrayLike, ArrayLike]] = None,
        limits: Optional[tuple[ArrayLike, ArrayLike]] = None,
        tolerance: float = 1e-8,
        max_iterations: int = 200,
        tangent: bool = False,
        scheme: str = "rk4",
        parallel: bool = False,
        final_gains: bool = True,
    ) -> dict[str, Any]: ...
    def discrete_state(self, x: ArrayLike, t: float = 0.0) -> npt.NDArray[np.float64]: ...
    def simulate_discrete(
        self,
        x0: ArrayLike,
        dt: float,
        steps: int,
        *,
        t0: float = 0.0,
        inputs: Optional[ArrayLike] = None,
        tolerance: float = 1e-14,
        max_iterations: int = 30,
        energies: bool = False,
        reduced: bool = False,
    ) -> dict[str, Any]: ...
    def simulate(
        self,
        x0: ArrayLike,
        t_span: tuple[float, float],
        *,
        rtol: Optional[float] = None,
        atol: Optional[float] = None,
        method: str = "dopri5",
        inputs: Union[ArrayLike, Callable[[float, npt.NDArray[np.float64]], ArrayLike], None] = None,
        mode: int = 0,
        t_eval: Optional[ArrayLike] = None,
        dt: Optional[float] = None,
        max_steps: Optional[int] = None,
        events: Optional[list[dict]] = None,
        feedback: Optional[tuple[ArrayLike, ArrayLike]] = None,
    ) -> Solution: ...
    def ensemble(
        self,
        x0: ArrayLike,
        t_span: tuple[float, float],
        *,
        parameters: Optional[ArrayLike] = None,
        rtol: Optional[float] = None,
        atol: Optional[float] = None,
        method: str = "dopri5",
        inputs: Union[ArrayLike, Callable[[float, npt.NDArray[np.float64]], ArrayLike], None] = None,
        mode: int = 0,
        t_eval: Optional[ArrayLike] = None,
        dt: Optional[float] = None,
        max_steps: Optional[int] = None,
        events: Optional[list[dict]] = None,
        feedback: Optional[tuple[ArrayLike, ArrayLike]] = None,
        threads: Optional[int] = None,
    ) -> list[Union[Solution, RouthError]]: ...
'''


def models(module) -> list[type]:
    """The model classes of `module`, in the order it exports them."""
    found = [c for _, c in inspect.getmembers(module, inspect.isclass) if hasattr(c, "_routh_model")]
    return sorted(found, key=lambda c: c._routh_model)


def stubs(module) -> str:
    """The text of the module's stubs."""
    out = [HEADER]
    for cls in models(module):
        arguments = ", ".join(f"{p}: float" for p in cls.parameters)
        out.append(f"class {cls.__name__}(Model):")
        out.append(f'    """{cls.__doc__}"""')
        out.append(f"    def __init__(self, *, {arguments}) -> None: ..." if arguments else "    def __init__(self) -> None: ...")
        out.append("")
    for name, value in inspect.getmembers(module, inspect.isbuiltin):
        if not name.startswith("_"):
            out.append(f"def {name}(*args, **kwargs): ...")
    return "\n".join(out) + "\n"


def write(module_name: str, out: str | None = None) -> pathlib.Path:
    """Writes the stubs of the module `module_name`; returns the file written."""
    module = importlib.import_module(module_name)
    # A maturin package re-exports its extension: write beside the extension itself.
    extension = next((c for c in models(module)), None)
    target_module = importlib.import_module(extension.__module__) if extension is not None else module
    name = target_module.__name__.rsplit(".", 1)[-1]
    directory = pathlib.Path(out) if out else pathlib.Path(target_module.__file__).parent
    path = directory / f"{name}.pyi"
    path.write_text(stubs(target_module))
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m routh.stubs", description=__doc__.splitlines()[0])
    parser.add_argument("module", help="the module of routh models (importable)")
    parser.add_argument("--out", help="the directory to write into (default: beside the module)")
    args = parser.parse_args(argv)
    print(write(args.module, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
