//! Vector calculus on top of [`Arena::directional_many`]: gradients, Jacobians, total time
//! derivatives along a motion, and dot products — the operations every derivation of the
//! mechanics layer is written in.
//!
//! Jacobians are built **column by column**: column j is one shared-memo pass
//! `∂(e₁, …, e_m)/∂x_j` ([`Arena::diff_many`]), so a subexpression common to several rows is
//! differentiated once per variable. The total derivative of functions of (t, q) along a motion
//! with velocities q̇ is a single directional pass with the seeds (qₖ, q̇ₖ) and (t, 1):
//! `d/dt e = ∂e/∂t + Σₖ ∂e/∂qₖ q̇ₖ`.

use crate::arena::{Arena, Expr};

impl Arena {
    /// `∇e = (∂e/∂x₁, …, ∂e/∂x_n)`.
    pub fn gradient(&mut self, e: Expr, vars: &[Expr]) -> Vec<Expr> {
        vars.iter().map(|&x| self.diff(e, x)).collect()
    }

    /// The Jacobian `J[i][j] = ∂eᵢ/∂x_j` (rows: `es`, columns: `vars`), one shared pass per
    /// column.
    pub fn jacobian(&mut self, es: &[Expr], vars: &[Expr]) -> Vec<Vec<Expr>> {
        let mut rows = vec![Vec::with_capacity(vars.len()); es.len()];
        for &x in vars {
            for (row, d) in rows.iter_mut().zip(self.diff_many(es, x)) {
                row.push(d);
            }
        }
        rows
    }

    /// Jacobians with respect to several blocks of variables at once, e.g. `(∂g/∂q, ∂g/∂q̇)`:
    /// the columns are computed in the interleaved order x¹₁, x²₁, …, x¹₂, x²₂, … (one pass per
    /// column, as [`Arena::jacobian`]) and returned per block; a shorter block's columns end
    /// sooner (positions and fewer velocities).
    pub fn jacobian_blocks<const B: usize>(&mut self, es: &[Expr], blocks: [&[Expr]; B]) -> [Vec<Vec<Expr>>; B] {
        let n = blocks.iter().map(|b| b.len()).max().unwrap_or(0);
        let mut out: [Vec<Vec<Expr>>; B] = std::array::from_fn(|b| vec![Vec::with_capacity(blocks[b].len()); es.len()]);
        for j in 0..n {
            for (b, block) in blocks.iter().enumerate() {
                let Some(&x) = block.get(j) else { continue };
                for (row, d) in out[b].iter_mut().zip(self.diff_many(es, x)) {
                    row.push(d);
                }
            }
        }
        out
    }

    /// `d/dt eᵢ = ∂eᵢ/∂t + Σₖ ∂eᵢ/∂qₖ q̇ₖ` for every `eᵢ`, in one pass (`t`: the time symbol, or
    /// `None` for functions of q alone).
    pub fn total_derivative(&mut self, es: &[Expr], q: &[Expr], qd: &[Expr], t: Option<Expr>) -> Vec<Expr> {
        let mut seeds: Vec<(Expr, Expr)> = q.iter().zip(qd).map(|(&x, &v)| (x, v)).collect();
        if let Some(t) = t {
            let one = self.one();
            seeds.push((t, one));
        }
        self.directional_many(es, &seeds)
    }

    /// `Σᵢ aᵢ bᵢ`.
    pub fn dot(&mut self, a: &[Expr], b: &[Expr]) -> Expr {
        let terms: Vec<Expr> = a.iter().zip(b).map(|(&x, &y)| self.mul2(x, y)).collect();
        self.add(&terms)
    }

    /// The adjugate and determinant of a square matrix of size 1 to 3 (A⁻¹ = adj / det), by
    /// cofactors; `None` for other sizes (no closed form is attempted).
    #[allow(clippy::needless_range_loop)] // the index form mirrors the cofactor formula
    pub fn adjugate(&mut self, a: &[Vec<Expr>]) -> Option<(Vec<Vec<Expr>>, Expr)> {
        let det2 = |arena: &mut Arena, p: Expr, q: Expr, r: Expr, s: Expr| {
            let ps = arena.mul2(p, s);
            let qr = arena.mul2(q, r);
            arena.sub(ps, qr)
        };
        match a.len() {
            1 => Some((vec![vec![self.one()]], a[0][0])),
            2 => {
                let det = det2(self, a[0][0], a[0][1], a[1][0], a[1][1]);
                let n01 = self.neg(a[0][1]);
                let n10 = self.neg(a[1][0]);
                Some((vec![vec![a[1][1], n01], vec![n10, a[0][0]]], det))
            }
            3 => {
                // Cofactors C_ij; adj = Cᵀ.
                let mut cof = vec![vec![self.zero(); 3]; 3];
                for i in 0..3 {
                    for j in 0..3 {
                        let rows: Vec<usize> = (0..3).filter(|&r| r != i).collect();
                        let cols: Vec<usize> = (0..3).filter(|&c| c != j).collect();
                        let m = det2(self, a[rows[0]][cols[0]], a[rows[0]][cols[1]], a[rows[1]][cols[0]], a[rows[1]][cols[1]]);
                        cof[i][j] = if (i + j) % 2 == 0 { m } else { self.neg(m) };
                    }
                }
                let terms: Vec<Expr> = (0..3).map(|j| self.mul2(a[0][j], cof[0][j])).collect();
                let det = self.add(&terms);
                let adj = (0..3).map(|i| (0..3).map(|j| cof[j][i]).collect()).collect();
                Some((adj, det))
            }
            _ => None,
        }
    }
}
