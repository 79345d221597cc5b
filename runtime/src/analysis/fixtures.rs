//! Systems with inputs shared by the control layer's tests: a damped pendulum and the double
//! integrator, with their Jacobians by hand.

use nalgebra::{Matrix2, SMatrix, Vector1, Vector2};

use crate::error::FieldError;
use crate::input::InputSystem;
use crate::step::{InputJacobians, SecondOrder};

/// The gravitational acceleration of [`Pendulum`].
const G: f64 = 9.81;

/// A damped pendulum θ̈ = −g sin θ − 0.1 θ̇ + u (hanging at θ = 0, upright at π).
pub(crate) struct Pendulum;
impl InputSystem<2, 1> for Pendulum {
    fn field_with_input(&self, _t: f64, x: &Vector2<f64>, u: &Vector1<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], -G * x[0].sin() - 0.1 * x[1] + u[0]))
    }
}
impl InputJacobians<2, 1> for Pendulum {
    fn state_jacobian(&self, _t: f64, x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<Matrix2<f64>, FieldError> {
        Ok(Matrix2::new(0.0, 1.0, -G * x[0].cos(), -0.1))
    }
    fn input_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 1>, FieldError> {
        Ok(SMatrix::<f64, 2, 1>::new(0.0, 1.0))
    }
}

impl SecondOrder for Pendulum {}

/// The double integrator ẍ = u.
pub(crate) struct Cart;
impl InputSystem<2, 1> for Cart {
    fn field_with_input(&self, _t: f64, x: &Vector2<f64>, u: &Vector1<f64>) -> Result<Vector2<f64>, FieldError> {
        Ok(Vector2::new(x[1], u[0]))
    }
}
impl InputJacobians<2, 1> for Cart {
    fn state_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<Matrix2<f64>, FieldError> {
        Ok(Matrix2::new(0.0, 1.0, 0.0, 0.0))
    }
    fn input_jacobian(&self, _t: f64, _x: &Vector2<f64>, _u: &Vector1<f64>) -> Result<SMatrix<f64, 2, 1>, FieldError> {
        Ok(SMatrix::<f64, 2, 1>::new(0.0, 1.0))
    }
}
