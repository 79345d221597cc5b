//! Special points of a branch and the switch onto a crossing branch: a special point is located
//! between two accepted points by a secant search along the branch (a zero touch of the monitor by
//! golden-section search), and at a simple bifurcation the two branch directions come from the
//! kernel of dr (see the [module docs](super)).

use nalgebra::{DMatrix, DVector};

use super::*;

/// The vertex of the parabola through (s_p, m_p), (0, m_c), (s_n, m_n) (s_p < 0 < s_n): its
/// abscissa, its value and the parabola's second divided difference (positive for a minimum).
fn parabola_vertex((sp, mp): (f64, f64), mc: f64, (sn, mn): (f64, f64)) -> Option<(f64, f64, f64)> {
    // Divided differences of p(s) = m_c + d₁ s + d₂ s (s − s_n); p′(s) = d₁ + d₂ (2s − s_n).
    let d1 = (mn - mc) / sn;
    let dp = (mc - mp) / -sp;
    let d2 = (d1 - dp) / (sn - sp);
    if !(d2 != 0.0 && d2.is_finite()) {
        return None;
    }
    let vertex = 0.5 * sn - d1 / (2.0 * d2);
    Some((vertex, mc + d1 * vertex + d2 * vertex * (vertex - sn), d2))
}

/// Whether the parabola through three consecutive monitor values (at roughly equal spacing) has a
/// minimum of |m| between the last two below `tol` of their scale, without a sign change: a zero
/// touch (for periodic orbits, a pair of multipliers meeting at −1 on the unit circle).
pub(super) fn touches_zero(previous: Option<f64>, a: f64, b: f64, tol: f64) -> bool {
    let Some(z) = previous else { return false };
    if z * a <= 0.0 || a * b <= 0.0 {
        return false;
    }
    let (z, a, b) = (z.abs(), a.abs(), b.abs());
    let Some((s, minimum, curvature)) = parabola_vertex((-1.0, z), a, (1.0, b)) else { return false };
    curvature > 0.0 && s > 0.0 && s <= 1.0 && minimum <= tol * z.max(a).max(b)
}

/// Whether the parabola through (s_p, m_p), (0, m_c), (s_n, m_n) (arclengths relative to the
/// current point, m_c and m_n of one sign) has its vertex inside (0, s_n) on the other side of
/// zero, beyond `tol` of the values' scale: two crossings between the current point and the next.
pub(super) fn dips_through_zero((sp, mp): (f64, f64), mc: f64, (sn, mn): (f64, f64), tol: f64) -> bool {
    let Some((vertex, value, _)) = parabola_vertex((sp, mp), mc, (sn, mn)) else { return false };
    let scale = mp.abs().max(mc.abs()).max(mn.abs());
    vertex > 0.0 && vertex < sn && value * mc < 0.0 && value.abs() > tol * scale
}

/// Locates a special point of `kind` between `from` and `to` (the next accepted point), by a
/// secant search (Illinois) along the branch: every trial point is corrected from the last point
/// before the special point, a short step along its tangent on the plane orthogonal to that
/// tangent — so the search follows the branch through tight turns and never jumps onto a branch
/// crossing it. A zero touch of the monitor (no sign change) is located by golden-section search
/// on its magnitude.
pub(super) fn locate<P: Problem + ?Sized>(
    problem: &P,
    from: &Point,
    to: &Point,
    kind: Special,
    options: &ContinuationOptions,
) -> Result<Point, ContinuationError> {
    let p = problem.parameter();
    let cos_max = options.max_angle.cos();
    let test = |q: &Point| match kind {
        Special::TurningPoint => q.direction[p],
        Special::SimpleBifurcation => q.determinant,
        Special::PeriodDoubling => q.monitor.unwrap_or(f64::NAN),
    };
    // One step of length δ from `base` along its direction, corrected on the plane orthogonal to it.
    let step = |base: &Point, delta: f64| -> Result<Point, ContinuationError> {
        let mut patient = options.clone();
        patient.max_iterations = 3 * options.max_iterations;
        let c = newton(problem, &(&base.u + &base.direction * delta), Some(&base.direction), &patient)?;
        let tau = tangent(&c.jacobian)?;
        let along = tau.dot(&base.direction);
        if along.abs() < cos_max {
            return Err(ContinuationError::NewtonFailed { iterations: c.iterations, residual: c.residual });
        }
        let dir = if along >= 0.0 { tau } else { -tau };
        let monitor = problem.monitor(&c.u)?;
        Ok(Point::at(c, dir, monitor, 0.0, Some(kind)))
    };
    let (ga, gb) = (test(from), test(to));
    if !(ga * gb < 0.0) {
        if kind != Special::PeriodDoubling {
            return Err(ContinuationError::NotSimpleBifurcation("no sign change to locate".into()));
        }
        // A zero touch: minimise |g| over steps from `from`.
        let h = (&to.u - &from.u).norm();
        let eval = |s: f64| -> Result<(f64, Point), ContinuationError> {
            let q = if s == 0.0 { from.clone() } else { step(from, s)? };
            Ok((test(&q), q))
        };
        let mut q = golden_minimum(&eval, 0.0, h, options.location_tolerance * h.max(1.0))?;
        q.special = Some(kind);
        return Ok(q);
    }
    let (mut lo, mut hi) = (from.clone(), to.clone());
    let (mut glo, mut ghi) = (ga, gb);
    let mut scaled_lo = glo; // the Illinois-scaled value of the lo end
    let mut last_moved_lo = false;
    let mut previous_gap = f64::INFINITY;
    let tolerance = options.location_tolerance * (1.0 + lo.u.norm());
    for _ in 0..100 {
        let gap = (&hi.u - &lo.u).norm();
        // Converged, or no longer shrinking (next to a simple bifurcation the kernel is
        // two-dimensional and the tangent, hence the search direction, loses its meaning).
        if gap <= tolerance || gap >= previous_gap {
            break;
        }
        previous_gap = gap;
        let mut delta = gap * scaled_lo / (scaled_lo - ghi);
        if !(delta.is_finite() && delta > 0.0 && delta < gap) {
            delta = 0.5 * gap;
        }
        // The secant puts the zero within the tolerance of one end: that end is the point (the
        // test function sits at its noise floor there, and Illinois would only creep).
        if delta <= tolerance || gap - delta <= tolerance {
            break;
        }
        let mut trial = Err(ContinuationError::Singular);
        for _ in 0..8 {
            trial = step(&lo, delta);
            if trial.is_ok() {
                break;
            }
            delta *= 0.5;
        }
        let Ok(q) = trial else { break };
        let g = test(&q);
        if g == 0.0 {
            return Ok(q);
        }
        if g * glo > 0.0 {
            if last_moved_lo {
                ghi *= 0.5;
            }
            (lo, glo, scaled_lo) = (q, g, g);
            last_moved_lo = true;
        } else {
            if !last_moved_lo {
                scaled_lo *= 0.5;
            }
            (hi, ghi) = (q, g);
            scaled_lo = scaled_lo.min(glo.abs()).copysign(glo);
            last_moved_lo = false;
        }
    }
    // Between the two last points the test function is linear to second order: interpolate
    // (next to a simple bifurcation the corrector cannot reach the point itself).
    let denominator = glo - test(&hi);
    let w = glo / denominator.abs().max(f64::MIN_POSITIVE).copysign(denominator);
    let w = if w.is_finite() { w.clamp(0.0, 1.0) } else { 0.5 };
    let mut q = if w < 0.5 { lo.clone() } else { hi.clone() };
    q.u = &lo.u + (&hi.u - &lo.u) * w;
    q.direction = if kind == Special::SimpleBifurcation {
        // Next to a simple bifurcation the tangents computed at the bracket's ends are arbitrary
        // mixtures of the two-dimensional near-kernel; the branch's own is the last regular
        // point's tangent projected onto the kernel at the located point.
        let (_, j) = problem.linearize(&q.u)?;
        match kernel_pair(&j) {
            Ok([e1, e2]) => {
                let d = &e1 * e1.dot(&from.direction) + &e2 * e2.dot(&from.direction);
                d.normalize()
            }
            Err(_) => from.direction.clone(),
        }
    } else {
        (&lo.direction * (1.0 - w) + &hi.direction * w).normalize()
    };
    // Away from a bifurcation the interpolated point is a regular point of the curve, off it by
    // the curve's bend over the bracket (at a fold, where the bracket stalls, 1e-6 in r): corrected
    // onto it across the interpolated direction.
    if kind != Special::SimpleBifurcation
        && let Ok(c) = newton(problem, &q.u, Some(&q.direction), options)
    {
        let monitor = problem.monitor(&c.u)?;
        q = Point::at(c, q.direction, monitor, q.step, None);
    }
    q.special = Some(kind);
    Ok(q)
}

fn golden_minimum<F>(eval: &F, mut a: f64, mut b: f64, tol: f64) -> Result<Point, ContinuationError>
where
    F: Fn(f64) -> Result<(f64, Point), ContinuationError>,
{
    let phi = 0.5 * (5f64.sqrt() - 1.0);
    let mut c = b - phi * (b - a);
    let mut d = a + phi * (b - a);
    let (mut fc, mut pc) = eval(c)?;
    let (mut fd, mut pd) = eval(d)?;
    while (b - a).abs() > tol {
        if fc.abs() < fd.abs() {
            (b, d, fd, pd) = (d, c, fc, pc);
            c = b - phi * (b - a);
            (fc, pc) = eval(c)?;
        } else {
            (a, c, fc, pc) = (c, d, fd, pd);
            d = a + phi * (b - a);
            (fd, pd) = eval(d)?;
        }
    }
    Ok(if fc.abs() < fd.abs() { pc } else { pd })
}

/// The two branch directions through a simple bifurcation point `u` (Lyapunov–Schmidt
/// reduction, Allgower & Georg §8.3): with the kernel {e₁, e₂} of dr and its cokernel ψ (from
/// the SVD), the reduced Hessian B_ij = ψᵀ (∂dr/∂e_i) e_j (central differences of dr with step
/// `fd_step`, symmetrized); the directions are e·α for the two real roots of αᵀBα = 0.
///
/// # Errors
/// [`ContinuationError::NotSimpleBifurcation`] if the second-smallest singular value of dr is not
/// small against the largest (`1e-6`), or the third is (kernel of dimension > 2), or the quadratic
/// form has no two real roots; the problem's errors.
pub fn branch_directions<P: Problem + ?Sized>(
    problem: &P,
    u: &DVector<f64>,
    fd_step: f64,
) -> Result<[DVector<f64>; 2], ContinuationError> {
    let (_, j) = problem.linearize(u)?;
    let e = kernel_pair(&j)?;
    // The cokernel: the left singular vector of dr for its smallest singular value.
    let svd_j = j.clone().svd(true, false);
    let u_mat = svd_j.u.ok_or(ContinuationError::Singular)?;
    let k = (0..svd_j.singular_values.len())
        .min_by(|&a, &b| svd_j.singular_values[a].total_cmp(&svd_j.singular_values[b]))
        .unwrap_or(0);
    let psi: DVector<f64> = u_mat.column(k).into_owned();
    let mut dd = Vec::with_capacity(2);
    for ei in &e {
        let (_, jp) = problem.linearize(&(u + ei * (0.5 * fd_step)))?;
        let (_, jm) = problem.linearize(&(u - ei * (0.5 * fd_step)))?;
        dd.push((jp - jm) / fd_step);
    }
    let b = |i: usize, k: usize| psi.dot(&(&dd[i] * &e[k]));
    let (a11, a12, a22) = (b(0, 0), 0.5 * (b(0, 1) + b(1, 0)), b(1, 1));
    let disc = a12 * a12 - a11 * a22;
    let scale = a11.abs().max(a12.abs()).max(a22.abs());
    if !(scale > 0.0) || disc < -1e-12 * scale * scale {
        return Err(ContinuationError::NotSimpleBifurcation(format!(
            "the reduced quadratic form [[{a11:e}, {a12:e}], [{a12:e}, {a22:e}]] has no real roots"
        )));
    }
    let root = disc.max(0.0).sqrt();
    let alphas: [(f64, f64); 2] = if a22.abs() >= a11.abs() && a22 != 0.0 {
        [(1.0, (-a12 + root) / a22), (1.0, (-a12 - root) / a22)]
    } else if a11 != 0.0 {
        [((-a12 + root) / a11, 1.0), ((-a12 - root) / a11, 1.0)]
    } else {
        // a11 = a22 = 0: the roots are the axes.
        [(1.0, 0.0), (0.0, 1.0)]
    };
    let dirs = alphas.map(|(x, y)| {
        let d = &e[0] * x + &e[1] * y;
        let n = d.norm();
        d / n
    });
    Ok(dirs)
}

/// The two right singular vectors of the square [dr; 0] for its two smallest singular values: a
/// basis of the kernel of dr at a simple bifurcation point.
///
/// # Errors
/// [`ContinuationError::NotSimpleBifurcation`] when the kernel is not two-dimensional.
fn kernel_pair(j: &DMatrix<f64>) -> Result<[DVector<f64>; 2], ContinuationError> {
    let (n, m) = j.shape();
    let mut square = DMatrix::zeros(m, m);
    square.rows_mut(0, n).copy_from(j);
    let svd = square.svd(false, true);
    let v_t = svd.v_t.ok_or(ContinuationError::Singular)?;
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| svd.singular_values[a].total_cmp(&svd.singular_values[b]));
    let largest = svd.singular_values[order[m - 1]];
    let s1 = svd.singular_values[order[1]];
    let s2 = if m > 2 { svd.singular_values[order[2]] } else { f64::INFINITY };
    if !(s1 <= 1e-6 * largest.max(1.0)) || s2 <= 1e-6 * largest {
        return Err(ContinuationError::NotSimpleBifurcation(format!(
            "singular values {:e}, {:e}, {:e} (largest {largest:e}): the kernel is not two-dimensional",
            svd.singular_values[order[0]], s1, s2
        )));
    }
    Ok([v_t.row(order[0]).transpose(), v_t.row(order[1]).transpose()])
}
