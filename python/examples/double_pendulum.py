"""The showcase from Python: the double pendulum of the README, simulated by the Rust model through
the `routh_models` module, its energy drift checked and drawn with matplotlib.

Run after `./python/setup.sh`: `target/python-venv/bin/python python/examples/double_pendulum.py`
(writes out/python_double_pendulum.svg).
"""

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from routh_models import DoublePendulum

p = DoublePendulum(m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=9.81, b=0.0)
run = p.simulate([1.0, 0.5, 0.0, 0.0], (0.0, 20.0), rtol=1e-10, atol=1e-12, dt=0.01)
energy = np.array([p.energy(x) for x in run.x])
drift = np.max(np.abs(energy - energy[0]))
print(f"{len(run)} samples to t = {run.t[-1]:g} s in {run.steps} steps; max |E(t) - E(0)| = {drift:.2e} J")
assert run.finished and drift < 1e-7, "the energy of the undamped pendulum drifted"

# With damping the energy decays, never rises: E' = -b (th1'^2 + (th2' - th1')^2) <= 0.
damped = p.with_parameters(b=0.05)
run_b = damped.simulate([1.0, 0.5, 0.0, 0.0], (0.0, 20.0), rtol=1e-10, atol=1e-12, dt=0.01)
energy_b = np.array([damped.energy(x) for x in run_b.x])
rises = np.max(np.diff(energy_b))
print(f"damped (b = 0.05): E from {energy_b[0]:.4f} to {energy_b[-1]:.4f} J, largest step up {rises:.1e} J")
assert rises < 1e-9

out = pathlib.Path("out")
out.mkdir(exist_ok=True)
fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
top.plot(run.t, run.x[:, 0], label="θ₁")
top.plot(run.t, run.x[:, 1], label="θ₂")
top.set_ylabel("angle (rad)")
top.legend()
top.set_title("Double pendulum (routh, from Python)")
bottom.semilogy(run.t[1:], np.abs(energy[1:] - energy[0]) + 1e-18, label="undamped: |E(t) − E(0)|")
bottom.semilogy(run_b.t, energy_b - energy_b.min() + 1e-18, label="b = 0.05: E(t) − min E")
bottom.set_xlabel("t (s)")
bottom.set_ylabel("energy (J)")
bottom.legend()
fig.tight_layout()
fig.savefig(out / "python_double_pendulum.svg")
print("wrote out/python_double_pendulum.svg")
