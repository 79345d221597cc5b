//! The ODE engine: the one adaptive step loop ([`stepper`]), generic over its [`method`]
//! ([`dopri5`] and [`dop853`], and the implicit [`rodas`] for stiff models, with dense output), events located on the dense output ([`events`]), plain integration (the driver behind
//! [`crate::run::Plan::integrate`]),
//! options, states, vector fields and trajectories. Knows nothing of mechanics.

pub mod dop853;
pub mod dopri5;
pub mod events;
pub mod field;
pub(crate) mod integrate;
pub mod method;
pub mod monitor;
pub mod options;
pub mod rodas;
pub mod state;
pub mod stepper;
pub mod trajectory;
