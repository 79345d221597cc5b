// The articulated-body algorithm of the chain in space of `routh_macros_core::fixtures::
// spatial_chain_struct_with`, written out by hand: spatial vectors (ω, v) at each link's joint in
// its axes, inertias by 3 × 3 blocks [[A, B], [Bᵀ, C]]. Link k turns by R_k = rot(q_k) (about z, y
// and x in turn) from its parent's axes about the joint at the parent's end (0, 0, −l) (at the
// ground's origin for the first); its body of mass m is centred at (0, 0, −l/2) with the inertia
// diag(i, i, j) there. Included by `tests/spatial.rs` (a third route for the recursion) and
// `benches/chain.rs` (a loop's time per joint beside the generated straight lines').

type V = [f64; 3];
type M = [[f64; 3]; 3];

fn cross(a: V, b: V) -> V {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn mul(a: &M, b: &M) -> M {
    std::array::from_fn(|r| std::array::from_fn(|c| (0..3).map(|k| a[r][k] * b[k][c]).sum()))
}
fn t(a: &M) -> M {
    std::array::from_fn(|r| std::array::from_fn(|c| a[c][r]))
}
fn apply(a: &M, v: V) -> V {
    std::array::from_fn(|r| dot(a[r], v))
}
fn skew(p: V) -> M {
    [[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]]
}
fn lin(a: &M, x: f64, b: &M) -> M {
    std::array::from_fn(|r| std::array::from_fn(|c| a[r][c] + x * b[r][c]))
}
/// rot_z, rot_y, rot_x of the DSL: right-handed turns of a frame's axes.
fn rot(axis: usize, q: f64) -> M {
    let (s, c) = q.sin_cos();
    match axis {
        2 => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
        1 => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
        _ => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
    }
}

#[derive(Clone, Copy, Default)]
struct Sv {
    w: V,
    v: V,
}
#[derive(Clone, Copy, Default)]
struct In {
    a: M,
    b: M,
    c: M,
}
fn times(i: &In, x: Sv) -> Sv {
    Sv { w: add(apply(&i.a, x.w), apply(&i.b, x.v)), v: add(apply(&t(&i.b), x.w), apply(&i.c, x.v)) }
}
fn plus(x: Sv, y: Sv) -> Sv {
    Sv { w: add(x.w, y.w), v: add(x.v, y.v) }
}
/// Motion from the parent's axes to the child's (turned by R, its joint at p): (Rᵀ ω, Rᵀ (v + ω × p)).
fn to_child(r: &M, p: V, x: Sv) -> Sv {
    let rt = t(r);
    Sv { w: apply(&rt, x.w), v: apply(&rt, add(x.v, cross(x.w, p))) }
}
/// Force from the child's axes to the parent's: (R n + p × R f, R f).
fn to_parent(r: &M, p: V, f: Sv) -> Sv {
    let fl = apply(r, f.v);
    Sv { w: add(apply(r, f.w), cross(p, fl)), v: fl }
}
/// Xᵀ I X of the motion transform X = diag(Rᵀ, Rᵀ) [[1, 0], [−P, 1]] (P = [p×]).
fn to_parent_inertia(r: &M, p: V, i: &In) -> In {
    let turn = |x: &M| mul(&mul(r, x), &t(r));
    let (a, b, c) = (turn(&i.a), turn(&i.b), turn(&i.c));
    let pm = skew(p);
    let a2 = lin(&lin(&lin(&a, 1.0, &mul(&pm, &t(&b))), -1.0, &mul(&b, &pm)), -1.0, &mul(&mul(&pm, &c), &pm));
    In { a: a2, b: lin(&b, 1.0, &mul(&pm, &c)), c }
}
fn cross_motion(a: Sv, b: Sv) -> Sv {
    Sv { w: cross(a.w, b.w), v: add(cross(a.w, b.v), cross(a.v, b.w)) }
}
fn cross_force(a: Sv, f: Sv) -> Sv {
    Sv { w: add(cross(a.w, f.w), cross(a.v, f.v)), v: cross(a.w, f.v) }
}

/// q̈ of the chain (`(m, l, i, j, g)`) at x = (q, q̇).
pub fn articulated_body<const N: usize>((m, l, i, j, g): (f64, f64, f64, f64, f64), x: &[f64]) -> [f64; N] {
    // About the joint: I_o = diag(i, i, j) + m (|c|² 1 − c cᵀ), first moment h = m c, c = (0, 0, −l/2).
    let h = [0.0, 0.0, -m * l / 2.0];
    let e = i + m * l * l / 4.0;
    let body =
        In { a: [[e, 0.0, 0.0], [0.0, e, 0.0], [0.0, 0.0, j]], b: skew(h), c: [[m, 0.0, 0.0], [0.0, m, 0.0], [0.0, 0.0, m]] };
    let axis = |k: usize| [2, 1, 0][k % 3];
    let offset = |k: usize| if k == 0 { [0.0; 3] } else { [0.0, 0.0, -l] };
    let unit = |k: usize, s: f64| {
        let mut w = [0.0; 3];
        w[axis(k)] = s;
        Sv { w, v: [0.0; 3] }
    };
    let r: [M; N] = std::array::from_fn(|k| rot(axis(k), x[k]));
    let (mut c, mut ia, mut pa) = ([Sv::default(); N], [body; N], [Sv::default(); N]);
    let mut v = Sv::default();
    for k in 0..N {
        let vj = unit(k, x[N + k]);
        v = plus(to_child(&r[k], offset(k), v), vj);
        c[k] = cross_motion(v, vj);
        pa[k] = cross_force(v, times(&body, v));
    }
    let (mut u, mut d, mut tau) = ([Sv::default(); N], [0.0; N], [0.0; N]);
    for k in (0..N).rev() {
        let s = unit(k, 1.0);
        u[k] = times(&ia[k], s);
        d[k] = dot(s.w, u[k].w) + dot(s.v, u[k].v);
        tau[k] = -(dot(s.w, pa[k].w) + dot(s.v, pa[k].v));
        if k > 0 {
            let mut art = ia[k];
            for x in 0..3 {
                for y in 0..3 {
                    art.a[x][y] -= u[k].w[x] * u[k].w[y] / d[k];
                    art.b[x][y] -= u[k].w[x] * u[k].v[y] / d[k];
                    art.c[x][y] -= u[k].v[x] * u[k].v[y] / d[k];
                }
            }
            let scaled = Sv { w: u[k].w.map(|e| e * tau[k] / d[k]), v: u[k].v.map(|e| e * tau[k] / d[k]) };
            let bias = plus(plus(pa[k], times(&art, c[k])), scaled);
            let moved = to_parent_inertia(&r[k], offset(k), &art);
            let parent = &mut ia[k - 1];
            *parent =
                In { a: lin(&parent.a, 1.0, &moved.a), b: lin(&parent.b, 1.0, &moved.b), c: lin(&parent.c, 1.0, &moved.c) };
            pa[k - 1] = plus(pa[k - 1], to_parent(&r[k], offset(k), bias));
        }
    }
    // The ground's acceleration (0, −gravity) stands for gravity.
    let mut acc = Sv { w: [0.0; 3], v: [0.0, 0.0, g] };
    let mut qdd = [0.0; N];
    for k in 0..N {
        let a = plus(to_child(&r[k], offset(k), acc), c[k]);
        qdd[k] = (tau[k] - dot(u[k].w, a.w) - dot(u[k].v, a.v)) / d[k];
        acc = plus(a, unit(k, qdd[k]));
    }
    qdd
}
