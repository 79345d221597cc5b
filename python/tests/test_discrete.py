"""Variational integrators from Python (``discrete(rule = ...)``): a discrete run equals the typed
Rust run to the bit, the step map's exact Jacobians agree with differences of the step and keep its
symplectic form, the discrete LQR and iLQR designed on the integrator control it, the Lie group
integrator's Jacobians are in its chart (a spacecraft's at rest in closed form), a discrete Routh
reduction runs on its reduced space, and what a model has not is a typed exception."""

import numpy as np
import pytest

import routh
import routh_models as rm

CARTPOLE = dict(mc=1.0, mp=0.3, l=0.8, g=9.81)
CRAFT = dict(m=1.0, i1=1.0, i2=2.0, i3=3.0)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def test_a_discrete_run_from_python_is_the_rust_run_to_the_bit():
    c = rm.CartPole(**CARTPOLE)
    assert c.discrete_rule == "midpoint" and c.discrete_kind == "variational"
    assert c.discrete_state_names == ("s", "th", "p(s)", "p(th)")
    x0 = [0.1, 0.2, 0.3, -0.4]
    run = c.simulate_discrete(x0, 0.01, 200, inputs=[0.7])
    times, nodes = rm.reference_cartpole_discrete(list(CARTPOLE.values()), x0, 0.7, 0.01, 200)
    assert run["x"].shape == (201, 4) and run["t"].shape == (201,) and run["iterations"].shape == (200,)
    assert np.array_equal(bits(run["t"]), bits(times))
    assert np.array_equal(bits(run["x"].ravel()), bits(nodes))
    # The first node is the discrete state of x0: its positions and p = dL/dqdot = M(q) qdot.
    start = c.discrete_state(x0)
    assert np.array_equal(bits(run["x"][0]), bits(start))
    assert np.allclose(start[2:], c.mass_matrix(x0) @ np.array(x0[2:]), rtol=0, atol=1e-15)
    # Unpushed, the midpoint integrator keeps the energy in a band that does not grow: the energy
    # at the nodes from the velocities M^-1 p, over 4000 steps, its spread in the last quarter no
    # larger than in the first.
    run = c.simulate_discrete([0.0, 2.5, 0.0, 0.0], 0.01, 4000, energies=True)
    energy = run["energy"]
    assert energy.shape == (4001,) and "energy" not in c.simulate_discrete([0.0, 2.5, 0.0, 0.0], 0.01, 3)
    # Against the energy of the state whose velocities M⁻¹p solves here (NumPy).
    for node, e in list(zip(run["x"], energy))[::500]:
        q = node[:2]
        v = np.linalg.solve(c.mass_matrix(np.r_[q, 0.0, 0.0]), node[2:])
        assert abs(c.energy(np.r_[q, v]) - e) < 1e-12 * abs(e)
    first, last = np.ptp(energy[:1000]), np.ptp(energy[-1000:])
    assert first < 5e-3 * abs(energy[0]) and last < 1.5 * first, (first, last)


def test_the_variational_steps_jacobians_are_the_steps_and_symplectic():
    c = rm.CartPole(**CARTPOLE)
    x = c.discrete_state([0.1, 0.3, -0.2, 0.5])
    u, dt = np.array([0.7]), 0.02
    x1, ad, bd = c.step(x, u, dt, scheme="variational")
    assert x1.shape == (4,) and ad.shape == (4, 4) and bd.shape == (4, 1)
    assert np.array_equal(bits(c.advance(x, u, dt, scheme="variational")), bits(x1))
    assert np.array_equal(bits(x1), bits(c.simulate_discrete([0.1, 0.3, -0.2, 0.5], dt, 1, inputs=u)["x"][1]))
    h = 1e-6
    for j in range(4):
        e = np.zeros(4)
        e[j] = h
        column = (c.step(x + e, u, dt, scheme="variational")[0] - c.step(x - e, u, dt, scheme="variational")[0]) / (2 * h)
        assert np.allclose(column, ad[:, j], rtol=0, atol=1e-7)
    column = (c.step(x, u + h, dt, scheme="variational")[0] - c.step(x, u - h, dt, scheme="variational")[0]) / (2 * h)
    assert np.allclose(column, bd[:, 0], rtol=0, atol=1e-7)
    # The push held over the step is the only force: the step map is symplectic, A_d^T J A_d = J.
    j = np.block([[np.zeros((2, 2)), np.eye(2)], [-np.eye(2), np.zeros((2, 2))]])
    assert np.max(np.abs(ad.T @ j @ ad - j)) < 1e-12


def test_the_discrete_lqr_and_ilqr_on_the_integrator_bring_the_pole_up():
    c = rm.CartPole(**CARTPOLE)
    dt = 0.02
    k = c.dlqr(np.zeros(4), [0.0], np.eye(4), np.eye(1), dt, scheme="variational")
    _, a0, b0 = c.step(np.zeros(4), [0.0], dt, scheme="variational")
    assert k.shape == (1, 4) and np.max(np.abs(np.linalg.eigvals(a0 - b0 @ k))) < 1.0
    x = c.discrete_state([0.0, 0.2, 0.0, 0.0])
    for _ in range(1000):
        x = c.step(x, -k @ x, dt, scheme="variational")[0]
    assert np.max(np.abs(x)) < 1e-3, "not balanced"
    # iLQR on the integrator: a rollout of its steps, J decreasing, the pole near upright.
    steps, dt = 60, 0.025
    q = np.diag([1.0, 10.0, 0.1, 0.1])
    x0 = c.discrete_state([0.0, 0.3, 0.0, 0.0])
    plan = c.ilqr(x0, np.zeros((steps, 1)), dt, np.zeros(4), q, 0.1 * np.eye(1), 100.0 * q, limits=([-8.0], [8.0]),
                  scheme="variational")
    assert plan["status"] == "converged" and plan["states"].shape == (steps + 1, 4) and plan["gains"].shape == (steps, 1, 4)
    x = x0
    for kk in range(steps):
        x = c.step(x, plan["inputs"][kk], dt, scheme="variational")[0]
        assert np.array_equal(bits(x), bits(plan["states"][kk + 1]))
    assert np.all(np.diff(plan["costs"]) <= 0.0) and abs(plan["states"][-1, 1]) < 0.05
    # MPC on the integrator (the model's ilqr each tick): the plant the same integrator.
    mpc = routh.Mpc(c, 30, 0.05, np.zeros(4), q, 0.1 * np.eye(1), 10.0 * np.eye(4), limits=([-8.0], [8.0]),
                    scheme="variational", max_iterations=5)
    x = c.discrete_state([0.0, 0.3, 0.0, 0.0])
    for tick in range(100):
        u = mpc.control(tick * 0.05, x)
        assert abs(u[0]) <= 8.0
        x = c.step(x, u, 0.05, scheme="variational")[0]
    assert abs(x[1]) < 1e-2 and abs(x[0]) < 0.05, x


def test_the_lie_group_integrators_step_is_in_its_chart():
    s = rm.Spacecraft(**CRAFT)
    assert s.discrete_kind == "oriented" and len(s.discrete_state_names) == 7
    assert s.discrete_state_names[4:] == ("mu1(r)", "mu2(r)", "mu3(r)")
    rest = np.array([1.0, 0, 0, 0, 0, 0, 0])
    assert np.array_equal(s.discrete_state(rest), rest)
    h = 0.1
    x1, ad, bd = s.step(rest, [0.0, 0.0, 0.0], h, tangent=True, scheme="variational")
    assert ad.shape == (6, 6) and bd.shape == (6, 3)
    # At rest, by hand: the increment solves A(xi) J xi / h = mu + (h/2) u, so a torque turns the
    # body by (h^2/2) J^-1 u and its momentum by h u; the chart's (eta, dmu) carries eta by
    # h J^-1 dmu and keeps dmu (no gyroscopic term at rest).
    jinv = np.diag([1.0 / CRAFT["i1"], 1.0 / CRAFT["i2"], 1.0 / CRAFT["i3"]])
    expected_a = np.block([[np.eye(3), h * jinv], [np.zeros((3, 3)), np.eye(3)]])
    expected_b = np.vstack([0.5 * h * h * jinv, h * np.eye(3)])
    assert np.max(np.abs(ad - expected_a)) < 1e-13 and np.max(np.abs(bd - expected_b)) < 1e-13
    assert np.array_equal(x1, rest)
    turning = np.array([1.0, 0, 0, 0, 0.3, -0.2, 0.5])
    x2 = s.step(turning, [0.1, 0.0, -0.2], h, tangent=True, scheme="variational")[0]
    assert np.array_equal(bits(s.advance(turning, [0.1, 0.0, -0.2], h, scheme="variational")), bits(x2))
    # A run keeps the spatial momentum of the free body: R mu at every node.
    tumbling = np.array([1.0, 0, 0, 0, 0.3, -0.2, 0.5])
    run = s.simulate_discrete(tumbling, 0.05, 400, energies=True)
    # Its energy ½ μᵀJ⁻¹μ at the nodes, in a band of the step's order.
    kinetic = 0.5 * np.sum(run["x"][:, 4:] ** 2 / np.array([1.0, 2.0, 3.0]), axis=1)
    assert np.max(np.abs(run["energy"] - kinetic)) < 1e-14 and np.ptp(kinetic) < 1e-3 * kinetic[0]
    def spatial(node):
        w, v = node[0], node[1:4]
        r = (w * w - v @ v) * np.eye(3) + 2 * np.outer(v, v) + 2 * w * np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        return r @ node[4:]
    first = spatial(run["x"][0])
    assert max(np.max(np.abs(spatial(n) - first)) for n in run["x"]) < 1e-12
    # iLQR in the chart: a rest-to-rest 90 degree turn about z.
    goal = np.array([np.cos(np.pi / 8 * 2), 0, 0, np.sin(np.pi / 8 * 2), 0, 0, 0])
    plan = s.ilqr(rest, np.zeros((40, 3)), 0.05, goal, np.zeros((6, 6)), 0.3 * np.eye(3), 1e5 * np.eye(6),
                  tolerance=1e-12, tangent=True, scheme="variational")
    assert plan["status"] == "converged" and plan["gains"].shape == (40, 3, 6)
    end = plan["states"][-1]
    assert abs(end[0] - goal[0]) < 2e-3 and abs(end[3] - goal[3]) < 2e-3 and np.max(np.abs(end[4:])) < 2e-3, end
    # Over the state, the Lie group integrator's Jacobians do not exist: tangent=True is asked for.
    with pytest.raises(routh.ArgumentError, match="tangent=True"):
        s.step(rest, [0.0, 0.0, 0.0], h, scheme="variational")


def test_a_discrete_routh_reduction_from_python():
    # Forced discrete reduction, Example 3.13 (erratum D3): the particle on the covering (r, eta),
    # reduced by eta. The reduced run is the typed `.reduced()` run to the bit; its increments are
    # the reconstruction's steps of eta; the angular momentum decays by the Pade factor
    # (2 - kappa h)/(2 + kappa h) each step (digest §4.2); the full run agrees to rounding.
    kappa, h, steps = 0.1, 0.01, 2000
    p = rm.PolarParticle(kappa=kappa)
    assert p.discrete_cyclic == ("eta",) and rm.CartPole(**CARTPOLE).discrete_cyclic == ()
    x0 = [1.2, 0.0, 0.0, 0.5]
    run = p.simulate_discrete(x0, h, steps, reduced=True)
    nodes, increments = rm.reference_polar_reduced(kappa, x0, h, steps)
    assert run["x"].shape == (steps + 1, 4) and run["increments"].shape == (steps, 1)
    assert np.array_equal(bits(run["x"].ravel()), bits(nodes))
    assert np.array_equal(bits(run["increments"].ravel()), bits(increments))
    eta = run["x"][:, 1]
    assert np.allclose(np.diff(eta), run["increments"][:, 0], rtol=0, atol=1e-14)
    ratio = run["x"][1:, 3] / run["x"][:-1, 3]
    assert np.max(np.abs(ratio - (2 - kappa * h) / (2 + kappa * h))) < 1e-12
    # p_N / p_0 = 0.13533526068 for these h, kappa and N (the digest's value).
    assert abs(run["x"][-1, 3] / run["x"][0, 3] - 0.13533526068) < 1e-10
    full = p.simulate_discrete(x0, h, steps)
    assert "increments" not in full
    assert np.max(np.abs(full["x"] - run["x"]) / np.maximum(np.abs(run["x"]), 1.0)) < 1e-12
    with pytest.raises(routh.ArgumentError, match="no discrete reduction"):
        rm.CartPole(**CARTPOLE).simulate_discrete(np.zeros(4), 0.01, 10, reduced=True)


def test_what_a_model_has_not_is_a_typed_exception():
    p = rm.DoublePendulum(m1=1.0, m2=1.0, l1=1.0, l2=1.0, g=9.81, b=0.0)
    assert p.discrete_rule is None and p.discrete_kind is None and p.discrete_state_names == ()
    with pytest.raises(routh.ArgumentError, match="no variational integrator"):
        p.simulate_discrete([0.1, 0.0, 0.0, 0.0], 0.01, 10)
    with pytest.raises(routh.ArgumentError, match="no variational integrator"):
        p.discrete_state([0.1, 0.0, 0.0, 0.0])
    with pytest.raises(routh.ArgumentError, match=r"no `discrete\(rule"):
        p.step([0.1, 0.0, 0.0, 0.0], [], 0.01, scheme="variational")
    c = rm.CartPole(**CARTPOLE)
    with pytest.raises(routh.ArgumentError, match="no orientations"):
        c.step(np.zeros(4), [0.0], 0.01, tangent=True, scheme="variational")
    with pytest.raises(routh.ArgumentError, match="scheme `leapfrog`"):
        c.step(np.zeros(4), [0.0], 0.01, scheme="leapfrog")
    with pytest.raises(routh.ArgumentError, match="scheme `leapfrog`"):
        c.advance(np.zeros(4), [0.0], 0.01, scheme="leapfrog")
    with pytest.raises(routh.ArgumentError, match=r"no `discrete\(rule"):
        p.advance([0.1, 0.0, 0.0, 0.0], [], 0.01, scheme="variational")
    with pytest.raises(routh.ArgumentError):
        c.step(np.zeros(3), [0.0], 0.01, scheme="variational")
    for dt in (0.0, float("nan")):
        with pytest.raises(routh.ArgumentError, match="finite and not zero"):
            c.step(np.zeros(4), [0.0], dt, scheme="variational")
    with pytest.raises(routh.ArgumentError, match="must be finite and > 0"):
        c.simulate_discrete(np.zeros(4), -0.01, 10)
    # One Newton iteration a step cannot converge: the run fails on its first step, the start kept.
    with pytest.raises(routh.SimulationError) as failed:
        c.simulate_discrete([0.0, 2.0, 0.0, 1.0], 0.05, 20, max_iterations=1)
    assert failed.value.kind == "NewtonFailed"
    partial = failed.value.partial
    assert partial["t"].shape == (1,) and np.array_equal(partial["x"][0], c.discrete_state([0.0, 2.0, 0.0, 1.0]))
