//! Linearisation of constrained systems on their constraint manifold, in a minimal set of states.
//!
//! A model with constraints lives on the manifold c(x) = 0 of its state x = (q, q̇[, z]): the
//! holonomic rows f(t, q) = 0 and the velocity rows A(q) q̇ + b(q) = 0. Its field's Jacobian J at
//! an equilibrium or a steady motion x₀ acts on every direction, the constraints' own and those
//! of the ignorable coordinates included, so its eigenvalues carry structural zeros. With
//! independent coordinates q_I, independent velocities u_V and ignorable coordinates q_G named,
//! the other state components are dependent: the implicit function theorem on the constraints'
//! Jacobian C = ∂c/∂x gives them, δx_dep = −C_dep⁻¹ C_keep δx_keep, and the linearisation in the
//! minimal state x_min = (δq_I, δu_V[, δz]) is
//!
//! ```text
//! δẋ_min = J[keep, ·] P δx_min,    P = ∂x/∂x_min (δq_G = 0, δx_dep from the constraints).
//! ```
//!
//! An ignorable coordinate is proved to be one at x₀: varying it along the manifold (its
//! dependent components following) must leave the rates of the kept states unchanged; it is an
//! error otherwise. Exact where J and C are (the generated ones are): no finite differences.
//!
//! For a mechanical system whose independent velocities include those of the independent
//! coordinates, the kept part reads M δq̈ + C δq̇ + K δq = 0 (Lagrange–d'Alembert on the
//! manifold): M = Tᵀ M_full T is the mass matrix of the constrained system (T = ∂q̇/∂u_V, the
//! velocities the independent ones imply), and C = −M ∂u̇/∂u, K = −M ∂u̇/∂q_I. For the Whipple
//! bicycle about upright straight running these are the benchmark's M, v C₁ and g K₀ + v² K₂.

use nalgebra::{DMatrix, SMatrix};
use thiserror::Error;

use crate::error::FieldError;

/// Which state components to keep: the independent coordinates and velocities, by coordinate
/// name, and the ignorable coordinates to drop (builder).
///
/// ```
/// use routh_runtime::linearize::Selection;
/// let s = Selection::new().coordinates(["phi", "delta"]).velocities(["phi", "delta", "spin_r"]).ignorable(["x", "y"]);
/// assert_eq!(s.velocities, ["phi", "delta", "spin_r"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Selection {
    /// The independent coordinates q_I.
    pub coordinates: Vec<String>,
    /// The coordinates whose velocities are the independent velocities u_V.
    pub velocities: Vec<String>,
    /// The ignorable coordinates, dropped (their velocities may still be independent).
    pub ignorable: Vec<String>,
}

impl Selection {
    /// An empty selection.
    #[must_use]
    pub fn new() -> Self {
        Selection::default()
    }
    /// Set [`Selection::coordinates`].
    #[must_use]
    pub fn coordinates<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.coordinates = names.into_iter().map(Into::into).collect();
        self
    }
    /// Set [`Selection::velocities`].
    #[must_use]
    pub fn velocities<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.velocities = names.into_iter().map(Into::into).collect();
        self
    }
    /// Set [`Selection::ignorable`].
    #[must_use]
    pub fn ignorable<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.ignorable = names.into_iter().map(Into::into).collect();
        self
    }
}

/// Why a constrained linearisation could not be made.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum LinearizeError {
    /// The selection names an unknown coordinate, names one twice, or does not leave as many
    /// dependent state components as there are constraint rows.
    #[error("invalid selection: {0}")]
    Selection(String),
    /// The constraints do not determine the dependent components at this state (C_dep is
    /// singular): the named coordinates and velocities are not independent here.
    #[error("the constraints do not determine {dependent:?} at this state: choose other independent coordinates or velocities")]
    NotDetermined {
        /// The dependent state components (names as in the state).
        dependent: Vec<String>,
    },
    /// A coordinate named ignorable changes the kept rates when varied along the constraints.
    #[error("`{coordinate}` is not ignorable at this state: varying it changes the kept rates by {effect:e}")]
    NotIgnorable {
        /// The coordinate.
        coordinate: String,
        /// The largest change of a kept rate per unit of the coordinate.
        effect: f64,
    },
    /// The field's Jacobian could not be evaluated.
    #[error(transparent)]
    Field(#[from] FieldError),
}

/// A linearisation on the constraint manifold (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ConstrainedLinearization {
    /// The names of the minimal state: the independent coordinates, `dot(…)` of the independent
    /// velocities, and the action of a contact model.
    pub states: Vec<String>,
    /// δẋ_min = A δx_min + B δu.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub a: DMatrix<f64>,
    /// B: the inputs' effect on the minimal state (no columns for a model without inputs).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub b: DMatrix<f64>,
    /// P = ∂x/∂x_min: the full-state direction of each minimal state (columns).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub embedding: DMatrix<f64>,
    /// M, C, K of M δq̈ + C δq̇ + K δq = 0, with rows and the columns of M and C over the
    /// independent velocities and the columns of K over the independent coordinates; `None`
    /// unless every independent coordinate's velocity is independent.
    pub mechanical: Option<Mechanical>,
}

/// The mechanical form M δu̇ + C δu + K δq_I = 0 of a constrained linearisation.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Mechanical {
    /// The mass matrix of the constrained system, Tᵀ M T (independent velocities²).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub mass: DMatrix<f64>,
    /// C = −M ∂u̇/∂u.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub damping: DMatrix<f64>,
    /// K = −M ∂u̇/∂q_I (independent velocities × independent coordinates).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub stiffness: DMatrix<f64>,
    /// The input matrix of M δu̇ + C δu + K δq_I = B δu_in: M ∂u̇/∂u_in (no columns without inputs).
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_floats"))]
    pub input: DMatrix<f64>,
}

/// The linearisation of a constrained system at a state x₀ (see the [module docs](self)) from the
/// field's Jacobian `jacobian` there, the constraints' Jacobian `constraints` (rows: the holonomic
/// position rows and the velocity rows, columns: the state), the mass matrix `mass` (n × n) and the
/// coordinates' names; the state is (q, q̇) or (q, q̇, z) for the n coordinates.
///
/// # Errors
/// [`LinearizeError::Selection`] for a selection that does not fit the model and its constraints,
/// [`LinearizeError::NotDetermined`], [`LinearizeError::NotIgnorable`].
pub fn constrained<const D: usize, S: AsRef<str>>(
    jacobian: &SMatrix<f64, D, D>,
    constraints: &DMatrix<f64>,
    mass: &DMatrix<f64>,
    coordinates: &[S],
    selection: &Selection,
) -> Result<ConstrainedLinearization, LinearizeError> {
    constrained_driven(jacobian, &DMatrix::zeros(D, 0), constraints, mass, coordinates, selection)
}

/// [`constrained`] for a system with inputs: `inputs` is B = ∂F/∂u on the full state (D × k), and
/// the minimal B is its rows of the minimal state (the inputs move the kept components directly;
/// the dependent ones follow through the embedding).
///
/// # Errors
/// As [`constrained`], and [`LinearizeError::Selection`] if `inputs` does not have D rows.
pub fn constrained_driven<const D: usize, S: AsRef<str>>(
    jacobian: &SMatrix<f64, D, D>,
    inputs: &DMatrix<f64>,
    constraints: &DMatrix<f64>,
    mass: &DMatrix<f64>,
    coordinates: &[S],
    selection: &Selection,
) -> Result<ConstrainedLinearization, LinearizeError> {
    if inputs.nrows() != D {
        return Err(LinearizeError::Selection(format!("an input matrix of {} rows for a state of {D}", inputs.nrows())));
    }
    let n = coordinates.len();
    fn bad<T>(msg: String) -> Result<T, LinearizeError> {
        Err(LinearizeError::Selection(msg))
    }
    if !(D == 2 * n || D == 2 * n + 1) || constraints.ncols() != D || mass.shape() != (n, n) {
        return bad(format!(
            "a state of {D} components, {n} coordinates, constraints of {} columns and a {}×{} mass matrix do not fit",
            constraints.ncols(),
            mass.nrows(),
            mass.ncols()
        ));
    }
    let name = |i: usize| -> String {
        match i {
            i if i < n => coordinates[i].as_ref().to_owned(),
            i if i < 2 * n => format!("dot({})", coordinates[i - n].as_ref()),
            _ => "z".to_owned(),
        }
    };
    let index = |list: &[String], what: &str| -> Result<Vec<usize>, LinearizeError> {
        let mut out: Vec<usize> = Vec::with_capacity(list.len());
        for s in list {
            let Some(i) = coordinates.iter().position(|c| c.as_ref() == s) else {
                return bad(format!("`{s}` ({what}) is not a coordinate of the model"));
            };
            if out.contains(&i) {
                return bad(format!("`{s}` is named twice among the {what}"));
            }
            out.push(i);
        }
        Ok(out)
    };
    let coords = index(&selection.coordinates, "independent coordinates")?;
    let velocities = index(&selection.velocities, "independent velocities")?;
    let ignorable = index(&selection.ignorable, "ignorable coordinates")?;
    if let Some(&i) = coords.iter().find(|i| ignorable.contains(i)) {
        return bad(format!("`{}` is named both independent and ignorable", name(i)));
    }
    // The minimal state, the dropped and the dependent components.
    let mut keep: Vec<usize> = coords.clone();
    keep.extend(velocities.iter().map(|&i| n + i));
    if D == 2 * n + 1 {
        keep.push(2 * n);
    }
    let dependent: Vec<usize> = (0..2 * n).filter(|i| !keep.contains(i) && !ignorable.contains(i)).collect();
    let rows = constraints.nrows();
    if dependent.len() != rows {
        let names: Vec<String> = dependent.iter().map(|&i| name(i)).collect();
        return bad(format!(
            "the {rows} constraint rows determine {rows} state components, but {} are neither independent nor ignorable: {names:?}",
            dependent.len()
        ));
    }
    let c_dep = constraints.select_columns(&dependent);
    let lu = c_dep.lu();
    let not_determined = || LinearizeError::NotDetermined { dependent: dependent.iter().map(|&i| name(i)).collect() };
    // The full-state direction of a change of the given (kept or dropped) components.
    let direction = |set: &[(usize, f64)]| -> Result<DMatrix<f64>, LinearizeError> {
        let mut w = DMatrix::zeros(D, 1);
        let mut rhs = DMatrix::zeros(rows, 1);
        for &(i, v) in set {
            w[i] = v;
            rhs -= constraints.column(i) * v;
        }
        let dep = lu.solve(&rhs).filter(|d| d.iter().all(|v| v.is_finite())).ok_or_else(not_determined)?;
        for (k, &i) in dependent.iter().enumerate() {
            w[i] = dep[k];
        }
        Ok(w)
    };
    if rows > 0 && !lu.is_invertible() {
        return Err(not_determined());
    }
    let mut embedding = DMatrix::zeros(D, keep.len());
    for (col, &i) in keep.iter().enumerate() {
        embedding.set_column(col, &direction(&[(i, 1.0)])?.column(0));
    }
    let j = DMatrix::from_column_slice(D, D, jacobian.as_slice());
    let j_keep = j.select_rows(&keep);
    let a = &j_keep * &embedding;
    let b = inputs.select_rows(&keep);
    // Ignorable: the kept rates do not change along the coordinate's direction on the manifold.
    let scale = j_keep.amax().max(f64::MIN_POSITIVE);
    for &g in &ignorable {
        let w = direction(&[(g, 1.0)])?;
        let effect = (&j_keep * &w).amax();
        if !(effect <= 1e-9 * scale * w.amax().max(1.0)) {
            return Err(LinearizeError::NotIgnorable { coordinate: name(g), effect });
        }
    }
    let mechanical = coords.iter().all(|i| velocities.contains(i)).then(|| {
        let (kq, kv) = (coords.len(), velocities.len());
        let t = embedding.view((n, kq), (n, kv)).into_owned();
        let m = t.transpose() * mass * &t;
        let du = a.view((kq, 0), (kv, kq + kv));
        let stiffness = -(&m * du.columns(0, kq));
        let damping = -(&m * du.columns(kq, kv));
        let input = &m * b.rows(kq, kv);
        Mechanical { mass: m, damping, stiffness, input }
    });
    Ok(ConstrainedLinearization { states: keep.iter().map(|&i| name(i)).collect(), a, b, embedding, mechanical })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::SMatrix;

    /// A unit point mass in the plane on the circle x² + y² = 1 under gravity g (−y): the pendulum.
    /// The Cartesian field's Jacobian at the bottom (0, −1) at rest, and its constraints' Jacobian:
    /// position row (2x, 2y, 0, 0) and velocity row (2ẋ, 2ẏ, 2x, 2y).
    fn pendulum(g: f64) -> (SMatrix<f64, 4, 4>, DMatrix<f64>, DMatrix<f64>) {
        // ẍ = −λ x, ÿ = −g − λ y with λ = ẋ² + ẏ² − g y (unit radius, unit mass): at the bottom
        // at rest, λ = g; ∂ẍ/∂x = −λ = −g, ∂ÿ/∂y = −λ − y ∂λ/∂y = −g − g = −2g (off the manifold).
        let mut j = SMatrix::<f64, 4, 4>::zeros();
        j[(0, 2)] = 1.0;
        j[(1, 3)] = 1.0;
        j[(2, 0)] = -g;
        j[(3, 1)] = -2.0 * g;
        let c = DMatrix::from_row_slice(2, 4, &[0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0]);
        (j, c, DMatrix::identity(2, 2))
    }

    #[test]
    fn the_cartesian_pendulum_linearises_to_its_angle_equation() {
        // In x (the arc at the bottom): ẍ = −g x, M = 1, K = g, C = 0; the structural zeros of
        // the 4×4 Jacobian (the radial direction and its rate) are gone.
        let g = 9.81;
        let (j, c, m) = pendulum(g);
        let sel = Selection::new().coordinates(["x"]).velocities(["x"]);
        let lin = constrained(&j, &c, &m, &["x", "y"], &sel).unwrap();
        assert_eq!(lin.states, ["x", "dot(x)"]);
        assert_eq!(lin.a, DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -g, 0.0]));
        let mech = lin.mechanical.unwrap();
        assert_eq!((mech.mass[(0, 0)], mech.stiffness[(0, 0)], mech.damping[(0, 0)]), (1.0, g, 0.0));
        // y cannot be independent at the bottom (the circle's tangent is horizontal there).
        let sel = Selection::new().coordinates(["y"]).velocities(["y"]);
        assert!(matches!(constrained(&j, &c, &m, &["x", "y"], &sel), Err(LinearizeError::NotDetermined { .. })));
        // Nor is x ignorable: it is the pendulum's angle.
        let sel = Selection::new().velocities(["x"]).ignorable(["x"]);
        let err = constrained(&j, &c, &m, &["x", "y"], &sel).unwrap_err();
        assert!(matches!(&err, LinearizeError::NotIgnorable { coordinate, .. } if coordinate == "x"), "{err}");
        // Counting: naming too few leaves more dependent components than constraint rows.
        let err = constrained(&j, &c, &m, &["x", "y"], &Selection::new().coordinates(["x"])).unwrap_err();
        assert!(matches!(&err, LinearizeError::Selection(msg) if msg.contains("dot(x)")), "{err}");
        let err = constrained(&j, &c, &m, &["x", "y"], &Selection::new().coordinates(["q"])).unwrap_err();
        assert!(matches!(&err, LinearizeError::Selection(msg) if msg.contains("`q`")), "{err}");
    }
}
