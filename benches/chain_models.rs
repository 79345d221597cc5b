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

/// Planar pendulum chain with 50 links.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22, q23, q24, q25, q26, q27, q28, q29, q30, q31, q32, q33, q34, q35, q36, q37, q38, q39, q40, q41, q42, q43, q44, q45, q46, q47, q48, q49, q50),
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
        x31 = x30 + l31 * q31.sin(), y31 = y30 - l31 * q31.cos(),
        x32 = x31 + l32 * q32.sin(), y32 = y31 - l32 * q32.cos(),
        x33 = x32 + l33 * q33.sin(), y33 = y32 - l33 * q33.cos(),
        x34 = x33 + l34 * q34.sin(), y34 = y33 - l34 * q34.cos(),
        x35 = x34 + l35 * q35.sin(), y35 = y34 - l35 * q35.cos(),
        x36 = x35 + l36 * q36.sin(), y36 = y35 - l36 * q36.cos(),
        x37 = x36 + l37 * q37.sin(), y37 = y36 - l37 * q37.cos(),
        x38 = x37 + l38 * q38.sin(), y38 = y37 - l38 * q38.cos(),
        x39 = x38 + l39 * q39.sin(), y39 = y38 - l39 * q39.cos(),
        x40 = x39 + l40 * q40.sin(), y40 = y39 - l40 * q40.cos(),
        x41 = x40 + l41 * q41.sin(), y41 = y40 - l41 * q41.cos(),
        x42 = x41 + l42 * q42.sin(), y42 = y41 - l42 * q42.cos(),
        x43 = x42 + l43 * q43.sin(), y43 = y42 - l43 * q43.cos(),
        x44 = x43 + l44 * q44.sin(), y44 = y43 - l44 * q44.cos(),
        x45 = x44 + l45 * q45.sin(), y45 = y44 - l45 * q45.cos(),
        x46 = x45 + l46 * q46.sin(), y46 = y45 - l46 * q46.cos(),
        x47 = x46 + l47 * q47.sin(), y47 = y46 - l47 * q47.cos(),
        x48 = x47 + l48 * q48.sin(), y48 = y47 - l48 * q48.cos(),
        x49 = x48 + l49 * q49.sin(), y49 = y48 - l49 * q49.cos(),
        x50 = x49 + l50 * q50.sin(), y50 = y49 - l50 * q50.cos(),
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
        + m31 / 2 * (dot(x31).powi(2) + dot(y31).powi(2))
        + m32 / 2 * (dot(x32).powi(2) + dot(y32).powi(2))
        + m33 / 2 * (dot(x33).powi(2) + dot(y33).powi(2))
        + m34 / 2 * (dot(x34).powi(2) + dot(y34).powi(2))
        + m35 / 2 * (dot(x35).powi(2) + dot(y35).powi(2))
        + m36 / 2 * (dot(x36).powi(2) + dot(y36).powi(2))
        + m37 / 2 * (dot(x37).powi(2) + dot(y37).powi(2))
        + m38 / 2 * (dot(x38).powi(2) + dot(y38).powi(2))
        + m39 / 2 * (dot(x39).powi(2) + dot(y39).powi(2))
        + m40 / 2 * (dot(x40).powi(2) + dot(y40).powi(2))
        + m41 / 2 * (dot(x41).powi(2) + dot(y41).powi(2))
        + m42 / 2 * (dot(x42).powi(2) + dot(y42).powi(2))
        + m43 / 2 * (dot(x43).powi(2) + dot(y43).powi(2))
        + m44 / 2 * (dot(x44).powi(2) + dot(y44).powi(2))
        + m45 / 2 * (dot(x45).powi(2) + dot(y45).powi(2))
        + m46 / 2 * (dot(x46).powi(2) + dot(y46).powi(2))
        + m47 / 2 * (dot(x47).powi(2) + dot(y47).powi(2))
        + m48 / 2 * (dot(x48).powi(2) + dot(y48).powi(2))
        + m49 / 2 * (dot(x49).powi(2) + dot(y49).powi(2))
        + m50 / 2 * (dot(x50).powi(2) + dot(y50).powi(2))
        - g * (m1 * y1 + m2 * y2 + m3 * y3 + m4 * y4 + m5 * y5 + m6 * y6 + m7 * y7 + m8 * y8 + m9 * y9 + m10 * y10 + m11 * y11 + m12 * y12 + m13 * y13 + m14 * y14 + m15 * y15 + m16 * y16 + m17 * y17 + m18 * y18 + m19 * y19 + m20 * y20 + m21 * y21 + m22 * y22 + m23 * y23 + m24 * y24 + m25 * y25 + m26 * y26 + m27 * y27 + m28 * y28 + m29 * y29 + m30 * y30 + m31 * y31 + m32 * y32 + m33 * y33 + m34 * y34 + m35 * y35 + m36 * y36 + m37 * y37 + m38 * y38 + m39 * y39 + m40 * y40 + m41 * y41 + m42 * y42 + m43 * y43 + m44 * y44 + m45 * y45 + m46 * y46 + m47 * y47 + m48 * y48 + m49 * y49 + m50 * y50),
)]
pub struct Chain50 {
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
    pub m31: f64,
    pub l31: f64,
    pub m32: f64,
    pub l32: f64,
    pub m33: f64,
    pub l33: f64,
    pub m34: f64,
    pub l34: f64,
    pub m35: f64,
    pub l35: f64,
    pub m36: f64,
    pub l36: f64,
    pub m37: f64,
    pub l37: f64,
    pub m38: f64,
    pub l38: f64,
    pub m39: f64,
    pub l39: f64,
    pub m40: f64,
    pub l40: f64,
    pub m41: f64,
    pub l41: f64,
    pub m42: f64,
    pub l42: f64,
    pub m43: f64,
    pub l43: f64,
    pub m44: f64,
    pub l44: f64,
    pub m45: f64,
    pub l45: f64,
    pub m46: f64,
    pub l46: f64,
    pub m47: f64,
    pub l47: f64,
    pub m48: f64,
    pub l48: f64,
    pub m49: f64,
    pub l49: f64,
    pub m50: f64,
    pub l50: f64,
    pub g: f64,
}

impl Chain50 {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain50 { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, m21: m, l21: l, m22: m, l22: l, m23: m, l23: l, m24: m, l24: l, m25: m, l25: l, m26: m, l26: l, m27: m, l27: l, m28: m, l28: l, m29: m, l29: l, m30: m, l30: l, m31: m, l31: l, m32: m, l32: l, m33: m, l33: l, m34: m, l34: l, m35: m, l35: l, m36: m, l36: l, m37: m, l37: l, m38: m, l38: l, m39: m, l39: l, m40: m, l40: l, m41: m, l41: l, m42: m, l42: l, m43: m, l43: l, m44: m, l44: l, m45: m, l45: l, m46: m, l46: l, m47: m, l47: l, m48: m, l48: l, m49: m, l49: l, m50: m, l50: l, g }
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
    jacobian,
)]
pub struct Chain30Jacobian {
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

impl Chain30Jacobian {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain30Jacobian { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, m21: m, l21: l, m22: m, l22: l, m23: m, l23: l, m24: m, l24: l, m25: m, l25: l, m26: m, l26: l, m27: m, l27: l, m28: m, l28: l, m29: m, l29: l, m30: m, l30: l, g }
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
    dynamics = dense,
)]
pub struct Chain20Dense {
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

impl Chain20Dense {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain20Dense { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, g }
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
    dynamics = dense,
)]
pub struct Chain30Dense {
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

impl Chain30Dense {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain30Dense { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, m21: m, l21: l, m22: m, l22: l, m23: m, l23: l, m24: m, l24: l, m25: m, l25: l, m26: m, l26: l, m27: m, l27: l, m28: m, l28: l, m29: m, l29: l, m30: m, l30: l, g }
    }
}

/// Planar pendulum chain with 50 links.
#[derive(Mechanics)]
#[mechanics(
    coordinates(q1, q2, q3, q4, q5, q6, q7, q8, q9, q10, q11, q12, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22, q23, q24, q25, q26, q27, q28, q29, q30, q31, q32, q33, q34, q35, q36, q37, q38, q39, q40, q41, q42, q43, q44, q45, q46, q47, q48, q49, q50),
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
        x31 = x30 + l31 * q31.sin(), y31 = y30 - l31 * q31.cos(),
        x32 = x31 + l32 * q32.sin(), y32 = y31 - l32 * q32.cos(),
        x33 = x32 + l33 * q33.sin(), y33 = y32 - l33 * q33.cos(),
        x34 = x33 + l34 * q34.sin(), y34 = y33 - l34 * q34.cos(),
        x35 = x34 + l35 * q35.sin(), y35 = y34 - l35 * q35.cos(),
        x36 = x35 + l36 * q36.sin(), y36 = y35 - l36 * q36.cos(),
        x37 = x36 + l37 * q37.sin(), y37 = y36 - l37 * q37.cos(),
        x38 = x37 + l38 * q38.sin(), y38 = y37 - l38 * q38.cos(),
        x39 = x38 + l39 * q39.sin(), y39 = y38 - l39 * q39.cos(),
        x40 = x39 + l40 * q40.sin(), y40 = y39 - l40 * q40.cos(),
        x41 = x40 + l41 * q41.sin(), y41 = y40 - l41 * q41.cos(),
        x42 = x41 + l42 * q42.sin(), y42 = y41 - l42 * q42.cos(),
        x43 = x42 + l43 * q43.sin(), y43 = y42 - l43 * q43.cos(),
        x44 = x43 + l44 * q44.sin(), y44 = y43 - l44 * q44.cos(),
        x45 = x44 + l45 * q45.sin(), y45 = y44 - l45 * q45.cos(),
        x46 = x45 + l46 * q46.sin(), y46 = y45 - l46 * q46.cos(),
        x47 = x46 + l47 * q47.sin(), y47 = y46 - l47 * q47.cos(),
        x48 = x47 + l48 * q48.sin(), y48 = y47 - l48 * q48.cos(),
        x49 = x48 + l49 * q49.sin(), y49 = y48 - l49 * q49.cos(),
        x50 = x49 + l50 * q50.sin(), y50 = y49 - l50 * q50.cos(),
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
        + m31 / 2 * (dot(x31).powi(2) + dot(y31).powi(2))
        + m32 / 2 * (dot(x32).powi(2) + dot(y32).powi(2))
        + m33 / 2 * (dot(x33).powi(2) + dot(y33).powi(2))
        + m34 / 2 * (dot(x34).powi(2) + dot(y34).powi(2))
        + m35 / 2 * (dot(x35).powi(2) + dot(y35).powi(2))
        + m36 / 2 * (dot(x36).powi(2) + dot(y36).powi(2))
        + m37 / 2 * (dot(x37).powi(2) + dot(y37).powi(2))
        + m38 / 2 * (dot(x38).powi(2) + dot(y38).powi(2))
        + m39 / 2 * (dot(x39).powi(2) + dot(y39).powi(2))
        + m40 / 2 * (dot(x40).powi(2) + dot(y40).powi(2))
        + m41 / 2 * (dot(x41).powi(2) + dot(y41).powi(2))
        + m42 / 2 * (dot(x42).powi(2) + dot(y42).powi(2))
        + m43 / 2 * (dot(x43).powi(2) + dot(y43).powi(2))
        + m44 / 2 * (dot(x44).powi(2) + dot(y44).powi(2))
        + m45 / 2 * (dot(x45).powi(2) + dot(y45).powi(2))
        + m46 / 2 * (dot(x46).powi(2) + dot(y46).powi(2))
        + m47 / 2 * (dot(x47).powi(2) + dot(y47).powi(2))
        + m48 / 2 * (dot(x48).powi(2) + dot(y48).powi(2))
        + m49 / 2 * (dot(x49).powi(2) + dot(y49).powi(2))
        + m50 / 2 * (dot(x50).powi(2) + dot(y50).powi(2))
        - g * (m1 * y1 + m2 * y2 + m3 * y3 + m4 * y4 + m5 * y5 + m6 * y6 + m7 * y7 + m8 * y8 + m9 * y9 + m10 * y10 + m11 * y11 + m12 * y12 + m13 * y13 + m14 * y14 + m15 * y15 + m16 * y16 + m17 * y17 + m18 * y18 + m19 * y19 + m20 * y20 + m21 * y21 + m22 * y22 + m23 * y23 + m24 * y24 + m25 * y25 + m26 * y26 + m27 * y27 + m28 * y28 + m29 * y29 + m30 * y30 + m31 * y31 + m32 * y32 + m33 * y33 + m34 * y34 + m35 * y35 + m36 * y36 + m37 * y37 + m38 * y38 + m39 * y39 + m40 * y40 + m41 * y41 + m42 * y42 + m43 * y43 + m44 * y44 + m45 * y45 + m46 * y46 + m47 * y47 + m48 * y48 + m49 * y49 + m50 * y50),
    dynamics = dense,
)]
pub struct Chain50Dense {
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
    pub m31: f64,
    pub l31: f64,
    pub m32: f64,
    pub l32: f64,
    pub m33: f64,
    pub l33: f64,
    pub m34: f64,
    pub l34: f64,
    pub m35: f64,
    pub l35: f64,
    pub m36: f64,
    pub l36: f64,
    pub m37: f64,
    pub l37: f64,
    pub m38: f64,
    pub l38: f64,
    pub m39: f64,
    pub l39: f64,
    pub m40: f64,
    pub l40: f64,
    pub m41: f64,
    pub l41: f64,
    pub m42: f64,
    pub l42: f64,
    pub m43: f64,
    pub l43: f64,
    pub m44: f64,
    pub l44: f64,
    pub m45: f64,
    pub l45: f64,
    pub m46: f64,
    pub l46: f64,
    pub m47: f64,
    pub l47: f64,
    pub m48: f64,
    pub l48: f64,
    pub m49: f64,
    pub l49: f64,
    pub m50: f64,
    pub l50: f64,
    pub g: f64,
}

impl Chain50Dense {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain50Dense { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, m21: m, l21: l, m22: m, l22: l, m23: m, l23: l, m24: m, l24: l, m25: m, l25: l, m26: m, l26: l, m27: m, l27: l, m28: m, l28: l, m29: m, l29: l, m30: m, l30: l, m31: m, l31: l, m32: m, l32: l, m33: m, l33: l, m34: m, l34: l, m35: m, l35: l, m36: m, l36: l, m37: m, l37: l, m38: m, l38: l, m39: m, l39: l, m40: m, l40: l, m41: m, l41: l, m42: m, l42: l, m43: m, l43: l, m44: m, l44: l, m45: m, l45: l, m46: m, l46: l, m47: m, l47: l, m48: m, l48: l, m49: m, l49: l, m50: m, l50: l, g }
    }
}

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
    dynamics = recursive,
)]
pub struct Chain2Recursive {
    pub m1: f64,
    pub l1: f64,
    pub m2: f64,
    pub l2: f64,
    pub g: f64,
}

impl Chain2Recursive {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain2Recursive { m1: m, l1: l, m2: m, l2: l, g }
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
    dynamics = recursive,
)]
pub struct Chain5Recursive {
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

impl Chain5Recursive {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain5Recursive { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, g }
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
    dynamics = recursive,
)]
pub struct Chain10Recursive {
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

impl Chain10Recursive {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain10Recursive { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, g }
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
    holonomic(tip_x = x30 - 3, tip_y = y30 + 20), jacobian,
)]
pub struct Chain30Constrained {
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

impl Chain30Constrained {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain30Constrained { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, m21: m, l21: l, m22: m, l22: l, m23: m, l23: l, m24: m, l24: l, m25: m, l25: l, m26: m, l26: l, m27: m, l27: l, m28: m, l28: l, m29: m, l29: l, m30: m, l30: l, g }
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
    holonomic(tip_x = x30 - 3, tip_y = y30 + 20), jacobian, dynamics = dense,
)]
pub struct Chain30ConstrainedDense {
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

impl Chain30ConstrainedDense {
    /// All links with mass `m` and length `l`.
    pub fn uniform(m: f64, l: f64, g: f64) -> Self {
        Chain30ConstrainedDense { m1: m, l1: l, m2: m, l2: l, m3: m, l3: l, m4: m, l4: l, m5: m, l5: l, m6: m, l6: l, m7: m, l7: l, m8: m, l8: l, m9: m, l9: l, m10: m, l10: l, m11: m, l11: l, m12: m, l12: l, m13: m, l13: l, m14: m, l14: l, m15: m, l15: l, m16: m, l16: l, m17: m, l17: l, m18: m, l18: l, m19: m, l19: l, m20: m, l20: l, m21: m, l21: l, m22: m, l22: l, m23: m, l23: l, m24: m, l24: l, m25: m, l25: l, m26: m, l26: l, m27: m, l27: l, m28: m, l28: l, m29: m, l29: l, m30: m, l30: l, g }
    }
}

