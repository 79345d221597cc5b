//! The Whipple bicycle of `whipple.rs` written as it was before bodies and frames existed: every
//! rotation-matrix entry multiplied out, every angular velocity, mass-centre position, contact point
//! and no-slip row derived by hand into scalar `define`s (88 of them; the user's original had 104).
//! Kept as the yardstick of what bodies cost: `tests/bicycle.rs` checks that both models have the
//! same M, f and constraint rows, `benches/chain.rs` (`bicycle/`) compares their generated code and
//! fields.
//!
//! Rear frame R = Rz(ψ) Rx(φ) Ry(θ) (entries `r..`, the lean L = Rz(ψ) Rx(φ) as `l..`), steer
//! S = Ry(−λ) Rz(δ) Ry(λ) (`s..`), fork F = R S (`f..`); spatial angular velocities `wr` (rear frame),
//! `wf` (fork), `wrw`, `wfw` (wheels), body ones `br = Rᵀ wr`, `bf = Fᵀ wf`; centres `rc`, `bc`, `hc`,
//! `fc` and the steer foot `sf`; each wheel's lowest point along u = (e_z − n_z n)/√(1 − n_z²).

use routh::prelude::*;

/// The Whipple bicycle in scalar defines (see the module docs).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, phi, theta, delta, spin_r, spin_f),
    define(cpsi = psi.cos()),
    define(spsi = psi.sin()),
    define(cphi = phi.cos()),
    define(sphi = phi.sin()),
    define(cth = theta.cos()),
    define(sth = theta.sin()),
    define(cdl = delta.cos()),
    define(sdl = delta.sin()),
    define(clam = lambda.cos()),
    define(slam = lambda.sin()),
    define(l11 = cpsi),
    define(l12 = -spsi * cphi),
    define(l13 = spsi * sphi),
    define(l21 = spsi),
    define(l22 = cpsi * cphi),
    define(l23 = -cpsi * sphi),
    define(l32 = sphi),
    define(l33 = cphi),
    define(r11 = l11 * cth - l13 * sth),
    define(r12 = l12),
    define(r13 = l11 * sth + l13 * cth),
    define(r21 = l21 * cth - l23 * sth),
    define(r22 = l22),
    define(r23 = l21 * sth + l23 * cth),
    define(r31 = -l33 * sth),
    define(r32 = l32),
    define(r33 = l33 * cth),
    define(s11 = clam * clam * cdl + slam * slam),
    define(s12 = -clam * sdl),
    define(s13 = clam * slam * cdl - clam * slam),
    define(s21 = clam * sdl),
    define(s22 = cdl),
    define(s23 = slam * sdl),
    define(s31 = slam * clam * cdl - slam * clam),
    define(s32 = -slam * sdl),
    define(s33 = slam * slam * cdl + clam * clam),
    define(f11 = r11 * s11 + r12 * s21 + r13 * s31),
    define(f12 = r11 * s12 + r12 * s22 + r13 * s32),
    define(f13 = r11 * s13 + r12 * s23 + r13 * s33),
    define(f21 = r21 * s11 + r22 * s21 + r23 * s31),
    define(f22 = r21 * s12 + r22 * s22 + r23 * s32),
    define(f23 = r21 * s13 + r22 * s23 + r23 * s33),
    define(f31 = r31 * s11 + r32 * s21 + r33 * s31),
    define(f32 = r31 * s12 + r32 * s22 + r33 * s32),
    define(f33 = r31 * s13 + r32 * s23 + r33 * s33),
    define(wr1 = dot(phi) * cpsi + dot(theta) * l12),
    define(wr2 = dot(phi) * spsi + dot(theta) * l22),
    define(wr3 = dot(psi) + dot(theta) * l32),
    define(ax1 = -r11 * slam + r13 * clam),
    define(wf1 = wr1 + dot(delta) * ax1),
    define(wrw1 = wr1 + dot(spin_r) * r12),
    define(wfw1 = wf1 + dot(spin_f) * f12),
    define(ax2 = -r21 * slam + r23 * clam),
    define(wf2 = wr2 + dot(delta) * ax2),
    define(wrw2 = wr2 + dot(spin_r) * r22),
    define(wfw2 = wf2 + dot(spin_f) * f22),
    define(ax3 = -r31 * slam + r33 * clam),
    define(wf3 = wr3 + dot(delta) * ax3),
    define(wrw3 = wr3 + dot(spin_r) * r32),
    define(wfw3 = wf3 + dot(spin_f) * f32),
    define(br1 = r11 * wr1 + r21 * wr2 + r31 * wr3),
    define(bf1 = f11 * wf1 + f21 * wf2 + f31 * wf3),
    define(br2 = r12 * wr1 + r22 * wr2 + r32 * wr3),
    define(bf2 = f12 * wf1 + f22 * wf2 + f32 * wf3),
    define(br3 = r13 * wr1 + r23 * wr2 + r33 * wr3),
    define(bf3 = f13 * wf1 + f23 * wf2 + f33 * wf3),
    define(rc1 = x + rr * l13),
    define(rc2 = y + rr * l23),
    define(rc3 = rr * l33),
    define(bc1 = rc1 + xb * r11 + (zb - rr) * r13),
    define(sf1 = rc1 + (w + c) * r11 - rr * r13),
    define(hc1 = sf1 + (xh - w - c) * f11 + zh * f13),
    define(fc1 = sf1 - c * f11 + rf * f13),
    define(bc2 = rc2 + xb * r21 + (zb - rr) * r23),
    define(sf2 = rc2 + (w + c) * r21 - rr * r23),
    define(hc2 = sf2 + (xh - w - c) * f21 + zh * f23),
    define(fc2 = sf2 - c * f21 + rf * f23),
    define(bc3 = rc3 + xb * r31 + (zb - rr) * r33),
    define(sf3 = rc3 + (w + c) * r31 - rr * r33),
    define(hc3 = sf3 + (xh - w - c) * f31 + zh * f33),
    define(fc3 = sf3 - c * f31 + rf * f33),
    define(ur1 = -sphi * l12 / cphi),
    define(ur2 = -sphi * l22 / cphi),
    define(ur3 = cphi),
    define(nf = (1 - f32 * f32).sqrt()),
    define(uf1 = -f32 * f12 / nf),
    define(uf2 = -f32 * f22 / nf),
    define(uf3 = nf),
    lagrangian = mr / 2 * (dot(rc1).powi(2) + dot(rc2).powi(2) + dot(rc3).powi(2)) + (irxx * (br1.powi(2) + br3.powi(2)) + iryy * (br2 + dot(spin_r)).powi(2)) / 2 + mb / 2 * (dot(bc1).powi(2) + dot(bc2).powi(2) + dot(bc3).powi(2)) + (ibxx * br1.powi(2) + ibyy * br2.powi(2) + ibzz * br3.powi(2)) / 2 + ibxz * br1 * br3 + mh / 2 * (dot(hc1).powi(2) + dot(hc2).powi(2) + dot(hc3).powi(2)) + (ihxx * bf1.powi(2) + ihyy * bf2.powi(2) + ihzz * bf3.powi(2)) / 2 + ihxz * bf1 * bf3 + mf / 2 * (dot(fc1).powi(2) + dot(fc2).powi(2) + dot(fc3).powi(2)) + (ifxx * (bf1.powi(2) + bf3.powi(2)) + ifyy * (bf2 + dot(spin_f)).powi(2)) / 2 - g * (mr * rc3 + mb * bc3 + mh * hc3 + mf * fc3),
    constraint(rear_x = dot(rc1) - rr * (wrw2 * ur3 - wrw3 * ur2)),
    constraint(rear_y = dot(rc2) - rr * (wrw3 * ur1 - wrw1 * ur3)),
    holonomic(front_height = fc3 - rf * nf),
    constraint(front_x = dot(fc1) - rf * (wfw2 * uf3 - wfw3 * uf2)),
    constraint(front_y = dot(fc2) - rf * (wfw3 * uf1 - wfw1 * uf3)),
    jacobian,
)]
pub struct HandBicycle {
    pub w: f64,
    pub c: f64,
    pub lambda: f64,
    pub g: f64,
    pub rr: f64,
    pub mr: f64,
    pub irxx: f64,
    pub iryy: f64,
    pub xb: f64,
    pub zb: f64,
    pub mb: f64,
    pub ibxx: f64,
    pub ibyy: f64,
    pub ibzz: f64,
    pub ibxz: f64,
    pub xh: f64,
    pub zh: f64,
    pub mh: f64,
    pub ihxx: f64,
    pub ihyy: f64,
    pub ihzz: f64,
    pub ihxz: f64,
    pub rf: f64,
    pub mf: f64,
    pub ifxx: f64,
    pub ifyy: f64,
}

/// The same bicycle as `whipple.rs`'s (its parameters, field by field): the two models side by side
/// in `tests/bicycle.rs` and `benches/bicycle.rs`, which include both files as sibling modules.
pub fn from_bodies(b: &super::whipple::Bicycle) -> HandBicycle {
    // Each field named once: the destructuring is exhaustive over the bodies model's fields and the
    // struct expression over this one's, so a parameter added to either is a compile error here.
    macro_rules! same_fields {
        ($($field:ident),*) => {{
            let super::whipple::Bicycle { $($field),* } = *b;
            HandBicycle { $($field),* }
        }};
    }
    same_fields!(
        w, c, lambda, g, rr, mr, irxx, iryy, xb, zb, mb, ibxx, ibyy, ibzz, ibxz, xh, zh, mh, ihxx, ihyy, ihzz, ihxz, rf, mf,
        ifxx, ifyy
    )
}
