"""The Python module of routh models (``routh_models``, built from ``python/models`` by maturin):
runs, fields and linearisations equal the typed Rust API's to the bit, the physics holds,
ensembles run with the GIL released, failures are typed exceptions with their partial runs."""

import ast
import pickle
import threading
import time

import numpy as np
import pytest

import routh
import routh.stubs
import routh_models as rm

PENDULUM = dict(m1=1.0, m2=2.0, l1=1.0, l2=0.5, g=9.81, b=0.0)
CARTPOLE = dict(mc=1.0, mp=0.3, l=0.8, g=9.81)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def test_the_double_pendulums_run_is_the_rust_runs_to_the_bit():
    p = rm.DoublePendulum(**PENDULUM)
    x0 = [1.0, 0.5, 0.2, -0.3]
    run = p.simulate(x0, (0.0, 5.0), rtol=1e-10, atol=1e-12)
    times, states = rm.reference_double_pendulum(list(PENDULUM.values()), x0, 5.0, 1e-10, 1e-12)
    assert run.finished and run.stop == "Finished"
    assert run.x.shape == (len(times), 4) and len(run) > 50
    assert np.array_equal(bits(run.t), bits(times))
    assert np.array_equal(bits(run.x.ravel()), bits(states))
    # Without damping the energy is conserved along the run.
    energies = np.array([p.energy(x) for x in run.x])
    assert np.max(np.abs(energies - energies[0])) < 1e-8 * abs(energies[0])
    # The output is the lower bob's height y2 = -l1 cos th1 - l2 cos th2.
    tip = -PENDULUM["l1"] * np.cos(run.x[:, 0]) - PENDULUM["l2"] * np.cos(run.x[:, 1])
    assert np.max(np.abs(run.outputs["tip_y"] - tip)) < 1e-14


def test_names_parameters_and_evaluations():
    p = rm.DoublePendulum(**PENDULUM)
    assert rm.DoublePendulum.parameters == ("m1", "m2", "l1", "l2", "g", "b")
    assert p.coordinates == ("th1", "th2") and p.state_dim == 4
    assert p.state_names == ("th1", "th2", "dot(th1)", "dot(th2)")
    assert p.outputs == ("tip_y",) and p.inputs == () and p.modes == ()
    assert p.parameter_values == PENDULUM
    assert isinstance(p, rm.Model)
    # Hanging at rest: no acceleration; tilted, the upper link is pulled back.
    assert np.array_equal(p.field(np.zeros(4)), np.zeros(4))
    f = p.field(np.array([0.1, 0.1, 0.0, 0.0]))
    assert f[0] == 0.0 and f[2] < 0.0
    # Momenta at th = 0: p1 = (m1 + m2) l1^2 w1 + m2 l1 l2 w2, p2 = m2 l2^2 w2 + m2 l1 l2 w1.
    w1, w2 = 0.3, -0.7
    mom = p.momenta([0.0, 0.0, w1, w2])
    assert abs(mom[0] - (3.0 * w1 + 2.0 * 0.5 * w2)) < 1e-14
    assert abs(mom[1] - (2.0 * 0.25 * w2 + 2.0 * 0.5 * w1)) < 1e-14
    heavier = p.with_parameters(m2=3.0)
    assert type(heavier) is rm.DoublePendulum and heavier.parameter_values["m2"] == 3.0
    assert pickle.loads(pickle.dumps(p)).parameter_values == PENDULUM


def unaligned(values):
    """`values` in an array whose data is not aligned to 8 bytes (as unpickled buffers may be)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    raw = np.frombuffer(b"\0" + values.tobytes(), dtype=np.uint8)[1:]
    out = np.ndarray(values.shape, np.float64, raw.data)
    assert not out.flags.aligned
    return out


def test_arrays_of_any_layout_are_read():
    p = rm.DoublePendulum(**PENDULUM)
    x = np.array([0.3, -0.2, 0.1, 0.4])
    assert np.array_equal(p.field(unaligned(x)), p.field(x))
    assert np.array_equal(p.field(np.array([[0.3, 9.0], [-0.2, 9.0], [0.1, 9.0], [0.4, 9.0]])[:, 0]), p.field(x))
    assert np.array_equal(p.field(x.tolist()), p.field(x))
    starts = np.array([[0.3, -0.2, 0.0, 0.0], [0.1, 0.2, 0.0, 0.0]])
    a = p.ensemble(unaligned(starts), (0.0, 1.0))
    b = p.ensemble(starts, (0.0, 1.0))
    assert all(np.array_equal(u.x, v.x) for u, v in zip(a, b))
    assert np.asfortranarray(starts).flags.f_contiguous
    c = p.ensemble(np.asfortranarray(starts), (0.0, 1.0))
    assert all(np.array_equal(u.x, v.x) for u, v in zip(c, b))
    assert p.ensemble(np.zeros((0, 4)), (0.0, 1.0)) == []


SATELLITE = dict(m=2.0, i1=1.0, i2=2.0, i3=2.75)


def test_a_satellites_tangent_linearisation_is_the_rust_values_and_the_tennis_racket():
    sat = rm.Satellite(**SATELLITE)
    # A tumble: a tilted orientation (quaternion off the unit sphere), a rate about each axis, a
    # push from the wheels.
    x = [0.1, -0.2, 0.3, 0.9, 0.1, -0.3, 0.2, 0.5, 0.0, -0.1, 0.3, -0.7, 1.1]
    u = [0.2, -0.1, 0.05, 0.3, 0.0, -0.2]
    lin = sat.linearize_tangent(x, u)
    states, ra = rm.reference_satellite_tangent(list(SATELLITE.values()), x, u)
    assert lin["states"] == states and len(states) == 12 and states[3] == "theta1(base_q)"
    assert np.array_equal(bits(lin["a"].ravel()), bits(ra))
    assert lin["b"].shape == (12, 6) and lin["embedding"].shape == (13, 12)
    # The mechanical form M δq̈ + C δq̇ + K δq = B δu (taken from the inverse dynamics' derivatives,
    # no product by M) is M times A's and B's rows of the accelerations.
    m = lin["mass"]
    assert np.allclose(lin["stiffness"], -m @ lin["a"][6:, :6], rtol=0, atol=1e-12)
    assert np.allclose(lin["damping"], -m @ lin["a"][6:, 6:], rtol=0, atol=1e-12)
    assert np.allclose(lin["input"], m @ lin["b"][6:], rtol=0, atol=1e-12)
    # Spinning about the intermediate axis it grows at the tennis racket's rate
    # s √((I2 − I1)(I3 − I2) / (I1 I3)); about the largest nothing grows. The wheels turn the body
    # by I⁻¹ u.
    s = 1.7
    i1, i2, i3 = SATELLITE["i1"], SATELLITE["i2"], SATELLITE["i3"]
    for axis, rate in [(1, s * np.sqrt((i2 - i1) * (i3 - i2) / (i1 * i3))), (2, 0.0)]:
        w = np.zeros(3)
        w[axis] = s
        spin = sat.linearize_tangent(np.concatenate([[0, 0, 0, 1, 0, 0, 0, 0, 0, 0], w]), np.zeros(6))
        assert abs(max(np.linalg.eigvals(spin["a"]).real) - rate) < 1e-9
        assert np.allclose(spin["b"][9:, :3], np.diag([1 / i1, 1 / i2, 1 / i3]), rtol=0, atol=1e-15)
        assert np.allclose(spin["b"][6:9, 3:], np.eye(3) / SATELLITE["m"], rtol=0, atol=1e-15)
    # Held still by LQR: in the quaternion state the norm's direction moves under no input (no
    # stabilising solution); in the chart the closed loop A − B K is stable.
    rest = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    with pytest.raises(routh.ArgumentError):
        sat.lqr(rest, np.zeros(6), np.eye(13), np.eye(6))
    k = sat.lqr(rest, np.zeros(6), np.eye(12), np.eye(6), tangent=True)
    held = sat.linearize_tangent(rest, np.zeros(6))
    assert k.shape == (6, 12)
    assert max(np.linalg.eigvals(held["a"] - held["b"] @ k).real) < -0.1
    # Without orientations there is none: `linearize` is the model's linearisation.
    with pytest.raises(routh.ArgumentError, match="no linearize_tangent"):
        rm.CartPole(**CARTPOLE).linearize_tangent([0.0, 0.0, 0.0, 0.0], [0.0])


def test_a_satellites_step_in_its_tangent_chart_is_the_double_integrators():
    sat = rm.Satellite(**SATELLITE)
    h = 0.1
    i1, i2, i3 = SATELLITE["i1"], SATELLITE["i2"], SATELLITE["i3"]
    # At rest, unpushed, nothing turns the chart: RK4 of the linearised motion (a double
    # integrator in x and θ, J² = 0) is exact, A_d = [1, h; 0, 1] and B_d = [h²/2; h] M⁻¹ by
    # blocks of six (the thrusters on x through 1/m, the wheels on θ through I⁻¹).
    rest = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    x_next, a, b = sat.step(rest, np.zeros(6), h, tangent=True)
    assert np.array_equal(x_next, rest) and a.shape == (12, 12) and b.shape == (12, 6)
    eye = np.eye(6)
    assert np.allclose(a, np.block([[eye, h * eye], [0 * eye, eye]]), rtol=0, atol=1e-15)
    inverse = np.zeros((6, 6))
    inverse[:3, 3:] = np.eye(3) / SATELLITE["m"]
    inverse[3:, :3] = np.diag([1 / i1, 1 / i2, 1 / i3])
    assert np.allclose(b, np.vstack([h * h / 2 * inverse, h * inverse]), rtol=0, atol=1e-15)
    # The quaternion state's step carries the quaternion's scale, which no input moves: its DARE
    # has no stabilising solution; the chart's regulator holds the satellite still.
    with pytest.raises(routh.ArgumentError):
        sat.dlqr(rest, np.zeros(6), np.eye(13), np.eye(6), h)
    k = sat.dlqr(rest, np.zeros(6), np.eye(12), np.eye(6), h, tangent=True)
    assert k.shape == (6, 12)
    assert max(abs(np.linalg.eigvals(a - b @ k))) < 0.99
    # Tumbling, off the unit sphere: the step's Jacobians in the charts are the Rust ones, and a
    # model without orientations has none.
    x = [0.1, -0.2, 0.3, 0.9, 0.1, -0.3, 0.2, 0.5, 0.0, -0.1, 0.3, -0.7, 1.1]
    u = [0.2, -0.1, 0.05, 0.3, 0.0, -0.2]
    _, a, b = sat.step(x, u, h, tangent=True)
    ra, rb = rm.reference_satellite_tangent_step(list(SATELLITE.values()), x, u, h)
    assert np.array_equal(bits(a.ravel()), bits(ra)) and np.array_equal(bits(b.ravel()), bits(rb))
    with pytest.raises(routh.ArgumentError, match="no step in the tangent charts"):
        rm.CartPole(**CARTPOLE).step([0.0, 0.0, 0.0, 0.0], [0.0], h, tangent=True)


def test_a_satellites_slew_is_planned_in_its_tangent_chart():
    sat = rm.Satellite(**SATELLITE)
    steps, h = 40, 0.1
    # A 120° rest-to-rest turn about z, the hub held at the origin: planned in the charts, the
    # plan is the Rust one to the bit, turns about z alone (the other wheels and the thrusters
    # idle) and comes most of the way.
    rest = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    half = np.radians(60.0)
    goal = [0.0, 0.0, 0.0, np.cos(half), 0.0, 0.0, np.sin(half), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    guess = np.zeros((steps, 6))
    plan = sat.ilqr(rest, guess, h, goal, np.eye(12), 0.1 * np.eye(6), 100.0 * np.eye(12), tangent=True)
    assert plan["status"] == "converged"
    assert plan["gains"].shape == (steps, 6, 12) and plan["states"].shape == (steps + 1, 13)
    inputs, costs = rm.reference_satellite_ilqr_tangent(list(SATELLITE.values()), rest, goal, steps, h)
    assert np.array_equal(bits(plan["inputs"].ravel()), bits(inputs)) and np.array_equal(bits(plan["costs"]), bits(costs))
    peak = np.abs(plan["inputs"][:, 2]).max()
    assert np.abs(plan["inputs"][:, [0, 1, 3, 4, 5]]).max() < 1e-10 * peak
    end = plan["states"][-1]
    turned = 2.0 * np.degrees(np.arctan2(end[6], end[3]))
    assert abs(turned - 120.0) < 5.0, turned
    # The weights are over the chart's 12 components; a model without orientations has no plan in charts.
    with pytest.raises(routh.ArgumentError, match="12 × 12"):
        sat.ilqr(rest, guess, h, goal, np.eye(13), 0.1 * np.eye(6), np.eye(13), tangent=True)
    # A zero quaternion names no attitude to plan towards (in the charts; the flat cost weighs it).
    nowhere = [0.0] * 13
    with pytest.raises(routh.ArgumentError, match="quaternion is zero"):
        sat.ilqr(rest, guess, h, nowhere, np.eye(12), 0.1 * np.eye(6), np.eye(12), tangent=True)
    with pytest.raises(routh.ArgumentError, match="no step in the tangent charts"):
        rm.CartPole(**CARTPOLE).ilqr([0.0] * 4, np.zeros((5, 1)), h, [0.0] * 4, np.eye(2), np.eye(1), np.eye(2), tangent=True)


def test_linearize_equals_the_rust_values():
    c = rm.CartPole(**CARTPOLE)
    x, u = [0.1, 0.2, 0.3, -0.4], 0.7
    a, b = c.linearize(x, [u])
    ra, rb = rm.reference_cartpole_linearize(list(CARTPOLE.values()), x, u)
    assert a.shape == (4, 4) and b.shape == (4, 1)
    assert np.array_equal(bits(a.ravel()), bits(ra)) and np.array_equal(bits(b.ravel()), bits(rb))
    # Upright at rest: the textbook cart-pole, d2s/dt2 = (u - mp g th) / mc, B = (0, 0, 1/mc, -1/(mc l)).
    a0, b0 = c.linearize(np.zeros(4), [0.0])
    assert abs(a0[2, 1] + CARTPOLE["mp"] * CARTPOLE["g"] / CARTPOLE["mc"]) < 1e-14
    assert abs(b0[2, 0] - 1.0) < 1e-15 and abs(b0[3, 0] + 1.0 / 0.8) < 1e-15
    # A constant push accelerates the cart: the run takes its inputs.
    run = c.simulate(np.zeros(4), (0.0, 0.5), inputs=[2.0], dt=0.1)
    assert np.allclose(run.t, np.linspace(0.0, 0.5, 6))
    assert run.x[-1, 0] > 0.0


def test_mass_matrix_and_inverse_dynamics_of_the_cart_pole():
    c = rm.CartPole(**CARTPOLE)
    mc, mp, l = CARTPOLE["mc"], CARTPOLE["mp"], CARTPOLE["l"]
    x = np.array([0.1, 0.2, 0.3, -0.4])
    # T = (mc + mp)/2 s'^2 + mp l cos(th) s' th' + mp l^2/2 th'^2.
    coupling = mp * l * np.cos(0.2)
    assert np.allclose(c.mass_matrix(x), [[mc + mp, coupling], [coupling, mp * l * l]], rtol=0, atol=1e-15)
    # tau vanishes at the accelerations the push gives; without the push, tau is the push on the cart.
    qdd = c.field(x, u=[0.7])[2:]
    assert np.max(np.abs(c.inverse_dynamics(x, qdd, u=[0.7]))) < 1e-12
    assert np.allclose(c.inverse_dynamics(x, qdd, u=[0.0]), [0.7, 0.0], rtol=0, atol=1e-12)
    # tau = M qdd - f: linear in qdd with M as its slope.
    step = np.array([0.5, -0.25])
    slope = c.inverse_dynamics(x, qdd + step, u=[0.7]) - c.inverse_dynamics(x, qdd, u=[0.7])
    assert np.allclose(slope, c.mass_matrix(x) @ step, rtol=0, atol=1e-12)
    with pytest.raises(routh.ArgumentError, match="2 accelerations"):
        c.inverse_dynamics(x, [1.0], u=[0.0])
    # What holds it still: -u against the push on the cart, -mp g l sin(th) on the pendulum
    # (V = mp g l cos th), whatever the velocities; the inverse dynamics at rest with no acceleration.
    held = c.static_forces(x, u=[0.7])
    assert np.allclose(held, [-0.7, -mp * CARTPOLE["g"] * l * np.sin(0.2)], rtol=0, atol=1e-12)
    still = np.array([0.1, 0.2, 0.0, 0.0])
    assert np.allclose(held, c.inverse_dynamics(still, [0.0, 0.0], u=[0.7]), rtol=0, atol=1e-12)
    # Its derivatives: -M^-1 (dtau/dq, dtau/dqdot) at the field's own accelerations is the lower
    # half of the field's Jacobian, and dtau/dq matches central differences of tau.
    tq, tv = c.inverse_dynamics_jacobian(x, qdd, u=[0.7])
    a, _ = c.linearize(x, [0.7])
    minv = np.linalg.inv(c.mass_matrix(x))
    assert np.allclose(-minv @ tq, a[2:, :2], rtol=0, atol=1e-12)
    assert np.allclose(-minv @ tv, a[2:, 2:], rtol=0, atol=1e-12)
    h = 1e-6
    for j in range(2):
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        column = (c.inverse_dynamics(up, qdd, u=[0.7]) - c.inverse_dynamics(down, qdd, u=[0.7])) / (2 * h)
        assert np.allclose(column, tq[:, j], rtol=0, atol=1e-7)


def test_lqr_and_feedback_laws_balance_the_cart_pole():
    c = rm.CartPole(**CARTPOLE)
    k = c.lqr(np.zeros(4), [0.0], np.eye(4), np.eye(1))
    assert k.shape == (1, 4)
    # The closed loop A - B K is stable: every eigenvalue in the left half-plane.
    a, b = c.linearize(np.zeros(4), [0.0])
    assert np.max(np.linalg.eigvals(a - b @ k).real) < 0.0
    x0 = [0.0, 0.2, 0.0, 0.0]
    by_rust = c.simulate(x0, (0.0, 20.0), feedback=(k, np.zeros(4)), rtol=1e-10, atol=1e-12, t_eval=[10.0, 20.0])
    # Back to upright, decaying at least as fast as the slowest closed-loop mode says.
    slowest = np.max(np.linalg.eigvals(a - b @ k).real)
    assert np.max(np.abs(by_rust.x[-1])) < 1e-3, "not balanced"
    assert np.max(np.abs(by_rust.x[-1])) < 2.0 * np.exp(slowest * 10.0) * np.max(np.abs(by_rust.x[0]))
    # The same law as a Python callable (called with the GIL): the same motion.
    by_python = c.simulate(x0, (0.0, 20.0), inputs=lambda t, x: -k @ x, rtol=1e-10, atol=1e-12, t_eval=[10.0, 20.0])
    assert np.max(np.abs(by_python.x[-1] - by_rust.x[-1])) < 1e-9
    # Uncontrolled, it falls.
    falls = c.simulate(x0, (0.0, 2.0), inputs=[0.0])
    assert abs(falls.x[-1, 1]) > 1.0
    # An exception in the law is raised, not a NaN run.
    def broken(t, x):
        raise ZeroDivisionError("law failed")
    with pytest.raises(ZeroDivisionError, match="law failed"):
        c.simulate(x0, (0.0, 1.0), inputs=broken)
    with pytest.raises(routh.ArgumentError, match="1 × 4"):
        c.simulate(x0, (0.0, 1.0), feedback=(np.ones((1, 3)), np.zeros(4)))


def test_a_step_its_jacobians_and_the_discrete_lqr():
    c = rm.CartPole(**CARTPOLE)
    x, u, dt = np.array([0.1, 0.3, -0.2, 0.5]), np.array([0.7]), 0.02
    x1, ad, bd = c.step(x, u, dt)
    assert x1.shape == (4,) and ad.shape == (4, 4) and bd.shape == (4, 1)
    # The classical Runge-Kutta step of the field.
    k1 = c.field(x, u=u)
    k2 = c.field(x + 0.5 * dt * k1, u=u)
    k3 = c.field(x + 0.5 * dt * k2, u=u)
    k4 = c.field(x + dt * k3, u=u)
    assert np.allclose(x1, x + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4), rtol=0, atol=1e-14)
    # The step alone (no Jacobians) is the same x_next to the bit, for a model without inputs too.
    assert np.array_equal(c.advance(x, u, dt).view(np.uint64), x1.view(np.uint64))
    p = rm.DoublePendulum(**PENDULUM)
    y = np.array([0.3, -0.2, 0.1, 0.4])
    f = [p.field(y)]
    for c_, s in ((0.5, 0), (0.5, 1), (1.0, 2)):
        f.append(p.field(y + c_ * dt * f[s], t=c_ * dt))
    assert np.allclose(p.advance(y, [], dt), y + dt / 6.0 * (f[0] + 2.0 * f[1] + 2.0 * f[2] + f[3]), rtol=0, atol=1e-15)
    with pytest.raises(routh.ArgumentError, match="finite"):
        c.advance(x, u, float("nan"))
    # A_d and B_d against central differences of the step itself.
    h = 1e-6
    for j in range(4):
        e = np.zeros(4)
        e[j] = h
        column = (c.step(x + e, u, dt)[0] - c.step(x - e, u, dt)[0]) / (2 * h)
        assert np.allclose(column, ad[:, j], rtol=0, atol=1e-8)
    column = (c.step(x, u + h, dt)[0] - c.step(x, u - h, dt)[0]) / (2 * h)
    assert np.allclose(column, bd[:, 0], rtol=0, atol=1e-8)
    # The discrete LQR about upright: the closed loop A_d - B_d K inside the unit circle, and the
    # stepped law u_k = -K x_k brings the pole back up from 0.2 rad.
    k = c.dlqr(np.zeros(4), [0.0], np.eye(4), np.eye(1), dt)
    _, a0, b0 = c.step(np.zeros(4), [0.0], dt)
    assert k.shape == (1, 4)
    assert np.max(np.abs(np.linalg.eigvals(a0 - b0 @ k))) < 1.0
    xk = np.array([0.0, 0.2, 0.0, 0.0])
    for _ in range(1000):
        xk = c.step(xk, -k @ xk, dt)[0]
    assert np.max(np.abs(xk)) < 1e-3, "not balanced"
    # With the weights per unit time (Q dt, R dt), the discrete gain tends to the continuous one
    # as the step shrinks (an independent route: the CARE of the field's linearisation).
    kc = c.lqr(np.zeros(4), [0.0], np.eye(4), np.eye(1))
    fine = 1e-3
    kd = c.dlqr(np.zeros(4), [0.0], fine * np.eye(4), fine * np.eye(1), fine)
    assert np.max(np.abs(kd - kc)) < 2e-2 * np.max(np.abs(kc))
    # Models without the step's Jacobians: no inputs, or impacts.
    with pytest.raises(routh.ArgumentError, match="no step Jacobians"):
        rm.DoublePendulum(**PENDULUM).step(np.zeros(4), [], dt)
    with pytest.raises(routh.ArgumentError, match="Q must be 4"):
        c.dlqr(np.zeros(4), [0.0], np.eye(3), np.eye(1), dt)


def test_ilqr_brings_the_pole_up_within_the_motors_limits():
    c = rm.CartPole(**CARTPOLE)
    steps, dt = 60, 0.025
    q = np.diag([1.0, 10.0, 0.1, 0.1])
    x0 = [0.0, 0.3, 0.0, 0.0]
    plan = c.ilqr(x0, np.zeros((steps, 1)), dt, np.zeros(4), q, 0.1 * np.eye(1), 100.0 * q, limits=([-8.0], [8.0]))
    assert plan["status"] == "converged"
    states, inputs, gains, costs = plan["states"], plan["inputs"], plan["gains"], plan["costs"]
    assert states.shape == (steps + 1, 4) and inputs.shape == (steps, 1) and gains.shape == (steps, 1, 4)
    # The plan is a rollout of the step map, every input within the limits, J decreasing to a
    # pole near upright.
    x = np.array(x0)
    for k in range(steps):
        x = c.step(x, inputs[k], dt)[0]
        assert np.allclose(x, states[k + 1], rtol=0, atol=1e-12)
    assert np.all(np.abs(inputs) <= 8.0)
    assert np.all(np.diff(costs) <= 0.0) and costs[-1] < costs[0]
    assert abs(states[-1, 1]) < 0.05
    # A stationary point of J over the free inputs: J along a small change of one input rises
    # on both sides (central differences of J through the model's own steps).
    def cost(us):
        x, total = np.array(x0), 0.0
        for k in range(steps):
            total += 0.5 * x @ q @ x + 0.5 * 0.1 * us[k] @ us[k]
            x = c.step(x, us[k], dt)[0]
        return total + 0.5 * x @ (100.0 * q) @ x
    assert abs(cost(inputs) - costs[-1]) < 1e-9 * costs[-1]
    free = [k for k in range(steps) if abs(inputs[k, 0]) < 7.9]
    h = 1e-5
    for k in free[:5]:
        up, down = inputs.copy(), inputs.copy()
        up[k, 0] += h
        down[k, 0] -= h
        assert abs((cost(up) - cost(down)) / (2 * h)) < 1e-4
    with pytest.raises(routh.ArgumentError, match="Q must be 4"):
        c.ilqr(x0, np.zeros((steps, 1)), dt, np.zeros(4), np.eye(3), np.eye(1), np.eye(4))
    # A weight the cost cannot have (the passes' gradients would be another cost's) is refused.
    with pytest.raises(routh.ArgumentError, match="`R` is not symmetric positive definite"):
        c.ilqr(x0, np.zeros((steps, 1)), dt, np.zeros(4), np.eye(4), np.zeros((1, 1)), np.eye(4))
    with pytest.raises(routh.ArgumentError, match="`Q` is not symmetric"):
        c.ilqr(x0, np.zeros((steps, 1)), dt, np.zeros(4), np.triu(np.ones((4, 4))), np.eye(1), np.eye(4))
    with pytest.raises(routh.ArgumentError, match="no step Jacobians"):
        rm.DoublePendulum(**PENDULUM).ilqr(np.zeros(4), np.zeros((5, 0)), dt, np.zeros(4), np.eye(4), np.eye(0), np.eye(4))


def test_the_outputs_jacobian():
    # The tip's height y2 = -l1 cos th1 - l2 cos th2: C = (l1 sin th1, l2 sin th2, 0, 0), and
    # central differences of the outputs agree; a model without outputs has a C of no rows.
    p = rm.DoublePendulum(**PENDULUM)
    x = np.array([0.7, -1.2, 0.3, 0.5])
    c = p.output_jacobian(x)
    assert c.shape == (1, 4)
    expected = [PENDULUM["l1"] * np.sin(x[0]), PENDULUM["l2"] * np.sin(x[1]), 0.0, 0.0]
    assert np.max(np.abs(c[0] - expected)) < 1e-15
    h = 1e-6
    for j in range(4):
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        fd = (p.output_values(up)["tip_y"] - p.output_values(down)["tip_y"]) / (2 * h)
        assert abs(c[0, j] - fd) < 1e-8
    assert rm.CartPole(**CARTPOLE).output_jacobian(np.zeros(4)).shape == (0, 4)


def test_impacts_and_modes():
    e = 0.8
    ball = rm.BouncingBall(m=1.0, g=9.81, e=e)
    run = ball.simulate([1.0, 0.0], (0.0, 3.0), rtol=1e-10, atol=1e-12)
    assert len(run.impacts) >= 3
    first = run.impacts[0]
    assert abs(first["t"] - np.sqrt(2.0 / 9.81)) < 1e-8  # free fall from 1 m
    for impact in run.impacts:
        assert impact["guard"] == "floor"
        assert abs(impact["post"][1] + e * impact["pre"][1]) < 1e-12
    rod = rm.Rod(m=1.0, l=1.0, r=0.01, g=1.0)
    assert rod.modes == ("left", "right")
    run = rod.simulate([0.6, 0.2, 0.0, -25.0], (0.0, 1.0), mode=1)
    assert set(run.modes.tolist()) == {0, 1}
    a, b = rod.linearize(run.x[3], mode=int(run.modes[3]))
    assert a.shape == (4, 4) and b.shape == (4, 0)  # no inputs: B has no columns
    # Elastic impacts keep the energy.
    energy = [rod.energy(x, mode=int(m)) for x, m in zip(run.x, run.modes)]
    assert np.max(np.abs(np.array(energy) - energy[0])) < 1e-6 * abs(energy[0])


def test_events_are_located():
    # Free fall from 1 m: y = 0.5 at t = sqrt(2 * 0.5 / g), where the terminal event ends the run.
    ball = rm.BouncingBall(m=1.0, g=9.81, e=0.8)
    events = [
        dict(name="half", state="y", value=0.5, direction="falling", terminal=True),
        dict(name="speed", weights=[0.0, 1.0], offset=2.0, direction="either"),  # dy/dt = -2
    ]
    run = ball.simulate([1.0, 0.0], (0.0, 3.0), rtol=1e-12, atol=1e-13, events=events)
    assert not run.finished and "half" in run.stop
    names = [e[0] for e in run.events]
    assert names == ["speed", "half"]
    assert abs(run.events[0][1] - 2.0 / 9.81) < 1e-10
    assert abs(run.events[1][1] - np.sqrt(1.0 / 9.81)) < 1e-10 and run.t[-1] == run.events[1][1]
    with pytest.raises(routh.ArgumentError, match="not one of the state"):
        ball.simulate([1.0, 0.0], (0.0, 1.0), events=[dict(name="bad", state="z")])
    with pytest.raises(routh.ArgumentError, match="2 components"):
        ball.simulate([1.0, 0.0], (0.0, 1.0), events=[dict(name="bad", weights=[1.0])])


def test_failures_are_typed_exceptions():
    with pytest.raises(routh.ParameterError, match="needs the parameters m2"):
        rm.DoublePendulum(m1=1.0)
    with pytest.raises(routh.ParameterError, match="no parameter `mass`"):
        rm.DoublePendulum(**PENDULUM, mass=1.0)
    with pytest.raises(ValueError) as bad:
        rm.DoublePendulum(**{**PENDULUM, "l2": float("nan")})
    assert bad.value.kind == "InvalidParameter" and isinstance(bad.value, routh.RouthError)
    p = rm.DoublePendulum(**PENDULUM)
    with pytest.raises(routh.ArgumentError, match="4 components"):
        p.field([1.0, 2.0])
    with pytest.raises(routh.ArgumentError):
        p.simulate([1.0, 0.5, 0.0, 0.0], (0.0, 1.0), method="euler")
    with pytest.raises(routh.ArgumentError) as mode:
        p.energy(np.zeros(4), mode=3)
    assert mode.value.kind == "InvalidMode"
    with pytest.raises(routh.ArgumentError, match="jacobian"):
        p.linearize(np.zeros(4))
    with pytest.raises(routh.ArgumentError, match="inverse_dynamics_jacobian"):
        p.inverse_dynamics_jacobian(np.zeros(4), np.zeros(2))
    # A run that fails after it started keeps its samples.
    with pytest.raises(routh.SimulationError) as failed:
        p.simulate([1.0, 0.5, 0.0, 0.0], (0.0, 100.0), max_steps=20)
    assert failed.value.kind == "StepLimit"
    partial = failed.value.partial
    assert partial is not None and not partial.finished and 0 < len(partial) <= 21


def test_an_ensemble_is_its_members_runs_and_keeps_failures():
    p = rm.DoublePendulum(**PENDULUM)
    starts = np.array([[0.1 * k, 0.2, 0.0, 0.0] for k in range(8)])
    runs = p.ensemble(starts, (0.0, 2.0), rtol=1e-9)
    for start, run in zip(starts, runs):
        alone = p.simulate(start, (0.0, 2.0), rtol=1e-9)
        assert np.array_equal(bits(run.x.ravel()), bits(alone.x.ravel()))
    # Rows of parameters; a member whose parameters the model cannot take is its exception.
    rows = np.array([list(PENDULUM.values())] * 3)
    rows[1, 3] = np.nan
    out = p.ensemble([1.0, 0.5, 0.0, 0.0], (0.0, 1.0), parameters=rows)
    assert isinstance(out[0], rm.Solution) and isinstance(out[2], rm.Solution)
    assert isinstance(out[1], routh.ParameterError) and out[1].kind == "InvalidParameter"
    assert np.array_equal(out[0].x, out[2].x)


def test_an_ensemble_releases_the_gil():
    # While one thread runs an ensemble in Rust, another runs Python: if the call held the GIL the
    # second thread could not execute a single bytecode between the call's start and end.
    p = rm.DoublePendulum(**PENDULUM)
    starts = np.array([[1.0 + 1e-3 * k, 0.5, 0.0, 0.0] for k in range(64)])
    span = {}

    def work():
        span["start"] = time.perf_counter()
        p.ensemble(starts, (0.0, 10.0), rtol=1e-10, atol=1e-12)
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    start, end = span["start"], span["end"]
    length = end - start
    assert length > 0.2, "the ensemble is too short to tell"
    # The middle half of the call: far from its entry and exit, where the interpreter may switch
    # threads (every 5 ms) whether or not the call releases the GIL.
    inside = [t for t in ticks if start + length / 4 < t < end - length / 4]
    assert len(inside) > 1000, f"{len(inside)} Python steps in the middle of {length:.3f} s of ensemble"


def test_type_stubs(tmp_path):
    path = routh.stubs.write("routh_models", str(tmp_path))
    text = path.read_text()
    ast.parse(text)
    assert "class DoublePendulum(Model):" in text
    assert "def __init__(self, *, m1: float, m2: float, l1: float, l2: float, g: float, b: float) -> None" in text
    assert "def reference_double_pendulum" in text
    # Every public method and class attribute of a model is in the stubs.
    missing = [n for n in dir(rm.CartPole) if not n.startswith("_") and f"def {n}(" not in text and f" {n}:" not in text]
    assert not missing, missing


def test_mpc_holds_the_cart_pole_upright_as_the_rust_controller_does():
    # routh.Mpc ticks the model's own ilqr from each state it meets, warm-started from the last
    # plan shifted by one step: tick by tick the typed runtime::mpc::Mpc's inputs, to the bit,
    # with the plant the same RK4 step; the pendulum comes upright and the cart back.
    cp = rm.CartPole(**CARTPOLE)
    steps, h, ticks, limit = 30, 0.05, 100, 8.0
    start = [0.2, 0.3, 0.0, 0.0]
    q = np.diag([1.0, 10.0, 0.1, 0.1])
    mpc = routh.Mpc(cp, steps, h, np.zeros(4), q, 0.1 * np.eye(1), 10.0 * np.eye(4), limits=([-limit], [limit]))
    x, inputs = np.array(start), []
    for k in range(ticks):
        u = mpc.control(k * h, x)
        assert abs(u[0]) <= limit
        x, _, _ = cp.step(x, u, h, t=k * h)
        inputs.append(u[0])
    reference = rm.reference_cartpole_mpc(list(CARTPOLE.values()), start, steps, h, ticks, limit)
    assert np.array_equal(bits(np.array(inputs)), bits(np.array(reference)))
    assert abs(x[1]) < 1e-2 and abs(x[0]) < 0.05, x
    assert max(abs(u) for u in inputs) == limit  # the limit binds at first
    # After the first tick about one iteration a tick (the warm start).
    assert len(mpc.plan["costs"]) <= 3
    plan = mpc.plan
    assert plan["states"].shape == (steps + 1, 4)
    assert np.array_equal(mpc.next_guess[:-1], plan["inputs"][1:]) and np.array_equal(mpc.next_guess[-1], plan["inputs"][-1])
    # A failing tick raises and keeps the controller as it was.
    with pytest.raises(routh.ArgumentError):
        mpc.control(0.0, [0.0, 0.0, 0.0])
    assert mpc.plan is plan


def test_mpc_tracks_a_path_window_by_window_as_the_rust_controller_does():
    # The cart swept along s*(t) = 0.3 sin t with the pole upright: at every tick the horizon's
    # references are the path's next window (ilqr's `path`), the inputs the typed Mpc's to the bit.
    cp = rm.CartPole(**CARTPOLE)
    steps, h, ticks = 20, 0.05, 80
    times = h * np.arange(ticks + steps + 1)
    path = np.column_stack([0.3 * np.sin(times), np.zeros_like(times), 0.3 * np.cos(times), np.zeros_like(times)])
    q = np.diag([10.0, 10.0, 1.0, 1.0])
    mpc = routh.Mpc(cp, steps, h, path[0], q, 0.1 * np.eye(1), 10.0 * np.eye(4))
    x, inputs, worst = path[0].copy(), [], 0.0
    for k in range(ticks):
        mpc.references(path[k:k + steps + 1], np.zeros((steps, 1)))
        u = mpc.control(k * h, x)
        x, _, _ = cp.step(x, u, h, t=k * h)
        inputs.append(u[0])
        worst = max(worst, abs(x[0] - path[k + 1, 0]))
    reference = rm.reference_cartpole_mpc_path(list(CARTPOLE.values()), list(path[0]), list(path.ravel()), steps, h, ticks)
    assert np.array_equal(bits(np.array(inputs)), bits(np.array(reference)))
    assert worst < 0.05, worst
    # A path of the wrong length is the tick's ArgumentError.
    mpc.references(path[:steps], np.zeros((steps, 1)))
    with pytest.raises(routh.ArgumentError):
        mpc.control(0.0, x)


CARTPOLE_Q = np.diag([1.0, 10.0, 0.1, 0.1])


def cartpole_plan_args():
    # The cart-pole's catch from 0.3 rad over 60 steps of 0.025 as ilqr's positional arguments:
    # x0, a zero guess, dt, the goal at rest, Q, R, Q_f.
    return ([0.0, 0.3, 0.0, 0.0], np.zeros((60, 1)), 0.025, np.zeros(4), CARTPOLE_Q, 0.1 * np.eye(1), 100.0 * CARTPOLE_Q)


def assert_same_mpc_inputs(c, option, **fixed):
    # Two cart-pole MPCs that differ in `option` (False, True) apply the same inputs to the bit,
    # tick after tick along the closed loop.
    mpcs = [routh.Mpc(c, 30, 0.05, np.zeros(4), CARTPOLE_Q, 0.1 * np.eye(1), 10.0 * np.eye(4), **fixed, **{option: on})
            for on in (False, True)]
    x = np.array([0.0, 0.3, 0.0, 0.0])
    for k in range(5):
        u, w = (m.control(k * 0.05, x) for m in mpcs)
        assert np.array_equal(bits(u), bits(w)), (option, k)
        x, _, _ = c.step(x, u, 0.05, t=k * 0.05)


def test_ilqr_on_the_semi_implicit_euler_step():
    # scheme="semi_implicit_euler" plans on v' = v + dt a(q, v, u), q' = q + dt v' (routh's
    # step::SemiImplicitEuler): the plan is that map's rollout of its inputs, written here from the
    # model's field, and it brings the pole up as the RK4 plan does; MPC ticks on it too. A model
    # with an orientation has no such step, and an unknown scheme is refused.
    c = rm.CartPole(**CARTPOLE)
    args = cartpole_plan_args()
    x0, steps, dt, q = args[0], len(args[1]), args[2], CARTPOLE_Q
    plan = c.ilqr(*args, limits=([-8.0], [8.0]), scheme="semi_implicit_euler")
    assert plan["status"] == "converged"
    states, inputs, costs = plan["states"], plan["inputs"], plan["costs"]
    x = np.array(x0)
    for k in range(steps):
        a = c.field(x, t=k * dt, u=inputs[k])[2:]
        v = x[2:] + dt * a
        x = np.concatenate([x[:2] + dt * v, v])
        assert np.allclose(x, states[k + 1], rtol=0, atol=1e-12)
    assert np.all(np.abs(inputs) <= 8.0) and np.all(np.diff(costs) <= 0.0)
    assert abs(states[-1, 1]) < 0.05
    rk4 = c.ilqr(*args, limits=([-8.0], [8.0]))
    assert abs(costs[-1] - rk4["costs"][-1]) < 0.1 * rk4["costs"][-1]
    mpc = routh.Mpc(c, 30, 0.05, np.zeros(4), q, 0.1 * np.eye(1), 10.0 * np.eye(4), limits=([-8.0], [8.0]), scheme="semi_implicit_euler")
    assert abs(mpc.control(0.0, x0)[0]) <= 8.0
    sat = rm.Satellite(**SATELLITE)
    with pytest.raises(routh.ArgumentError, match="no semi-implicit Euler step"):
        sat.ilqr(np.r_[1.0, np.zeros(12)], np.zeros((5, 6)), 0.1, np.r_[1.0, np.zeros(12)], np.eye(13), np.eye(6), np.eye(13), scheme="semi_implicit_euler")
    with pytest.raises(routh.ArgumentError, match="scheme `midpoint`"):
        c.ilqr(*args, scheme="midpoint")


def test_ilqr_linearised_on_all_cores_is_the_same_plan():
    # parallel=True computes each iteration's step Jacobians on all cores (routh's
    # IlqrProblem::parallel): the plans are the sequential ones to the bit — the cart-pole's on its
    # RK4 and semi-implicit Euler steps, the satellite's in the tangent charts, and MPC's ticks.
    c = rm.CartPole(**CARTPOLE)
    args = cartpole_plan_args()
    for scheme in ("rk4", "semi_implicit_euler"):
        one = c.ilqr(*args, limits=([-8.0], [8.0]), scheme=scheme)
        many = c.ilqr(*args, limits=([-8.0], [8.0]), scheme=scheme, parallel=True)
        assert len(one["costs"]) > 3
        for key in ("states", "inputs", "gains", "costs"):
            assert np.array_equal(bits(one[key]), bits(many[key])), (scheme, key)
    sat = rm.Satellite(**SATELLITE)
    rest = np.r_[0.0, 0.0, 0.0, 1.0, np.zeros(9)]
    goal = np.r_[0.0, 0.0, 0.0, np.cos(0.4), 0.0, 0.0, np.sin(0.4), np.zeros(6)]
    charts = (rest, np.zeros((20, 6)), 0.1, goal, np.eye(12), 0.1 * np.eye(6), 100.0 * np.eye(12))
    one, many = sat.ilqr(*charts, tangent=True), sat.ilqr(*charts, tangent=True, parallel=True)
    for key in ("states", "inputs", "gains", "costs"):
        assert np.array_equal(bits(one[key]), bits(many[key])), key
    assert_same_mpc_inputs(c, "parallel")


def test_ilqr_without_final_gains_is_the_same_plan_without_gains():
    # final_gains=False skips the last linearisations and backward pass (routh's
    # IlqrProblem::final_gains): the same states, inputs and costs to the bit, no gains — and the
    # same MPC inputs tick after tick with one iteration a tick.
    c = rm.CartPole(**CARTPOLE)
    args = cartpole_plan_args()
    for iterations in (1, 200):
        full = c.ilqr(*args, max_iterations=iterations)
        bare = c.ilqr(*args, max_iterations=iterations, final_gains=False)
        assert full["status"] == bare["status"] and len(full["costs"]) > 1
        for key in ("states", "inputs", "costs"):
            assert np.array_equal(bits(full[key]), bits(bare[key])), (iterations, key)
        assert full["gains"].shape == (len(args[1]), 1, 4) and bare["gains"].shape == (0, 1, 4)
    assert_same_mpc_inputs(c, "final_gains", max_iterations=1)


def test_a_robots_limits_and_friction_are_its_files():
    # The arm read from its URDF: each joint's <limit> and <dynamics friction> as the file gives
    # them, by velocity, read here from the file by another reader (ElementTree, by joint name).
    import pathlib
    import xml.etree.ElementTree as ET

    urdf = pathlib.Path(__file__).resolve().parents[2] / "tests" / "robots" / "arm6_friction.urdf"
    joints = {j.get("name"): j for j in ET.parse(urdf).getroot().iter("joint") if j.get("type") != "fixed"}
    arm = rm.Arm6
    assert arm.coordinates == tuple(joints)
    limit = [joints[c].find("limit") for c in arm.coordinates]
    expected = np.array([[float(l.get("lower")), float(l.get("upper"))] for l in limit])
    assert arm.position_limits.shape == (6, 2) and np.array_equal(arm.position_limits, expected)
    assert np.array_equal(arm.effort_limits, [float(l.get("effort")) for l in limit])
    assert np.array_equal(arm.velocity_limits, [float(l.get("velocity")) for l in limit])
    friction = [float(joints[c].find("dynamics").get("friction")) for c in arm.coordinates]
    assert np.array_equal(arm.friction, friction) and len(set(friction)) == 6
    # The same through an instance; constants of the class, not to be written.
    assert np.array_equal(arm(g=9.81).friction, friction)
    with pytest.raises(ValueError):
        arm.effort_limits[0] = 0.0
    # The arm a controller drives: its gravity compensation holds it still.
    a, x = arm(g=9.81), np.array([0.3, -0.8, 1.1, 0.2, -0.4, 0.5] + [0.0] * 6)
    held = a.static_forces(x, u=np.zeros(6))
    assert np.allclose(a.field(x, u=held)[6:], 0.0, atol=1e-12)
    # A model written by hand has none.
    for key in ("position_limits", "effort_limits", "velocity_limits", "friction"):
        assert getattr(rm.DoublePendulum, key) is None
