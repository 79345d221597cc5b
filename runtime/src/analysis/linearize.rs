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
//! The state must lie on the constraint manifold: at a state off it the same formulas linearise
//! another model (a Cartesian pendulum of length 1 at distance 3 from its pivot gives the
//! pendulum of length 3), so the generated `linearize_constrained` refuses one whose residuals
//! exceed [`MANIFOLD_TOLERANCE`] ([`on_manifold`], [`LinearizeError::OffManifold`]); project it
//! first (`project_state`).
//!
//! For a mechanical system whose independent velocities include those of the independent
//! coordinates, the kept part reads M δq̈ + C δq̇ + K δq = 0 (Lagrange–d'Alembert on the
//! manifold): M = Tᵀ M_full T is the mass matrix of the constrained system (T = ∂q̇/∂u_V, the
//! velocities the independent ones imply), and C = −M ∂u̇/∂u, K = −M ∂u̇/∂q_I. For the Whipple
//! bicycle about upright straight running these are the benchmark's M, v C₁ and g K₀ + v² K₂.

use crate::invariants::Invariants;
use nalgebra::{DMatrix, Dim, Matrix, Matrix3, RawStorage, RawStorageMut, SMatrix, SVector};
use thiserror::Error;

use crate::error::FieldError;
use crate::mechanics::VelocityBlocks;

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
    /// The state is not on the constraint manifold: a residual of the constraints exceeds the
    /// tolerance ([`on_manifold`]). Project it first (`project_state`).
    #[error(
        "the state is off the constraint manifold (largest residual {residual:e}, tolerance {tolerance:e}): the \
         linearisation there is another model's; project the state onto the constraints first (`project_state`)"
    )]
    OffManifold {
        /// The largest residual |f(t, q)| or |A v + b| (NaN included).
        residual: f64,
        /// What it was held to: `MANIFOLD_TOLERANCE · (1 + max |x|)`.
        tolerance: f64,
    },
    /// The field's Jacobian could not be evaluated.
    #[error(transparent)]
    Field(#[from] FieldError),
}

/// The relative tolerance of [`on_manifold`]: residuals up to `MANIFOLD_TOLERANCE · (1 + max |x|)`
/// pass (√ε: a state found by an iteration or read from a run is on the manifold to about that).
pub const MANIFOLD_TOLERANCE: f64 = 1.5e-8;

/// Checks that a state x lies on its constraint manifold, given its constraints' `residuals`
/// (positions f(t, q) of the holonomic ones, velocities A v + b of all).
///
/// # Errors
/// [`LinearizeError::OffManifold`] with the largest residual, where it exceeds
/// [`MANIFOLD_TOLERANCE`]` · (1 + max |x|)` or is not finite.
///
/// ```
/// use routh_runtime::linearize::{LinearizeError, on_manifold};
///
/// // A pendulum of length 1 in Cartesian coordinates, at (0, −3): f = x² + y² − 1 = 8.
/// let err = on_manifold(&[8.0, 0.0], &[0.0, -3.0, 0.0, 0.0]).unwrap_err();
/// assert!(matches!(err, LinearizeError::OffManifold { residual, .. } if residual == 8.0));
/// assert!(on_manifold(&[1e-12, 0.0], &[0.0, -1.0, 0.0, 0.0]).is_ok());
/// ```
pub fn on_manifold(residuals: &[f64], x: &[f64]) -> Result<(), LinearizeError> {
    let scale = 1.0 + x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let tolerance = MANIFOLD_TOLERANCE * scale;
    let residual = residuals.iter().fold(0.0f64, |m, &v| if v.is_nan() || m.is_nan() { f64::NAN } else { m.max(v.abs()) });
    if residual <= tolerance { Ok(()) } else { Err(LinearizeError::OffManifold { residual, tolerance }) }
}

/// A linearisation on the constraint manifold (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(remote = "Self"))]
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
    constrained_driven((jacobian, &DMatrix::zeros(D, 0)), (constraints, mass), coordinates, selection)
}

/// [`constrained`] for a system with inputs: `field` is (∂F/∂x, B), `inputs` B = ∂F/∂u on the full
/// state (D × k), and
/// the minimal B is its rows of the minimal state (the inputs move the kept components directly;
/// the dependent ones follow through the embedding).
///
/// # Errors
/// As [`constrained`], and [`LinearizeError::Selection`] if `inputs` does not have D rows.
pub fn constrained_driven<const D: usize, S: AsRef<str>>(
    (jacobian, inputs): (&SMatrix<f64, D, D>, &DMatrix<f64>),
    (constraints, mass): (&DMatrix<f64>, &DMatrix<f64>),
    coordinates: &[S],
    selection: &Selection,
) -> Result<ConstrainedLinearization, LinearizeError> {
    let zero = SVector::<f64, D>::zeros();
    let at = Oriented::new(coordinates, &[], &zero, &zero);
    constrained_with_orientations(&at, (jacobian, inputs), (constraints, mass), selection)
}

/// A state of a model with orientations, for [`constrained_with_orientations`]: the names of its
/// `P` positions (the ordinary coordinates, then each orientation's unit quaternion (w, x, y, z)),
/// the orientations' names, the state x₀ = (q, v[, z]) itself and the field F(t, x₀) there
/// (whose angular accelerations move the chart, see [`constrained_with_orientations`]).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Oriented<'a, const D: usize, S> {
    /// The names of the positions.
    pub coordinates: &'a [S],
    /// The names of the orientations, in the order of their quaternions among the positions.
    pub orientations: &'a [S],
    /// The state x₀.
    pub state: &'a SVector<f64, D>,
    /// The field F(t, x₀).
    pub field: &'a SVector<f64, D>,
}

impl<'a, const D: usize, S> Oriented<'a, D, S> {
    /// The state `state` with field `field` of a model with these positions and orientations.
    #[must_use]
    pub const fn new(
        coordinates: &'a [S],
        orientations: &'a [S],
        state: &'a SVector<f64, D>,
        field: &'a SVector<f64, D>,
    ) -> Self {
        Oriented { coordinates, orientations, state, field }
    }
}

/// The linearisation of a constrained system with orientations at a state x₀: [`constrained_driven`]
/// in a chart of the state about x₀.
///
/// An orientation's unit quaternion has four entries for three degrees of freedom, so its
/// perturbations are charted by the body rotation vector θ about the reference motion through x₀:
/// q = q₀(t) ⊗ exp(θ/2) (the turn [`displace`](crate::mechanics::displace) makes), and its velocity
/// state is θ̇, so that δω = θ̇ + ω₀ × θ and
///
/// ```text
/// θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇      (ω₀, ω̇₀ the reference's body angular velocity and acceleration).
/// ```
///
/// The chart's coordinates are named `theta1(R)`, `theta2(R)`, `theta3(R)` for an orientation `R`
/// (select them like coordinates; their velocities are `dot(theta1(R))`, …) and the mass matrix
/// is unchanged (δω and θ̇ differ by a term in θ only). About a relative equilibrium of the
/// rotations that act on the left (a top spinning about the vertical, a body turning at constant
/// body angular velocity under a field that symmetry leaves alone) the linearisation in this chart
/// is autonomous: the eigenvalues are those of the motion seen from the body, shifted by the
/// reference's rotation. `embedding` is reported in the full state: the column of a chart
/// coordinate of `R` is its quaternion's turn ½ q₀ ⊗ (0, eₐ) and its share ω₀ × eₐ of δω.
///
/// # Errors
/// As [`constrained_driven`]; [`LinearizeError::Selection`] also for positions, orientations,
/// state or field that do not fit the Jacobians.
pub fn constrained_with_orientations<const D: usize, S: AsRef<str>>(
    at: &Oriented<'_, D, S>,
    (jacobian, inputs): (&SMatrix<f64, D, D>, &DMatrix<f64>),
    (constraints, mass): (&DMatrix<f64>, &DMatrix<f64>),
    selection: &Selection,
) -> Result<ConstrainedLinearization, LinearizeError> {
    let chart = Chart::new(at, jacobian, inputs, constraints, mass)?;
    let mut lin = minimal(&chart, mass, selection)?;
    lin.embedding = &chart.to_state * &lin.embedding;
    Ok(lin)
}

/// A model's linearisation moved into the chart of [`constrained_with_orientations`]: the chart's
/// state ξ = (δq, δu[, δz]) of 2N (+1) components, N the velocities.
struct Chart {
    /// The chart's coordinates (N names).
    names: Vec<String>,
    /// Whether the state ends with the action.
    action: bool,
    /// Whether some coordinates are orientations' rotation vectors.
    oriented: bool,
    /// E = ∂x/∂ξ (D × dim ξ).
    to_state: DMatrix<f64>,
    /// ∂ξ̇/∂ξ.
    jacobian: DMatrix<f64>,
    /// ∂ξ̇/∂u.
    inputs: DMatrix<f64>,
    /// The constraints' Jacobian over ξ, C E.
    constraints: DMatrix<f64>,
}

impl Chart {
    fn new<const D: usize, S: AsRef<str>>(
        at: &Oriented<'_, D, S>,
        jacobian: &SMatrix<f64, D, D>,
        inputs: &DMatrix<f64>,
        constraints: &DMatrix<f64>,
        mass: &DMatrix<f64>,
    ) -> Result<Chart, LinearizeError> {
        let (p, n, k) = (at.coordinates.len(), mass.nrows(), at.orientations.len());
        let fits = mass.is_square()
            && p == n + k
            && 3 * k <= n
            && (D == p + n || D == p + n + 1)
            && constraints.ncols() == D
            && inputs.nrows() == D;
        if !fits {
            return Err(LinearizeError::Selection(format!(
                "a state of {D} components, {p} positions with {k} orientations, a {}×{} mass matrix, constraints of {} \
                 columns and inputs of {} rows do not fit",
                mass.nrows(),
                mass.ncols(),
                constraints.ncols(),
                inputs.nrows()
            )));
        }
        let action = D == p + n + 1;
        let (dim, ordinary) = (2 * n + usize::from(action), n - 3 * k);
        let (names, e) = chart_frame(at.coordinates, at.orientations, at.state, n, action);
        let (x, f) = (at.state, at.field);
        let turns: Vec<_> = (0..k)
            .map(|o| {
                let vs = ordinary + 3 * o;
                (vs, cross_matrix(x, p + vs), cross_matrix(f, p + vs))
            })
            .collect();
        // ξ̇: an ordinary coordinate's and every velocity's rate from J E, θ̇ the chart's velocity,
        // θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇.
        let je = DMatrix::from_column_slice(D, D, jacobian.as_slice()) * &e;
        let rows: Vec<Option<usize>> = (0..dim).map(|i| state_row(i, (p, n, ordinary))).collect();
        let mut j = DMatrix::zeros(dim, dim);
        let mut b = DMatrix::zeros(dim, inputs.ncols());
        for (i, row) in rows.iter().enumerate() {
            match *row {
                Some(r) => {
                    j.set_row(i, &je.row(r));
                    b.set_row(i, &inputs.row(r));
                }
                None => j[(i, n + i)] = 1.0,
            }
        }
        for (vs, w0, dw0) in turns {
            turn_rates(&mut j, n, [vs, vs + 1, vs + 2], (&w0, &dw0));
        }
        Ok(Chart { names, action, oriented: k > 0, jacobian: j, inputs: b, constraints: constraints * &e, to_state: e })
    }
}

/// The state's row whose rate is the chart's component `i` (`p` positions, `n` velocities,
/// `ordinary` ordinary coordinates): an ordinary coordinate's, a velocity's, the action's — none
/// for an orientation's θ, whose rate is the chart's own velocity θ̇.
fn state_row(i: usize, (p, n, ordinary): (usize, usize, usize)) -> Option<usize> {
    match i {
        i if i < ordinary => Some(i),
        i if i < n => None,
        i if i < 2 * n => Some(p + i - n),
        _ => Some(p + n),
    }
}

/// \[w×\] of the three components of `v` from `at`.
pub(crate) fn cross_matrix<const D: usize>(v: &SVector<f64, D>, at: usize) -> Matrix3<f64> {
    nalgebra::Vector3::new(v[at], v[at + 1], v[at + 2]).cross_matrix()
}

/// An orientation's rows of θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇ in a chart's Jacobian `j` over (δq, δv)
/// with `n` velocities, the orientation's three at `at`: its rows of δω̇ less \[ω̇₀×\] on θ and
/// \[ω₀×\] on θ̇.
pub(crate) fn turn_rates<R: Dim, C: Dim, S: RawStorageMut<f64, R, C>>(
    j: &mut Matrix<f64, R, C, S>,
    n: usize,
    at: [usize; 3],
    (w0, dw0): (&Matrix3<f64>, &Matrix3<f64>),
) {
    for r in 0..3 {
        for c in 0..3 {
            j[(n + at[r], at[c])] -= dw0[(r, c)];
            j[(n + at[r], n + at[c])] -= w0[(r, c)];
        }
    }
}

/// `sign` · `by_w` \[w×\] added to the columns `at` of `target` from its row `rows` on (`by_w`'s
/// columns `from`, its rows in the same order): an orientation's columns of the chart's positions,
/// where θ at fixed θ̇ moves δω by ω₀ × θ (∂/∂θ += ∂/∂ω \[ω₀×\]), or M's corrections by \[ω̇₀×\]
/// and \[ω₀×\].
pub(crate) fn add_turned<R: Dim, C: Dim, S: RawStorageMut<f64, R, C>, R2: Dim, C2: Dim, S2: RawStorage<f64, R2, C2>>(
    target: &mut Matrix<f64, R, C, S>,
    (rows, at): (usize, [usize; 3]),
    (by_w, from): (&Matrix<f64, R2, C2, S2>, [usize; 3]),
    w: &Matrix3<f64>,
    sign: f64,
) {
    for c in 0..3 {
        for i in 0..by_w.nrows() {
            let turned = by_w[(i, from[0])] * w[(0, c)] + by_w[(i, from[1])] * w[(1, c)] + by_w[(i, from[2])] * w[(2, c)];
            target[(rows + i, at[c])] += sign * turned;
        }
    }
}

/// `open` + `name` + ")" (`format!`'s machinery took a tenth of a floating robot's
/// [`tangent`] on its 54 names).
fn wrapped(open: &str, name: &str) -> String {
    let mut out = String::with_capacity(open.len() + name.len() + 1);
    out.push_str(open);
    out.push_str(name);
    out.push(')');
    out
}

/// The chart of [`constrained_with_orientations`] about the state `x` of a model with `n`
/// velocities: its coordinates' names (the ordinary coordinates, then `theta1(R)`, `theta2(R)`,
/// `theta3(R)` of each orientation R) and E = ∂x/∂ξ over ξ = (δq, δu[, δz]): ordinary components
/// and the action as they are; an orientation's θ turns its quaternion by ½ q₀ ⊗ (0, θ) and adds
/// ω₀ × θ to δω.
fn chart_frame<const D: usize, S: AsRef<str>>(
    coordinates: &[S],
    orientations: &[S],
    x: &SVector<f64, D>,
    n: usize,
    action: bool,
) -> (Vec<String>, DMatrix<f64>) {
    let (p, k) = (coordinates.len(), orientations.len());
    let (dim, ordinary) = (2 * n + usize::from(action), n - 3 * k);
    let mut names: Vec<String> = coordinates[..ordinary].iter().map(|c| c.as_ref().to_owned()).collect();
    for o in orientations {
        names.extend(["theta1(", "theta2(", "theta3("].map(|a| wrapped(a, o.as_ref())));
    }
    let mut e = DMatrix::zeros(D, dim);
    for i in 0..ordinary {
        e[(i, i)] = 1.0;
        e[(p + i, n + i)] = 1.0;
    }
    if action {
        e[(p + n, 2 * n)] = 1.0;
    }
    for o in 0..k {
        let (qs, vs) = (ordinary + 4 * o, ordinary + 3 * o);
        let w0 = cross_matrix(x, p + vs);
        for (a, turn) in crate::mechanics::turn_columns([x[qs], x[qs + 1], x[qs + 2], x[qs + 3]]).iter().enumerate() {
            for (r, &v) in turn.iter().enumerate() {
                e[(qs + r, vs + a)] = v;
            }
            e[(p + vs + a, n + vs + a)] = 1.0;
            for b in 0..3 {
                e[(p + vs + a, vs + b)] = w0[(a, b)];
            }
        }
    }
    (names, e)
}

/// A and B in the orientations' tangent chart ([`StateLayout::chart`](crate::mechanics::StateLayout::chart);
/// `C = 2N`) from the linearisation `lin` in the state x = (q, v) and the field F(x) there — the
/// A and B of [`constrained_with_orientations`] without constraints, names or mechanical form, as
/// fixed-size matrices: an ordinary coordinate's and every velocity's rows of J E and ∂F/∂u, θ̇ the
/// chart's own velocity, and each orientation's rows of θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇.
/// The state is `P` positions (the ordinary coordinates, then each orientation's quaternion) and
/// `N` velocities (the ordinary ones, then each orientation's body rates), without action.
///
/// ```
/// use routh_runtime::Linearization;
/// use routh_runtime::linearize::in_chart;
/// use routh_runtime::nalgebra::{SMatrix, SVector};
///
/// // A body turning about a fixed point, at rest, torqued by u (I = 1): q̇ = ½ q ⊗ (0, ω), ω̇ = u.
/// // In the chart θ̈ = u: A = [0 1; 0 0] and B = [0; 1] by blocks of three.
/// let x = SVector::<f64, 7>::from([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
/// let mut a = SMatrix::<f64, 7, 7>::zeros();
/// for k in 0..3 {
///     a[(1 + k, 4 + k)] = 0.5; // ∂q̇/∂ω at q = 1
/// }
/// let b = SMatrix::<f64, 7, 3>::from_fn(|r, c| if r == 4 + c { 1.0 } else { 0.0 });
/// let chart = in_chart::<4, 3, 7, 6, 3>(&x, &SVector::zeros(), &Linearization { a, b });
/// assert_eq!(chart.a.fixed_view::<3, 3>(0, 3).into_owned(), SMatrix::<f64, 3, 3>::identity());
/// assert_eq!(chart.a.fixed_view::<3, 6>(3, 0).into_owned(), SMatrix::<f64, 3, 6>::zeros());
/// assert_eq!(chart.b.fixed_view::<3, 3>(3, 0).into_owned(), SMatrix::<f64, 3, 3>::identity());
/// ```
#[must_use]
pub fn in_chart<const P: usize, const N: usize, const D: usize, const C: usize, const K: usize>(
    x: &SVector<f64, D>,
    field: &SVector<f64, D>,
    lin: &crate::Linearization<D, K>,
) -> crate::Linearization<C, K> {
    let e = crate::mechanics::StateLayout::<P, N, D>::chart_embedding::<C>(x);
    let je = crate::mechanics::StateLayout::<P, N, D>::times_embedding(&lin.a, &e);
    let (k, ordinary) = (P - N, N - 3 * (P - N));
    let mut out = crate::Linearization::<C, K> { a: SMatrix::zeros(), b: SMatrix::zeros() };
    for i in 0..C {
        match state_row(i, (P, N, ordinary)) {
            Some(r) => {
                out.a.set_row(i, &je.row(r));
                out.b.set_row(i, &lin.b.row(r));
            }
            None => out.a[(i, N + i)] = 1.0,
        }
    }
    for o in 0..k {
        let vs = ordinary + 3 * o;
        turn_rates(&mut out.a, N, [vs, vs + 1, vs + 2], (&cross_matrix(x, P + vs), &cross_matrix(field, P + vs)));
    }
    out
}

/// The linearisation in the tangent chart of [`constrained_with_orientations`] of an unconstrained
/// model without an action, every chart coordinate and velocity kept, from its first-order
/// dynamics over its velocities ([`VelocityBlocks`]: v̇ and ∂v̇/∂(q, v, u) with an orientation's
/// columns of ∂/∂q along its body rotation vector θ at fixed v, the same times M, and M) — what
/// [`constrained_with_orientations`] computes from the field's Jacobian in the quaternion state,
/// here without the D × D Jacobian, its products by E or a product by M. With δω = θ̇ + ω₀ × θ,
/// an orientation's columns of the chart are
///
/// ```text
/// ∂/∂θ = ∂/∂θ|_v + ∂/∂ω · [ω₀×],     ∂/∂θ̇ = ∂/∂ω,     θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇
/// ```
///
/// so that A's rows of the velocities are ∂v̇/∂ξ with the orientations' rows corrected, and the
/// mechanical form's K = −M ∂ξ̈/∂δq and C = −M ∂ξ̈/∂δq̇ are the residual's blocks in the chart,
/// negated, plus M's orientation columns times \[ω̇₀×\] and \[ω₀×\]; its B = ∂τ/∂u.
///
/// `coordinates` are the model's P positions (the ordinary coordinates, then each orientation's
/// quaternion), `orientations` their names, `x` the state (q, v) with N velocities (D = P + N).
///
/// ```
/// use routh_runtime::linearize::tangent;
/// use routh_runtime::mechanics::{VelocityBlocks, VelocityDerivatives};
/// use routh_runtime::nalgebra::{Matrix3, SVector, Vector3};
///
/// // A body turning about a fixed point, at rest, torqued by u: I ω̇ = u. At rest nothing turns
/// // the chart (ω₀ = ω̇₀ = 0): θ̈ = I⁻¹ u, A = [0 1; 0 0] and B = [0; I⁻¹] by blocks of three, and
/// // the mechanical form is I θ̈ = u.
/// let inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 4.0));
/// let inverse = inertia.try_inverse().unwrap();
/// let zero = Matrix3::zeros();
/// let solved = VelocityDerivatives::new(zero, zero, inverse);
/// let forces = VelocityDerivatives::new(zero, zero, Matrix3::identity());
/// let blocks = VelocityBlocks::new(SVector::zeros(), inertia, solved, forces);
/// let x = SVector::<f64, 7>::from_column_slice(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
/// let lin = tangent(&["r_w", "r_x", "r_y", "r_z"], &["r"], &x, &blocks)?;
/// assert_eq!(lin.states[0], "theta1(r)");
/// assert_eq!((lin.a[(0, 3)], lin.a[(3, 0)]), (1.0, 0.0));
/// assert_eq!(lin.b[(5, 2)], 0.25);
/// let mechanical = lin.mechanical.unwrap();
/// assert_eq!((mechanical.mass[(2, 2)], mechanical.input[(2, 2)]), (4.0, 1.0));
/// # Ok::<(), routh_runtime::linearize::LinearizeError>(())
/// ```
///
/// # Errors
/// [`LinearizeError::Selection`] where the names, the state and the blocks do not fit.
pub fn tangent<const D: usize, const N: usize, const K: usize, S: AsRef<str>>(
    coordinates: &[S],
    orientations: &[S],
    x: &SVector<f64, D>,
    blocks: &VelocityBlocks<N, K>,
) -> Result<ConstrainedLinearization, LinearizeError> {
    let (p, k) = (coordinates.len(), orientations.len());
    if !(D == p + N && p == N + k && 3 * k <= N) {
        return Err(LinearizeError::Selection(format!(
            "a state of {D} components, {p} positions with {k} orientations and {N} velocities do not fit"
        )));
    }
    let ordinary = N - 3 * k;
    let (mut states, embedding) = chart_frame(coordinates, orientations, x, N, false);
    let (solved, forces, mass) = (&blocks.solved, &blocks.forces, &blocks.mass);
    let mut a = DMatrix::zeros(2 * N, 2 * N);
    let mut b = DMatrix::zeros(2 * N, K);
    a.view_mut((0, N), (N, N)).fill_diagonal(1.0);
    a.view_mut((N, 0), (N, N)).copy_from(&solved.positions);
    a.view_mut((N, N), (N, N)).copy_from(&solved.velocities);
    b.view_mut((N, 0), (N, K)).copy_from(&solved.others);
    // K and C start as the residual's blocks negated, M and B = ∂τ/∂u as they are (slices: nalgebra's
    // element-wise negation of a static matrix goes through its iterators).
    let negated = |m: &SMatrix<f64, N, N>| {
        let mut out = DMatrix::from_column_slice(N, N, m.as_slice());
        out.neg_mut();
        out
    };
    let (mut stiffness, mut damping) = (negated(&forces.positions), negated(&forces.velocities));
    for o in 0..k {
        let vs = ordinary + 3 * o;
        let (w0, dw0) = (cross_matrix(x, p + vs), cross_matrix(&blocks.accelerations, vs));
        // The positions' columns in the chart, in A from the solved blocks and in K from the
        // residual's (negated).
        let at = [vs, vs + 1, vs + 2];
        add_turned(&mut a, (N, at), (&solved.velocities, at), &w0, 1.0);
        add_turned(&mut stiffness, (0, at), (&forces.velocities, at), &w0, -1.0);
        // θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇, and M times those corrections in K and C.
        turn_rates(&mut a, N, at, (&w0, &dw0));
        add_turned(&mut stiffness, (0, at), (mass, at), &dw0, 1.0);
        add_turned(&mut damping, (0, at), (mass, at), &w0, 1.0);
    }
    let dynamic = |m: &[f64], rows: usize, cols: usize| DMatrix::from_column_slice(rows, cols, m);
    let mechanical =
        Mechanical { mass: dynamic(mass.as_slice(), N, N), damping, stiffness, input: dynamic(forces.others.as_slice(), N, K) };
    // The chart's coordinates, then their velocities.
    states.reserve_exact(N);
    for i in 0..N {
        let dot = wrapped("dot(", &states[i]);
        states.push(dot);
    }
    Ok(ConstrainedLinearization { states, a, b, embedding, mechanical: Some(mechanical) })
}

/// The linearisation in a chart's minimal state (see the [module docs](self)).
fn minimal(chart: &Chart, mass: &DMatrix<f64>, selection: &Selection) -> Result<ConstrainedLinearization, LinearizeError> {
    let coordinates = &chart.names;
    let n = coordinates.len();
    let dim = chart.jacobian.nrows();
    fn bad<T>(msg: String) -> Result<T, LinearizeError> {
        Err(LinearizeError::Selection(msg))
    }
    let name = |i: usize| -> String {
        match i {
            i if i < n => coordinates[i].clone(),
            i if i < 2 * n => format!("dot({})", coordinates[i - n]),
            _ => "z".to_owned(),
        }
    };
    let index = |list: &[String], what: &str| -> Result<Vec<usize>, LinearizeError> {
        let mut out: Vec<usize> = Vec::with_capacity(list.len());
        for s in list {
            let Some(i) = coordinates.iter().position(|c| c == s) else {
                let hint = if chart.oriented {
                    format!(" (an orientation is charted by its body rotation vector: {})", coordinates.join(", "))
                } else {
                    String::new()
                };
                return bad(format!("`{s}` ({what}) is not a coordinate of the model{hint}"));
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
    if chart.action {
        keep.push(2 * n);
    }
    let dependent: Vec<usize> = (0..2 * n).filter(|i| !keep.contains(i) && !ignorable.contains(i)).collect();
    let constraints = &chart.constraints;
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
    // The chart's direction of a change of the given (kept or dropped) components.
    let direction = |set: &[(usize, f64)]| -> Result<DMatrix<f64>, LinearizeError> {
        let mut w = DMatrix::zeros(dim, 1);
        let mut rhs = DMatrix::zeros(rows, 1);
        for &(i, v) in set {
            w[i] = v;
            rhs -= constraints.column(i) * v;
        }
        if rows > 0 {
            // (nalgebra's LU does not solve with a 0 × 0 matrix: no rows, no dependent components.)
            let dep = lu.solve(&rhs).filter(|d| d.iter().all(|v| v.is_finite())).ok_or_else(not_determined)?;
            for (k, &i) in dependent.iter().enumerate() {
                w[i] = dep[k];
            }
        }
        Ok(w)
    };
    if rows > 0 && !lu.is_invertible() {
        return Err(not_determined());
    }
    let mut embedding = DMatrix::zeros(dim, keep.len());
    for (col, &i) in keep.iter().enumerate() {
        embedding.set_column(col, &direction(&[(i, 1.0)])?.column(0));
    }
    let j_keep = chart.jacobian.select_rows(&keep);
    let a = &j_keep * &embedding;
    let b = chart.inputs.select_rows(&keep);
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

impl ConstrainedLinearization {
    /// The continuous-time linear-quadratic regulator in the minimal state: δu = −K δx_min with
    /// the weights `q` (over [`states`](Self::states)) and `r` (over the inputs)
    /// ([`crate::lqr::care`]); the embedding maps δx_min back to the full state.
    ///
    /// # Errors
    /// [`LqrError`](crate::lqr::LqrError): shapes, weights, or no stabilising solution.
    pub fn lqr(&self, q: &DMatrix<f64>, r: &DMatrix<f64>) -> Result<crate::lqr::Lqr, crate::lqr::LqrError> {
        crate::lqr::care(&self.a, &self.b, q, r)
    }
}

crate::invariants::validated!(ConstrainedLinearization);

impl Invariants for ConstrainedLinearization {
    fn invariants(&self) -> Result<(), String> {
        let n = self.states.len();
        let shape = |m: &DMatrix<f64>| (m.nrows(), m.ncols());
        if shape(&self.a) != (n, n) {
            return Err(format!("`a` is {:?} for {n} `states`", shape(&self.a)));
        }
        if self.b.nrows() != n || self.embedding.ncols() != n {
            return Err(format!(
                "`b` has {} rows and `embedding` {} columns for {n} `states`",
                self.b.nrows(),
                self.embedding.ncols()
            ));
        }
        // M δq̈ + C δq̇ + K δq = B u over k velocities and the coordinates before them.
        if let Some(m) = &self.mechanical {
            let k = m.mass.nrows();
            let fits = shape(&m.mass) == (k, k)
                && shape(&m.damping) == (k, k)
                && m.stiffness.nrows() == k
                && m.stiffness.ncols() + k <= n
                && shape(&m.input) == (k, self.b.ncols());
            if !fits {
                return Err(format!("`mechanical` is not one system of {k} velocities with the inputs of `b` and {n} `states`"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::VelocityDerivatives;

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

    /// The heavy symmetric top about its fixed tip as a unit quaternion q and body angular velocity
    /// ω (A transverse and C axial inertia about the tip, κ = m g l): q̇ = ½ q ⊗ (0, ω) and
    /// A… Euler's equations I ω̇ = I ω × ω + κ Γ × e₃ with Γ = Rᵀ e_z.
    fn top_field(x: &SVector<f64, 7>, (a, c, kappa): (f64, f64, f64)) -> SVector<f64, 7> {
        let q = nalgebra::Quaternion::new(x[0], x[1], x[2], x[3]);
        let w = nalgebra::Vector3::new(x[4], x[5], x[6]);
        let rate = q * nalgebra::Quaternion::new(0.0, w.x, w.y, w.z) * 0.5;
        let r = nalgebra::UnitQuaternion::from_quaternion(q);
        let gamma = r.inverse() * nalgebra::Vector3::z();
        let inertia = nalgebra::Vector3::new(a, a, c);
        let iw = inertia.component_mul(&w);
        let wdot = (iw.cross(&w) + kappa * gamma.cross(&nalgebra::Vector3::z())).component_div(&inertia);
        SVector::<f64, 7>::from([rate.w, rate.i, rate.j, rate.k, wdot.x, wdot.y, wdot.z])
    }

    #[test]
    fn the_sleeping_top_linearised_in_its_body_chart_has_the_closed_form_frequencies() {
        // Upright at spin Ω: in space the tilt turns at σ± = (CΩ ± √(C²Ω² − 4Aκ))/(2A); the body
        // chart turns with the top, so its eigenvalues are ±i(σ± − Ω) — real parts (a falling top)
        // below Ω² = 4Aκ/C². Ordinary Euler angles are singular exactly here. The Jacobian by
        // central differences (round-off 1e-9); θ₃ (the spin's phase) proved ignorable.
        let (a, c, kappa): (f64, f64, f64) = (0.12, 0.05, 0.9);
        let critical = (4.0 * a * kappa).sqrt() / c;
        for spin in [1.3 * critical, 0.8 * critical] {
            let x = SVector::<f64, 7>::from([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, spin]);
            let f = top_field(&x, (a, c, kappa));
            let h = 1e-6;
            let j = SMatrix::<f64, 7, 7>::from_fn(|r, col| {
                let (mut up, mut down) = (x, x);
                up[col] += h;
                down[col] -= h;
                (top_field(&up, (a, c, kappa))[r] - top_field(&down, (a, c, kappa))[r]) / (2.0 * h)
            });
            let mass = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![a, a, c]));
            let names = ["r_w", "r_x", "r_y", "r_z"];
            let at = Oriented::new(&names, &["r"], &x, &f);
            let sel = Selection::new()
                .coordinates(["theta1(r)", "theta2(r)"])
                .velocities(["theta1(r)", "theta2(r)", "theta3(r)"])
                .ignorable(["theta3(r)"]);
            let lin =
                constrained_with_orientations(&at, (&j, &DMatrix::zeros(7, 0)), (&DMatrix::zeros(0, 7), &mass), &sel).unwrap();
            assert_eq!(lin.states, ["theta1(r)", "theta2(r)", "dot(theta1(r))", "dot(theta2(r))", "dot(theta3(r))"]);
            let got: Vec<(f64, f64)> = lin.a.complex_eigenvalues().iter().map(|z| (z.re, z.im)).collect();
            let disc = c * c * spin * spin - 4.0 * a * kappa;
            let want: Vec<(f64, f64)> = if disc >= 0.0 {
                let s = [(c * spin + disc.sqrt()) / (2.0 * a), (c * spin - disc.sqrt()) / (2.0 * a)];
                s.iter().flat_map(|&sigma| [(0.0, sigma - spin), (0.0, spin - sigma)]).chain([(0.0, 0.0)]).collect()
            } else {
                // σ = (CΩ ± i√(4Aκ − C²Ω²))/(2A): λ = ±i(σ − Ω), a growing and a decaying pair.
                let (re, im) = ((-disc).sqrt() / (2.0 * a), c * spin / (2.0 * a) - spin);
                vec![(re, im), (-re, im), (re, -im), (-re, -im), (0.0, 0.0)]
            };
            // Each expected eigenvalue has a computed one near it, and each computed one an expected one.
            let nearest = |z: &(f64, f64), set: &[(f64, f64)]| {
                set.iter().map(|w| (z.0 - w.0).hypot(z.1 - w.1)).fold(f64::INFINITY, f64::min)
            };
            assert_eq!(got.len(), want.len());
            let worst = want.iter().map(|w| nearest(w, &got)).chain(got.iter().map(|g| nearest(g, &want))).fold(0.0, f64::max);
            assert!(worst < 1e-6 * spin, "spin {spin}: {got:?} against {want:?}");
            // The mechanical form: M = diag(A, A, C) (δω and θ̇ differ by a term in θ only).
            let mech = lin.mechanical.unwrap();
            assert!((mech.mass.clone() - DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![a, a, c]))).amax() < 1e-15);
            // The embedding in the full state: θ₁ turns the quaternion by ½ q₀ ⊗ (0, e₁) and adds ω₀ × e₁.
            let column: Vec<f64> = lin.embedding.column(0).iter().copied().collect();
            let want_column = [0.0, 0.5, 0.0, 0.0, 0.0, spin, 0.0];
            assert!(column.iter().zip(want_column).all(|(g, w)| (g - w).abs() < 1e-12), "{column:?}");
        }
        // The quaternion's own components are not the chart's coordinates.
        let x = SVector::<f64, 7>::from([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        let at = Oriented::new(&["r_w", "r_x", "r_y", "r_z"], &["r"], &x, &x);
        let mass = DMatrix::identity(3, 3);
        let sel = Selection::new().coordinates(["r_x"]);
        let err =
            constrained_with_orientations(&at, (&SMatrix::zeros(), &DMatrix::zeros(7, 0)), (&DMatrix::zeros(0, 7), &mass), &sel)
                .unwrap_err();
        assert!(matches!(&err, LinearizeError::Selection(msg) if msg.contains("theta1(r)")), "{err}");
    }

    /// A free body turning about a fixed point, torqued by three inputs, from its blocks over its
    /// body angular velocity ω: Euler's I ω̇ = (I ω) × ω + u, so that ∂ω̇/∂θ = 0 at fixed ω (no
    /// field turns with it), ∂ω̇/∂ω e = I⁻¹ ((I e) × ω + (I ω) × e) and ∂ω̇/∂u = I⁻¹. In the chart
    /// (δω = θ̇ + ω₀ × θ, θ̈ = δω̇ − ω̇₀ × θ − ω₀ × θ̇) A is the error-state model by hand, and the
    /// mechanical form's C and K — which [`tangent`] takes from the forces' blocks and M's columns
    /// — are −M times A's rows of θ̈, its B M times B's.
    #[test]
    fn a_free_bodys_tangent_linearisation_from_its_blocks_is_the_error_state_model() {
        use crate::mechanics::VelocityBlocks;
        use nalgebra::{Matrix3, UnitQuaternion, Vector3};
        let inertia = Matrix3::new(1.0, 0.1, 0.0, 0.1, 2.0, -0.2, 0.0, -0.2, 2.75);
        let inverse = inertia.try_inverse().unwrap();
        let w0 = Vector3::new(0.3, -0.7, 1.1);
        let q0 = UnitQuaternion::from_euler_angles(0.4, -1.1, 2.3);
        let x = SVector::<f64, 7>::from_column_slice(&[q0.w, q0.i, q0.j, q0.k, w0.x, w0.y, w0.z]);
        let w0_dot = inverse * (inertia * w0).cross(&w0);
        let dw_dot = |dw: Vector3<f64>| inverse * ((inertia * dw).cross(&w0) + (inertia * w0).cross(&dw));
        let by_w = Matrix3::from_columns(&[dw_dot(Vector3::x()), dw_dot(Vector3::y()), dw_dot(Vector3::z())]);
        let solved = VelocityDerivatives::new(Matrix3::zeros(), by_w, inverse);
        let forces = VelocityDerivatives::new(Matrix3::zeros(), inertia * by_w, Matrix3::identity());
        let blocks = VelocityBlocks::new(w0_dot, inertia, solved, forces);
        let lin = tangent(&["r_w", "r_x", "r_y", "r_z"], &["r"], &x, &blocks).unwrap();
        assert_eq!(lin.states, ["theta1(r)", "theta2(r)", "theta3(r)", "dot(theta1(r))", "dot(theta2(r))", "dot(theta3(r))"]);
        let mut a = DMatrix::<f64>::zeros(6, 6);
        for c in 0..3 {
            let e = Vector3::ith(c, 1.0);
            a[(c, 3 + c)] = 1.0;
            let by_theta = dw_dot(w0.cross(&e)) - w0_dot.cross(&e);
            let by_rate = dw_dot(e) - w0.cross(&e);
            a.view_mut((3, c), (3, 1)).copy_from(&by_theta);
            a.view_mut((3, 3 + c), (3, 1)).copy_from(&by_rate);
        }
        assert!((&lin.a - &a).amax() < 1e-14, "A = {}, by hand {a}", lin.a);
        let mut b = DMatrix::<f64>::zeros(6, 3);
        b.view_mut((3, 0), (3, 3)).copy_from(&inverse);
        assert!((&lin.b - &b).amax() < 1e-14);
        // E: θ turns the quaternion by ½ q₀ ⊗ (0, e_k) and adds ω₀ × θ to δω.
        let turn = q0.into_inner() * nalgebra::Quaternion::new(0.0, 0.0, 1.0, 0.0) * 0.5;
        assert_eq!(lin.embedding.view((0, 1), (4, 1)).iter().copied().collect::<Vec<_>>(), [turn.w, turn.i, turn.j, turn.k]);
        assert_eq!(
            lin.embedding.view((4, 0), (3, 3)).into_owned(),
            DMatrix::from_column_slice(3, 3, w0.cross_matrix().as_slice())
        );
        let mech = lin.mechanical.unwrap();
        let m = DMatrix::from_column_slice(3, 3, inertia.as_slice());
        let rows = a.rows(3, 3);
        assert_eq!(mech.mass, m);
        assert!((&mech.stiffness + &m * rows.columns(0, 3)).amax() < 1e-14, "K = {}", mech.stiffness);
        assert!((&mech.damping + &m * rows.columns(3, 3)).amax() < 1e-14, "C = {}", mech.damping);
        assert!((&mech.input - &m * b.rows(3, 3)).amax() < 1e-14, "B = {}", mech.input);
        // Blocks that do not fit the names.
        let err = tangent(&["r_w", "r_x", "r_y"], &["r"], &SVector::<f64, 6>::zeros(), &blocks).unwrap_err();
        assert!(matches!(err, LinearizeError::Selection(_)), "{err}");
    }
}
