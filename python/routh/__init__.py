"""routh from Python.

Modules of routh models are built from Rust crates that export their models with
``routh_python::module!`` (maturin builds them); each model is a class whose instances simulate,
evaluate and linearize as the Rust model does, to the bit. This package holds what such modules
share: the exceptions they raise (:mod:`routh.errors`) and their type stubs
(``python -m routh.stubs <module>``); :func:`compile`, which builds models written as source
text into such a module without a Rust project of one's own; and :class:`Mpc`, model-predictive
control of such a model by its ``ilqr`` over a receding horizon.
"""

from ._compile import compile
from .errors import ArgumentError, CompileError, ParameterError, RouthError, SimulationError
from .mpc import Mpc

__all__ = ["ArgumentError", "CompileError", "Mpc", "ParameterError", "RouthError", "SimulationError", "compile"]
