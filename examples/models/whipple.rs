//! The Whipple bicycle (Meijaard, Papadopoulos, Ruina and Schwab, Proc. R. Soc. A 463, 2007) in
//! routh's DSL, shared by `examples/bicycle.rs` and `tests/bicycle.rs`: four bodies (rear wheel,
//! rear frame with rider, front frame with handlebar, front wheel), the front wheel's contact with
//! the ground as a holonomic constraint (it fixes the pitch) and no slip at both contacts.
//!
//! Coordinates: rear contact (x, y), yaw ψ, roll φ, pitch θ of the rear frame, steer δ, and the
//! wheels' rotations. Axes: x forward, y left, z up (the benchmark's z points down, so its
//! heights and products of inertia I_xz change sign here).

use routh::prelude::*;

/// The Whipple bicycle: 40 model lines.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, psi, phi, theta, delta, spin_r, spin_f),
    define(
        // The velocity of the material point at p of a body with frame f and a point o of it.
        material_velocity(f, o, p) = dot(o) + (f * omega(f)).cross(p - o),
        // The lowest point of a wheel (centre o, frame f, axle its y-axis, radius r): the contact with z = 0.
        lowest_point(f, o, r) = o - r * wheel_down(f * [0, 1, 0]),
        wheel_down(axle) = ([0, 0, 1] - axle[2] * axle) / ([0, 0, 1] - axle[2] * axle).norm(),
        steer_axis = rot_y(-lambda) * rot_z(delta) * rot_y(lambda),
    ),
    frame(
        lean = rot_z(psi) * rot_x(phi),
        rear = lean * rot_y(theta),
        fork = rear * steer_axis,
        rear_wheel = rear * rot_y(spin_r),
        front_wheel = fork * rot_y(spin_f),
    ),
    point(
        rear_contact = [x, y, 0],
        rear_centre = rear_contact + lean * [0, 0, rr],
        steer_foot = rear_centre + rear * [w + c, 0, -rr],
        front_centre = steer_foot + fork * [-c, 0, rf],
        front_contact = lowest_point(fork, front_centre, rf),
    ),
    body(name = rear_wheel_body, mass = mr, centre = rear_centre, frame = rear_wheel, inertia = diag(irxx, iryy, irxx)),
    body(name = frame_body, mass = mb, centre = rear_centre + rear * [xb, 0, zb - rr], frame = rear,
         inertia = [[ibxx, 0, ibxz], [0, ibyy, 0], [ibxz, 0, ibzz]]),
    body(name = fork_body, mass = mh, centre = steer_foot + fork * [xh - w - c, 0, zh], frame = fork,
         inertia = [[ihxx, 0, ihxz], [0, ihyy, 0], [ihxz, 0, ihzz]]),
    body(name = front_wheel_body, mass = mf, centre = front_centre, frame = front_wheel, inertia = diag(ifxx, ifyy, ifxx)),
    gravity = [0, 0, -g],
    jacobian,
    holonomic(front_touch = front_contact[2]),
    constraint(
        rear_x = material_velocity(rear_wheel, rear_centre, rear_contact)[0],
        rear_y = material_velocity(rear_wheel, rear_centre, rear_contact)[1],
        front_x = material_velocity(front_wheel, front_centre, front_contact)[0],
        front_y = material_velocity(front_wheel, front_centre, front_contact)[1],
    ),
)]
pub struct Bicycle {
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

/// The benchmark's parameters (Meijaard et al. 2007, Table 1), in z-up axes.
pub fn benchmark() -> Bicycle {
    Bicycle {
        w: 1.02,
        c: 0.08,
        lambda: std::f64::consts::PI / 10.0,
        g: 9.81,
        rr: 0.3,
        mr: 2.0,
        irxx: 0.0603,
        iryy: 0.12,
        xb: 0.3,
        zb: 0.9,
        mb: 85.0,
        ibxx: 9.2,
        ibyy: 11.0,
        ibzz: 2.8,
        ibxz: -2.4,
        xh: 0.9,
        zh: 0.7,
        mh: 4.0,
        ihxx: 0.05892,
        ihyy: 0.06,
        ihzz: 0.00708,
        ihxz: 0.00756,
        rf: 0.35,
        mf: 3.0,
        ifxx: 0.1405,
        ifyy: 0.28,
    }
}

/// Upright straight running at speed v with roll and steer rates (φ̇, δ̇): the rear wheel turns at
/// v / r_R; the other velocities follow from the constraints.
pub fn running(b: &Bicycle, v: f64, roll_rate: f64, steer_rate: f64) -> SVector<f64, 16> {
    let known = [false, false, false, true, false, true, true, false];
    b.state_with_known_velocities(0.0, [0.0; 8], [v, 0.0, 0.0, roll_rate, 0.0, steer_rate, v / b.rr, v / b.rf], known).unwrap()
}

/// The largest |roll| of a run over the window [from, to].
pub fn worst_roll(sol: &Trajectory<16>, from: f64, to: f64) -> f64 {
    sol.iter().filter(|(t, _)| (from..=to).contains(t)).map(|(_, x)| x[3].abs()).fold(0.0, f64::max)
}
