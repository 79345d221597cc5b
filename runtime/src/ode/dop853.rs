//! The Dormand–Prince 8(5,3) pair DOP853 with its 7th-order dense output (Hairer, Nørsett &
//! Wanner, *Solving ODEs I*, II.10, and their `DOP853` code; the coefficients as in its
//! `dop853.f` and SciPy's `DOP853`).
//!
//! One step of size `h` from `(t, x)` evaluates twelve stages kᵢ = F(t + cᵢ h, x + h Σⱼ aᵢⱼ kⱼ)
//! and propagates the 8th-order solution x̂ = x + h Σ bᵢ kᵢ; k₁₃ = F(t + h, x̂) is the first stage
//! of the next step (FSAL), so a step costs twelve evaluations. The error estimate combines an
//! embedded 5th-order and 3rd-order difference, e₅ = h Σ E5ᵢ kᵢ and e₃ = h Σ E3ᵢ kᵢ, as
//!
//! ```text
//! err = ‖e₅‖² / sqrt(‖e₅‖² + 0.01 ‖e₃‖²)        (weighted RMS norms, sk = atol + rtol·max(|x|, |x̂|))
//! ```
//!
//! which behaves like an 8th-order estimate where the 5th-order one is too pessimistic. At tight
//! tolerances it reaches the error of [`crate::Dopri5`] with a few times fewer evaluations.
//!
//! **Dense output.** Three more stages k₁₄…k₁₆ (only when a step's dense output is asked for)
//! give the 7th-order continuous extension, in the same nested form as DOPRI5's,
//! `u(θ) = r₀ + θ (r₁ + (1−θ) (r₂ + θ (r₃ + (1−θ) (r₄ + θ (r₅ + (1−θ) (r₆ + θ r₇))))))` with
//! r₀ = x, r₁ = x̂ − x, r₂ = h k₁ − r₁, r₃ = 2 r₁ − h (k₁ + k₁₃) and r₄…r₇ = h Σ Dᵢⱼ kⱼ.

// The published coefficients keep their digits; the compiler rounds each to the nearest f64.
#![allow(clippy::excessive_precision)]

use crate::error::SimError;
use crate::ode::dopri5::{Dense, eval};
use crate::ode::method::{Attempt, Method};
use crate::ode::options::Tolerances;
use crate::ode::state::{State, StateField};

/// The nodes cᵢ of the sixteen stages (twelve of the step, the FSAL one, three for the dense
/// output).
const C: [f64; 16] = [
    0.0,
    0.526001519587677318785587544488e-01,
    0.789002279381515978178381316732e-01,
    0.118350341907227396726757197510,
    0.281649658092772603273242802490,
    0.333333333333333333333333333333,
    0.25,
    0.307692307692307692307692307692,
    0.651282051282051282051282051282,
    0.6,
    0.857142857142857142857142857142,
    1.0,
    1.0,
    0.1,
    0.2,
    0.777777777777777777777777777778,
];

/// The coupling coefficients aᵢⱼ, by rows (row 12 is the 8th-order weights b).
const A: [[f64; 16]; 16] = {
    let mut a = [[0.0; 16]; 16];
    a[1][0] = 5.26001519587677318785587544488e-2;

    a[2][0] = 1.97250569845378994544595329183e-2;
    a[2][1] = 5.91751709536136983633785987549e-2;

    a[3][0] = 2.95875854768068491816892993775e-2;
    a[3][2] = 8.87627564304205475450678981324e-2;

    a[4][0] = 2.41365134159266685502369798665e-1;
    a[4][2] = -8.84549479328286085344864962717e-1;
    a[4][3] = 9.24834003261792003115737966543e-1;

    a[5][0] = 3.7037037037037037037037037037e-2;
    a[5][3] = 1.70828608729473871279604482173e-1;
    a[5][4] = 1.25467687566822425016691814123e-1;

    a[6][0] = 3.7109375e-2;
    a[6][3] = 1.70252211019544039314978060272e-1;
    a[6][4] = 6.02165389804559606850219397283e-2;
    a[6][5] = -1.7578125e-2;

    a[7][0] = 3.70920001185047927108779319836e-2;
    a[7][3] = 1.70383925712239993810214054705e-1;
    a[7][4] = 1.07262030446373284651809199168e-1;
    a[7][5] = -1.53194377486244017527936158236e-2;
    a[7][6] = 8.27378916381402288758473766002e-3;

    a[8][0] = 6.24110958716075717114429577812e-1;
    a[8][3] = -3.36089262944694129406857109825;
    a[8][4] = -8.68219346841726006818189891453e-1;
    a[8][5] = 2.75920996994467083049415600797e1;
    a[8][6] = 2.01540675504778934086186788979e1;
    a[8][7] = -4.34898841810699588477366255144e1;

    a[9][0] = 4.77662536438264365890433908527e-1;
    a[9][3] = -2.48811461997166764192642586468;
    a[9][4] = -5.90290826836842996371446475743e-1;
    a[9][5] = 2.12300514481811942347288949897e1;
    a[9][6] = 1.52792336328824235832596922938e1;
    a[9][7] = -3.32882109689848629194453265587e1;
    a[9][8] = -2.03312017085086261358222928593e-2;

    a[10][0] = -9.3714243008598732571704021658e-1;
    a[10][3] = 5.18637242884406370830023853209;
    a[10][4] = 1.09143734899672957818500254654;
    a[10][5] = -8.14978701074692612513997267357;
    a[10][6] = -1.85200656599969598641566180701e1;
    a[10][7] = 2.27394870993505042818970056734e1;
    a[10][8] = 2.49360555267965238987089396762;
    a[10][9] = -3.0467644718982195003823669022;

    a[11][0] = 2.27331014751653820792359768449;
    a[11][3] = -1.05344954667372501984066689879e1;
    a[11][4] = -2.00087205822486249909675718444;
    a[11][5] = -1.79589318631187989172765950534e1;
    a[11][6] = 2.79488845294199600508499808837e1;
    a[11][7] = -2.85899827713502369474065508674;
    a[11][8] = -8.87285693353062954433549289258;
    a[11][9] = 1.23605671757943030647266201528e1;
    a[11][10] = 6.43392746015763530355970484046e-1;

    a[12][0] = 5.42937341165687622380535766363e-2;
    a[12][5] = 4.45031289275240888144113950566;
    a[12][6] = 1.89151789931450038304281599044;
    a[12][7] = -5.8012039600105847814672114227;
    a[12][8] = 3.1116436695781989440891606237e-1;
    a[12][9] = -1.52160949662516078556178806805e-1;
    a[12][10] = 2.01365400804030348374776537501e-1;
    a[12][11] = 4.47106157277725905176885569043e-2;

    a[13][0] = 5.61675022830479523392909219681e-2;
    a[13][6] = 2.53500210216624811088794765333e-1;
    a[13][7] = -2.46239037470802489917441475441e-1;
    a[13][8] = -1.24191423263816360469010140626e-1;
    a[13][9] = 1.5329179827876569731206322685e-1;
    a[13][10] = 8.20105229563468988491666602057e-3;
    a[13][11] = 7.56789766054569976138603589584e-3;
    a[13][12] = -8.298e-3;

    a[14][0] = 3.18346481635021405060768473261e-2;
    a[14][5] = 2.83009096723667755288322961402e-2;
    a[14][6] = 5.35419883074385676223797384372e-2;
    a[14][7] = -5.49237485713909884646569340306e-2;
    a[14][10] = -1.08347328697249322858509316994e-4;
    a[14][11] = 3.82571090835658412954920192323e-4;
    a[14][12] = -3.40465008687404560802977114492e-4;
    a[14][13] = 1.41312443674632500278074618366e-1;

    a[15][0] = -4.28896301583791923408573538692e-1;
    a[15][5] = -4.69762141536116384314449447206;
    a[15][6] = 7.68342119606259904184240953878;
    a[15][7] = 4.06898981839711007970213554331;
    a[15][8] = 3.56727187455281109270669543021e-1;
    a[15][12] = -1.39902416515901462129418009734e-3;
    a[15][13] = 2.9475147891527723389556272149;
    a[15][14] = -9.15095847217987001081870187138;
    a
};

/// The 5th-order error weights (over k₁…k₁₂).
const E5: [f64; 12] = {
    let mut e = [0.0; 12];
    e[0] = 0.1312004499419488073250102996e-1;
    e[5] = -0.1225156446376204440720569753e1;
    e[6] = -0.4957589496572501915214079952;
    e[7] = 0.1664377182454986536961530415e1;
    e[8] = -0.3503288487499736816886487290;
    e[9] = 0.3341791187130174790297318841;
    e[10] = 0.8192320648511571246570742613e-1;
    e[11] = -0.2235530786388629525884427845e-1;
    e
};

/// The 3rd-order error weights: b minus the 3rd-order weights (at k₁, k₉, k₁₂).
const E3: [f64; 12] = {
    let mut e = [0.0; 12];
    let mut j = 0;
    while j < 12 {
        e[j] = A[12][j];
        j += 1;
    }
    e[0] -= 0.244094488188976377952755905512;
    e[8] -= 0.733846688281611857341361741547;
    e[11] -= 0.220588235294117647058823529412e-1;
    e
};

/// The dense output's weights of r₄…r₇ over the sixteen stages.
const D: [[f64; 16]; 4] = {
    let mut d = [[0.0; 16]; 4];
    d[0][0] = -0.84289382761090128651353491142e1;
    d[0][5] = 0.56671495351937776962531783590;
    d[0][6] = -0.30689499459498916912797304727e1;
    d[0][7] = 0.23846676565120698287728149680e1;
    d[0][8] = 0.21170345824450282767155149946e1;
    d[0][9] = -0.87139158377797299206789907490;
    d[0][10] = 0.22404374302607882758541771650e1;
    d[0][11] = 0.63157877876946881815570249290;
    d[0][12] = -0.88990336451333310820698117400e-1;
    d[0][13] = 0.18148505520854727256656404962e2;
    d[0][14] = -0.91946323924783554000451984436e1;
    d[0][15] = -0.44360363875948939664310572000e1;

    d[1][0] = 0.10427508642579134603413151009e2;
    d[1][5] = 0.24228349177525818288430175319e3;
    d[1][6] = 0.16520045171727028198505394887e3;
    d[1][7] = -0.37454675472269020279518312152e3;
    d[1][8] = -0.22113666853125306036270938578e2;
    d[1][9] = 0.77334326684722638389603898808e1;
    d[1][10] = -0.30674084731089398182061213626e2;
    d[1][11] = -0.93321305264302278729567221706e1;
    d[1][12] = 0.15697238121770843886131091075e2;
    d[1][13] = -0.31139403219565177677282850411e2;
    d[1][14] = -0.93529243588444783865713862664e1;
    d[1][15] = 0.35816841486394083752465898540e2;

    d[2][0] = 0.19985053242002433820987653617e2;
    d[2][5] = -0.38703730874935176555105901742e3;
    d[2][6] = -0.18917813819516756882830838328e3;
    d[2][7] = 0.52780815920542364900561016686e3;
    d[2][8] = -0.11573902539959630126141871134e2;
    d[2][9] = 0.68812326946963000169666922661e1;
    d[2][10] = -0.10006050966910838403183860980e1;
    d[2][11] = 0.77771377980534432092869265740;
    d[2][12] = -0.27782057523535084065932004339e1;
    d[2][13] = -0.60196695231264120758267380846e2;
    d[2][14] = 0.84320405506677161018159903784e2;
    d[2][15] = 0.11992291136182789328035130030e2;

    d[3][0] = -0.25693933462703749003312586129e2;
    d[3][5] = -0.15418974869023643374053993627e3;
    d[3][6] = -0.23152937917604549567536039109e3;
    d[3][7] = 0.35763911791061412378285349910e3;
    d[3][8] = 0.93405324183624310003907691704e2;
    d[3][9] = -0.37458323136451633156875139351e2;
    d[3][10] = 0.10409964950896230045147246184e3;
    d[3][11] = 0.29840293426660503123344363579e2;
    d[3][12] = -0.43533456590011143754432175058e2;
    d[3][13] = 0.96324553959188282948394950600e2;
    d[3][14] = -0.39177261675615439165231486172e2;
    d[3][15] = -0.14972683625798562581422125276e3;
    d
};

/// `y = x + h Σⱼ wⱼ kⱼ` over the stages with a nonzero weight.
fn combine<S: State>(y: &mut S, x: &S, h: f64, w: &[f64], k: &[S]) {
    let y = y.entries_mut();
    y.copy_from_slice(x.entries());
    for (wj, kj) in w.iter().zip(k) {
        if *wj != 0.0 {
            let (kj, c) = (kj.entries(), h * wj);
            for i in 0..y.len() {
                y[i] += c * kj[i];
            }
        }
    }
}

/// The DOP853 pair as a [`Method`] (see the [module docs](self)): the thirteen stages of the
/// current step.
pub struct Dop853<S> {
    /// `k[0]` is `F(t, x)` at the start of the step (FSAL), `k[12]` at its end.
    k: [S; 13],
    /// The 8th-order solution at the end of the last attempted step.
    x_new: S,
}

impl<S: State> Method<S> for Dop853<S> {
    fn order(&self) -> f64 {
        8.0
    }

    fn new(k1: S) -> Self {
        let z = k1.zeros_like();
        let mut k: [S; 13] = std::array::from_fn(|_| z.clone());
        k[0] = k1;
        Dop853 { k, x_new: z }
    }

    fn attempt<F>(&mut self, f: &F, t: f64, x: &S, h: f64, tol: Tolerances, evals: &mut usize) -> Result<Attempt, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        let mut y = x.zeros_like();
        for i in 1..12 {
            combine(&mut y, x, h, &A[i][..i], &self.k[..i]);
            match eval(f, t + C[i] * h, &y, evals)? {
                Some(v) => self.k[i] = v,
                None => return Ok(Attempt::NonFinite),
            }
        }
        combine(&mut y, x, h, &A[12][..12], &self.k[..12]);
        if !y.entries().iter().all(|v| v.is_finite()) {
            return Ok(Attempt::NonFinite);
        }
        match eval(f, t + h, &y, evals)? {
            Some(v) if v.entries().iter().all(|c| c.is_finite()) => self.k[12] = v,
            _ => return Ok(Attempt::NonFinite),
        }
        let (mut e5, mut e3) = (0.0, 0.0);
        {
            let (xs, ys) = (x.entries(), y.entries());
            let ks: Vec<&[f64]> = self.k[..12].iter().map(State::entries).collect();
            for i in 0..xs.len() {
                let sk = (tol.atol + tol.rtol * xs[i].abs().max(ys[i].abs())).max(f64::MIN_POSITIVE);
                let (mut a5, mut a3) = (0.0, 0.0);
                for (j, kj) in ks.iter().enumerate() {
                    a5 += E5[j] * kj[i];
                    a3 += E3[j] * kj[i];
                }
                e5 += (a5 / sk).powi(2);
                e3 += (a3 / sk).powi(2);
            }
        }
        let n = x.entries().len();
        let denominator = e5 + 0.01 * e3;
        let err = if n == 0 || denominator <= 0.0 { 0.0 } else { h.abs() * e5 / (n as f64 * denominator).sqrt() };
        if err.is_nan() {
            return Ok(Attempt::NonFinite);
        }
        self.x_new = y;
        Ok(Attempt::Done { err })
    }

    #[inline]
    fn x_new(&self) -> &S {
        &self.x_new
    }

    fn replace_x_new(&mut self, x: S) {
        self.x_new = x;
    }

    fn restart(&mut self, k1: S) {
        self.k[0] = k1;
    }

    #[inline]
    fn advance(&mut self) {
        self.k[0] = self.k[12].clone();
    }

    /// The 7th-order dense output of the last successful attempt: three more stages.
    fn dense<F>(&self, f: &F, t: f64, x: &S, h: f64, t_end: f64, evals: &mut usize) -> Result<Dense<S>, SimError>
    where
        F: StateField<S> + ?Sized,
    {
        if h == 0.0 {
            return Ok(Dense::constant(t, x));
        }
        let mut k: Vec<S> = self.k.to_vec();
        let mut y = x.zeros_like();
        for i in 13..16 {
            combine(&mut y, x, h, &A[i][..i], &k[..i]);
            match eval(f, t + C[i] * h, &y, evals)? {
                Some(v) => k.push(v),
                None => return Err(SimError::NonFiniteState { t: t + C[i] * h }),
            }
        }
        let z = x.zeros_like();
        let mut r: [S; 8] = std::array::from_fn(|_| z.clone());
        r[0] = x.clone();
        {
            let (xs, xn) = (x.entries(), self.x_new.entries());
            let (k1, k13) = (k[0].entries(), k[12].entries());
            let [_, r1, r2, r3, ..] = &mut r;
            let (r1, r2, r3) = (r1.entries_mut(), r2.entries_mut(), r3.entries_mut());
            for i in 0..xs.len() {
                let dx = xn[i] - xs[i];
                r1[i] = dx;
                r2[i] = h * k1[i] - dx;
                r3[i] = 2.0 * dx - h * (k13[i] + k1[i]);
            }
        }
        for (m, row) in D.iter().enumerate() {
            combine(&mut r[4 + m], &z, h, row, &k);
        }
        Ok(Dense::from_coefficients(t, h, t_end, r, 8))
    }
}
