// Written by routh_macros_core::fixtures::pendulum_chain; see tests/chain_models.rs.

/// Planar pendulum chain with 2 links.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2),
    define(
        x1 = l1 * q1.sin(), y1 = -l1 * q1.cos(),
        x2 = x1 + l2 * q2.sin(), y2 = y1 - l2 * q2.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
        + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
        - g * (m1 * y1 + m2 * y2),
)]
pub struct Chain2 {
    pub m1: f64,
    pub l1: f64,
    pub m2: f64,
    pub l2: f64,
    pub g: f64,
}

impl Chain2 {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain2 { m1: m, l1: l, m2: m, l2: l, g }
    }
}

/// Planar pendulum chain with 5 links.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5),
    define(
        x1 = l1 * q1.sin(), y1 = -l1 * q1.cos(),
        x2 = x1 + l2 * q2.sin(), y2 = y1 - l2 * q2.cos(),
        x3 = x2 + l3 * q3.sin(), y3 = y2 - l3 * q3.cos(),
        x4 = x3 + l4 * q4.sin(), y4 = y3 - l4 * q4.cos(),
        x5 = x4 + l5 * q5.sin(), y5 = y4 - l5 * q5.cos(),
    ),
    lagrangian = m1 / 2 * (dot(x1).powi(2) + dot(y1).powi(2))
        + m2 / 2 * (dot(x2).powi(2) + dot(y2).powi(2))
        + m3 / 2 * (dot(x3).powi(2) + dot(y3).powi(2))
        + m4 / 2 * (dot(x4).powi(2) + dot(y4).powi(2))
        + m5 / 2 * (dot(x5).powi(2) + dot(y5).powi(2))
        - g * (m1 * y1 + m2 * y2 + m3 * y3 + m4 * y4 + m5 * y5),
)]
pub struct Chain5 {
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
    pub g: f64,
}

impl Chain5 {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain5 { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, g }
    }
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
)]
pub struct Chain10 {
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

impl Chain10 {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain10 { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, g }
    }
}

/// Planar pendulum chain with 20 links.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20),
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
        x11 = x10 + l11 * q11.sin(), y11 = y10 - l11 * q11.cos(),
        x12 = x11 + l12 * q12.sin(), y12 = y11 - l12 * q12.cos(),
        x13 = x12 + l13 * q13.sin(), y13 = y12 - l13 * q13.cos(),
        x14 = x13 + l14 * q14.sin(), y14 = y13 - l14 * q14.cos(),
        x15 = x14 + l15 * q15.sin(), y15 = y14 - l15 * q15.cos(),
        x16 = x15 + l16 * q16.sin(), y16 = y15 - l16 * q16.cos(),
        x17 = x16 + l17 * q17.sin(), y17 = y16 - l17 * q17.cos(),
        x18 = x17 + l18 * q18.sin(), y18 = y17 - l18 * q18.cos(),
        x19 = x18 + l19 * q19.sin(), y19 = y18 - l19 * q19.cos(),
        x20 = x19 + l20 * q20.sin(), y20 = y19 - l20 * q20.cos(),
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
        + m11 / 2 * (dot(x11).powi(2) + dot(y11).powi(2))
        + m12 / 2 * (dot(x12).powi(2) + dot(y12).powi(2))
        + m13 / 2 * (dot(x13).powi(2) + dot(y13).powi(2))
        + m14 / 2 * (dot(x14).powi(2) + dot(y14).powi(2))
        + m15 / 2 * (dot(x15).powi(2) + dot(y15).powi(2))
        + m16 / 2 * (dot(x16).powi(2) + dot(y16).powi(2))
        + m17 / 2 * (dot(x17).powi(2) + dot(y17).powi(2))
        + m18 / 2 * (dot(x18).powi(2) + dot(y18).powi(2))
        + m19 / 2 * (dot(x19).powi(2) + dot(y19).powi(2))
        + m20 / 2 * (dot(x20).powi(2) + dot(y20).powi(2))
        - g * (m1 * y1 + m2 * y2 + m3 * y3 + m4 * y4 + m5 * y5 + m6 * y6 + m7 * y7 + m8 * y8 + m9 * y9 + m10 * y10 + m11 * y11 + m12 * y12 + m13 * y13 + m14 * y14 + m15 * y15 + m16 * y16 + m17 * y17 + m18 * y18 + m19 * y19 + m20 * y20),
)]
pub struct Chain20 {
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
    pub m11: f64,
    pub l11: f64,
    pub m12: f64,
    pub l12: f64,
    pub m13: f64,
    pub l13: f64,
    pub m14: f64,
    pub l14: f64,
    pub m15: f64,
    pub l15: f64,
    pub m16: f64,
    pub l16: f64,
    pub m17: f64,
    pub l17: f64,
    pub m18: f64,
    pub l18: f64,
    pub m19: f64,
    pub l19: f64,
    pub m20: f64,
    pub l20: f64,
    pub g: f64,
}

impl Chain20 {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain20 { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, g }
    }
}

/// Planar pendulum chain with 30 links.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22, q23, q24, q25, q26, q27, q28, q29, q30),
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
        x11 = x10 + l11 * q11.sin(), y11 = y10 - l11 * q11.cos(),
        x12 = x11 + l12 * q12.sin(), y12 = y11 - l12 * q12.cos(),
        x13 = x12 + l13 * q13.sin(), y13 = y12 - l13 * q13.cos(),
        x14 = x13 + l14 * q14.sin(), y14 = y13 - l14 * q14.cos(),
        x15 = x14 + l15 * q15.sin(), y15 = y14 - l15 * q15.cos(),
        x16 = x15 + l16 * q16.sin(), y16 = y15 - l16 * q16.cos(),
        x17 = x16 + l17 * q17.sin(), y17 = y16 - l17 * q17.cos(),
        x18 = x17 + l18 * q18.sin(), y18 = y17 - l18 * q18.cos(),
        x19 = x18 + l19 * q19.sin(), y19 = y18 - l19 * q19.cos(),
        x20 = x19 + l20 * q20.sin(), y20 = y19 - l20 * q20.cos(),
        x21 = x20 + l21 * q21.sin(), y21 = y20 - l21 * q21.cos(),
        x22 = x21 + l22 * q22.sin(), y22 = y21 - l22 * q22.cos(),
        x23 = x22 + l23 * q23.sin(), y23 = y22 - l23 * q23.cos(),
        x24 = x23 + l24 * q24.sin(), y24 = y23 - l24 * q24.cos(),
        x25 = x24 + l25 * q25.sin(), y25 = y24 - l25 * q25.cos(),
        x26 = x25 + l26 * q26.sin(), y26 = y25 - l26 * q26.cos(),
        x27 = x26 + l27 * q27.sin(), y27 = y26 - l27 * q27.cos(),
        x28 = x27 + l28 * q28.sin(), y28 = y27 - l28 * q28.cos(),
        x29 = x28 + l29 * q29.sin(), y29 = y28 - l29 * q29.cos(),
        x30 = x29 + l30 * q30.sin(), y30 = y29 - l30 * q30.cos(),
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
        + m11 / 2 * (dot(x11).powi(2) + dot(y11).powi(2))
        + m12 / 2 * (dot(x12).powi(2) + dot(y12).powi(2))
        + m13 / 2 * (dot(x13).powi(2) + dot(y13).powi(2))
        + m14 / 2 * (dot(x14).powi(2) + dot(y14).powi(2))
        + m15 / 2 * (dot(x15).powi(2) + dot(y15).powi(2))
        + m16 / 2 * (dot(x16).powi(2) + dot(y16).powi(2))
        + m17 / 2 * (dot(x17).powi(2) + dot(y17).powi(2))
        + m18 / 2 * (dot(x18).powi(2) + dot(y18).powi(2))
        + m19 / 2 * (dot(x19).powi(2) + dot(y19).powi(2))
        + m20 / 2 * (dot(x20).powi(2) + dot(y20).powi(2))
        + m21 / 2 * (dot(x21).powi(2) + dot(y21).powi(2))
        + m22 / 2 * (dot(x22).powi(2) + dot(y22).powi(2))
        + m23 / 2 * (dot(x23).powi(2) + dot(y23).powi(2))
        + m24 / 2 * (dot(x24).powi(2) + dot(y24).powi(2))
        + m25 / 2 * (dot(x25).powi(2) + dot(y25).powi(2))
        + m26 / 2 * (dot(x26).powi(2) + dot(y26).powi(2))
        + m27 / 2 * (dot(x27).powi(2) + dot(y27).powi(2))
        + m28 / 2 * (dot(x28).powi(2) + dot(y28).powi(2))
        + m29 / 2 * (dot(x29).powi(2) + dot(y29).powi(2))
        + m30 / 2 * (dot(x30).powi(2) + dot(y30).powi(2))
        - g * (m1 * y1 + m2 * y2 + m3 * y3 + m4 * y4 + m5 * y5 + m6 * y6 + m7 * y7 + m8 * y8 + m9 * y9 + m10 * y10 + m11 * y11 + m12 * y12 + m13 * y13 + m14 * y14 + m15 * y15 + m16 * y16 + m17 * y17 + m18 * y18 + m19 * y19 + m20 * y20 + m21 * y21 + m22 * y22 + m23 * y23 + m24 * y24 + m25 * y25 + m26 * y26 + m27 * y27 + m28 * y28 + m29 * y29 + m30 * y30),
)]
pub struct Chain30 {
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
    pub m11: f64,
    pub l11: f64,
    pub m12: f64,
    pub l12: f64,
    pub m13: f64,
    pub l13: f64,
    pub m14: f64,
    pub l14: f64,
    pub m15: f64,
    pub l15: f64,
    pub m16: f64,
    pub l16: f64,
    pub m17: f64,
    pub l17: f64,
    pub m18: f64,
    pub l18: f64,
    pub m19: f64,
    pub l19: f64,
    pub m20: f64,
    pub l20: f64,
    pub m21: f64,
    pub l21: f64,
    pub m22: f64,
    pub l22: f64,
    pub m23: f64,
    pub l23: f64,
    pub m24: f64,
    pub l24: f64,
    pub m25: f64,
    pub l25: f64,
    pub m26: f64,
    pub l26: f64,
    pub m27: f64,
    pub l27: f64,
    pub m28: f64,
    pub l28: f64,
    pub m29: f64,
    pub l29: f64,
    pub m30: f64,
    pub l30: f64,
    pub g: f64,
}

impl Chain30 {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain30 { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, m21: m, l21: l, m22: m, l22: l, m23: m, l23: l, m24: m, l24: l, m25: m, l25: l, m26: m, l26: l, m27: m, l27: l, m28: m, l28: l, m29: m, l29: l, m30: m, l30: l, g }
    }
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
    jacobian,
)]
pub struct Chain10Jacobian {
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

impl Chain10Jacobian {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain10Jacobian { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, g }
    }
}

