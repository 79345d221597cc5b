//! Analysis on top of the ODE, mechanics and hybrid layers: variational equations and saltation
//! matrices ([`variational`]), periodic orbits of hybrid systems ([`periodic`]), pseudo-arclength
//! continuation with bifurcation detection ([`continuation`]), and ensembles of runs on all cores
//! ([`ensemble`]).

pub mod continuation;
pub mod ensemble;
pub mod periodic;
pub mod variational;
