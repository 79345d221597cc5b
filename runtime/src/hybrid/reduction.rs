//! **Hybrid Routh reduction** ([`Plan::reduced`](crate::Plan::reduced), *Hybrid momentum maps*, §4.1): the
//! reduced system runs at fixed μ between impacts on the augmented state z = (x_r, θ, μ)
//! (μ̇ = 0); guards are evaluated on the reconstructed full state (they need not be invariant);
//! at an impact the full model's law is applied and the post-impact state reduced again, giving
//! the new μ ([`MomentumJump`]). The reconstruction between impacts is
//! [`crate::mechanics::reduction`]'s. The removed positions θ (`K` of them: cyclic coordinates,
//! or an orientation's quaternion) and the momenta μ (`M`: the cyclic momenta, or the spatial
//! angular momentum of a reduction by rotations) need not be as many.

use std::ops::Range;

use nalgebra::SVector;

use crate::error::{FieldError, RunResult};
use crate::hybrid::{HybridOptions, HybridSystem, HybridTrajectory, ImpactRecord, simulate_hybrid};
use crate::mechanics::reduction::Reconstruction;
use crate::ode::field::VectorField;

/// A single-mode hybrid model with a Routh reduction (generated for `reduce(routh(...))` on a
/// model with impacts): `DR`-dimensional reduced state, `K` removed positions, `M` momenta,
/// `D`-dimensional full state.
pub trait HybridReduction<const DR: usize, const K: usize, const M: usize, const D: usize>: HybridSystem<D> {
    /// The reduced system at fixed momenta.
    type Reduced: Reconstruction<DR, K, D>;
    /// The reduced system at the momenta of `x`, the reduced state and the removed positions.
    fn reduce(&self, t: f64, x: &SVector<f64, D>) -> (Self::Reduced, SVector<f64, DR>, [f64; K]);
    /// The reduced system at momenta `mu`.
    fn reduced_at(&self, mu: [f64; M]) -> Self::Reduced;
    /// The momenta μ of a full state (the momentum map).
    fn momenta(&self, t: f64, x: &SVector<f64, D>) -> [f64; M];
}

/// Compile-time check that `DZ = DR + K + M`.
struct HybridAugmentedDim<const DR: usize, const K: usize, const M: usize, const DZ: usize>;

impl<const DR: usize, const K: usize, const M: usize, const DZ: usize> HybridAugmentedDim<DR, K, M, DZ> {
    const OK: () = assert!(DZ == DR + K + M, "the augmented state (x_r, θ, μ) has dimension DR + K + M");
}

/// The augmented hybrid system z = (x_r, θ, μ) of a hybrid Routh reduction.
struct Augmented<'s, S: ?Sized, const DR: usize, const K: usize, const M: usize, const D: usize>(&'s S);

impl<S, const DR: usize, const K: usize, const M: usize, const D: usize> Augmented<'_, S, DR, K, M, D>
where
    S: HybridReduction<DR, K, M, D> + ?Sized,
{
    fn split<const DZ: usize>(&self, z: &SVector<f64, DZ>) -> (S::Reduced, SVector<f64, DR>, [f64; K]) {
        let mu: [f64; M] = std::array::from_fn(|c| z[DR + K + c]);
        (self.0.reduced_at(mu), SVector::from_fn(|i, _| z[i]), std::array::from_fn(|c| z[DR + c]))
    }
    fn full_state<const DZ: usize>(&self, t: f64, z: &SVector<f64, DZ>) -> SVector<f64, D> {
        let (reduced, x, theta) = self.split(z);
        reduced.reconstruct(t, &x, theta)
    }
    fn augment<const DZ: usize>(&self, t: f64, full: &SVector<f64, D>) -> SVector<f64, DZ> {
        let (_, x, theta) = self.0.reduce(t, full);
        let mu = self.0.momenta(t, full);
        SVector::from_fn(|i, _| {
            if i < DR {
                x[i]
            } else if i < DR + K {
                theta[i - DR]
            } else {
                mu[i - DR - K]
            }
        })
    }
}

impl<S, const DR: usize, const K: usize, const M: usize, const D: usize, const DZ: usize> HybridSystem<DZ>
    for Augmented<'_, S, DR, K, M, D>
where
    S: HybridReduction<DR, K, M, D> + ?Sized,
{
    fn mode_name(&self, mode: usize) -> &'static str {
        self.0.mode_name(mode)
    }
    fn mode_field(&self, _mode: usize, t: f64, z: &SVector<f64, DZ>) -> Result<SVector<f64, DZ>, FieldError> {
        let (reduced, x, theta) = self.split(z);
        let dx = reduced.field(t, &x)?;
        let w = reduced.cyclic_velocities(t, &x, &theta);
        Ok(SVector::from_fn(|i, _| {
            if i < DR {
                dx[i]
            } else if i < DR + K {
                w[i - DR]
            } else {
                0.0
            }
        }))
    }
    fn guard_count(&self, mode: usize) -> usize {
        self.0.guard_count(mode)
    }
    fn guard_name(&self, mode: usize, guard: usize) -> &'static str {
        self.0.guard_name(mode, guard)
    }
    fn guard(&self, mode: usize, guard: usize, t: f64, z: &SVector<f64, DZ>) -> f64 {
        self.0.guard(mode, guard, t, &self.full_state(t, z))
    }
    fn guard_rate(&self, mode: usize, guard: usize, t: f64, z: &SVector<f64, DZ>) -> f64 {
        self.0.guard_rate(mode, guard, t, &self.full_state(t, z))
    }
    fn reset(&self, mode: usize, guard: usize, t: f64, z: &SVector<f64, DZ>) -> Result<(usize, SVector<f64, DZ>), FieldError> {
        let (next, post) = self.0.reset(mode, guard, t, &self.full_state(t, z))?;
        Ok((next, self.augment(t, &post)))
    }
    fn mode_energy(&self, mode: usize, t: f64, z: &SVector<f64, DZ>) -> f64 {
        self.0.mode_energy(mode, t, &self.full_state(t, z))
    }
}

/// Hybrid Routh reduction of `sys` from the full state `x0` (see the [module docs](self)):
/// returns the reconstructed trajectory of the full model (samples, impacts with full pre- and
/// post-states) and the jump of μ at every impact.
///
/// # Errors
/// As [`Plan::hybrid`](crate::Plan::hybrid).
pub(crate) fn simulate_hybrid_reduced<S, const DR: usize, const K: usize, const M: usize, const DZ: usize, const D: usize>(
    sys: &S,
    x0: SVector<f64, D>,
    span: Range<f64>,
    options: &HybridOptions,
) -> RunResult<(HybridTrajectory<D>, Vec<MomentumJump<M>>)>
where
    S: HybridReduction<DR, K, M, D> + ?Sized,
{
    let () = HybridAugmentedDim::<DR, K, M, DZ>::OK;
    let system = Augmented::<S, DR, K, M, D>(sys);
    let z0: SVector<f64, DZ> = system.augment(span.start, &x0);
    let full = |traj: HybridTrajectory<DZ>| -> (HybridTrajectory<D>, Vec<MomentumJump<M>>) {
        let mu = |z: &SVector<f64, DZ>| -> [f64; M] { std::array::from_fn(|c| z[DR + K + c]) };
        let jumps = traj
            .impacts
            .iter()
            .map(|i| MomentumJump { t: i.t, guard: i.guard, before: mu(&i.pre), after: mu(&i.post) })
            .collect();
        let states = traj.times.iter().zip(&traj.states).map(|(&t, z)| system.full_state(t, z)).collect();
        let impacts = traj
            .impacts
            .iter()
            .map(|i| ImpactRecord {
                t: i.t,
                guard: i.guard,
                guard_index: i.guard_index,
                mode_before: i.mode_before,
                mode_after: i.mode_after,
                rate: i.rate,
                pre: system.full_state(i.t, &i.pre),
                post: system.full_state(i.t, &i.post),
                energy_before: i.energy_before,
                energy_after: i.energy_after,
            })
            .collect();
        let full = HybridTrajectory {
            times: traj.times,
            states,
            modes: traj.modes,
            mode_names: traj.mode_names,
            impacts,
            stop: traj.stop,
            stats: traj.stats,
            initial_mode: traj.initial_mode,
            segments: Vec::new(),
            events: Vec::new(),
            constraints: traj.constraints,
            end: (traj.end.0, traj.end.1, system.full_state(traj.end.0, &traj.end.2)),
        };
        (full, jumps)
    };
    simulate_hybrid(&system, 0, z0, span, options).map(full).map_err(|e| e.map_partial(full))
}

/// [`simulate_hybrid_reduced`] for a reduction that carries no momenta (`M = 0`: a nonholonomic
/// reduction, whose reduced system does not depend on a momentum level): the reduced system
/// between impacts with the dropped coordinates reconstructed alongside, guards on the
/// reconstructed state, the full law at each impact and the post-impact state reduced again.
/// Returns the reconstructed trajectory of the full model.
///
/// # Errors
/// As [`Plan::hybrid`](crate::Plan::hybrid).
pub(crate) fn simulate_hybrid_reconstructed<S, const DR: usize, const K: usize, const DZ: usize, const D: usize>(
    sys: &S,
    x0: SVector<f64, D>,
    span: Range<f64>,
    options: &HybridOptions,
) -> RunResult<HybridTrajectory<D>>
where
    S: HybridReduction<DR, K, 0, D> + ?Sized,
{
    simulate_hybrid_reduced::<S, DR, K, 0, DZ, D>(sys, x0, span, options).map(|(t, _)| t).map_err(|e| e.map_partial(|(t, _)| t))
}

/// A jump of the reduced momenta μ at an impact, in hybrid Routh reduction (*Hybrid momentum
/// maps*, §4.1): the reduced system runs at fixed μ between impacts; at an impact the full state
/// is reconstructed, the full impact law applied, and μ recomputed from the post-impact state.
#[derive(Debug, Clone, PartialEq)]
pub struct MomentumJump<const M: usize> {
    /// Impact time.
    pub t: f64,
    /// Name of the guard that fired.
    pub guard: &'static str,
    /// μ before the impact.
    pub before: [f64; M],
    /// μ after the impact.
    pub after: [f64; M],
}
