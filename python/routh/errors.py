"""The exceptions routh raises in Python: one class per kind of failure, each carrying routh's typed
error (``kind``, the Rust variant's name, and ``message``) and, for a run that failed after it
started, the work done up to the failure (``partial``, a ``Solution``, or ``None``).

Every module of routh models raises these same classes (a module built without the ``routh``
package installed defines them once per process under ``_routh_errors``).
"""


class RouthError(Exception):
    """A failure reported by routh; ``kind`` names routh's typed error (``"StepSizeUnderflow"``,
    ``"InvalidParameter"``, ...), ``partial`` is the run up to the failure where one was kept."""

    def __init__(self, message, kind=None, partial=None):
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.partial = partial

    def __reduce__(self):
        return (type(self), (self.message, self.kind, self.partial))


class ParameterError(RouthError, ValueError):
    """A model built with a parameter it cannot take (not finite, a negative mass, ...), or with
    parameters missing or unknown."""


class ArgumentError(RouthError, ValueError):
    """An argument out of range: a state of the wrong size, a mode that does not exist, invalid
    options or time span, a non-finite start."""


class SimulationError(RouthError):
    """A run that failed after it started (step size underflow, a singular mass matrix, a guard
    violated, ...): ``partial`` holds the samples up to the failure."""


class CompileError(RouthError):
    """A model compiled from Python that does not build: the message is the compiler's, with the
    DSL line it points at."""
