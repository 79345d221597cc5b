// Written by routh_macros_core::fixtures::spatial_chain_struct_with; see tests/chain_models.rs.

/// Chain of 20 rigid links in space.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20),
    frame(b1 = rot_z(q1), b2 = b1 * rot_y(q2), b3 = b2 * rot_x(q3), b4 = b3 * rot_z(q4), b5 = b4 * rot_y(q5), b6 = b5 * rot_x(q6), b7 = b6 * rot_z(q7), b8 = b7 * rot_y(q8), b9 = b8 * rot_x(q9), b10 = b9 * rot_z(q10), b11 = b10 * rot_y(q11), b12 = b11 * rot_x(q12), b13 = b12 * rot_z(q13), b14 = b13 * rot_y(q14), b15 = b14 * rot_x(q15), b16 = b15 * rot_z(q16), b17 = b16 * rot_y(q17), b18 = b17 * rot_x(q18), b19 = b18 * rot_z(q19), b20 = b19 * rot_y(q20)),
    point(e1 = b1 * [0, 0, -l], e2 = e1 + b2 * [0, 0, -l], e3 = e2 + b3 * [0, 0, -l], e4 = e3 + b4 * [0, 0, -l], e5 = e4 + b5 * [0, 0, -l], e6 = e5 + b6 * [0, 0, -l], e7 = e6 + b7 * [0, 0, -l], e8 = e7 + b8 * [0, 0, -l], e9 = e8 + b9 * [0, 0, -l], e10 = e9 + b10 * [0, 0, -l], e11 = e10 + b11 * [0, 0, -l], e12 = e11 + b12 * [0, 0, -l], e13 = e12 + b13 * [0, 0, -l], e14 = e13 + b14 * [0, 0, -l], e15 = e14 + b15 * [0, 0, -l], e16 = e15 + b16 * [0, 0, -l], e17 = e16 + b17 * [0, 0, -l], e18 = e17 + b18 * [0, 0, -l], e19 = e18 + b19 * [0, 0, -l], e20 = e19 + b20 * [0, 0, -l]),
    body(name = r1, mass = m, centre = b1 * [0, 0, -l / 2], frame = b1, inertia = diag(i, i, j)),
    body(name = r2, mass = m, centre = e1 + b2 * [0, 0, -l / 2], frame = b2, inertia = diag(i, i, j)),
    body(name = r3, mass = m, centre = e2 + b3 * [0, 0, -l / 2], frame = b3, inertia = diag(i, i, j)),
    body(name = r4, mass = m, centre = e3 + b4 * [0, 0, -l / 2], frame = b4, inertia = diag(i, i, j)),
    body(name = r5, mass = m, centre = e4 + b5 * [0, 0, -l / 2], frame = b5, inertia = diag(i, i, j)),
    body(name = r6, mass = m, centre = e5 + b6 * [0, 0, -l / 2], frame = b6, inertia = diag(i, i, j)),
    body(name = r7, mass = m, centre = e6 + b7 * [0, 0, -l / 2], frame = b7, inertia = diag(i, i, j)),
    body(name = r8, mass = m, centre = e7 + b8 * [0, 0, -l / 2], frame = b8, inertia = diag(i, i, j)),
    body(name = r9, mass = m, centre = e8 + b9 * [0, 0, -l / 2], frame = b9, inertia = diag(i, i, j)),
    body(name = r10, mass = m, centre = e9 + b10 * [0, 0, -l / 2], frame = b10, inertia = diag(i, i, j)),
    body(name = r11, mass = m, centre = e10 + b11 * [0, 0, -l / 2], frame = b11, inertia = diag(i, i, j)),
    body(name = r12, mass = m, centre = e11 + b12 * [0, 0, -l / 2], frame = b12, inertia = diag(i, i, j)),
    body(name = r13, mass = m, centre = e12 + b13 * [0, 0, -l / 2], frame = b13, inertia = diag(i, i, j)),
    body(name = r14, mass = m, centre = e13 + b14 * [0, 0, -l / 2], frame = b14, inertia = diag(i, i, j)),
    body(name = r15, mass = m, centre = e14 + b15 * [0, 0, -l / 2], frame = b15, inertia = diag(i, i, j)),
    body(name = r16, mass = m, centre = e15 + b16 * [0, 0, -l / 2], frame = b16, inertia = diag(i, i, j)),
    body(name = r17, mass = m, centre = e16 + b17 * [0, 0, -l / 2], frame = b17, inertia = diag(i, i, j)),
    body(name = r18, mass = m, centre = e17 + b18 * [0, 0, -l / 2], frame = b18, inertia = diag(i, i, j)),
    body(name = r19, mass = m, centre = e18 + b19 * [0, 0, -l / 2], frame = b19, inertia = diag(i, i, j)),
    body(name = r20, mass = m, centre = e19 + b20 * [0, 0, -l / 2], frame = b20, inertia = diag(i, i, j)),
    gravity = [0, 0, -g],
    holonomic(tip_x = e20[0] - 0.3, tip_y = e20[1] - 0.2),
)]
pub struct Held20 {
    pub m: f64,
    pub l: f64,
    pub i: f64,
    pub j: f64,
    pub g: f64,
}

/// Chain of 20 rigid links in space.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20),
    frame(b1 = rot_z(q1), b2 = b1 * rot_y(q2), b3 = b2 * rot_x(q3), b4 = b3 * rot_z(q4), b5 = b4 * rot_y(q5), b6 = b5 * rot_x(q6), b7 = b6 * rot_z(q7), b8 = b7 * rot_y(q8), b9 = b8 * rot_x(q9), b10 = b9 * rot_z(q10), b11 = b10 * rot_y(q11), b12 = b11 * rot_x(q12), b13 = b12 * rot_z(q13), b14 = b13 * rot_y(q14), b15 = b14 * rot_x(q15), b16 = b15 * rot_z(q16), b17 = b16 * rot_y(q17), b18 = b17 * rot_x(q18), b19 = b18 * rot_z(q19), b20 = b19 * rot_y(q20)),
    point(e1 = b1 * [0, 0, -l], e2 = e1 + b2 * [0, 0, -l], e3 = e2 + b3 * [0, 0, -l], e4 = e3 + b4 * [0, 0, -l], e5 = e4 + b5 * [0, 0, -l], e6 = e5 + b6 * [0, 0, -l], e7 = e6 + b7 * [0, 0, -l], e8 = e7 + b8 * [0, 0, -l], e9 = e8 + b9 * [0, 0, -l], e10 = e9 + b10 * [0, 0, -l], e11 = e10 + b11 * [0, 0, -l], e12 = e11 + b12 * [0, 0, -l], e13 = e12 + b13 * [0, 0, -l], e14 = e13 + b14 * [0, 0, -l], e15 = e14 + b15 * [0, 0, -l], e16 = e15 + b16 * [0, 0, -l], e17 = e16 + b17 * [0, 0, -l], e18 = e17 + b18 * [0, 0, -l], e19 = e18 + b19 * [0, 0, -l], e20 = e19 + b20 * [0, 0, -l]),
    body(name = r1, mass = m, centre = b1 * [0, 0, -l / 2], frame = b1, inertia = diag(i, i, j)),
    body(name = r2, mass = m, centre = e1 + b2 * [0, 0, -l / 2], frame = b2, inertia = diag(i, i, j)),
    body(name = r3, mass = m, centre = e2 + b3 * [0, 0, -l / 2], frame = b3, inertia = diag(i, i, j)),
    body(name = r4, mass = m, centre = e3 + b4 * [0, 0, -l / 2], frame = b4, inertia = diag(i, i, j)),
    body(name = r5, mass = m, centre = e4 + b5 * [0, 0, -l / 2], frame = b5, inertia = diag(i, i, j)),
    body(name = r6, mass = m, centre = e5 + b6 * [0, 0, -l / 2], frame = b6, inertia = diag(i, i, j)),
    body(name = r7, mass = m, centre = e6 + b7 * [0, 0, -l / 2], frame = b7, inertia = diag(i, i, j)),
    body(name = r8, mass = m, centre = e7 + b8 * [0, 0, -l / 2], frame = b8, inertia = diag(i, i, j)),
    body(name = r9, mass = m, centre = e8 + b9 * [0, 0, -l / 2], frame = b9, inertia = diag(i, i, j)),
    body(name = r10, mass = m, centre = e9 + b10 * [0, 0, -l / 2], frame = b10, inertia = diag(i, i, j)),
    body(name = r11, mass = m, centre = e10 + b11 * [0, 0, -l / 2], frame = b11, inertia = diag(i, i, j)),
    body(name = r12, mass = m, centre = e11 + b12 * [0, 0, -l / 2], frame = b12, inertia = diag(i, i, j)),
    body(name = r13, mass = m, centre = e12 + b13 * [0, 0, -l / 2], frame = b13, inertia = diag(i, i, j)),
    body(name = r14, mass = m, centre = e13 + b14 * [0, 0, -l / 2], frame = b14, inertia = diag(i, i, j)),
    body(name = r15, mass = m, centre = e14 + b15 * [0, 0, -l / 2], frame = b15, inertia = diag(i, i, j)),
    body(name = r16, mass = m, centre = e15 + b16 * [0, 0, -l / 2], frame = b16, inertia = diag(i, i, j)),
    body(name = r17, mass = m, centre = e16 + b17 * [0, 0, -l / 2], frame = b17, inertia = diag(i, i, j)),
    body(name = r18, mass = m, centre = e17 + b18 * [0, 0, -l / 2], frame = b18, inertia = diag(i, i, j)),
    body(name = r19, mass = m, centre = e18 + b19 * [0, 0, -l / 2], frame = b19, inertia = diag(i, i, j)),
    body(name = r20, mass = m, centre = e19 + b20 * [0, 0, -l / 2], frame = b20, inertia = diag(i, i, j)),
    gravity = [0, 0, -g],
)]
pub struct Free20 {
    pub m: f64,
    pub l: f64,
    pub i: f64,
    pub j: f64,
    pub g: f64,
}
