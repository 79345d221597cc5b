//! The one step loop driven directly: on a state whose size const generics cannot compute (the
//! flow with its variational matrix), and with a step control that rejects steps.

use routh_runtime::nalgebra::{Const, Dyn, OMatrix};
use routh_runtime::{FieldError, Integrator, Options, SimError, StateField, StepControl, Trial, Verdict};

/// x' = A x for the oscillator A = [0 1; −ω² 0], integrated with its variational matrix:
/// the state is the 2 × 3 matrix [x | Φ] with Φ' = A Φ, Φ(0) = I (columns of run-time number).
struct OscillatorWithFlow {
    omega: f64,
}

type Augmented = OMatrix<f64, Const<2>, Dyn>;

impl StateField<Augmented> for OscillatorWithFlow {
    fn eval(&self, _t: f64, z: &Augmented) -> Result<Augmented, FieldError> {
        let w2 = self.omega * self.omega;
        let mut dz = Augmented::zeros(z.ncols());
        for c in 0..z.ncols() {
            dz[(0, c)] = z[(1, c)];
            dz[(1, c)] = -w2 * z[(0, c)];
        }
        Ok(dz)
    }
}

#[test]
fn variational_matrix_integrates_on_a_run_time_sized_state() {
    let w = 2.0;
    let sys = OscillatorWithFlow { omega: w };
    let mut z0 = Augmented::zeros(3);
    z0[(0, 0)] = 1.0; // x(0) = (1, 0)
    z0[(0, 1)] = 1.0; // Φ(0) = I
    z0[(1, 2)] = 1.0;
    let opts = Options::default().rtol(1e-11).atol(1e-13);
    let t_end = 3.0;
    let mut integ = Integrator::new(&sys, 0.0, z0, t_end, &opts).unwrap();
    let mut steps = 0;
    loop {
        let step = integ.step(&mut ()).unwrap();
        steps += 1;
        // The dense output of the augmented state is the exact flow to the interpolation order.
        let tm = 0.5 * (step.t + step.t_new);
        let zm = integ.dense().unwrap().eval(tm);
        assert!((zm[(0, 0)] - (w * tm).cos()).abs() < 1e-8);
        if step.last {
            break;
        }
    }
    let (t, z) = integ.current();
    assert_eq!(t, t_end);
    let (c, s) = ((w * t).cos(), (w * t).sin());
    // x(t) = (cos ωt, −ω sin ωt) and Φ(t) = [cos ωt, sin ωt / ω; −ω sin ωt, cos ωt].
    let exact = [[c, c, s / w], [-w * s, -w * s, c]];
    for (r, row) in exact.iter().enumerate() {
        for (k, &v) in row.iter().enumerate() {
            assert!((z[(r, k)] - v).abs() < 1e-9, "z[{r},{k}] = {} vs {v}", z[(r, k)]);
        }
    }
    // det Φ = 1 (the flow of a Hamiltonian system preserves area).
    let det = z[(0, 1)] * z[(1, 2)] - z[(0, 2)] * z[(1, 1)];
    assert!((det - 1.0).abs() < 1e-9);
    assert_eq!(integ.stats().steps, steps);
}

/// Rejects every step longer than `h_max` through the controller (a ratio > 1), and forbids
/// steps that would cross `t_wall` with a shrink whose cause is reported at the step floor.
struct Limits {
    h_max: f64,
    t_wall: f64,
}

impl StepControl<Augmented> for Limits {
    fn check(&mut self, trial: &Trial<'_, Augmented>) -> Verdict {
        if trial.t_new > self.t_wall {
            return Verdict::Shrink { factor: 0.5, cause: Some(SimError::InvalidOptions("wall".into())) };
        }
        Verdict::Ratio(trial.h.abs() / self.h_max)
    }
}

#[test]
fn step_control_hook_limits_steps_and_reports_its_cause() {
    let sys = OscillatorWithFlow { omega: 1.0 };
    let mut z0 = Augmented::zeros(1);
    z0[(0, 0)] = 1.0;
    let opts = Options::default().rtol(1e-6).atol(1e-9);
    let mut integ = Integrator::new(&sys, 0.0, z0, 10.0, &opts).unwrap();
    let mut control = Limits { h_max: 0.05, t_wall: 1.0 };
    let err = loop {
        match integ.step(&mut control) {
            Ok(step) => assert!(step.h <= 0.05 && step.t_new <= 1.0, "{step:?}"),
            Err(e) => break e,
        }
    };
    // Steps never crossed the wall; shrinking towards it ends with the control's own cause.
    assert_eq!(err, SimError::InvalidOptions("wall".into()));
    let (t, _) = integ.current();
    assert!(t <= 1.0 && t > 0.9, "stopped at {t}");
}

/// The step loop is generic over its method: Bogacki–Shampine 3(2) (first same as last, embedded
/// second-order estimate, cubic Hermite dense output), written here against the public `Method`
/// trait, drives `Integrator` with the same step control and hooks as Dormand–Prince.
mod bogacki_shampine {
    use routh_runtime::{Attempt, Dense, FieldError, Method, SimError, State, StateField, Tolerances};

    pub struct Bs23<S> {
        k1: S,
        k4: S,
        x_new: S,
    }

    fn stage<F: StateField<S> + ?Sized, S>(f: &F, t: f64, x: &S, evaluations: &mut usize) -> Result<Option<S>, SimError> {
        *evaluations += 1;
        match f.eval(t, x) {
            Ok(v) => Ok(Some(v)),
            Err(FieldError::NonFinite { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// `x + h Σ wᵢ kᵢ`.
    fn combine<S: State>(x: &S, h: f64, terms: &[(f64, &S)]) -> S {
        let mut y = x.clone();
        for (w, k) in terms {
            for (yi, ki) in y.entries_mut().iter_mut().zip(k.entries()) {
                *yi += h * w * ki;
            }
        }
        y
    }

    impl<S: State> Method<S> for Bs23<S> {
        fn order(&self) -> f64 {
            3.0
        }

        fn new(k1: S) -> Self {
            let z = k1.zeros_like();
            Bs23 { k1, k4: z.clone(), x_new: z }
        }

        fn attempt<F>(
            &mut self,
            f: &F,
            t: f64,
            x: &S,
            h: f64,
            tol: Tolerances,
            evaluations: &mut usize,
        ) -> Result<Attempt, SimError>
        where
            F: StateField<S> + ?Sized,
        {
            let k1 = &self.k1;
            let Some(k2) = stage(f, t + 0.5 * h, &combine(x, h, &[(0.5, k1)]), evaluations)? else {
                return Ok(Attempt::NonFinite);
            };
            let Some(k3) = stage(f, t + 0.75 * h, &combine(x, h, &[(0.75, &k2)]), evaluations)? else {
                return Ok(Attempt::NonFinite);
            };
            let y = combine(x, h, &[(2.0 / 9.0, k1), (1.0 / 3.0, &k2), (4.0 / 9.0, &k3)]);
            let Some(k4) = stage(f, t + h, &y, evaluations)? else { return Ok(Attempt::NonFinite) };
            let mut sum = 0.0;
            for i in 0..x.entries().len() {
                let e = h
                    * (-5.0 / 72.0 * k1.entries()[i] + 1.0 / 12.0 * k2.entries()[i] + 1.0 / 9.0 * k3.entries()[i]
                        - 1.0 / 8.0 * k4.entries()[i]);
                let sk = tol.atol + tol.rtol * x.entries()[i].abs().max(y.entries()[i].abs());
                sum += (e / sk).powi(2);
            }
            let err = (sum / x.entries().len() as f64).sqrt();
            if !err.is_finite() {
                return Ok(Attempt::NonFinite);
            }
            (self.k4, self.x_new) = (k4, y);
            Ok(Attempt::Done { err })
        }

        fn x_new(&self) -> &S {
            &self.x_new
        }
        fn replace_x_new(&mut self, x: S) {
            self.x_new = x;
        }
        fn restart(&mut self, k1: S) {
            self.k1 = k1;
        }
        fn advance(&mut self) {
            self.k1 = self.k4.clone();
        }
        fn dense<F>(&self, _f: &F, t: f64, x: &S, h: f64, t_end: f64, _evaluations: &mut usize) -> Result<Dense<S>, SimError>
        where
            F: StateField<S> + ?Sized,
        {
            Ok(Dense::cubic_hermite(t, h, (x, &self.k1), (&self.x_new, &self.k4), t_end))
        }
    }
}

#[test]
fn the_step_loop_drives_any_method() {
    use routh_runtime::nalgebra::Vector2;
    let osc = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
    let opts = Options::default().rtol(1e-8).atol(1e-10);
    fn run<F, M>(mut integ: Integrator<'_, F, Vector2<f64>, M>) -> (f64, Vector2<f64>, usize, f64)
    where
        F: StateField<Vector2<f64>>,
        M: routh_runtime::Method<Vector2<f64>>,
    {
        let mut worst_dense: f64 = 0.0;
        loop {
            let step = integ.step(&mut ()).unwrap();
            let mid = 0.5 * (step.t + step.t_new);
            worst_dense = worst_dense.max((integ.dense().unwrap().eval(mid)[0] - mid.cos()).abs());
            if step.last {
                break;
            }
        }
        let (t, x) = integ.current();
        (t, *x, integ.stats().steps, worst_dense)
    }
    let x0 = Vector2::new(1.0, 0.0);
    let (t, x, bs_steps, bs_dense) =
        run(Integrator::<_, _, bogacki_shampine::Bs23<Vector2<f64>>>::with_method(&osc, 0.0, x0, 10.0, &opts).unwrap());
    let (_, y, dp_steps, _) = run(Integrator::new(&osc, 0.0, x0, 10.0, &opts).unwrap());
    assert_eq!(t, 10.0);
    // Both reach cos 10 to about the tolerance (global error a few times rtol over 1.6 periods).
    assert!((x[0] - 10f64.cos()).abs() < 1e-6, "{}", x[0] - 10f64.cos());
    assert!((y[0] - 10f64.cos()).abs() < 1e-6);
    // Third order needs many more steps than fifth at this tolerance (h ∝ tol^(1/3) against
    // tol^(1/5)): the loop ran the method it was given.
    assert!(bs_steps > 5 * dp_steps, "Bogacki–Shampine {bs_steps} steps, Dormand–Prince {dp_steps}");
    // The cubic Hermite dense output is accurate inside every step.
    assert!(bs_dense < 1e-6, "{bs_dense}");
}
