"""Model-predictive control of a routh model by its ``ilqr`` over a receding horizon.

The same controller as routh's ``runtime::mpc::Mpc``: at every tick ``control(t, x)`` plans the
horizon of ``steps`` steps of ``dt`` from the state ``x`` at ``t`` with the model's own iLQR (over
its RK4 step map, in the orientations' tangent charts with ``tangent=True``, or with
``scheme="variational"`` over its variational integrator, ``x`` then the discrete state) and returns the plan's
first input; the next tick starts from the plan shifted by one step, its last input repeated
(:attr:`Mpc.next_guess`) — called every ``dt``, the previous plan's own continuation, so that a
tick costs an iteration or two once the plan settles, and ``max_iterations=1`` bounds each tick's
work (the real-time iteration). Each tick is the Rust controller's to the bit (the package's tests
compare them).
"""

import numpy as np


class Mpc:
    """A model-predictive controller of ``model`` (an instance of a generated class with inputs).

    ``goal``, ``q``, ``r``, ``qf``, ``reference``, ``limits``, ``tolerance``, ``max_iterations``,
    ``tangent``, ``scheme``, ``parallel`` and ``final_gains`` are the model's ``ilqr`` arguments, planned at every tick over ``steps``
    steps of ``dt``; ``guess`` the first tick's inputs (``steps`` rows; zeros by default, or the reference
    input repeated). A path to track is given tick by tick by :meth:`references`.
    """

    def __init__(self, model, steps, dt, goal, q, r, qf, *, reference=None, limits=None, tolerance=1e-8,
                 max_iterations=200, tangent=False, scheme="rk4", parallel=False, final_gains=True, guess=None):
        inputs = np.asarray(r, dtype=float).shape[0]
        if guess is None:
            row = np.zeros(inputs) if reference is None else np.asarray(reference, dtype=float)
            guess = np.tile(row, (steps, 1))
        self.model = model
        self.dt = dt
        self._problem = dict(goal=goal, q=q, r=r, qf=qf)
        self._options = dict(reference=reference, limits=limits, tolerance=tolerance, max_iterations=max_iterations,
                             tangent=tangent, scheme=scheme, parallel=parallel, final_gains=final_gains)
        self._guess = np.array(guess, dtype=float).reshape(steps, inputs)
        self._path = None
        self.plan = None

    def references(self, states, inputs):
        """The next ticks' references along a path, from the horizon's start: the states
        x*_0 … x*_N ((steps + 1) rows) and inputs u*_0 … u*_{N−1} (``steps`` rows) — a path's
        window, moved along it before each tick (the model's ``ilqr(..., path=...)``)."""
        self._path = (np.asarray(states, dtype=float), np.asarray(inputs, dtype=float))

    @property
    def next_guess(self):
        """The next tick's guess: the last plan shifted by one step (its last input repeated)."""
        return self._guess.copy()

    def control(self, t, x):
        """The input at the state ``x`` at time ``t``: the first of the plan over the horizon from
        (t, x), warm-started from the last tick's plan; the plan (states, inputs, gains, costs,
        status) is kept as :attr:`plan`. A failure raises the model's own exception and leaves the
        guess and the last plan as they were."""
        p = self._problem
        plan = self.model.ilqr(x, self._guess, self.dt, p["goal"], p["q"], p["r"], p["qf"], t0=t, path=self._path,
                               **self._options)
        inputs = plan["inputs"]
        self._guess = np.vstack([inputs[1:], inputs[-1:]])
        self.plan = plan
        return inputs[0].copy()
