//! The Newton iteration of a discrete step where its Jacobian is ill-conditioned: the midpoint rule
//! for L = ½ vᵀ M v − ½ qᵀ K q with M = R diag(1, 10⁻⁸) Rᵀ and K = R diag(2, 3·10⁻⁸) Rᵀ (the same
//! axes: a heavy and a light degree of freedom at an angle to the coordinates, as a robot's base
//! and finger), whose step solves (M/h + hK/4) q₁ = p₀ + (M/h − hK/4) q₀ — in closed form along
//! the axes.

use nalgebra::{Matrix2, SMatrix, Vector2};

use super::*;

type V2 = Vector2<f64>;

/// The system (see the module docs); `scale` multiplies the Jacobian it reports (1 for the exact
/// one).
struct Stiff {
    axes: Matrix2<f64>,
    mass: V2,
    stiffness: V2,
    scale: f64,
}

impl Stiff {
    fn new(scale: f64) -> Self {
        let (c, s) = (0.7_f64.cos(), 0.7_f64.sin());
        Stiff { axes: Matrix2::new(c, -s, s, c), mass: V2::new(1.0, 1e-8), stiffness: V2::new(2.0, 3e-8), scale }
    }

    fn along(&self, d: &V2) -> Matrix2<f64> {
        self.axes * Matrix2::from_diagonal(d) * self.axes.transpose()
    }

    /// q₁ of the step from (q₀, p₀) along the axes, each component's linear equation divided out.
    fn exact(&self, h: f64, q0: &V2, p0: &V2) -> V2 {
        let (y0, b) = (self.axes.transpose() * q0, self.axes.transpose() * p0);
        let y1 = V2::from_fn(|i, _| {
            let (m, k) = (self.mass[i], self.stiffness[i]);
            (b[i] + (m / h - h * k / 4.0) * y0[i]) / (m / h + h * k / 4.0)
        });
        self.axes * y1
    }
}

impl DiscreteSystem<2> for Stiff {
    fn left_momentum(&self, _t: f64, h: f64, q0: &V2, q1: &V2) -> Result<(V2, SMatrix<f64, 2, 2>), FieldError> {
        let (m, k) = (self.along(&self.mass), self.along(&self.stiffness));
        let left = m * (q1 - q0) / h + k * (q0 + q1) * (h / 4.0);
        Ok((left, (m / h + k * (h / 4.0)) * self.scale))
    }

    fn right_momentum(&self, _t: f64, h: f64, q0: &V2, q1: &V2) -> Result<V2, FieldError> {
        let (m, k) = (self.along(&self.mass), self.along(&self.stiffness));
        Ok(m * (q1 - q0) / h - k * (q0 + q1) * (h / 4.0))
    }
}

/// The start: unit positions, momenta M v of velocities of size 10.
fn start(sys: &Stiff) -> (V2, V2) {
    (V2::new(1.0, -0.5), sys.along(&sys.mass) * V2::new(6.0, -8.0))
}

#[test]
fn an_ill_conditioned_step_converges_at_its_rounding_floor() {
    // The light axis's corrections are h ε |p| / 10⁻⁸ ≈ 10⁻⁹ of rounding: above the default
    // tolerance 10⁻¹⁴, which the iteration can never meet (NewtonFailed before the floor).
    let sys = Stiff::new(1.0);
    let (q0, p0) = start(&sys);
    let h = 0.01;
    let step = discrete_step(&sys, (0.0, h), (&q0, &p0), q0, &DiscreteOptions::default()).expect("the step converges");
    let exact = sys.exact(h, &q0, &p0);
    let error = (step.position - exact).amax();
    assert!(error < 1e-7, "q₁ off the closed form by {error:e}");
    // It stopped at the floor, not below the tolerance: the last correction above 10⁻¹⁴ (1 + |q₁|).
    let last = step.corrections[step.iterations - 1];
    assert!(last > 1e-14 * (1.0 + step.position.amax()) && last <= 1e-8 * (1.0 + step.position.amax()), "{:?}", step.corrections);
}

#[test]
fn a_well_conditioned_step_still_meets_the_tolerance() {
    let mut sys = Stiff::new(1.0);
    sys.mass[1] = 0.5;
    sys.stiffness[1] = 1.0;
    let (q0, p0) = start(&sys);
    let step = discrete_step(&sys, (0.0, 0.01), (&q0, &p0), q0, &DiscreteOptions::default()).expect("the step converges");
    assert!(step.corrections[step.iterations - 1] <= 1e-14 * (1.0 + step.position.amax()), "{:?}", step.corrections);
    assert!((step.position - sys.exact(0.01, &q0, &p0)).amax() < 1e-14);
}

#[test]
fn a_diverging_iteration_is_still_an_error() {
    // A Jacobian 0.4 of the true one: each correction overshoots by 2.5, the iteration's error
    // grows by 1.5 a step — never contracting, and far above the floor.
    let sys = Stiff::new(0.4);
    let (q0, p0) = start(&sys);
    let err = discrete_step(&sys, (0.0, 0.01), (&q0, &p0), q0, &DiscreteOptions::default()).unwrap_err();
    assert!(matches!(err, SimError::NewtonFailed { .. }), "{err:?}");
}
