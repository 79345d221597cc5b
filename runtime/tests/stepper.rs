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
        let zm = integ.dense().eval(tm);
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
