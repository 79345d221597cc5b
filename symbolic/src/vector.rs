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
    /// column, as [`Arena::jacobian`]) and returned per block. All blocks must have one length.
    pub fn jacobian_blocks<const B: usize>(&mut self, es: &[Expr], blocks: [&[Expr]; B]) -> [Vec<Vec<Expr>>; B] {
        let n = blocks.first().map_or(0, |b| b.len());
        let mut out: [Vec<Vec<Expr>>; B] = std::array::from_fn(|_| vec![Vec::with_capacity(n); es.len()]);
        for j in 0..n {
            for (b, block) in blocks.iter().enumerate() {
                for (row, d) in out[b].iter_mut().zip(self.diff_many(es, block[j])) {
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
}
