// Written by routh_macros_core::fixtures::{relative_chain_struct_with, pendulum_chain_with}; see tests/chain_models.rs.

/// Planar chain of 10 links in relative angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10),
    define(
        a1 = q1, x1 = l * a1.sin(), y1 = -l * a1.cos(),
        a2 = a1 + q2, x2 = x1 + l * a2.sin(), y2 = y1 - l * a2.cos(),
        a3 = a2 + q3, x3 = x2 + l * a3.sin(), y3 = y2 - l * a3.cos(),
        a4 = a3 + q4, x4 = x3 + l * a4.sin(), y4 = y3 - l * a4.cos(),
        a5 = a4 + q5, x5 = x4 + l * a5.sin(), y5 = y4 - l * a5.cos(),
        a6 = a5 + q6, x6 = x5 + l * a6.sin(), y6 = y5 - l * a6.cos(),
        a7 = a6 + q7, x7 = x6 + l * a7.sin(), y7 = y6 - l * a7.cos(),
        a8 = a7 + q8, x8 = x7 + l * a8.sin(), y8 = y7 - l * a8.cos(),
        a9 = a8 + q9, x9 = x8 + l * a9.sin(), y9 = y8 - l * a9.cos(),
        a10 = a9 + q10, x10 = x9 + l * a10.sin(), y10 = y9 - l * a10.cos(),
    ),
    lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2)
        + dot(x2).powi(2) + dot(y2).powi(2)
        + dot(x3).powi(2) + dot(y3).powi(2)
        + dot(x4).powi(2) + dot(y4).powi(2)
        + dot(x5).powi(2) + dot(y5).powi(2)
        + dot(x6).powi(2) + dot(y6).powi(2)
        + dot(x7).powi(2) + dot(y7).powi(2)
        + dot(x8).powi(2) + dot(y8).powi(2)
        + dot(x9).powi(2) + dot(y9).powi(2)
        + dot(x10).powi(2) + dot(y10).powi(2))
        - m * g * (y1 + y2 + y3 + y4 + y5 + y6 + y7 + y8 + y9 + y10),
    jacobian, sensitivity(l), dynamics = columns,
)]
pub struct Relative10Columns {
    pub m: f64,
    pub l: f64,
    pub g: f64,
}

/// Planar chain of 10 links in relative angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10),
    define(
        a1 = q1, x1 = l * a1.sin(), y1 = -l * a1.cos(),
        a2 = a1 + q2, x2 = x1 + l * a2.sin(), y2 = y1 - l * a2.cos(),
        a3 = a2 + q3, x3 = x2 + l * a3.sin(), y3 = y2 - l * a3.cos(),
        a4 = a3 + q4, x4 = x3 + l * a4.sin(), y4 = y3 - l * a4.cos(),
        a5 = a4 + q5, x5 = x4 + l * a5.sin(), y5 = y4 - l * a5.cos(),
        a6 = a5 + q6, x6 = x5 + l * a6.sin(), y6 = y5 - l * a6.cos(),
        a7 = a6 + q7, x7 = x6 + l * a7.sin(), y7 = y6 - l * a7.cos(),
        a8 = a7 + q8, x8 = x7 + l * a8.sin(), y8 = y7 - l * a8.cos(),
        a9 = a8 + q9, x9 = x8 + l * a9.sin(), y9 = y8 - l * a9.cos(),
        a10 = a9 + q10, x10 = x9 + l * a10.sin(), y10 = y9 - l * a10.cos(),
    ),
    lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2)
        + dot(x2).powi(2) + dot(y2).powi(2)
        + dot(x3).powi(2) + dot(y3).powi(2)
        + dot(x4).powi(2) + dot(y4).powi(2)
        + dot(x5).powi(2) + dot(y5).powi(2)
        + dot(x6).powi(2) + dot(y6).powi(2)
        + dot(x7).powi(2) + dot(y7).powi(2)
        + dot(x8).powi(2) + dot(y8).powi(2)
        + dot(x9).powi(2) + dot(y9).powi(2)
        + dot(x10).powi(2) + dot(y10).powi(2))
        - m * g * (y1 + y2 + y3 + y4 + y5 + y6 + y7 + y8 + y9 + y10),
    jacobian, sensitivity(l), dynamics = dense,
)]
pub struct Relative10Dense {
    pub m: f64,
    pub l: f64,
    pub g: f64,
}

/// Planar chain of 20 links in relative angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20),
    define(
        a1 = q1, x1 = l * a1.sin(), y1 = -l * a1.cos(),
        a2 = a1 + q2, x2 = x1 + l * a2.sin(), y2 = y1 - l * a2.cos(),
        a3 = a2 + q3, x3 = x2 + l * a3.sin(), y3 = y2 - l * a3.cos(),
        a4 = a3 + q4, x4 = x3 + l * a4.sin(), y4 = y3 - l * a4.cos(),
        a5 = a4 + q5, x5 = x4 + l * a5.sin(), y5 = y4 - l * a5.cos(),
        a6 = a5 + q6, x6 = x5 + l * a6.sin(), y6 = y5 - l * a6.cos(),
        a7 = a6 + q7, x7 = x6 + l * a7.sin(), y7 = y6 - l * a7.cos(),
        a8 = a7 + q8, x8 = x7 + l * a8.sin(), y8 = y7 - l * a8.cos(),
        a9 = a8 + q9, x9 = x8 + l * a9.sin(), y9 = y8 - l * a9.cos(),
        a10 = a9 + q10, x10 = x9 + l * a10.sin(), y10 = y9 - l * a10.cos(),
        a11 = a10 + q11, x11 = x10 + l * a11.sin(), y11 = y10 - l * a11.cos(),
        a12 = a11 + q12, x12 = x11 + l * a12.sin(), y12 = y11 - l * a12.cos(),
        a13 = a12 + q13, x13 = x12 + l * a13.sin(), y13 = y12 - l * a13.cos(),
        a14 = a13 + q14, x14 = x13 + l * a14.sin(), y14 = y13 - l * a14.cos(),
        a15 = a14 + q15, x15 = x14 + l * a15.sin(), y15 = y14 - l * a15.cos(),
        a16 = a15 + q16, x16 = x15 + l * a16.sin(), y16 = y15 - l * a16.cos(),
        a17 = a16 + q17, x17 = x16 + l * a17.sin(), y17 = y16 - l * a17.cos(),
        a18 = a17 + q18, x18 = x17 + l * a18.sin(), y18 = y17 - l * a18.cos(),
        a19 = a18 + q19, x19 = x18 + l * a19.sin(), y19 = y18 - l * a19.cos(),
        a20 = a19 + q20, x20 = x19 + l * a20.sin(), y20 = y19 - l * a20.cos(),
    ),
    lagrangian = m / 2 * (dot(x1).powi(2) + dot(y1).powi(2)
        + dot(x2).powi(2) + dot(y2).powi(2)
        + dot(x3).powi(2) + dot(y3).powi(2)
        + dot(x4).powi(2) + dot(y4).powi(2)
        + dot(x5).powi(2) + dot(y5).powi(2)
        + dot(x6).powi(2) + dot(y6).powi(2)
        + dot(x7).powi(2) + dot(y7).powi(2)
        + dot(x8).powi(2) + dot(y8).powi(2)
        + dot(x9).powi(2) + dot(y9).powi(2)
        + dot(x10).powi(2) + dot(y10).powi(2)
        + dot(x11).powi(2) + dot(y11).powi(2)
        + dot(x12).powi(2) + dot(y12).powi(2)
        + dot(x13).powi(2) + dot(y13).powi(2)
        + dot(x14).powi(2) + dot(y14).powi(2)
        + dot(x15).powi(2) + dot(y15).powi(2)
        + dot(x16).powi(2) + dot(y16).powi(2)
        + dot(x17).powi(2) + dot(y17).powi(2)
        + dot(x18).powi(2) + dot(y18).powi(2)
        + dot(x19).powi(2) + dot(y19).powi(2)
        + dot(x20).powi(2) + dot(y20).powi(2))
        - m * g * (y1 + y2 + y3 + y4 + y5 + y6 + y7 + y8 + y9 + y10 + y11 + y12 + y13 + y14 + y15 + y16 + y17 + y18 + y19 + y20),
    jacobian,
)]
pub struct Relative20 {
    pub m: f64,
    pub l: f64,
    pub g: f64,
}

/// Planar pendulum chain with 10 links.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10),
    define(
        x1 = l1 * q1.sin(), y1 = -l1 * q1.cos(),
        x2 = x1 + l2 * q2.sin(), y2 = y1 - l2 * q2.cos(),
        x3 = x2 + l3 * q3.sin(), y3 = y2 - l3 * q3.cos(),
        x4 = x3 + l4 * q4.sin(), y4 = y3 - l4 * q4.cos(),
        x5 = x4 + l5 * q5.sin(), y5 = y4 - l5 * q5.cos(),
        x6 = x5 + l6 * q6.sin(), y6 = y5 - l6 * q6.cos(),
        x7 = x6 + l7 * q7.sin(), y7 = y6 - l7 * q7.cos(),
        x8 = x7 + l8 * q8.sin(), y8 = y7 - l8 * q8.cos(),
        x9 = x8 + l9 * q9.sin(), y9 = y8 - l9 * q9.cos(),
        x10 = x9 + l10 * q10.sin(), y10 = y9 - l10 * q10.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
        + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
        + m3 / 2 * (dot(x3).powi(2) + dot(y3).powi(2))
        + m4 / 2 * (dot(x4).powi(2) + dot(y4).powi(2))
        + m5 / 2 * (dot(x5).powi(2) + dot(y5).powi(2))
        + m6 / 2 * (dot(x6).powi(2) + dot(y6).powi(2))
        + m7 / 2 * (dot(x7).powi(2) + dot(y7).powi(2))
        + m8 / 2 * (dot(x8).powi(2) + dot(y8).powi(2))
        + m9 / 2 * (dot(x9).powi(2) + dot(y9).powi(2))
        + m10 / 2 * (dot(x10).powi(2) + dot(y10).powi(2))
        - g * (m1 * y1 + m2 * y2 + m3 * y3 + m4 * y4 + m5 * y5 + m6 * y6 + m7 * y7 + m8 * y8 + m9 * y9 + m10 * y10),
    dynamics = recursive,
)]
pub struct Absolute10 {
    pub m1: f64,
    pub l1: f64,
    pub m2: f64,
    pub l2: f64,
    pub m3: f64,
    pub l3: f64,
    pub m4: f64,
    pub l4: f64,
    pub m5: f64,
    pub l5: f64,
    pub m6: f64,
    pub l6: f64,
    pub m7: f64,
    pub l7: f64,
    pub m8: f64,
    pub l8: f64,
    pub m9: f64,
    pub l9: f64,
    pub m10: f64,
    pub l10: f64,
    pub g: f64,
}

impl Absolute10 {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Absolute10 { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, g }
    }
}
