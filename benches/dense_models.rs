// Written by routh_macros_core::fixtures::relative_chain_struct_with; see tests/chain_models.rs.

/// Planar chain of 30 links in relative angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22, q23, q24, q25, q26, q27, q28, q29, q30),
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
        a21 = a20 + q21, x21 = x20 + l * a21.sin(), y21 = y20 - l * a21.cos(),
        a22 = a21 + q22, x22 = x21 + l * a22.sin(), y22 = y21 - l * a22.cos(),
        a23 = a22 + q23, x23 = x22 + l * a23.sin(), y23 = y22 - l * a23.cos(),
        a24 = a23 + q24, x24 = x23 + l * a24.sin(), y24 = y23 - l * a24.cos(),
        a25 = a24 + q25, x25 = x24 + l * a25.sin(), y25 = y24 - l * a25.cos(),
        a26 = a25 + q26, x26 = x25 + l * a26.sin(), y26 = y25 - l * a26.cos(),
        a27 = a26 + q27, x27 = x26 + l * a27.sin(), y27 = y26 - l * a27.cos(),
        a28 = a27 + q28, x28 = x27 + l * a28.sin(), y28 = y27 - l * a28.cos(),
        a29 = a28 + q29, x29 = x28 + l * a29.sin(), y29 = y28 - l * a29.cos(),
        a30 = a29 + q30, x30 = x29 + l * a30.sin(), y30 = y29 - l * a30.cos(),
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
        + dot(x20).powi(2) + dot(y20).powi(2)
        + dot(x21).powi(2) + dot(y21).powi(2)
        + dot(x22).powi(2) + dot(y22).powi(2)
        + dot(x23).powi(2) + dot(y23).powi(2)
        + dot(x24).powi(2) + dot(y24).powi(2)
        + dot(x25).powi(2) + dot(y25).powi(2)
        + dot(x26).powi(2) + dot(y26).powi(2)
        + dot(x27).powi(2) + dot(y27).powi(2)
        + dot(x28).powi(2) + dot(y28).powi(2)
        + dot(x29).powi(2) + dot(y29).powi(2)
        + dot(x30).powi(2) + dot(y30).powi(2))
        - m * g * (y1 + y2 + y3 + y4 + y5 + y6 + y7 + y8 + y9 + y10 + y11 + y12 + y13 + y14 + y15 + y16 + y17 + y18 + y19 + y20 + y21 + y22 + y23 + y24 + y25 + y26 + y27 + y28 + y29 + y30),
    dynamics = dense,
)]
pub struct Relative30Entries {
    pub m: f64,
    pub l: f64,
    pub g: f64,
}

/// Planar chain of 30 links in relative angles.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22, q23, q24, q25, q26, q27, q28, q29, q30),
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
        a21 = a20 + q21, x21 = x20 + l * a21.sin(), y21 = y20 - l * a21.cos(),
        a22 = a21 + q22, x22 = x21 + l * a22.sin(), y22 = y21 - l * a22.cos(),
        a23 = a22 + q23, x23 = x22 + l * a23.sin(), y23 = y22 - l * a23.cos(),
        a24 = a23 + q24, x24 = x23 + l * a24.sin(), y24 = y23 - l * a24.cos(),
        a25 = a24 + q25, x25 = x24 + l * a25.sin(), y25 = y24 - l * a25.cos(),
        a26 = a25 + q26, x26 = x25 + l * a26.sin(), y26 = y25 - l * a26.cos(),
        a27 = a26 + q27, x27 = x26 + l * a27.sin(), y27 = y26 - l * a27.cos(),
        a28 = a27 + q28, x28 = x27 + l * a28.sin(), y28 = y27 - l * a28.cos(),
        a29 = a28 + q29, x29 = x28 + l * a29.sin(), y29 = y28 - l * a29.cos(),
        a30 = a29 + q30, x30 = x29 + l * a30.sin(), y30 = y29 - l * a30.cos(),
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
        + dot(x20).powi(2) + dot(y20).powi(2)
        + dot(x21).powi(2) + dot(y21).powi(2)
        + dot(x22).powi(2) + dot(y22).powi(2)
        + dot(x23).powi(2) + dot(y23).powi(2)
        + dot(x24).powi(2) + dot(y24).powi(2)
        + dot(x25).powi(2) + dot(y25).powi(2)
        + dot(x26).powi(2) + dot(y26).powi(2)
        + dot(x27).powi(2) + dot(y27).powi(2)
        + dot(x28).powi(2) + dot(y28).powi(2)
        + dot(x29).powi(2) + dot(y29).powi(2)
        + dot(x30).powi(2) + dot(y30).powi(2))
        - m * g * (y1 + y2 + y3 + y4 + y5 + y6 + y7 + y8 + y9 + y10 + y11 + y12 + y13 + y14 + y15 + y16 + y17 + y18 + y19 + y20 + y21 + y22 + y23 + y24 + y25 + y26 + y27 + y28 + y29 + y30),
    jacobian, dynamics = columns,
)]
pub struct Relative30Columns {
    pub m: f64,
    pub l: f64,
    pub g: f64,
}
