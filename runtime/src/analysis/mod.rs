//! Analysis on top of the ODE, mechanics and hybrid layers: variational equations and saltation
//! matrices ([`variational`]), periodic orbits of hybrid systems ([`periodic`]), pseudo-arclength
//! continuation with bifurcation detection ([`continuation`]), ensembles of runs on all cores
//! ([`ensemble`]) and sharded, resumable sweeps over many machines (`sweep`, with the `serde`
//! feature), and the linearisation of constrained systems on their constraint manifold
//! ([`linearize`]), linear-quadratic regulators from the Riccati equations ([`lqr`]), the step
//! maps of discrete-time control with their exact Jacobians ([`step`]), iterative LQR over them
//! ([`ilqr`]) and model-predictive control by it ([`mpc`]), and observables evaluated
//! along a run ([`observables`]).

pub mod continuation;
pub mod ensemble;
pub mod equilibrium;
#[cfg(test)]
mod fixtures;
pub mod ilqr;
pub mod linearize;
pub mod lqr;
pub mod mpc;
pub mod observables;
pub mod periodic;
mod progress;
pub mod step;
#[cfg(feature = "serde")]
pub mod sweep;
pub mod variational;
