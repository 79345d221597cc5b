//! The layout of a mechanical system's first-order state, as one type: [`StateLayout`].
//!
//! A state x ∈ ℝᴰ holds `P` positions q, then `N` velocities v, then — for a contact (Herglotz)
//! system — the action z: D = P + N or P + N + 1. Ordinary coordinates have P = N and v = q̇; an
//! orientation stored as a unit quaternion adds four positions for three velocities (the body
//! angular velocity), whose rates q̇ = K(q) v the model computes. Everything that builds or reads
//! such a state — the state from its parts, the first-order field F = (q̇, v̇, ż), its Jacobian
//! ∂F/∂x and its sensitivities ∂F/∂w from the residual g = f − M a, the state after an impact —
//! is a method of the layout, checked at compile time against its dimensions.

use nalgebra::{SMatrix, SVector};

use crate::error::FieldError;
use crate::mechanics::linalg::MassOperator;

/// The layout of a state x = (q, v[, z]) with `P` positions, `N` velocities and state dimension
/// `D` (the action z last when `D = P + N + 1`). A marker type: its functions build and read
/// states and fields of this layout.
///
/// ```
/// use routh_runtime::mechanics::{StateLayout, factor_mass};
/// use routh_runtime::nalgebra::{SMatrix, SVector};
///
/// // Two coordinates, no action: x = (q, q̇).
/// type Plain = StateLayout<2, 2, 4>;
/// let x = Plain::state([1.0, 2.0], [3.0, 4.0]);
/// assert_eq!(x, SVector::<f64, 4>::from([1.0, 2.0, 3.0, 4.0]));
/// // F = (q̇, a).
/// let a = SVector::<f64, 2>::from([-1.0, -2.0]);
/// assert_eq!(Plain::field(&x, None, &a, None), SVector::<f64, 4>::from([3.0, 4.0, -1.0, -2.0]));
/// // ∂F/∂x from M = I and the residual's ∂g/∂q = −I, ∂g/∂q̇ = 0: the oscillator's [[0, I], [−I, 0]].
/// let m = factor_mass(0.0, SMatrix::<f64, 2, 2>::identity())?;
/// let j = Plain::jacobian(0.0, &m, None, (-SMatrix::<f64, 2, 2>::identity(), SMatrix::zeros()), None)?;
/// assert_eq!((j[(0, 2)], j[(2, 0)], j[(2, 2)]), (1.0, -1.0, 0.0));
/// # Ok::<(), routh_runtime::FieldError>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct StateLayout<const P: usize, const N: usize, const D: usize>;

impl<const P: usize, const N: usize, const D: usize> StateLayout<P, N, D> {
    /// Compile-time check of the dimensions.
    const OK: () = assert!(
        P >= N && (D == P + N || D == P + N + 1),
        "a state holds P ≥ N positions, then N velocities, then possibly the action: D = P + N or P + N + 1"
    );

    /// Whether the state carries an action variable z (a contact system), at index `P + N`.
    pub const ACTION: bool = {
        let () = Self::OK;
        D == P + N + 1
    };

    /// Whether the velocities are quasi-velocities (an orientation's body angular velocity among
    /// them): more positions than velocities.
    pub const QUASI: bool = P > N;

    /// The state (q, v) of a system without action.
    #[must_use]
    pub fn state(q: [f64; P], v: [f64; N]) -> SVector<f64, D> {
        const { assert!(!Self::ACTION, "a contact system's state has an action: `state_with_action`") };
        Self::assemble(&q, &v, None)
    }

    /// The state (q, v, z) of a contact system.
    #[must_use]
    pub fn state_with_action(q: [f64; P], v: [f64; N], z: f64) -> SVector<f64, D> {
        const { assert!(Self::ACTION, "only a contact system's state has an action") };
        Self::assemble(&q, &v, Some(z))
    }

    #[inline]
    fn assemble(q: &[f64; P], v: &[f64; N], z: Option<f64>) -> SVector<f64, D> {
        let mut x = SVector::<f64, D>::zeros();
        x.fixed_rows_mut::<P>(0).copy_from_slice(q);
        x.fixed_rows_mut::<N>(P).copy_from_slice(v);
        if let Some(z) = z {
            x[P + N] = z;
        }
        x
    }

    /// The velocities of a state.
    #[inline]
    #[must_use]
    pub fn velocities(x: &SVector<f64, D>) -> SVector<f64, N> {
        let () = Self::OK;
        x.fixed_rows::<N>(P).into_owned()
    }

    /// The first-order field F = (q̇, a, ż): the positions' `rates` q̇ = K(q) v (`None` for
    /// ordinary coordinates, whose rates are the velocities of `x`), the accelerations `a` and, for a
    /// contact system, the action's rate ż = L (`action_rate`, `None` without action).
    #[inline]
    #[must_use]
    pub fn field(x: &SVector<f64, D>, rates: Option<[f64; P]>, a: &SVector<f64, N>, action_rate: Option<f64>) -> SVector<f64, D> {
        let () = Self::OK;
        debug_assert_eq!(action_rate.is_some(), Self::ACTION, "the action's rate is given exactly when the state has an action");
        let mut dx = SVector::<f64, D>::zeros();
        match rates {
            Some(rates) => dx.fixed_rows_mut::<P>(0).copy_from_slice(&rates),
            None => {
                assert!(!Self::QUASI, "quasi-velocities need the positions' rates");
                for i in 0..N {
                    dx[i] = x[P + i];
                }
            }
        }
        dx.fixed_rows_mut::<N>(P).copy_from(a);
        if let Some(l) = action_rate {
            dx[P + N] = l;
        }
        dx
    }

    /// ∂F/∂x from the factored mass matrix (any [`MassOperator`]) and the residual g = f − M a at
    /// a = v̇ (implicit function theorem, the factorisation reused):
    ///
    /// ```text
    /// ∂F/∂x = [ ∂q̇/∂q      ∂q̇/∂v      0        ]     (ordinary coordinates: ∂q̇/∂q = 0, ∂q̇/∂v = I)
    ///         [ M⁻¹∂g/∂q   M⁻¹∂g/∂v   M⁻¹∂g/∂z ]
    ///         [ ∂L/∂q      ∂L/∂v      ∂L/∂z    ]     (a contact system's row of ż = L)
    /// ```
    ///
    /// `rates` are the positions' rate Jacobians (∂q̇/∂q, ∂q̇/∂v) (`None` for ordinary
    /// coordinates), `residual` is (∂g/∂q, ∂g/∂v), and `action` a contact system's (∂g/∂z, ∂L/∂x).
    ///
    /// # Errors
    /// [`FieldError::SingularMassMatrix`] at `t` if a solve is not finite.
    #[allow(clippy::type_complexity)]
    pub fn jacobian(
        t: f64,
        factor: &impl MassOperator<N>,
        rates: Option<(SMatrix<f64, P, P>, SMatrix<f64, P, N>)>,
        residual: (SMatrix<f64, N, P>, SMatrix<f64, N, N>),
        action: Option<(SVector<f64, N>, &SVector<f64, D>)>,
    ) -> Result<SMatrix<f64, D, D>, FieldError> {
        let () = Self::OK;
        debug_assert_eq!(
            action.is_some(),
            Self::ACTION,
            "the action's derivatives are given exactly when the state has an action"
        );
        let singular = |_| FieldError::SingularMassMatrix { t };
        let dq = factor.solve(residual.0).map_err(singular)?;
        let dv = factor.solve(residual.1).map_err(singular)?;
        let mut j = Self::rate_rows(rates);
        j.fixed_view_mut::<N, P>(P, 0).copy_from(&dq);
        j.fixed_view_mut::<N, N>(P, P).copy_from(&dv);
        if let Some((dg_dz, dl_dx)) = action {
            let dz = factor.solve(dg_dz).map_err(singular)?;
            j.fixed_view_mut::<N, 1>(P, P + N).copy_from(&dz);
            Self::set_action_row(&mut j, dl_dx);
        }
        Ok(j)
    }

    /// The field Jacobian of a model whose accelerations are known through their directional
    /// derivatives (a recursion's tangent, `tangent(δx) = (∂v̇/∂x) δx`, called for each of the D basis
    /// directions), with the positions' rows from `rates` = (∂q̇/∂q, ∂q̇/∂v) where the velocities
    /// are quasi-velocities (q̇ = v otherwise). Not for a state with an action.
    ///
    /// ```
    /// use routh_runtime::mechanics::StateLayout;
    /// use routh_runtime::nalgebra::{SMatrix, SVector};
    /// // q̇ = v, v̇ = −q on one coordinate: ∂F/∂x = [[0, 1], [−1, 0]].
    /// let j = StateLayout::<1, 1, 2>::tangent_jacobian(0.0, None, |dx: &SVector<f64, 2>| SVector::<f64, 1>::new(-dx[0]))
    ///     .unwrap();
    /// assert_eq!(j, SMatrix::<f64, 2, 2>::new(0.0, 1.0, -1.0, 0.0));
    /// ```
    ///
    /// # Errors
    /// [`FieldError::NonFinite`] at `t` if a derivative is not finite.
    pub fn tangent_jacobian(
        t: f64,
        rates: Option<(SMatrix<f64, P, P>, SMatrix<f64, P, N>)>,
        tangent: impl Fn(&SVector<f64, D>) -> SVector<f64, N>,
    ) -> Result<SMatrix<f64, D, D>, FieldError> {
        let () = Self::OK;
        assert!(!Self::ACTION, "a contact system's Jacobian has the action's row and column");
        let mut j = Self::rate_rows(rates);
        let mut dx = SVector::<f64, D>::zeros();
        for c in 0..D {
            dx[c] = 1.0;
            let column = tangent(&dx);
            dx[c] = 0.0;
            if !super::all_finite(&column) {
                return Err(FieldError::NonFinite { t });
            }
            j.fixed_view_mut::<N, 1>(P, c).copy_from(&column);
        }
        Ok(j)
    }

    /// A field Jacobian with the positions' rows set: (∂q̇/∂q, ∂q̇/∂v) from `rates` where the
    /// velocities are quasi-velocities, q̇ = v otherwise; the rest zero.
    fn rate_rows(rates: Option<(SMatrix<f64, P, P>, SMatrix<f64, P, N>)>) -> SMatrix<f64, D, D> {
        let mut j = SMatrix::<f64, D, D>::zeros();
        match rates {
            Some((rq, rv)) => {
                j.fixed_view_mut::<P, P>(0, 0).copy_from(&rq);
                j.fixed_view_mut::<P, N>(0, P).copy_from(&rv);
            }
            None => {
                assert!(!Self::QUASI, "quasi-velocities need the positions' rate Jacobians");
                for i in 0..N {
                    j[(i, P + i)] = 1.0;
                }
            }
        }
        j
    }

    /// Sets the row of ż = L in a field Jacobian to ∂L/∂x (a no-op for a state without action).
    pub fn set_action_row(j: &mut SMatrix<f64, D, D>, dl_dx: &SVector<f64, D>) {
        let () = Self::OK;
        if Self::ACTION {
            j.set_row(P + N, &dl_dx.transpose());
        }
    }

    /// ∂F/∂w with respect to quantities w that are not part of the state (inputs, parameters), from
    /// ∂g/∂w of the residual at a = v̇: the velocities' rows M⁻¹ ∂g/∂w, the positions' rows zero (their
    /// rates do not depend on w), and a contact system's row of ż = L, ∂L/∂w (`dl_dw`).
    ///
    /// # Errors
    /// [`FieldError::SingularMassMatrix`] at `t` if the solve is not finite.
    pub fn sensitivity<const W: usize>(
        t: f64,
        factor: &impl MassOperator<N>,
        dg_dw: SMatrix<f64, N, W>,
        dl_dw: Option<&SMatrix<f64, 1, W>>,
    ) -> Result<SMatrix<f64, D, W>, FieldError> {
        let da = factor.solve(dg_dw).map_err(|_| FieldError::SingularMassMatrix { t })?;
        Ok(Self::sensitivity_rows(&da, dl_dw))
    }

    /// ∂F/∂w from the accelerations' sensitivities ∂v̇/∂w and a contact system's ∂L/∂w; the
    /// positions' rows zero.
    #[must_use]
    pub fn sensitivity_rows<const W: usize>(
        da_dw: &SMatrix<f64, N, W>,
        dl_dw: Option<&SMatrix<f64, 1, W>>,
    ) -> SMatrix<f64, D, W> {
        let () = Self::OK;
        let mut s = SMatrix::<f64, D, W>::zeros();
        s.fixed_view_mut::<N, W>(P, 0).copy_from(da_dw);
        if let (true, Some(dl)) = (Self::ACTION, dl_dw) {
            s.fixed_view_mut::<1, W>(P + N, 0).copy_from(dl);
        }
        s
    }

    /// The state with its velocities replaced by `v` (positions and the action never jump at an
    /// impact).
    ///
    /// # Errors
    /// [`FieldError::NonFinite`] at `t` if `v` is not finite.
    pub fn with_velocities(t: f64, x: &SVector<f64, D>, v: &SVector<f64, N>) -> Result<SVector<f64, D>, FieldError> {
        let () = Self::OK;
        let mut post = *x;
        post.fixed_rows_mut::<N>(P).copy_from(v);
        super::finite(t, post)
    }

    /// ∂y/∂q over the positions from ∂y/∂ξ (`d`, R rows) over the tangent chart ξ of the
    /// state's positions at `x` — each ordinary coordinate as it is, each orientation's body
    /// rotation vector θ (its quaternion moved to q ⊗ exp(θ/2)) — for a y that depends on a
    /// quaternion only through q/|q| (as everything the models compute of an orientation does):
    /// θ = 2 vec(q* ⊗ δq) / |q|², so that an orientation's four columns are its three chart
    /// columns times (2 / |q|²) [−v | w 1 − \[v×\]] of q = (w, v), and its scale (δq ∥ q) none.
    /// The layout's ordinary coordinates come first, then the orientations (four positions, three
    /// velocities each): P − N of them.
    ///
    /// ```
    /// use routh_runtime::mechanics::StateLayout;
    /// use routh_runtime::nalgebra::{SMatrix, SVector};
    ///
    /// // A free body turning about a fixed point: its quaternion, P = 4, N = 3.
    /// type Top = StateLayout<4, 3, 7>;
    /// let x = Top::state([0.5, 0.5, 0.5, 0.5], [0.0; 3]);
    /// // y = θ₁ itself: along the quaternion's rate ½ q ⊗ (0, e₁), dy = 1.
    /// let d = SMatrix::<f64, 1, 3>::new(1.0, 0.0, 0.0);
    /// let dq = Top::positions_from_chart(&x, &d);
    /// let rate = SVector::<f64, 4>::new(-0.25, 0.25, 0.25, -0.25);
    /// assert!(((dq * rate)[0] - 1.0).abs() < 1e-15);
    /// ```
    #[must_use]
    pub fn positions_from_chart<const R: usize>(x: &SVector<f64, D>, d: &SMatrix<f64, R, N>) -> SMatrix<f64, R, P> {
        let mut out = SMatrix::<f64, R, P>::zeros();
        Self::chart_columns::<R>(x, |r, c| d[(r, c)], |r, c, v| out[(r, c)] = v);
        out
    }

    /// The tangent chart of the orientations about the state `x` of a model without action
    /// (`C = 2N`), the chart of [`linearize::tangent`](crate::linearize::tangent): ξ = (δq, δv)
    /// over the ordinary coordinates and each orientation's body rotation vector θ (its quaternion
    /// turned to q ⊗ exp(θ/2)) and θ̇ = δω − ω × θ, so that δω = θ̇ + ω × θ. Returns E = ∂x/∂ξ
    /// (D × C) and the left inverse P = ∂ξ/∂x (C × D, P E = 1) that reads a change of the state in
    /// the chart: θ = (2 / |q|²) vec(q̄ ⊗ δq) ([`Self::positions_from_chart`]), the quaternion's
    /// change of scale (δq ∥ q) dropped. A map of states x_{k+1} = Φ(x_k) is P(x_{k+1}) ∂Φ/∂x E(x_k)
    /// in the charts about x_k and x_{k+1} ([`step::rk4_tangent_step`](crate::step::rk4_tangent_step)).
    ///
    /// ```
    /// use routh_runtime::mechanics::StateLayout;
    /// use routh_runtime::nalgebra::{SMatrix, SVector};
    ///
    /// // A body turning about a fixed point at ω = (0, 0, 2), its quaternion not of unit length.
    /// type Top = StateLayout<4, 3, 7>;
    /// let x = Top::state([0.6, 0.2, -0.4, 0.8], [0.0, 0.0, 2.0]);
    /// let (e, p) = Top::chart::<6>(&x);
    /// assert!((p * e - SMatrix::<f64, 6, 6>::identity()).amax() < 1e-15);
    /// // θ₁ at fixed θ̇ turns ω by ω × e₁ = (0, 2, 0): E's column of θ₁ in the rows of ω.
    /// assert_eq!((e[(4, 0)], e[(5, 0)], e[(6, 0)]), (0.0, 2.0, 0.0));
    /// // The quaternion's change of scale is no change in the chart.
    /// let scale = SVector::<f64, 7>::from([0.6, 0.2, -0.4, 0.8, 0.0, 0.0, 0.0]);
    /// assert!((p * scale).amax() < 1e-15);
    /// ```
    #[must_use]
    pub fn chart<const C: usize>(x: &SVector<f64, D>) -> (SMatrix<f64, D, C>, SMatrix<f64, C, D>) {
        (Self::chart_embedding(x), Self::chart_inverse(x))
    }

    /// E = ∂x/∂ξ of [`Self::chart`] alone.
    #[must_use]
    pub fn chart_embedding<const C: usize>(x: &SVector<f64, D>) -> SMatrix<f64, D, C> {
        let (turning, ordinary) = Self::chart_sizes::<C>();
        let mut e = SMatrix::<f64, D, C>::zeros();
        for i in 0..ordinary {
            e[(i, i)] = 1.0;
        }
        for i in 0..N {
            e[(P + i, N + i)] = 1.0;
        }
        for o in 0..turning {
            let (qs, vs) = (ordinary + 4 * o, ordinary + 3 * o);
            for (a, turn) in turn_columns([x[qs], x[qs + 1], x[qs + 2], x[qs + 3]]).iter().enumerate() {
                for (r, &v) in turn.iter().enumerate() {
                    e[(qs + r, vs + a)] = v;
                }
            }
            // δω = θ̇ + [ω×] θ.
            e.fixed_view_mut::<3, 3>(P + vs, vs).copy_from(&Self::turn(x, vs));
        }
        e
    }

    /// The left inverse P = ∂ξ/∂x of [`Self::chart`] alone.
    #[must_use]
    pub fn chart_inverse<const C: usize>(x: &SVector<f64, D>) -> SMatrix<f64, C, D> {
        let (turning, ordinary) = Self::chart_sizes::<C>();
        let mut p = SMatrix::<f64, C, D>::zeros();
        // The positions' rows by ∂θ/∂q.
        Self::chart_columns::<N>(x, |r, c| if r == c { 1.0 } else { 0.0 }, |r, c, v| p[(r, c)] = v);
        for i in 0..N {
            p[(N + i, P + i)] = 1.0;
        }
        for o in 0..turning {
            let (qs, vs) = (ordinary + 4 * o, ordinary + 3 * o);
            // θ̇ = δω − [ω×] θ.
            let by_q = Self::turn(x, vs) * p.fixed_view::<3, 4>(vs, qs);
            let mut rows = p.fixed_view_mut::<3, 4>(N + vs, qs);
            rows -= by_q;
        }
        p
    }

    /// The chart coordinates ξ = x ⊖ y of the state `x` about the state `y`, the finite form of
    /// [`Self::chart`] at y (its derivative in x at x = y is [`Self::chart_inverse`] at y; `C =
    /// 2N`): each ordinary coordinate and velocity by its difference, each orientation by the body
    /// rotation vector θ = Log(q̂_y⁻¹ ⊗ q̂_x) from y's attitude to x's (the quaternions normalised;
    /// the shorter way round, |θ| ≤ π) and its rates by θ̇ = (ω_x − ω_y) − ω_y × θ — an error
    /// that a cost about a reference state can weigh whatever the two quaternions' signs and
    /// lengths ([`crate::ilqr::ilqr_tangent`]). A quaternion that is zero (or not finite) has no
    /// attitude: that orientation's θ and θ̇ are then NaN, never a rotation the state does not
    /// describe ([`Self::attitudes_defined`] tells beforehand).
    ///
    /// ```
    /// use routh_runtime::mechanics::StateLayout;
    ///
    /// // A body turning about a fixed point: y at rest, x a quarter turn about z away, spinning.
    /// type Top = StateLayout<4, 3, 7>;
    /// let h = std::f64::consts::FRAC_PI_4;
    /// let y = Top::state([1.0, 0.0, 0.0, 0.0], [0.0; 3]);
    /// // The same attitude by −q, at twice the length.
    /// let x = Top::state([-2.0 * h.cos(), 0.0, 0.0, -2.0 * h.sin()], [0.0, 0.0, 3.0]);
    /// let xi = Top::chart_difference::<6>(&x, &y);
    /// assert!((xi - routh_runtime::nalgebra::SVector::<f64, 6>::from([0.0, 0.0, 2.0 * h, 0.0, 0.0, 3.0])).amax() < 1e-15);
    /// ```
    #[must_use]
    pub fn chart_difference<const C: usize>(x: &SVector<f64, D>, y: &SVector<f64, D>) -> SVector<f64, C> {
        let (turning, ordinary) = Self::chart_sizes::<C>();
        let mut xi = SVector::<f64, C>::zeros();
        for i in 0..ordinary {
            xi[i] = x[i] - y[i];
        }
        for i in 0..N {
            xi[N + i] = x[P + i] - y[P + i];
        }
        for o in 0..turning {
            let (qs, vs) = (ordinary + 4 * o, ordinary + 3 * o);
            // NaN where either quaternion names no attitude, never a rotation the state does not
            // describe.
            let theta = match (Self::attitude(y, qs), Self::attitude(x, qs)) {
                (Some(from), Some(to)) => relative_rotation(from, to),
                _ => nalgebra::Vector3::repeat(f64::NAN),
            };
            xi.fixed_rows_mut::<3>(vs).copy_from(&theta);
            // θ̇ = δω − ω_y × θ.
            let turned = Self::turn(y, vs) * theta;
            let mut rates = xi.fixed_rows_mut::<3>(N + vs);
            rates -= turned;
        }
        xi
    }

    /// [`Self::chart_difference`] ξ = x ⊖ y and its derivative G = ∂(x ⊖ y)/∂ξ at ξ = 0 of x moved
    /// in its own chart (x + E(x) ξ to first order, [`Self::chart_embedding`]): what a cost
    /// ½ (x ⊖ y)ᵀ Q (x ⊖ y) about a reference y is differentiated by in the chart about x. G is the
    /// identity where x = y; each orientation's block J_r⁻¹(θ) over θ (SO(3)'s inverse right
    /// Jacobian at θ = x ⊖ y, J_r⁻¹(θ) = 1 + ½ \[θ×\] + (1/|θ|² − (1 + cos|θ|)/(2|θ| sin|θ|)) \[θ×\]²)
    /// and its rates' by ∂θ̇/∂θ = \[ω_x×\] − \[ω_y×\] J_r⁻¹(θ), ∂θ̇/∂θ̇ = 1.
    #[must_use]
    pub fn chart_difference_with_jacobian<const C: usize>(
        x: &SVector<f64, D>,
        y: &SVector<f64, D>,
    ) -> (SVector<f64, C>, SMatrix<f64, C, C>) {
        let (turning, ordinary) = Self::chart_sizes::<C>();
        let xi = Self::chart_difference::<C>(x, y);
        let mut g = SMatrix::<f64, C, C>::identity();
        for o in 0..turning {
            let vs = ordinary + 3 * o;
            let jr = inverse_right_jacobian(&xi.fixed_rows::<3>(vs).into_owned());
            g.fixed_view_mut::<3, 3>(vs, vs).copy_from(&jr);
            g.fixed_view_mut::<3, 3>(N + vs, vs).copy_from(&(Self::turn(x, vs) - Self::turn(y, vs) * jr));
        }
        (xi, g)
    }

    /// Whether every orientation's quaternion in `x` is finite and not zero: the attitude q/|q|
    /// that [`Self::chart_difference`] reads exists.
    #[must_use]
    pub fn attitudes_defined(x: &SVector<f64, D>) -> bool {
        let ordinary = N - 3 * (P - N);
        (0..P - N).all(|o| Self::attitude(x, ordinary + 4 * o).is_some())
    }

    /// The orientation whose quaternion starts at position `qs`, normalised; `None` where the
    /// quaternion is zero or not finite (no attitude).
    fn attitude(x: &SVector<f64, D>, qs: usize) -> Option<nalgebra::UnitQuaternion<f64>> {
        let q = nalgebra::Quaternion::new(x[qs], x[qs + 1], x[qs + 2], x[qs + 3]);
        let norm = q.norm();
        (norm.is_finite() && norm > 0.0).then(|| nalgebra::UnitQuaternion::new_unchecked(q / norm))
    }

    /// The chart's numbers of orientations and of ordinary coordinates.
    fn chart_sizes<const C: usize>() -> (usize, usize) {
        const { assert!(D == P + N && C == 2 * N, "the chart (δq, δv) of a state without action") };
        (P - N, N - 3 * (P - N))
    }

    /// \[ω×\] of the orientation whose rates start at velocity `vs`.
    fn turn(x: &SVector<f64, D>, vs: usize) -> nalgebra::Matrix3<f64> {
        nalgebra::Vector3::new(x[P + vs], x[P + vs + 1], x[P + vs + 2]).cross_matrix()
    }

    /// `m` E by E's non-zero entries (a few per column: the chart's embedding, [`Self::chart`]),
    /// where the dense product takes D times the work.
    #[must_use]
    pub fn times_embedding<const R: usize, const C: usize>(m: &SMatrix<f64, R, D>, e: &SMatrix<f64, D, C>) -> SMatrix<f64, R, C> {
        let mut out = SMatrix::<f64, R, C>::zeros();
        for c in 0..C {
            for r in 0..D {
                if e[(r, c)] != 0.0 {
                    out.column_mut(c).axpy(e[(r, c)], &m.column(r), 1.0);
                }
            }
        }
        out
    }

    /// [`Self::positions_from_chart`]'s entries (row, column, value), each once.
    #[inline]
    fn chart_columns<const R: usize>(
        x: &SVector<f64, D>,
        d: impl Fn(usize, usize) -> f64,
        mut set: impl FnMut(usize, usize, f64),
    ) {
        let () = Self::OK;
        let turning = P - N;
        let ordinary = N - 3 * turning;
        for j in 0..ordinary {
            for r in 0..R {
                set(r, j, d(r, j));
            }
        }
        for o in 0..turning {
            let (qs, vs) = (ordinary + 4 * o, ordinary + 3 * o);
            let (w, v) = (x[qs], [x[qs + 1], x[qs + 2], x[qs + 3]]);
            let scale = 2.0 / (w * w + v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            // ∂θ/∂q by columns q_c (w, x, y, z), rows θ_k: (−v_k, w e_k − (v × ·)_k).
            let chart = [[-v[0], -v[1], -v[2]], [w, -v[2], v[1]], [v[2], w, -v[0]], [-v[1], v[0], w]];
            for r in 0..R {
                let along = [d(r, vs), d(r, vs + 1), d(r, vs + 2)];
                for (c, column) in chart.iter().enumerate() {
                    set(r, qs + c, scale * (along[0] * column[0] + along[1] * column[1] + along[2] * column[2]));
                }
            }
        }
    }

    /// The first-order field's Jacobian [[∂q̇/∂q, ∂q̇/∂v], [∂v̇/∂q, ∂v̇/∂v]] of a model without
    /// action from the rates' Jacobians `rates` (q̇ = K(q) v) and ∂v̇ over the tangent chart of the
    /// positions, `d_chart`, and over the velocities, `d_velocities` (see
    /// [`Self::positions_from_chart`]).
    #[must_use]
    pub fn jacobian_from_chart(
        x: &SVector<f64, D>,
        (rq, rv): (&SMatrix<f64, P, P>, &SMatrix<f64, P, N>),
        d_chart: &SMatrix<f64, N, N>,
        d_velocities: &SMatrix<f64, N, N>,
    ) -> SMatrix<f64, D, D> {
        let mut jac = SMatrix::<f64, D, D>::zeros();
        Self::write_jacobian_from_chart(&mut jac, x, (rq, rv), |r, c| d_chart[(r, c)], |r, c| d_velocities[(r, c)]);
        jac
    }

    /// [`Self::jacobian_from_chart`] written into `jac` (zero on entry), where it is to stay.
    pub(crate) fn write_jacobian_from_chart(
        jac: &mut SMatrix<f64, D, D>,
        x: &SVector<f64, D>,
        (rq, rv): (&SMatrix<f64, P, P>, &SMatrix<f64, P, N>),
        d_chart: impl Fn(usize, usize) -> f64,
        d_velocities: impl Fn(usize, usize) -> f64,
    ) {
        const { assert!(D == P + N, "a state without action") };
        jac.fixed_view_mut::<P, P>(0, 0).copy_from(rq);
        jac.fixed_view_mut::<P, N>(0, P).copy_from(rv);
        Self::chart_columns::<N>(x, d_chart, |r, c, v| jac[(P + r, c)] = v);
        for c in 0..N {
            for r in 0..N {
                jac[(P + r, P + c)] = d_velocities(r, c);
            }
        }
    }

    /// The Jacobian of a velocity-map reset x ↦ (q, v(t, q, v), z) from ∂v/∂q (`N × P`) and ∂v/∂v
    /// (`N × N`): the identity on the positions and the action.
    #[must_use]
    pub fn velocity_map_jacobian(dv_dq: SMatrix<f64, N, P>, dv_dv: SMatrix<f64, N, N>) -> SMatrix<f64, D, D> {
        let () = Self::OK;
        let mut jac = SMatrix::<f64, D, D>::identity();
        jac.fixed_view_mut::<N, P>(P, 0).copy_from(&dv_dq);
        jac.fixed_view_mut::<N, N>(P, P).copy_from(&dv_dv);
        jac
    }
}

/// An orientation's quaternion q's rates along its body rotation vector: ½ q ⊗ (0, e_a) for
/// a = 1, 2, 3, each as (w, x, y, z) — the columns of the chart's embedding ([`StateLayout::chart`]).
/// The body rotation vector θ = Log(a⁻¹ ⊗ b) taking the attitude `a` to `b`, |θ| ≤ π.
fn relative_rotation(a: nalgebra::UnitQuaternion<f64>, b: nalgebra::UnitQuaternion<f64>) -> nalgebra::Vector3<f64> {
    // q and −q are one rotation: nalgebra's angle is the shorter way round (≤ π).
    (a.inverse() * b).scaled_axis()
}

/// SO(3)'s inverse right Jacobian J_r⁻¹(θ) (Log(exp(θ) exp(δ)) = θ + J_r⁻¹(θ) δ + O(δ²)):
/// 1 + ½ \[θ×\] + (1/|θ|² − (1 + cos|θ|)/(2|θ| sin|θ|)) \[θ×\]², its last coefficient by its
/// series 1/12 + |θ|²/720 near 0.
pub(crate) fn inverse_right_jacobian(theta: &nalgebra::Vector3<f64>) -> nalgebra::Matrix3<f64> {
    let angle = theta.norm();
    let k = theta.cross_matrix();
    let c = if angle < 1e-4 {
        1.0 / 12.0 + angle * angle / 720.0
    } else if angle.sin().abs() < 1e-12 {
        // At a half turn (1 + cos)/sin → 0.
        1.0 / (angle * angle)
    } else {
        1.0 / (angle * angle) - (1.0 + angle.cos()) / (2.0 * angle * angle.sin())
    };
    nalgebra::Matrix3::identity() + k * 0.5 + k * k * c
}

pub(crate) fn turn_columns(q: [f64; 4]) -> [[f64; 4]; 3] {
    let [w, x, y, z] = q.map(|c| 0.5 * c);
    [[-x, w, z, -y], [-y, -z, w, x], [-z, y, -x, w]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::factor_mass;

    /// One ordinary coordinate and one orientation, with an action: P = 5, N = 4, D = 10.
    type Spinner = StateLayout<5, 4, 10>;

    #[test]
    fn a_contact_state_with_an_orientation_is_laid_out_and_differentiated_in_blocks() {
        let x = Spinner::state_with_action([1.0, 0.5, 0.5, 0.5, 0.5], [2.0, 3.0, 4.0, 5.0], 6.0);
        assert_eq!(x.as_slice(), &[1.0, 0.5, 0.5, 0.5, 0.5, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(Spinner::velocities(&x).as_slice(), &[2.0, 3.0, 4.0, 5.0]);
        let rates = [9.0, 8.0, 7.0, 6.0, 5.0];
        let a = SVector::<f64, 4>::from([-1.0, -2.0, -3.0, -4.0]);
        let f = Spinner::field(&x, Some(rates), &a, Some(0.25));
        assert_eq!(f.as_slice(), &[9.0, 8.0, 7.0, 6.0, 5.0, -1.0, -2.0, -3.0, -4.0, 0.25]);
        // M = 2 I: every solved block is half the residual's.
        let m = factor_mass(0.0, SMatrix::<f64, 4, 4>::identity() * 2.0).unwrap();
        let rq = SMatrix::<f64, 5, 5>::from_fn(|i, j| (i * 5 + j) as f64);
        let rv = SMatrix::<f64, 5, 4>::from_fn(|i, j| (i + j) as f64);
        let gq = SMatrix::<f64, 4, 5>::from_element(4.0);
        let gv = SMatrix::<f64, 4, 4>::from_element(6.0);
        let dl = SVector::<f64, 10>::from_fn(|i, _| i as f64);
        let j = Spinner::jacobian(0.0, &m, Some((rq, rv)), (gq, gv), Some((SVector::from_element(8.0), &dl))).unwrap();
        assert_eq!(j.fixed_view::<5, 5>(0, 0), rq);
        assert_eq!(j.fixed_view::<5, 4>(0, 5), rv);
        assert_eq!(j.fixed_view::<4, 5>(5, 0), gq / 2.0);
        assert_eq!(j.fixed_view::<4, 4>(5, 5), gv / 2.0);
        assert_eq!(j.fixed_view::<4, 1>(5, 9), SVector::<f64, 4>::from_element(4.0));
        assert_eq!(j.row(9).transpose(), dl);
        assert_eq!(j.fixed_view::<5, 1>(0, 9), SVector::<f64, 5>::zeros(), "the rates do not depend on the action");
        let s =
            Spinner::sensitivity(0.0, &m, SMatrix::<f64, 4, 2>::from_element(2.0), Some(&SMatrix::<f64, 1, 2>::new(7.0, 8.0)))
                .unwrap();
        assert_eq!(s.fixed_view::<5, 2>(0, 0), SMatrix::<f64, 5, 2>::zeros());
        assert_eq!(s.fixed_view::<4, 2>(5, 0), SMatrix::<f64, 4, 2>::from_element(1.0));
        assert_eq!((s[(9, 0)], s[(9, 1)]), (7.0, 8.0));
        let moved = Spinner::with_velocities(0.0, &x, &SVector::from_element(-1.0)).unwrap();
        assert_eq!(moved.as_slice(), &[1.0, 0.5, 0.5, 0.5, 0.5, -1.0, -1.0, -1.0, -1.0, 6.0]);
        assert!(Spinner::with_velocities(0.0, &x, &SVector::from_element(f64::NAN)).is_err());
    }

    #[test]
    fn ordinary_coordinates_take_their_rates_from_the_velocities() {
        type Plain = StateLayout<2, 2, 5>;
        let x = Plain::state_with_action([1.0, 2.0], [3.0, 4.0], 5.0);
        let f = Plain::field(&x, None, &SVector::from([6.0, 7.0]), Some(8.0));
        assert_eq!(f.as_slice(), &[3.0, 4.0, 6.0, 7.0, 8.0]);
        let m = factor_mass(0.0, SMatrix::<f64, 2, 2>::identity()).unwrap();
        let j = Plain::jacobian(0.0, &m, None, (SMatrix::zeros(), SMatrix::zeros()), Some((SVector::zeros(), &SVector::zeros())))
            .unwrap();
        assert_eq!((j[(0, 2)], j[(1, 3)], j[(0, 3)]), (1.0, 1.0, 0.0));
        let jac = Plain::velocity_map_jacobian(SMatrix::from_element(2.0), SMatrix::from_element(3.0));
        assert_eq!((jac[(0, 0)], jac[(2, 0)], jac[(2, 2)], jac[(4, 4)], jac[(4, 2)]), (1.0, 2.0, 3.0, 1.0, 0.0));
    }

    /// One ordinary coordinate and one orientation, no action: P = 5, N = 4, D = 9, C = 8.
    type Rover = StateLayout<5, 4, 9>;

    /// x moved exactly by ξ in its chart: the ordinary coordinate and velocity by their ξ, the
    /// quaternion to q ⊗ exp(θ/2), the rates to ω + θ̇ + ω × θ.
    fn moved(x: &SVector<f64, 9>, xi: &SVector<f64, 8>) -> SVector<f64, 9> {
        let (theta, rate) = (nalgebra::Vector3::new(xi[1], xi[2], xi[3]), nalgebra::Vector3::new(xi[5], xi[6], xi[7]));
        let q = nalgebra::Quaternion::new(x[1], x[2], x[3], x[4]) * nalgebra::Quaternion::from_imag(theta * 0.5).exp();
        let w = nalgebra::Vector3::new(x[6], x[7], x[8]);
        let w = w + rate + w.cross(&theta);
        SVector::from([x[0] + xi[0], q.w, q.i, q.j, q.k, x[5] + xi[4], w[0], w[1], w[2]])
    }

    /// The chart difference's Jacobian against central differences of the difference itself along
    /// the chart's exact maps, two states far apart (the attitudes 2.4 rad apart, the quaternions
    /// off the unit sphere and of opposite signs' halves); zero and the identity at x = y; and to
    /// first order the chart's left inverse P(y) ([`StateLayout::chart_inverse`]).
    #[test]
    fn the_chart_difference_is_differentiated_in_the_chart() {
        let y = Rover::state([0.3, 0.9, -0.3, 0.5, 0.2], [0.4, -0.6, 1.1, 0.3]);
        let x = Rover::state([-0.2, -0.4, 1.2, 0.1, -0.9], [1.3, 0.8, -0.2, -1.5]);
        let angle = Rover::chart_difference::<8>(&x, &y).fixed_rows::<3>(1).norm();
        assert!(angle > 2.0 && angle <= std::f64::consts::PI, "{angle}");
        let (xi, g) = Rover::chart_difference_with_jacobian::<8>(&x, &y);
        assert_eq!(xi, Rover::chart_difference::<8>(&x, &y));
        let h = 1e-6;
        for c in 0..8 {
            let e = SVector::<f64, 8>::ith(c, h);
            let column = (Rover::chart_difference::<8>(&moved(&x, &e), &y) - Rover::chart_difference::<8>(&moved(&x, &-e), &y))
                / (2.0 * h);
            assert!((g.column(c) - column).amax() < 1e-8, "column {c}: {} against {column}", g.column(c));
        }
        assert!(Rover::chart_difference::<8>(&y, &y).amax() < 1e-15);
        assert!((Rover::chart_difference_with_jacobian::<8>(&y, &y).1 - SMatrix::<f64, 8, 8>::identity()).amax() < 1e-15);
        let step = SVector::<f64, 9>::from([1.0, -2.0, 0.5, 3.0, 1.0, 0.7, -0.4, 2.0, 1.5]) * 1e-7;
        let first = Rover::chart_inverse::<8>(&y) * step;
        assert!((Rover::chart_difference::<8>(&(y + step), &y) - first).amax() < 1e-12);
    }

    #[test]
    fn a_zero_quaternion_has_no_chart_difference() {
        let x = Rover::state([0.3, 0.9, -0.3, 0.5, 0.2], [0.4, -0.6, 1.1, 0.3]);
        let y = Rover::state([-0.2, 0.0, 0.0, 0.0, 0.0], [1.3, 0.8, -0.2, -1.5]);
        assert!(Rover::attitudes_defined(&x) && !Rover::attitudes_defined(&y));
        assert!(!Rover::attitudes_defined(&Rover::state([0.0, f64::NAN, 0.0, 0.0, 1.0], [0.0; 4])));
        for xi in [Rover::chart_difference::<8>(&x, &y), Rover::chart_difference::<8>(&y, &x)] {
            // The ordinary coordinate and velocity by their differences; the orientation's θ and θ̇
            // NaN (nalgebra's logarithm of the normalised zero alone would be no rotation).
            assert!(xi[0].is_finite() && xi[4].is_finite(), "{xi}");
            assert!(xi.fixed_rows::<3>(1).iter().chain(xi.fixed_rows::<3>(5).iter()).all(|v| v.is_nan()), "{xi}");
        }
    }
}
