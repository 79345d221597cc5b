//! The 6-D spatial algebra of the links (Featherstone's notation): motions (ω, v) and forces
//! (n, f) in a link's axes, the transforms X_j between a link and its parent and their derivatives,
//! inertia times motion and the force cross product ×*.

use symbolic::{Arena, Vec3};

use super::{Inertia, Joint, Spatial};

/// I v for a symmetric spatial inertia.
pub(super) fn times(arena: &mut Arena, i: &Inertia, v: &Spatial) -> Spatial {
    std::array::from_fn(|x| arena.dot(&i[x], v))
}

/// The two halves of a spatial vector.
pub(super) fn halves(v: &Spatial) -> (Vec3, Vec3) {
    ([v[0], v[1], v[2]], [v[3], v[4], v[5]])
}

/// A spatial vector from its halves.
pub(super) fn joined(a: &Vec3, b: &Vec3) -> Spatial {
    [a[0], a[1], a[2], b[0], b[1], b[2]]
}

/// X m = (Aᵀ ω, Aᵀ (v + ω × ℓ)) for a motion m = (ω, v) in the parent's axes.
pub(super) fn apply(arena: &mut Arena, j: &Joint, m: &Spatial) -> Spatial {
    let (w, v) = halves(m);
    let at = arena.transpose3(&j.a);
    let wl = arena.cross(&w, &j.l);
    let moved = arena.vec_add(&v, &wl);
    let w2 = arena.mat_vec(&at, &w);
    let v2 = arena.mat_vec(&at, &moved);
    joined(&w2, &v2)
}

/// Xᵀ f = (A n + ℓ × (A f), A f) for a force f = (n, f) in the child's axes: the same force in the
/// parent's.
pub(super) fn transpose_apply(arena: &mut Arena, j: &Joint, f: &Spatial) -> Spatial {
    let (n, f) = halves(f);
    let af = arena.mat_vec(&j.a, &f);
    let an = arena.mat_vec(&j.a, &n);
    let lf = arena.cross(&j.l, &af);
    let n2 = arena.vec_add(&an, &lf);
    joined(&n2, &af)
}

/// (ω, v) × (ω', v') = (ω × ω', ω × v' + v × ω'), the motion cross product.
pub(super) fn cross_motion(arena: &mut Arena, a: &Spatial, b: &Spatial) -> Spatial {
    let (w, v) = halves(a);
    let (w2, v2) = halves(b);
    let top = arena.cross(&w, &w2);
    let wv = arena.cross(&w, &v2);
    let vw = arena.cross(&v, &w2);
    let bottom = arena.vec_add(&wv, &vw);
    joined(&top, &bottom)
}

/// (ω, v) ×* (n, f) = (ω × n + v × f, ω × f).
pub(super) fn cross_force(arena: &mut Arena, v: &Spatial, h: &Spatial) -> Spatial {
    let (w, u) = halves(v);
    let (n, f) = halves(h);
    let wn = arena.cross(&w, &n);
    let uf = arena.cross(&u, &f);
    let top = arena.vec_add(&wn, &uf);
    let bottom = arena.cross(&w, &f);
    joined(&top, &bottom)
}
