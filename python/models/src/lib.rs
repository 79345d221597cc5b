//! `routh_models`: the models the Python tests and examples import — the showcase's double
//! pendulum, a cart-pole pushed by a force, a bouncing ball, the two-mode bouncing rod of
//! *Hybrid periodic orbits* §4.3, a satellite free in space, a spacecraft on its Lie group
//! variational integrator, a particle on its discrete Routh reduction and a six-joint arm read from
//! its URDF file — and, beside them, the same computations by the typed Rust API (`reference_*`),
//! which the tests compare with the Python module's to the bit.

#![forbid(unsafe_code)]

use routh::prelude::*;
use routh::runtime::ensemble::{EnsembleOptions, ensemble};
use routh_python::pyo3::prelude::*;

/// Planar double pendulum with viscous joint damping (the README's showcase), with the lower bob's
/// height as an output.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th1, th2),
    define(
        x1 = l1 * th1.sin(),           y1 = -l1 * th1.cos(),
        x2 = x1 + l2 * th2.sin(),      y2 = y1 - l2 * th2.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
               + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
               - g * (m1 * y1 + m2 * y2),
    force(th1 = -b * dot(th1), th2 = -b * (dot(th2) - dot(th1))),
    output(tip_y = y2),
)]
pub struct DoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
    pub b: f64,
}

/// A cart of mass mc pushed by the force u, carrying a pendulum (mass mp, length l) with θ from
/// the upward vertical; with its midpoint variational integrator.
#[derive(Mechanics)]
#[mechanics(
    coordinates(s, th),
    input(u),
    define(px = s + l * th.sin(), py = l * th.cos()),
    lagrangian = mc / 2 * dot(s).powi(2) + mp / 2 * (dot(px).powi(2) + dot(py).powi(2)) - mp * g * py,
    force(s = u),
    discrete(rule = midpoint),
)]
pub struct CartPole {
    pub mc: f64,
    pub mp: f64,
    pub l: f64,
    pub g: f64,
}

/// A ball bouncing on the floor with restitution e.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    impact(name = floor, guard = y, law = restitution(e)),
)]
pub struct BouncingBall {
    pub m: f64,
    pub g: f64,
    pub e: f64,
}

/// The bouncing rod: two modes, which end hits the ground next (elastic impacts).
#[derive(Mechanics)]
#[mechanics(
    coordinates(y, alpha),
    lagrangian = m / 2 * (dot(y).powi(2) + (r * dot(alpha)).powi(2)) - m * g * y,
    mode(left),
    mode(right),
    transition(left -> right, guard = y - l / 2 * alpha.sin(), law = restitution(1)),
    transition(right -> left, guard = y + l / 2 * alpha.sin(), law = restitution(1)),
)]
pub struct Rod {
    pub m: f64,
    pub l: f64,
    pub r: f64,
    pub g: f64,
}

/// A satellite: a rigid body free in space on a floating joint (its hub's translation and
/// orientation along the links), torqued about its body axes by three reaction wheels and pushed
/// along the world's axes by three thrusters.
#[derive(Mechanics)]
#[mechanics(
    joint(name = base, kind = floating, child = hub, mass = m, centre = [0, 0, 0], inertia = diag(i1, i2, i3)),
    input(u1, u2, u3, f1, f2, f3),
    force(base_q = [u1, u2, u3], base_x = f1, base_y = f2, base_z = f3),
)]
pub struct Satellite {
    pub m: f64,
    pub i1: f64,
    pub i2: f64,
    pub i3: f64,
}

/// A rigid spacecraft with principal moments i1, i2, i3 turned by three body torques, on its Lie
/// group variational integrator (the midpoint rule on its orientation's increment).
#[derive(Mechanics)]
#[mechanics(
    orientation(r),
    input(t1, t2, t3),
    body(name = craft, mass = m, centre = [0, 0, 0], frame = r, inertia = diag(i1, i2, i3)),
    force(r = [t1, t2, t3]),
    discrete(rule = midpoint),
)]
pub struct Spacecraft {
    pub m: f64,
    pub i1: f64,
    pub i2: f64,
    pub i3: f64,
}

/// A particle in the plane in polar coordinates on the covering (r, η), in the sextic potential
/// r²(r² − 1)² and damped by f = −κ (ṙ dr + r² η̇ dη), on its midpoint integrator reduced by the
/// angle η (*Forced discrete reduction*, Example 3.13; erratum D3 of `docs/references.md`: the
/// consistent force, whose pullback is generated).
#[derive(Mechanics)]
#[mechanics(
    coordinates(r, eta),
    lagrangian = (dot(r).powi(2) + (r * dot(eta)).powi(2)) / 2 - r.powi(2) * (r.powi(2) - 1).powi(2),
    force(r = -kappa * dot(r), eta = -kappa * r.powi(2) * dot(eta)),
    symmetry(cyclic(eta)),
    reduce(routh(eta)),
    discrete(rule = midpoint),
)]
pub struct PolarParticle {
    pub kappa: f64,
}

/// The six-joint arm of the facade's tests read from its URDF with dry friction on its joints
/// (`tests/robots/arm6_friction.urdf`; the friction left out of the dynamics and kept, with the
/// file's limits, as constants), driven by a torque at each joint.
#[derive(Mechanics)]
#[mechanics(urdf(path = "../../tests/robots/arm6_friction.urdf", inputs = u, friction = ignore), gravity = [0, 0, -g])]
pub struct Arm6 {
    pub g: f64,
}

fn pendulum(p: [f64; 6]) -> DoublePendulum {
    DoublePendulum { m1: p[0], m2: p[1], l1: p[2], l2: p[3], g: p[4], b: p[5] }
}

/// The double pendulum's run by the typed API: the times and the states (flat, row by row).
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_double_pendulum(p: [f64; 6], x0: [f64; 4], t1: f64, rtol: f64, atol: f64) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let model = pendulum(p);
    let sol = model
        .run(State::<4>::from(x0))
        .span(0.0..t1)
        .rtol(rtol)
        .atol(atol)
        .go()
        .map_err(|e| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    Ok((sol.times.clone(), sol.states.iter().flat_map(|x| x.iter().copied()).collect()))
}

/// The cart-pole's (A, B) by the typed API, row by row.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_cartpole_linearize(p: [f64; 4], x: [f64; 4], u: f64) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let model = CartPole { mc: p[0], mp: p[1], l: p[2], g: p[3] };
    let lin = model
        .linearize(0.0, &State::<4>::from(x), [u])
        .map_err(|e| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let a: Vec<f64> = (0..4).flat_map(|i| (0..4).map(move |j| lin.a[(i, j)])).collect();
    let b: Vec<f64> = (0..4).map(|i| lin.b[(i, 0)]).collect();
    Ok((a, b))
}

/// The double pendulum's ensemble by the typed API from the starts (rows of 4) over (0, t1): each
/// member's final state, and the seconds the ensemble took (for the overhead benchmark).
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_ensemble(py: Python<'_>, p: [f64; 6], starts: Vec<[f64; 4]>, t1: f64, rtol: f64) -> PyResult<(Vec<f64>, f64)> {
    let model = pendulum(p);
    let (ends, seconds) = py.detach(move || {
        let clock = std::time::Instant::now();
        let runs = ensemble(
            &starts,
            |_, x0| model.run(State::<4>::from(*x0)).span(0.0..t1).rtol(rtol).go().map(|s| s.end.1),
            &EnsembleOptions::default().progress(false),
        );
        let seconds = clock.elapsed().as_secs_f64();
        let ends: Vec<f64> = runs
            .into_iter()
            .flatten()
            .flat_map(|r| r.ok().and_then(Result::ok).map_or([f64::NAN; 4], |x| [x[0], x[1], x[2], x[3]]))
            .collect();
        (ends, seconds)
    });
    Ok((ends, seconds))
}

/// A sweep of the double pendulum from the starts (rows of 4) over (0, t1) run by the Rust sweep
/// path (`runtime::sweep`: a job in `shards` shards, each written as JSON Lines into `dir`, as
/// Slurm array tasks write them), each member's result `[t_end, steps, end state...]`: the shard
/// files' paths.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_shards(
    py: Python<'_>,
    dir: String,
    p: [f64; 6],
    starts: Vec<[f64; 4]>,
    t1: f64,
    rtol: f64,
    shards: usize,
) -> PyResult<Vec<String>> {
    use routh::runtime::sweep::{Job, Shard};
    let error = |e: String| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e);
    let model = pendulum(p);
    let job = Job::new("double pendulum ends", Options::default().rtol(rtol), starts, 7);
    let member = |x0: &[f64; 4], options: &Options, _seed: u64| -> Result<[f64; 6], SimError> {
        let run = model.run(State::<4>::from(*x0)).span(0.0..t1).options(options).go()?;
        let (t, x) = run.end;
        Ok([t, run.stats.steps as f64, x[0], x[1], x[2], x[3]])
    };
    py.detach(|| {
        (0..shards)
            .map(|i| {
                let path = std::path::Path::new(&dir).join(format!("shard-{i}.jsonl"));
                let shard = Shard::new(i, shards).map_err(|e| error(e.to_string()))?;
                job.run_shard(shard, &path, member, &EnsembleOptions::default().progress(false))
                    .map_err(|e| error(e.to_string()))?;
                Ok(path.display().to_string())
            })
            .collect()
    })
}

/// The satellite's tangent linearisation by the typed API: the chart's names and A row by row.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_satellite_tangent(p: [f64; 4], x: [f64; 13], u: [f64; 6]) -> PyResult<(Vec<String>, Vec<f64>)> {
    let model = Satellite { m: p[0], i1: p[1], i2: p[2], i3: p[3] };
    let lin = model
        .driven(u)
        .linearize_tangent(0.0, &State::<13>::from(x))
        .map_err(|e| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let n = lin.states.len();
    Ok((lin.states, (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| lin.a[(i, j)]).collect()))
}

/// The satellite's RK4 step in its tangent charts by the typed API: A_d and B_d row by row.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_satellite_tangent_step(p: [f64; 4], x: [f64; 13], u: [f64; 6], h: f64) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let model = Satellite { m: p[0], i1: p[1], i2: p[2], i3: p[3] };
    let step = model
        .rk4_step_tangent(0.0, &State::<13>::from(x), u, h)
        .map_err(|e| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let rows = |m: &dyn Fn(usize, usize) -> f64, cols: usize| {
        (0..12).flat_map(|i| (0..cols).map(move |j| (i, j))).map(|(i, j)| m(i, j)).collect()
    };
    Ok((rows(&|i, j| step.a[(i, j)], 12), rows(&|i, j| step.b[(i, j)], 6)))
}

/// The satellite's iLQR in its tangent charts by the typed API (Q = 1, R = 0.1, Q_f = 100 over the
/// chart, zero guess): the inputs row by row and J at each iteration.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_satellite_ilqr_tangent(
    p: [f64; 4],
    x0: [f64; 13],
    goal: [f64; 13],
    steps: usize,
    h: f64,
) -> PyResult<(Vec<f64>, Vec<f64>)> {
    use routh::runtime::ilqr::IlqrProblem;
    let model = Satellite { m: p[0], i1: p[1], i2: p[2], i3: p[3] };
    let identity = routh::nalgebra::SMatrix::<f64, 12, 12>::identity();
    let problem = IlqrProblem::new(
        (0.0, h, steps),
        State::<13>::from(goal),
        identity,
        routh::nalgebra::SMatrix::<f64, 6, 6>::identity() * 0.1,
        identity * 100.0,
    );
    let plan = model
        .ilqr_tangent(&problem, &State::<13>::from(x0), &vec![routh::nalgebra::SVector::zeros(); steps])
        .map_err(|e| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    Ok((plan.inputs.iter().flat_map(|u| u.iter().copied()).collect(), plan.costs))
}

/// The cart-pole held upright by the typed `runtime::mpc::Mpc` (Q = diag(1, 10, 0.1, 0.1), R = 0.1,
/// Q_f = 10, |u| ≤ `limit`, `steps` steps of `h` a horizon) from `x0` for `ticks` ticks, the plant
/// the same RK4 step: the inputs tick by tick.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_cartpole_mpc(p: [f64; 4], x0: [f64; 4], steps: usize, h: f64, ticks: usize, limit: f64) -> PyResult<Vec<f64>> {
    let problem = cartpole_problem([1.0, 10.0, 0.1, 0.1], State::<4>::zeros(), steps, h)
        .limits(routh::nalgebra::SVector::from([-limit]), routh::nalgebra::SVector::from([limit]));
    fly_cartpole_mpc(p, x0, problem, ticks, None)
}

/// The cart-pole tracking a path by the typed `Mpc` (Q = diag(10, 10, 1, 1), R = 0.1, Q_f = 10,
/// `steps` steps of `h`): at tick k the references are the path's states k … k + steps (`path`,
/// row by row, 4 a row) and zero inputs; the inputs tick by tick.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_cartpole_mpc_path(
    p: [f64; 4],
    x0: [f64; 4],
    path: Vec<f64>,
    steps: usize,
    h: f64,
    ticks: usize,
) -> PyResult<Vec<f64>> {
    let path: Vec<State<4>> = path.chunks(4).map(State::<4>::from_column_slice).collect();
    let problem = cartpole_problem([10.0, 10.0, 1.0, 1.0], path[0], steps, h);
    fly_cartpole_mpc(p, x0, problem, ticks, Some(&path))
}

/// The cart-pole's MPC problem: Q = diag(`q`), R = 0.1, Q_f = 10 about `goal`.
fn cartpole_problem(q: [f64; 4], goal: State<4>, steps: usize, h: f64) -> routh::runtime::ilqr::IlqrProblem<4, 1> {
    use routh::nalgebra::{SMatrix, SVector};
    let q = SMatrix::<f64, 4, 4>::from_diagonal(&SVector::from(q));
    routh::runtime::ilqr::IlqrProblem::new(
        (0.0, h, steps),
        goal,
        q,
        SMatrix::<f64, 1, 1>::new(0.1),
        SMatrix::<f64, 4, 4>::identity() * 10.0,
    )
}

/// The closed loop of the cart-pole under the typed `Mpc` of `problem` for `ticks` ticks (the
/// references of each tick the `path`'s next window, if any), the plant the same RK4 step: the
/// inputs tick by tick.
fn fly_cartpole_mpc(
    p: [f64; 4],
    x0: [f64; 4],
    problem: routh::runtime::ilqr::IlqrProblem<4, 1>,
    ticks: usize,
    path: Option<&[State<4>]>,
) -> PyResult<Vec<f64>> {
    let fail = |e: &dyn std::fmt::Display| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e.to_string());
    let model = CartPole { mc: p[0], mp: p[1], l: p[2], g: p[3] };
    let (h, steps) = (problem.h, problem.steps);
    let mut mpc = routh::runtime::mpc::Mpc::new(problem);
    let mut x = State::<4>::from(x0);
    let mut inputs = Vec::with_capacity(ticks);
    for k in 0..ticks {
        let t = k as f64 * h;
        if let Some(path) = path {
            mpc.references(path[k..=k + steps].to_vec(), vec![routh::nalgebra::SVector::zeros(); steps]);
        }
        let u = mpc.control(&model, t, &x).map_err(|e| fail(&e))?;
        x = routh::runtime::step::rk4_step(&model, t, &x, &u, h).map_err(|e| fail(&e))?.next;
        inputs.push(u[0]);
    }
    Ok(inputs)
}

/// The cart-pole's variational integrator by the typed API (`driven([u]).run_discrete`) from the
/// state `x0`: the nodes' times and discrete states (q, p) row by row.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_cartpole_discrete(p: [f64; 4], x0: [f64; 4], u: f64, h: f64, steps: usize) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let model = CartPole { mc: p[0], mp: p[1], l: p[2], g: p[3] };
    let run = model
        .driven([u])
        .run_discrete(State::<4>::from(x0))
        .step(h)
        .steps(steps)
        .go()
        .map_err(|e| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let nodes = run.positions.iter().zip(&run.momenta).flat_map(|(q, p)| [q[0], q[1], p[0], p[1]]).collect();
    Ok((run.times, nodes))
}

/// The polar particle's reduced discrete run by the typed API (`run_discrete(x0)…reduced()`): the
/// nodes' discrete states (r, η, p_r, p_η) row by row and each step's increment of η.
#[pyfunction]
#[pyo3(crate = "::routh_python::pyo3")]
fn reference_polar_reduced(kappa: f64, x0: [f64; 4], h: f64, steps: usize) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let model = PolarParticle { kappa };
    let run = model
        .run_discrete(State::<4>::from(x0))
        .step(h)
        .steps(steps)
        .reduced()
        .go()
        .map_err(|e| routh_python::pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let nodes =
        run.trajectory.positions.iter().zip(&run.trajectory.momenta).flat_map(|(q, p)| [q[0], q[1], p[0], p[1]]).collect();
    Ok((nodes, run.increments.iter().map(|w| w[1]).collect()))
}

fn references(module: &Bound<'_, routh_python::pyo3::types::PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(reference_double_pendulum, module)?)?;
    module.add_function(wrap_pyfunction!(reference_cartpole_linearize, module)?)?;
    module.add_function(wrap_pyfunction!(reference_ensemble, module)?)?;
    module.add_function(wrap_pyfunction!(reference_shards, module)?)?;
    module.add_function(wrap_pyfunction!(reference_satellite_tangent, module)?)?;
    module.add_function(wrap_pyfunction!(reference_satellite_tangent_step, module)?)?;
    module.add_function(wrap_pyfunction!(reference_satellite_ilqr_tangent, module)?)?;
    module.add_function(wrap_pyfunction!(reference_cartpole_mpc, module)?)?;
    module.add_function(wrap_pyfunction!(reference_cartpole_mpc_path, module)?)?;
    module.add_function(wrap_pyfunction!(reference_cartpole_discrete, module)?)?;
    module.add_function(wrap_pyfunction!(reference_polar_reduced, module)?)?;
    Ok(())
}

routh_python::module!(
    routh_models,
    [DoublePendulum, CartPole, BouncingBall, Rod, Satellite, Spacecraft, PolarParticle, Arm6],
    with = references
);
