//! What a run checks of a start before it begins: that a 3×3 matrix is the inertia tensor of a
//! rigid body (for the tensors a model builds from its parameters; literal ones are checked at
//! compile time), and that an orientation's quaternion is a rotation (then scaled to unit length).
//!
//! An inertia tensor about the mass centre is I = tr(J)·1 − J with J = ∫ρ r rᵀ dV the second
//! moment of the mass distribution, positive semidefinite. So I is symmetric, and
//!
//! - positive definite (a body of nonzero extent has a positive moment about every axis), and
//! - J = tr(I)/2 · 1 − I is positive semidefinite: the principal moments satisfy the triangle
//!   inequalities I₁ ≤ I₂ + I₃ (and cyclically), with equality for a flat plate.

use nalgebra::Matrix3;

use crate::error::SimError;

/// Why `inertia` cannot be a rigid body's inertia tensor, with the value that shows it (the
/// smallest principal moment, or the smallest eigenvalue of J), or `None` when it can. The
/// triangle inequalities hold to a rounding tolerance of `1e-12 · tr(I)`, so that a flat plate
/// computed in floating point (I₃ = I₁ + I₂) passes.
///
/// ```
/// use routh_runtime::mechanics::inertia_defect;
/// use routh_runtime::nalgebra::Matrix3;
///
/// assert!(inertia_defect(&Matrix3::from_diagonal(&[1.0, 2.0, 3.0].into())).is_none()); // a plate
/// let (value, _) = inertia_defect(&Matrix3::from_diagonal(&[1.0, 1.0, 3.0].into())).unwrap();
/// assert_eq!(value, -0.5); // J's smallest eigenvalue: I₃ = 3 > I₁ + I₂ = 2
/// assert!(inertia_defect(&Matrix3::from_diagonal(&[-1.0, 2.0, 2.0].into())).is_some());
/// ```
#[must_use]
pub fn inertia_defect(inertia: &Matrix3<f64>) -> Option<(f64, &'static str)> {
    if let Some(&bad) = inertia.iter().find(|v| !v.is_finite()) {
        return Some((bad, "an entry of the inertia tensor is not finite"));
    }
    let asymmetry = (inertia - inertia.transpose()).abs().max();
    let scale = inertia.abs().max();
    if asymmetry > 1e-12 * scale {
        return Some((asymmetry, "the inertia tensor is not symmetric"));
    }
    let symmetric = (inertia + inertia.transpose()) * 0.5;
    let moments = symmetric.symmetric_eigenvalues();
    let smallest = moments.min();
    if smallest <= 0.0 {
        return Some((
            smallest,
            "the inertia tensor is not positive definite: a rigid body has a positive moment of inertia about every axis",
        ));
    }
    let trace = moments.sum();
    let second = trace / 2.0 - moments.max(); // J's smallest eigenvalue
    if second < -1e-12 * trace {
        return Some((
            second,
            "the principal moments violate the triangle inequality (I₁ ≤ I₂ + I₃ and cyclically): no mass distribution has them",
        ));
    }
    None
}

/// Scales the quaternion `q` (four numbers) to unit length, first by its largest component so that
/// neither a tiny nor a huge one under- or overflows.
///
/// # Errors
/// [`SimError::InvalidInitialState`] when its norm is zero or not finite: it is no rotation.
///
/// ```
/// use routh_runtime::mechanics::unit_quaternion;
///
/// let mut q = [1e-200, 0.0, 1e-200, 0.0];
/// unit_quaternion(&mut q)?;
/// assert!((q[0] - 0.5f64.sqrt()).abs() < 1e-15 && q[0] == q[2] && q[1] == 0.0 && q[3] == 0.0);
/// assert!(unit_quaternion(&mut [0.0; 4]).is_err());
/// # Ok::<(), routh_runtime::SimError>(())
/// ```
pub fn unit_quaternion(q: &mut [f64]) -> Result<(), SimError> {
    let largest = q.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if !(largest > 0.0 && largest.is_finite()) || q.iter().any(|v| !v.is_finite()) {
        return Err(SimError::InvalidInitialState);
    }
    q.iter_mut().for_each(|v| *v /= largest);
    let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    q.iter_mut().for_each(|v| *v /= norm);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Rotation3, Vector3};

    /// A solid box's tensor, turned into a frame that is not its principal one: a rigid body's
    /// inertia, whatever the frame.
    #[test]
    fn a_turned_box_and_a_plate_are_bodies() {
        let (m, a, b, c) = (2.0, 0.3, 0.5, 0.7);
        let principal = Matrix3::from_diagonal(&Vector3::new(b * b + c * c, a * a + c * c, a * a + b * b)) * (m / 12.0);
        let r = Rotation3::from_euler_angles(0.3, -0.7, 1.1);
        let turned = r.matrix() * principal * r.matrix().transpose();
        assert!(inertia_defect(&turned).is_none());
        // A thin plate in the xy-plane: I_z = I_x + I_y exactly, rounded after turning.
        let plate = Matrix3::from_diagonal(&Vector3::new(b * b, a * a, a * a + b * b)) * (m / 12.0);
        assert!(inertia_defect(&(r.matrix() * plate * r.matrix().transpose())).is_none());
    }

    #[test]
    fn each_defect_is_named() {
        let defect = |d: [f64; 3]| inertia_defect(&Matrix3::from_diagonal(&Vector3::from(d)));
        assert!(defect([1.0, 2.0, -0.5]).unwrap().1.contains("positive definite"));
        assert!(defect([1.0, 0.0, 1.0]).unwrap().1.contains("positive definite"));
        let (value, reason) = defect([1.0, 1.0, 5.0]).unwrap();
        assert!(reason.contains("triangle"));
        assert!((value - (-1.5)).abs() < 1e-15, "J's smallest eigenvalue (7/2 − 5) = {value}");
        assert!(defect([1.0, f64::NAN, 1.0]).unwrap().1.contains("finite"));
        let mut skew = Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 2.0));
        skew[(0, 1)] = 0.1;
        assert!(inertia_defect(&skew).unwrap().1.contains("symmetric"));
    }
}
