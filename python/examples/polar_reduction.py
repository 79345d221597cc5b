"""Discrete Routh reduction from Python: the particle of *Forced discrete reduction*, Example 3.13 —
a particle in the plane in polar coordinates on the covering (r, η), in the sextic potential
r²(r² − 1)² and damped by f = −κ (ṙ dr + r² η̇ dη) (erratum D3 of docs/references.md: the force's
consistent pullback) — on its midpoint variational integrator, run in full and reduced by the angle
η (each step solved on the reduced space, η reconstructed from its increments W_k).

It prints what it checks: the angular momentum p_η decays by the (1,1)-Padé factor
(2 − κh)/(2 + κh) of e^{−κh} every step, exactly as the discrete momentum map's law says (the
digest's p_N/p_0 = 0.13533526068 for h = 0.01, κ = 0.1, N = 2000); the reduced run and the full one
agree to rounding; the increments are the reconstruction's steps of η. It draws the orbit in the
plane, r(t), and p_η's relative distance from the Padé law (rounding) and from the flow's e^{−κt}
(the integrator's O(h²) a unit time).

Run after `./python/setup.sh`: `target/python-venv/bin/python python/examples/polar_reduction.py`
(writes out/python_polar_reduction.svg).
"""

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from routh_models import PolarParticle

kappa, h, steps = 0.1, 0.01, 2000
particle = PolarParticle(kappa=kappa)
print(f"{particle.discrete_rule} rule, reduced by {particle.discrete_cyclic}, discrete state {particle.discrete_state_names}")
x0 = [1.2, 0.0, 0.0, 0.5]  # r, eta, dot(r), dot(eta)
reduced = particle.simulate_discrete(x0, h, steps, reduced=True, energies=True)
full = particle.simulate_discrete(x0, h, steps)
t, (r, eta, p_r, p_eta) = reduced["t"], reduced["x"].T

pade = (2 - kappa * h) / (2 + kappa * h)
ratio = p_eta[1:] / p_eta[:-1]
print(f"p_eta per step against the Pade factor {pade:.15f}: largest gap {np.max(np.abs(ratio - pade)):.1e}")
print(f"p_N / p_0 = {p_eta[-1] / p_eta[0]:.11f} (digest: 0.13533526068; e^(-kappa t_N) = {np.exp(-kappa * t[-1]):.11f})")
gap = np.max(np.abs(full["x"] - reduced["x"]) / np.maximum(np.abs(reduced["x"]), 1.0))
print(f"reduced against full run: {gap:.1e} (relative, over {steps} steps)")
steps_of_eta = np.max(np.abs(np.diff(eta) - reduced["increments"][:, 0]))
print(f"increments W_k against the reconstructed eta's steps: {steps_of_eta:.1e}")
energy = reduced["energy"]
print(f"energy {energy[0]:.6f} -> {energy[-1]:.6f} (dissipated by the friction, never gained: "
      f"largest rise between nodes {max(np.max(np.diff(energy)), 0.0):.1e})")

fig, (orbit, radius, momentum) = plt.subplots(1, 3, figsize=(13, 4))
orbit.plot(r * np.cos(eta), r * np.sin(eta), lw=0.8)
orbit.set_aspect("equal")
orbit.set_title("the orbit in the plane (x = r cos η, y = r sin η)")
radius.plot(t, r, lw=0.8)
radius.axhline(1.0, color="grey", lw=0.5, ls=":")
radius.set_xlabel("t")
radius.set_title("r(t)")
law = p_eta[0] * pade ** np.arange(steps + 1)
flow = p_eta[0] * np.exp(-kappa * t)
momentum.semilogy(t[1:], np.abs(p_eta / law - 1)[1:] + 1e-17, lw=0.8, label="|p_η / (p₀ ((2 − κh)/(2 + κh))ᵏ) − 1|")
momentum.semilogy(t[1:], np.abs(p_eta / flow - 1)[1:], lw=0.8, label="|p_η / (p₀ exp(−κt)) − 1|")
momentum.set_xlabel("t")
momentum.set_title("p_η against the discrete law and the flow")
momentum.legend(fontsize=8)
fig.tight_layout()
out = pathlib.Path(__file__).resolve().parents[2] / "out"
out.mkdir(exist_ok=True)
fig.savefig(out / "python_polar_reduction.svg")
print("wrote out/python_polar_reduction.svg")
