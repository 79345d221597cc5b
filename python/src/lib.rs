//! # routh-python — routh's models as Python modules
//!
//! A crate of type `cdylib` exports models it derives with one macro, and maturin builds it into a
//! Python module:
//!
//! ```ignore
//! use routh::prelude::*;
//!
//! #[derive(Mechanics)]
//! #[mechanics(coordinates(x), lagrangian = m / 2 * dot(x).powi(2) - k / 2 * x.powi(2))]
//! pub struct Spring { pub m: f64, pub k: f64 }
//!
//! routh_python::module!(springs, [Spring]);
//! ```
//!
//! ```python
//! import numpy as np, springs
//! s = springs.Spring(m=1.0, k=4.0)                  # parameters as keyword arguments
//! run = s.simulate([1.0, 0.0], (0.0, 10.0), rtol=1e-10)
//! run.t, run.x                                     # NumPy arrays: times, states (one row each)
//! s.field(np.array([1.0, 0.0]))                    # array([ 0., -4.])
//! ```
//!
//! Each model is a Python class, a subclass of `Model`, with the model's names as class
//! attributes (`parameters`, `coordinates`, `state_names`, `inputs`, `outputs`, `modes`,
//! `impacts`; a robot read from a description file its joints' `position_limits`,
//! `effort_limits`, `velocity_limits` and `friction` as read-only arrays) and its API as methods: `field`, `energy`, `momenta`, `mass_matrix`,
//! `inverse_dynamics`, `outputs`, `linearize`, `simulate` and `ensemble` (all cores, the GIL released). The numbers are the Rust model's to the
//! bit: every method goes through [`DynModel`], the typed API's glue. Failures raise the
//! exceptions of the `routh.errors` Python module (`ParameterError`, `ArgumentError`,
//! `SimulationError`, with routh's typed error as `kind` and a failed run's samples as `partial`).
//! `python -m routh.stubs <module>` writes the module's type stubs (`.pyi`) for editors.
//!
//! The crate that calls [`module!`] names this one `routh_python` (the macro's PyO3 attributes
//! find PyO3 through it) and needs no PyO3 dependency of its own.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::ffi::CString;
use std::sync::{Arc, Mutex, OnceLock};

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyModule, PyTuple, PyType};
use routh::runtime::ensemble::{EnsembleOptions, ensemble};
use routh::runtime::erased::{
    DiscreteKind, DiscreteRequest, DynModel, FlatDiscreteRun, FlatRun, FlatStep, IlqrScheme, InputLaw, LinearEvent, ModelInfo,
    RunRequest,
};
use routh::runtime::{Direction, HybridOptions, Output, RunError, Scheme, SimError};

#[doc(hidden)]
pub use pyo3;

/// Exports `models` (types deriving `Mechanics`) as the Python module `name`: each a class of that
/// name, a subclass of the module's `Model`.
///
/// ```ignore
/// routh_python::module!(pendulums, [DoublePendulum, CartPole]);
/// // With more of the crate's own: `fn more(module: &Bound<'_, PyModule>) -> PyResult<()>`.
/// routh_python::module!(pendulums, [DoublePendulum, CartPole], with = more);
/// ```
#[macro_export]
macro_rules! module {
    ($name:ident, [$($model:ty),+ $(,)?] $(, with = $extra:path)? $(,)?) => {
        #[$crate::pyo3::pymodule]
        #[pyo3(crate = "::routh_python::pyo3")]
        fn $name(module: &$crate::pyo3::Bound<'_, $crate::pyo3::types::PyModule>) -> $crate::pyo3::PyResult<()> {
            $crate::init(module)?;
            $( $crate::export::<$model>(module)?; )+
            $( $extra(module)?; )?
            Ok(())
        }
    };
}

/// How a model is built from its parameters' values.
type Make = fn(&[f64]) -> Result<Box<dyn DynModel>, SimError>;

/// What the module knows of each exported model: its description and how to build it.
struct Entry {
    info: &'static ModelInfo,
    make: Make,
}

/// The models this module exports, by the index their class carries (`_routh_model`).
fn registry() -> &'static Mutex<Vec<Entry>> {
    static REGISTRY: OnceLock<Mutex<Vec<Entry>>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(Vec::new()))
}

fn make<M: DynModel>(values: &[f64]) -> Result<Box<dyn DynModel>, SimError> {
    Ok(Box::new(M::from_parameters(values)?))
}

/// The module's shared classes: `Model` and `Solution` (called by [`module!`]).
///
/// # Errors
/// Python's, adding the classes.
#[doc(hidden)]
pub fn init(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Model>()?;
    module.add_class::<Solution>()?;
    module.add_function(wrap_pyfunction!(_rebuild, module)?)?;
    let errors = errors(module.py())?;
    for name in ["RouthError", "ParameterError", "ArgumentError", "SimulationError"] {
        module.add(name, errors.getattr(name)?)?;
    }
    module.add("__routh_version__", routh::runtime::VERSION)?;
    Ok(())
}

/// Exports the model `M` into `module` as a subclass of `Model` named after it (called by
/// [`module!`]).
///
/// # Errors
/// Python's, creating the class.
#[doc(hidden)]
pub fn export<M: DynModel>(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let info = M::describe();
    let index = {
        let mut registry = registry().lock().map_err(|_| PyRuntimeError::new_err("routh's model registry is poisoned"))?;
        registry.push(Entry { info, make: make::<M> });
        registry.len() - 1
    };
    let namespace = PyDict::new(py);
    namespace.set_item("_routh_model", index)?;
    namespace.set_item("__module__", module.name()?)?;
    namespace.set_item("__doc__", doc(info))?;
    namespace.set_item("__slots__", PyTuple::empty(py))?;
    for (key, names) in [
        ("parameters", info.parameters),
        ("coordinates", info.coordinates),
        ("state_names", info.state_names),
        ("inputs", info.inputs),
        ("outputs", info.outputs),
        ("modes", info.modes),
        ("impacts", info.impacts),
    ] {
        namespace.set_item(key, PyTuple::new(py, names)?)?;
    }
    namespace.set_item("state_dim", info.state_dim)?;
    // The variational integrator: its rule, kind and discrete state (None and empty without).
    let discrete = info.discrete;
    namespace.set_item("discrete_rule", discrete.map(|d| d.rule))?;
    namespace.set_item("discrete_kind", discrete.map(|d| discrete_kind(d.kind)))?;
    namespace.set_item("discrete_state_names", PyTuple::new(py, discrete.map_or(&[][..], |d| d.state_names))?)?;
    namespace.set_item("discrete_cyclic", PyTuple::new(py, discrete.map_or(&[][..], |d| d.cyclic))?)?;
    // A robot's limits and friction from its description files, read-only arrays by velocity
    // (None for a model written without a file).
    let limits = info.limits;
    let position = limits.map(|l| constant(py, l.position.iter().flatten().copied().collect(), Some(2))).transpose()?;
    namespace.set_item("position_limits", position)?;
    for (key, values) in [
        ("effort_limits", limits.map(|l| l.effort)),
        ("velocity_limits", limits.map(|l| l.velocity)),
        ("friction", limits.map(|l| l.friction)),
    ] {
        namespace.set_item(key, values.map(|v| constant(py, v.to_vec(), None)).transpose()?)?;
    }
    let base = py.get_type::<Model>();
    let class = py.get_type::<PyType>().call1((info.name, (base,), namespace))?;
    module.add(info.name, class)
}

/// `values` as a read-only NumPy array: a vector, or rows of `width` (a model's constants, shared
/// by every instance of its class).
fn constant(py: Python<'_>, values: Vec<f64>, width: Option<usize>) -> PyResult<Bound<'_, PyAny>> {
    let array = match width {
        Some(width) => matrix(py, values, width)?,
        None => PyArray1::from_vec(py, values).into_any(),
    };
    let flags = PyDict::new(py);
    flags.set_item("write", false)?;
    array.call_method("setflags", (), Some(&flags))?;
    Ok(array)
}

/// The Python name of a variational integrator's kind.
fn discrete_kind(kind: DiscreteKind) -> &'static str {
    match kind {
        DiscreteKind::Contact => "contact",
        DiscreteKind::Oriented => "oriented",
        _ => "variational",
    }
}

/// The class docstring of a model.
fn doc(info: &ModelInfo) -> String {
    let mut doc = format!(
        "{}({}): a routh model. Coordinates ({}); state ({}).",
        info.name,
        info.parameters.iter().map(|p| format!("{p}: float")).collect::<Vec<_>>().join(", "),
        info.coordinates.join(", "),
        info.state_names.join(", ")
    );
    if !info.inputs.is_empty() {
        doc.push_str(&format!(" Inputs ({}).", info.inputs.join(", ")));
    }
    if !info.modes.is_empty() {
        doc.push_str(&format!(" Modes ({}).", info.modes.join(", ")));
    }
    if !info.impacts.is_empty() {
        doc.push_str(&format!(" Impacts ({}).", info.impacts.join(", ")));
    }
    doc
}

/// The exception classes: `routh.errors` if the `routh` package is installed, else the same source
/// loaded once per process as `_routh_errors`.
fn errors(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    if let Ok(errors) = py.import("routh.errors") {
        return Ok(errors);
    }
    let modules = py.import("sys")?.getattr("modules")?;
    if let Ok(errors) = modules.get_item("_routh_errors") {
        return Ok(errors.cast_into::<PyModule>()?);
    }
    let source = CString::new(include_str!("../routh/errors.py")).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let errors = PyModule::from_code(py, &source, c"routh/errors.py", c"_routh_errors")?;
    modules.set_item("_routh_errors", &errors)?;
    Ok(errors)
}

/// The name of a `SimError`'s variant (`"StepSizeUnderflow"`).
fn kind(error: &SimError) -> String {
    let debug = format!("{error:?}");
    debug.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default().to_owned()
}

/// The Python exception of `error`, with the partial result `partial` (a `Solution`, or a
/// discrete run's dict) if any.
fn exception(py: Python<'_>, error: &SimError, partial: Option<Py<PyAny>>) -> PyErr {
    let class = class(error);
    instance(py, class, &error.to_string(), &kind(error), partial)
}

/// The exception class of `error` in `routh.errors`.
fn class(error: &SimError) -> &'static str {
    match error {
        SimError::InvalidParameter { .. } => "ParameterError",
        SimError::InvalidArgument(_)
        | SimError::InvalidMode { .. }
        | SimError::InvalidOptions(_)
        | SimError::InvalidTimeSpan { .. }
        | SimError::InvalidInitialState => "ArgumentError",
        _ => "SimulationError",
    }
}

/// An instance of the exception `class` of `routh.errors`, as the error to raise.
fn instance(py: Python<'_>, class: &str, message: &str, kind: &str, partial: Option<Py<PyAny>>) -> PyErr {
    let made = errors(py).and_then(|m| m.getattr(class)).and_then(|c| c.call1((message, kind, partial)));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

fn raise(py: Python<'_>, error: &SimError) -> PyErr {
    exception(py, error, None)
}

/// A state, inputs or parameters from Python: a 1-D NumPy array of floats (read in place when it is
/// aligned and contiguous — an array unpickled from a buffer may be neither) or any sequence of
/// numbers.
fn vector(value: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    if let Ok(array) = value.cast::<PyArray1<f64>>()
        && array.is_aligned()
        && array.is_c_contiguous()
    {
        return Ok(array.readonly().as_slice()?.to_vec());
    }
    value.extract::<Vec<f64>>()
}

fn optional_vector(value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<f64>> {
    value.map_or(Ok(Vec::new()), vector)
}

/// Rows of a 2-D array (or a sequence of sequences); a 1-D one is one row.
fn rows(value: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<f64>>> {
    if let Ok(array) = value.cast::<PyArray2<f64>>()
        && array.is_aligned()
        && array.is_c_contiguous()
    {
        let width = array.shape()[1];
        let read = array.readonly();
        return Ok(read.as_slice()?.chunks(width.max(1)).map(<[f64]>::to_vec).collect());
    }
    if let Ok(one) = vector(value) {
        return Ok(vec![one]);
    }
    value.extract::<Vec<Vec<f64>>>()
}

/// The events of a run from Python: each a dict with `name`, either `state` (a state component's
/// name) and `value` (default 0) or `weights` (one per state component) and `offset` (default 0),
/// and optionally `direction` (`"rising"`, `"falling"`, `"either"`) and `terminal` (a bool).
fn events(info: &ModelInfo, value: Option<&Bound<'_, PyAny>>) -> Result<Vec<LinearEvent>, SimError> {
    let Some(value) = value else { return Ok(Vec::new()) };
    let bad = |what: String| SimError::InvalidArgument(format!("events: {what}"));
    let items: Vec<Bound<'_, PyDict>> = value.extract().map_err(|_| bad("a list of dicts".into()))?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let get = |key: &str| item.get_item(key).ok().flatten();
        let name: String = get("name").and_then(|v| v.extract().ok()).ok_or_else(|| bad("each event needs a `name`".into()))?;
        let number = |key: &str| -> Result<f64, SimError> {
            get(key).map_or(Ok(0.0), |v| v.extract::<f64>().map_err(|_| bad(format!("`{key}` of `{name}` is not a number"))))
        };
        let mut event = match (get("state"), get("weights")) {
            (Some(state), None) => {
                let state: String = state.extract().map_err(|_| bad(format!("`state` of `{name}` is not a name")))?;
                let index = info.state_names.iter().position(|s| *s == state).ok_or_else(|| {
                    bad(format!("`{name}`: `{state}` is not one of the state's components ({})", info.state_names.join(", ")))
                })?;
                LinearEvent::component(name.clone(), info.state_dim, index, number("value")?)
            }
            (None, Some(weights)) => {
                let weights = vector(&weights).map_err(|_| bad(format!("`weights` of `{name}` are not numbers")))?;
                LinearEvent::new(name.clone(), weights, number("offset")?)
            }
            _ => return Err(bad(format!("`{name}` needs `state` (and `value`) or `weights` (and `offset`)"))),
        };
        if let Some(direction) = get("direction") {
            let direction: String = direction.extract().map_err(|_| bad(format!("`direction` of `{name}`")))?;
            event = event.direction(match direction.as_str() {
                "rising" => Direction::Rising,
                "falling" => Direction::Falling,
                "either" => Direction::Either,
                other => return Err(bad(format!("`{name}`: direction `{other}` is not rising, falling or either"))),
            });
        }
        if let Some(terminal) = get("terminal") {
            event = event.terminal(terminal.is_truthy().map_err(|_| bad(format!("`terminal` of `{name}`")))?);
        }
        out.push(event);
    }
    Ok(out)
}

/// How a run's inputs are given from Python: constant values (a sequence), a callable u(t, x), or
/// with `feedback = (K, x*)` the linear law u = u₀ − K (x − x*) about the constant values u₀ (zeros
/// if not given). A callable's exception is kept in `raised`, and raised when the run ends.
struct Drive {
    inputs: Vec<f64>,
    law: Option<InputLaw>,
    raised: Arc<Mutex<Option<PyErr>>>,
}

impl Drive {
    fn new(
        py: Python<'_>,
        info: &ModelInfo,
        inputs: Option<&Bound<'_, PyAny>>,
        feedback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let raised = Arc::new(Mutex::new(None));
        let k = info.inputs.len();
        let callable = inputs.filter(|i| i.is_callable());
        let constant = match inputs {
            Some(i) if !i.is_callable() => vector(i)?,
            _ if k > 0 && (callable.is_some() || feedback.is_some()) => vec![0.0; k],
            _ => Vec::new(),
        };
        let law = match (callable, feedback) {
            (Some(_), Some(_)) => {
                let error = SimError::InvalidArgument("give a callable `inputs` or a `feedback`, not both".into());
                return Err(raise(py, &error));
            }
            (Some(f), None) => {
                let f: Py<PyAny> = f.clone().unbind();
                let slot = Arc::clone(&raised);
                let law = move |t: f64, x: &[f64]| -> Vec<f64> {
                    Python::attach(|py| {
                        let called = f.bind(py).call1((t, PyArray1::from_slice(py, x))).and_then(|u| vector(&u));
                        called.unwrap_or_else(|e| {
                            if let Ok(mut slot) = slot.lock() {
                                slot.get_or_insert(e);
                            }
                            Vec::new()
                        })
                    })
                };
                Some(InputLaw::Function(Arc::new(law)))
            }
            (None, Some(feedback)) => {
                let (gain, at): (Bound<'_, PyAny>, Bound<'_, PyAny>) = feedback.extract()?;
                let gain: Vec<f64> = rows(&gain)?.concat();
                Some(InputLaw::Linear { gain, at: vector(&at)? })
            }
            (None, None) => None,
        };
        Ok(Drive { inputs: constant, law, raised })
    }

    /// The exception a callable raised during the run, if any.
    fn raised(&self) -> Option<PyErr> {
        self.raised.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// The options of a run from Python's keyword arguments.
struct RunOptions {
    options: HybridOptions,
    events: Vec<LinearEvent>,
}

/// The tolerances and method of a run: `rtol`, `atol`, `method`.
type Tolerances<'a> = (Option<f64>, Option<f64>, &'a str);
/// Where a run samples and how long it may take: `t_eval`, `dt`, `max_steps`.
type Sampling<'a, 'py> = (Option<&'a Bound<'py, PyAny>>, Option<f64>, Option<usize>);

impl RunOptions {
    /// The options of `simulate` and `ensemble` (the keyword arguments they share).
    fn new(
        info: &ModelInfo,
        (rtol, atol, method): Tolerances<'_>,
        (t_eval, dt, max_steps): Sampling<'_, '_>,
        events: Option<&Bound<'_, PyAny>>,
    ) -> Result<Self, SimError> {
        let mut options = HybridOptions::default();
        let ode = &mut options.ode;
        if let Some(rtol) = rtol {
            ode.rtol = rtol;
        }
        if let Some(atol) = atol {
            ode.atol = atol;
        }
        if let Some(max_steps) = max_steps {
            ode.max_steps = max_steps;
        }
        ode.scheme = match method.to_ascii_lowercase().as_str() {
            "dopri5" | "rk45" => Scheme::Dopri5,
            "dop853" => Scheme::Dop853,
            "rodas4" | "stiff" => Scheme::Rodas4,
            other => {
                return Err(SimError::InvalidOptions(format!("method `{other}`: one of \"dopri5\", \"dop853\", \"rodas4\"")));
            }
        };
        ode.output = match (t_eval, dt) {
            (Some(_), Some(_)) => return Err(SimError::InvalidOptions("give `t_eval` or `dt`, not both".into())),
            (Some(times), None) => Output::Times(vector(times).map_err(|e| SimError::InvalidOptions(format!("t_eval: {e}")))?),
            (None, Some(dt)) => Output::Interval(dt),
            (None, None) => Output::Steps,
        };
        Ok(RunOptions { options, events: crate::events(info, events)? })
    }
}

/// A model exported from Rust: the base class of every model class of a module. Build a model
/// with its parameters as keyword arguments (`DoublePendulum(m1=1.0, ...)`).
#[pyclass(subclass, frozen, module = "routh", name = "Model")]
pub struct Model {
    inner: Arc<dyn DynModel>,
}

impl Model {
    fn info(&self) -> &'static ModelInfo {
        self.inner.info()
    }

    /// The step with its Jacobians of `scheme` ("rk4" or "variational"), in the state or
    /// (`tangent`) in the orientations' charts.
    fn stepped(
        &self,
        mode: usize,
        t: f64,
        (x, u): (&[f64], &[f64]),
        dt: f64,
        (tangent, scheme): (bool, &str),
    ) -> Result<FlatStep, SimError> {
        match self.scheme(scheme, tangent, false)? {
            IlqrScheme::Variational => {
                routh::runtime::erased::mode(self.info(), mode)?;
                self.inner.discrete_step(t, x, u, dt)
            }
            _ if tangent => self.inner.rk4_step_tangent(mode, t, x, u, dt),
            _ => self.inner.rk4_step(mode, t, x, u, dt),
        }
    }

    /// The step map `scheme` names ("rk4", "variational" and, for iLQR, `euler`
    /// "semi_implicit_euler"), checked against `tangent`: the Lie group integrator's Jacobians
    /// are in its chart (`tangent=True`), the other integrators' in their state.
    fn scheme(&self, scheme: &str, tangent: bool, euler: bool) -> Result<IlqrScheme, SimError> {
        let name = self.info().name;
        match scheme.to_ascii_lowercase().as_str() {
            "rk4" => Ok(IlqrScheme::Rk4),
            "semi_implicit_euler" if euler => Ok(IlqrScheme::SemiImplicitEuler),
            "variational" => match self.info().discrete.map(|d| d.kind) {
                Some(DiscreteKind::Oriented) if !tangent => Err(SimError::InvalidArgument(format!(
                    "{name} steps on its Lie group variational integrator, whose Jacobians are in the chart (δx, η, δμ): \
                     pass tangent=True (Q and the gains over the chart's 2n components)"
                ))),
                Some(kind) if tangent && kind != DiscreteKind::Oriented => Err(SimError::InvalidArgument(format!(
                    "{name} has no orientations: its variational integrator's step is over its discrete state \
                     {:?}, without tangent=True",
                    self.info().discrete.map_or(&[][..], |d| d.state_names)
                ))),
                _ => Ok(IlqrScheme::Variational),
            },
            other => Err(unknown_scheme(other, euler)),
        }
    }

    fn request(&self, x0: Vec<f64>, t_span: (f64, f64), mode: usize, drive: &Drive, options: &RunOptions) -> RunRequest {
        let request = RunRequest::new(x0, t_span.0..t_span.1)
            .mode(mode)
            .options(options.options.clone())
            .inputs(drive.inputs.clone())
            .events(options.events.clone())
            .with_outputs(false);
        match &drive.law {
            Some(law) => request.law(law.clone()),
            None => request,
        }
    }
}

/// `values` (a row per sample of `width`) as a 2-D NumPy array.
fn matrix<'py>(py: Python<'py>, values: Vec<f64>, width: usize) -> PyResult<Bound<'py, PyAny>> {
    let n = values.len().checked_div(width).unwrap_or(0);
    Ok(PyArray1::from_vec(py, values).reshape([n, width])?.into_any())
}

/// The error of a step map's name that is none of the schemes (`euler`: where the semi-implicit
/// Euler step is one).
fn unknown_scheme(name: &str, euler: bool) -> SimError {
    SimError::InvalidArgument(format!(
        "scheme `{name}`: one of \"rk4\", \"variational\"{}",
        if euler { ", \"semi_implicit_euler\"" } else { "" }
    ))
}

/// A Riccati solver of the runtime's `lqr` (`care` or `dare`): (A, B, Q, R) to the LQR.
type Riccati = fn(&Dense, &Dense, &Dense, &Dense) -> Result<routh::runtime::lqr::Lqr, routh::runtime::lqr::LqrError>;
type Dense = routh::nalgebra::DMatrix<f64>;

/// The LQR gain of the linear system (A, B) with the weights (Q, R) read from Python, by the
/// Riccati solver `riccati` (continuous or discrete).
fn gain<'py>(
    py: Python<'py>,
    (a, b): (&Dense, &Dense),
    (q, r): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
    riccati: Riccati,
) -> PyResult<Bound<'py, PyAny>> {
    let (q, r) = (square(py, q, a.nrows(), "Q")?, square(py, r, b.ncols(), "R")?);
    let lqr = riccati(a, b, &q, &r).map_err(|e| instance(py, "ArgumentError", &e.to_string(), "Lqr", None))?;
    dense(py, &lqr.gain)
}

/// A weight matrix of an LQR: `n × n` from rows, or an `ArgumentError` naming it (`what`).
fn square(py: Python<'_>, m: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<routh::nalgebra::DMatrix<f64>> {
    let rows = rows(m)?;
    if rows.len() != n || rows.iter().any(|row| row.len() != n) {
        let error = SimError::InvalidArgument(format!("{what} must be {n} × {n}"));
        return Err(raise(py, &error));
    }
    Ok(routh::nalgebra::DMatrix::from_fn(n, n, |i, j| rows[i][j]))
}

/// A matrix as a 2-D NumPy array (of its shape, a B with no columns included).
fn dense<'py>(py: Python<'py>, m: &routh::nalgebra::DMatrix<f64>) -> PyResult<Bound<'py, PyAny>> {
    let rows: Vec<f64> = (0..m.nrows()).flat_map(|i| (0..m.ncols()).map(move |j| m[(i, j)])).collect();
    Ok(PyArray1::from_vec(py, rows).reshape([m.nrows(), m.ncols()])?.into_any())
}

/// A run's result as a `Solution` (its arrays made when first read; the outputs evaluated then, by
/// `model` at the inputs `request` drove it with).
fn solution(py: Python<'_>, model: &Arc<dyn DynModel>, request: &Arc<RunRequest>, run: FlatRun) -> PyResult<Py<Solution>> {
    Py::new(py, Solution::new(Arc::clone(model), Arc::clone(request), run))
}

/// A run's result, or its failure as the exception to raise (with the partial run).
fn outcome(
    py: Python<'_>,
    model: &Arc<dyn DynModel>,
    request: &Arc<RunRequest>,
    run: Result<FlatRun, RunError<FlatRun>>,
) -> PyResult<Py<Solution>> {
    match run {
        Ok(run) => solution(py, model, request, run),
        Err(RunError { error, partial }) => {
            let partial = match partial {
                Some(p) => Some(solution(py, model, request, *p)?.into_any()),
                None => None,
            };
            Err(exception(py, &error, partial))
        }
    }
}

#[pymethods]
impl Model {
    /// The model with its parameters as keyword arguments (every one, by name).
    #[new]
    #[classmethod]
    #[pyo3(signature = (**parameters))]
    fn new(cls: &Bound<'_, PyType>, parameters: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let py = cls.py();
        let index: usize = cls
            .getattr("_routh_model")
            .and_then(|i| i.extract())
            .map_err(|_| PyTypeError::new_err("Model is the base class of a module's models: build one of them"))?;
        let (info, make) = {
            let registry = registry().lock().map_err(|_| PyRuntimeError::new_err("routh's model registry is poisoned"))?;
            let entry = registry.get(index).ok_or_else(|| PyTypeError::new_err("not a model of this module"))?;
            (entry.info, entry.make)
        };
        let mut values = vec![f64::NAN; info.parameters.len()];
        let mut missing: Vec<&str> = info.parameters.to_vec();
        if let Some(parameters) = parameters {
            for (key, value) in parameters.iter() {
                let key: String = key.extract()?;
                let Some(i) = info.parameters.iter().position(|p| *p == key) else {
                    let message =
                        format!("{}() has no parameter `{key}`; its parameters are {}", info.name, info.parameters.join(", "));
                    return Err(instance(py, "ParameterError", &message, "UnknownParameter", None));
                };
                values[i] = value.extract()?;
                missing.retain(|p| *p != key);
            }
        }
        if !missing.is_empty() {
            let message = format!("{}() needs the parameters {}", info.name, missing.join(", "));
            return Err(instance(py, "ParameterError", &message, "MissingParameter", None));
        }
        let inner = make(&values).map_err(|e| raise(py, &e))?;
        Ok(Model { inner: Arc::from(inner) })
    }

    /// The parameters' values by name.
    #[getter]
    fn parameter_values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in self.info().parameters.iter().zip(self.inner.parameter_values()) {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// The same model with some parameters changed (keyword arguments).
    #[pyo3(signature = (**changes))]
    fn with_parameters<'py>(slf: &Bound<'py, Self>, changes: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, PyAny>> {
        let all = slf.get().parameter_values(slf.py())?;
        if let Some(changes) = changes {
            all.update(changes.as_mapping())?;
        }
        slf.get_type().call((), Some(&all))
    }

    /// The field F(t, x) (at the inputs `u`, in `mode`).
    #[pyo3(signature = (x, t = 0.0, u = None, mode = 0))]
    fn field<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        t: f64,
        u: Option<&Bound<'py, PyAny>>,
        mode: usize,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let u = optional_vector(u)?;
        let value = match x.cast::<PyArray1<f64>>() {
            Ok(array) if array.is_aligned() && array.is_c_contiguous() => {
                self.inner.field(mode, t, array.readonly().as_slice()?, &u)
            }
            _ => self.inner.field(mode, t, &vector(x)?, &u),
        };
        Ok(PyArray1::from_vec(py, value.map_err(|e| raise(py, &e))?))
    }

    /// The energy E(t, x) (in `mode`).
    #[pyo3(signature = (x, t = 0.0, mode = 0))]
    fn energy(&self, py: Python<'_>, x: &Bound<'_, PyAny>, t: f64, mode: usize) -> PyResult<f64> {
        self.inner.energy(mode, t, &vector(x)?).map_err(|e| raise(py, &e))
    }

    /// The momenta p = ∂L/∂q̇ (in `mode`).
    #[pyo3(signature = (x, t = 0.0, mode = 0))]
    fn momenta<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, t: f64, mode: usize) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let p = self.inner.momenta(mode, t, &vector(x)?).map_err(|e| raise(py, &e))?;
        Ok(PyArray1::from_vec(py, p))
    }

    /// The mass matrix M(t, q) (in `mode`), n × n.
    #[pyo3(signature = (x, t = 0.0, mode = 0))]
    fn mass_matrix<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, t: f64, mode: usize) -> PyResult<Bound<'py, PyAny>> {
        let m = self.inner.mass_matrix(mode, t, &vector(x)?).map_err(|e| raise(py, &e))?;
        let n = m.len().isqrt();
        matrix(py, m, n)
    }

    /// The inverse dynamics τ = M q̈ − f at the state `x` (and inputs `u`, in `mode`): the
    /// generalized forces that, added to the model's own, give the accelerations `qdd`.
    #[pyo3(signature = (x, qdd, t = 0.0, u = None, mode = 0))]
    fn inverse_dynamics<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        qdd: &Bound<'py, PyAny>,
        t: f64,
        u: Option<&Bound<'py, PyAny>>,
        mode: usize,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let tau =
            self.inner.inverse_dynamics(mode, t, &vector(x)?, &optional_vector(u)?, &vector(qdd)?).map_err(|e| raise(py, &e))?;
        Ok(PyArray1::from_vec(py, tau))
    }

    /// The static generalized forces −f(t, q, 0) at the state `x` (and inputs `u`, in `mode`): what
    /// holds the model still at its positions — gravity compensation's torques.
    #[pyo3(signature = (x, t = 0.0, u = None, mode = 0))]
    fn static_forces<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        t: f64,
        u: Option<&Bound<'py, PyAny>>,
        mode: usize,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let held = self.inner.static_forces(mode, t, &vector(x)?, &optional_vector(u)?).map_err(|e| raise(py, &e))?;
        Ok(PyArray1::from_vec(py, held))
    }

    /// ∂τ/∂q and ∂τ/∂q̇ of the inverse dynamics at the accelerations `qdd` (at the state `x`, the
    /// inputs `u`, in `mode`), each n × n: for the linearisations of computed-torque and
    /// model-predictive controllers (∂τ/∂q̈ is the mass matrix).
    #[pyo3(signature = (x, qdd, t = 0.0, u = None, mode = 0))]
    fn inverse_dynamics_jacobian<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        qdd: &Bound<'py, PyAny>,
        t: f64,
        u: Option<&Bound<'py, PyAny>>,
        mode: usize,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let (dq, dv) = self
            .inner
            .inverse_dynamics_jacobian(mode, t, &vector(x)?, &optional_vector(u)?, &vector(qdd)?)
            .map_err(|e| raise(py, &e))?;
        let n = dq.len().isqrt();
        Ok((matrix(py, dq, n)?, matrix(py, dv, n)?))
    }

    /// The outputs at a state, by name.
    #[pyo3(name = "output_values", signature = (x, t = 0.0, u = None, mode = 0))]
    fn output_values<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        t: f64,
        u: Option<&Bound<'py, PyAny>>,
        mode: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let values = self.inner.outputs(mode, t, &vector(x)?, &optional_vector(u)?).map_err(|e| raise(py, &e))?;
        let dict = PyDict::new(py);
        for (name, value) in self.info().outputs.iter().zip(values) {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// The outputs' Jacobian C = ∂y/∂x at the state `x` (in `mode`): one row per output (in the
    /// order of `outputs`), one column per component of the state — with `linearize`'s A and B the
    /// linear model δẋ = A δx + B δu, δy = C δx. An `ArgumentError` says why where the model
    /// generates none (an output of `multiplier(...)`, say). No inputs: outputs never read them.
    #[pyo3(signature = (x, t = 0.0, mode = 0))]
    fn output_jacobian<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, t: f64, mode: usize) -> PyResult<Bound<'py, PyAny>> {
        let c = self.inner.output_jacobian(mode, t, &vector(x)?).map_err(|e| raise(py, &e))?;
        matrix(py, c, self.info().state_dim)
    }

    /// The linearisation (A, B) = (∂F/∂x, ∂F/∂u) at the state `x` and inputs `u` (in `mode`).
    #[pyo3(signature = (x, u = None, t = 0.0, mode = 0))]
    fn linearize<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        u: Option<&Bound<'py, PyAny>>,
        t: f64,
        mode: usize,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let lin = self.inner.linearize(mode, t, &vector(x)?, &optional_vector(u)?).map_err(|e| raise(py, &e))?;
        Ok((dense(py, &lin.a)?, dense(py, &lin.b)?))
    }

    /// The linearisation in the tangent chart of the model's orientations (a floating base, a ball
    /// joint, a free body): each orientation charted by its body rotation vector θ about the
    /// reference motion (its velocities θ̇ = δω − ω₀ × θ), so that a free body's is 12 × 12 where
    /// `linearize` in the quaternion state is 13 × 13 with a redundant direction (which no
    /// regulator stabilises). A dict: `states` (the chart's names, `theta1(R)`, … and their
    /// `dot(...)`), `a` and `b` over them, `embedding` (each chart direction in the full state),
    /// and `mass`, `damping`, `stiffness`, `input` of M δq̈ + C δq̇ + K δq = B δu. An
    /// `ArgumentError` where the model generates none (no orientations, constraints, modes, or no
    /// `jacobian`).
    #[pyo3(signature = (x, u = None, t = 0.0, mode = 0))]
    fn linearize_tangent<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        u: Option<&Bound<'py, PyAny>>,
        t: f64,
        mode: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let lin = self.inner.linearize_tangent(mode, t, &vector(x)?, &optional_vector(u)?).map_err(|e| raise(py, &e))?;
        let dict = PyDict::new(py);
        dict.set_item("states", lin.states.clone())?;
        dict.set_item("a", dense(py, &lin.a)?)?;
        dict.set_item("b", dense(py, &lin.b)?)?;
        dict.set_item("embedding", dense(py, &lin.embedding)?)?;
        if let Some(m) = &lin.mechanical {
            for (name, value) in [("mass", &m.mass), ("damping", &m.damping), ("stiffness", &m.stiffness), ("input", &m.input)] {
                dict.set_item(name, dense(py, value)?)?;
            }
        }
        Ok(dict)
    }

    /// The continuous-time linear-quadratic regulator about the state `x` and inputs `u`: the gain
    /// K (inputs × state) of u − u₀ = −K (x − x*) minimising ∫ δxᵀQδx + δuᵀRδu dt, from the
    /// linearisation (routh's CARE solver). With `tangent=True`, in the chart of
    /// `linearize_tangent` (Q and K over its states): the regulator of a model with orientations,
    /// whose quaternion state has a direction no regulator moves (their norms).
    #[pyo3(signature = (x, u, q, r, t = 0.0, mode = 0, tangent = false))]
    #[allow(clippy::too_many_arguments)]
    fn lqr<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        u: &Bound<'py, PyAny>,
        q: &Bound<'py, PyAny>,
        r: &Bound<'py, PyAny>,
        t: f64,
        mode: usize,
        tangent: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (x, u) = (vector(x)?, vector(u)?);
        let (a, b) = if tangent {
            self.inner.linearize_tangent(mode, t, &x, &u).map(|l| (l.a, l.b))
        } else {
            self.inner.linearize(mode, t, &x, &u).map(|l| (l.a, l.b))
        }
        .map_err(|e| raise(py, &e))?;
        gain(py, (&a, &b), (q, r), routh::runtime::lqr::care)
    }

    /// One classical Runge–Kutta step of size `dt` from the state `x` with the inputs `u` held, and
    /// its exact Jacobians: `(x_next, A_d, B_d)` with A_d = ∂x_next/∂x and B_d = ∂x_next/∂u (the
    /// discrete-time model of LQR and iLQR; routh's `step::rk4_step`). With `tangent=True` (a model
    /// with orientations) A_d and B_d are in the orientations' tangent charts about `x` and about
    /// `x_next` (the chart of `linearize_tangent`; routh's `step::rk4_tangent_step`), where the
    /// quaternion state's carry each quaternion's scale. With `scheme="variational"` (a model with
    /// `discrete(rule = ...)` and inputs) the step of its variational integrator from the discrete
    /// state `x` (`discrete_state`: positions, momenta and, for a contact integrator, the action),
    /// with its exact Jacobians (routh's `VariationalMap`, `ContactMap`; for a model with
    /// orientations `OrientedMap`, whose Jacobians are in the chart (δx, η, δμ): `tangent=True`).
    #[pyo3(signature = (x, u, dt, t = 0.0, mode = 0, tangent = false, scheme = "rk4"))]
    #[allow(clippy::type_complexity, clippy::too_many_arguments)]
    fn step<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        u: &Bound<'py, PyAny>,
        dt: f64,
        t: f64,
        mode: usize,
        tangent: bool,
        scheme: &str,
    ) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let step = self.stepped(mode, t, (&vector(x)?, &vector(u)?), dt, (tangent, scheme)).map_err(|e| raise(py, &e))?;
        Ok((PyArray1::from_vec(py, step.next), dense(py, &step.a)?, dense(py, &step.b)?))
    }

    /// One classical Runge–Kutta step of size `dt` from the state `x` with the inputs `u` held,
    /// without Jacobians: x_next alone (`step`'s first result to the bit; routh's `step::rk4`), for
    /// any model and mode — a plant's tick in a loop written in Python, four evaluations of the
    /// field where `step` integrates the variational equations too. Impacts and mode changes are
    /// not looked for inside the step (`simulate` does). With `scheme="variational"` the step of
    /// the model's variational integrator from the discrete state `x` (`discrete_state`; a model
    /// with `discrete(rule = ...)` and inputs), `step(..., scheme="variational")`'s first result to
    /// the bit.
    #[pyo3(signature = (x, u, dt, t = 0.0, mode = 0, scheme = "rk4"))]
    #[allow(clippy::too_many_arguments)]
    fn advance<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        u: &Bound<'py, PyAny>,
        dt: f64,
        t: f64,
        mode: usize,
        scheme: &str,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (x, u) = (vector(x)?, vector(u)?);
        let next = match scheme.to_ascii_lowercase().as_str() {
            "rk4" => self.inner.rk4_advance(mode, t, &x, &u, dt),
            "variational" => {
                routh::runtime::erased::mode(self.info(), mode).and_then(|()| self.inner.discrete_advance(t, &x, &u, dt))
            }
            other => Err(unknown_scheme(other, false)),
        }
        .map_err(|e| raise(py, &e))?;
        Ok(PyArray1::from_vec(py, next))
    }

    /// The discrete-time linear-quadratic regulator of the RK4 step of size `dt` about the state
    /// `x` and inputs `u` (a fixed point of the step): the gain K (inputs × state) of
    /// u_k − u₀ = −K (x_k − x*) minimising Σ δx_kᵀQδx_k + δu_kᵀRδu_k, from the step's exact
    /// Jacobians (routh's DARE solver). With `tangent=True` the regulator in the orientations'
    /// tangent charts (`step(..., tangent=True)`; Q over the charts' 2n components), where the
    /// quaternion state's DARE has no stabilising solution (a quaternion's scale, which no input
    /// moves). With `scheme="variational"` the regulator of the variational integrator's step
    /// (`step(..., scheme="variational")`) about the discrete state `x`.
    #[pyo3(signature = (x, u, q, r, dt, t = 0.0, mode = 0, tangent = false, scheme = "rk4"))]
    #[allow(clippy::too_many_arguments)]
    fn dlqr<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        u: &Bound<'py, PyAny>,
        q: &Bound<'py, PyAny>,
        r: &Bound<'py, PyAny>,
        dt: f64,
        t: f64,
        mode: usize,
        tangent: bool,
        scheme: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let step = self.stepped(mode, t, (&vector(x)?, &vector(u)?), dt, (tangent, scheme)).map_err(|e| raise(py, &e))?;
        gain(py, (&step.a, &step.b), (q, r), routh::runtime::lqr::dare)
    }

    /// Iterative LQR over the model's RK4 step of size `dt` (routh's `ilqr`, with the GIL
    /// released): from `x0`, the inputs `guess` (one row per step: N × inputs) improved towards
    /// `goal` under J = Σ ½ (x_k − x*)ᵀQ(x_k − x*) + ½ (u_k − u*)ᵀR(u_k − u*) + ½ (x_N − x*)ᵀQ_f(x_N − x*)
    /// with u* = `reference` (zero by default) and the inputs' `limits = (lower, upper)` if given;
    /// with `path = (states, inputs)` along a path instead — the reference states x*_0 … x*_N
    /// ((N + 1) × state) and inputs u*_0 … u*_{N−1} (N × inputs), `goal` then unused.
    /// A dict: `states` ((N + 1) × state), `inputs` (N × inputs), `gains` (N × inputs × state or 2n, the
    /// policy u_k + K_k (x − x_k) near the solution), `costs` (J after each accepted iteration) and
    /// `status` ("converged", "iteration limit" or "no descent"). With `tangent=True` (a model with
    /// orientations; routh's `ilqr_tangent`) it plans in the orientations' tangent charts: the
    /// step's Jacobians, the cost's deviations x ⊖ x* and the policy's x ⊖ x_k in each orientation's
    /// body rotation vector and its rate, Q, Q_f and the gains over the charts' 2n components —
    /// where in the quaternion state the cost weighs the quaternions' components. `scheme`: the step
    /// planned on, "rk4", "semi_implicit_euler" (routh's `step::SemiImplicitEuler`: one
    /// evaluation of the field's Jacobians a step; a model with x = (q, v), q̇ = v) or
    /// "variational" (a model with `discrete(rule = ...)` and inputs: its variational integrator's
    /// step map, `step(..., scheme="variational")`, the states x0, goal, the plan's and the path's
    /// in the discrete state — `discrete_state` — and with orientations `tangent=True`, the Lie
    /// group integrator's deviations in its chart (δx, η, δμ); routh's `ilqr_oriented`). With
    /// `parallel=True` each iteration's step Jacobians are computed on all cores (routh's
    /// `IlqrProblem::parallel`): the same plan to the bit, in less time where a step's Jacobians
    /// cost microseconds (a robot's), in more where they cost nanoseconds (a pendulum's). With
    /// `final_gains=False` the iteration's last linearisations and backward pass, which give only
    /// the gains about the final trajectory, are skipped (routh's `IlqrProblem::final_gains`):
    /// `gains` is empty (0 × inputs × state), the rest the same to the bit — an MPC applying each
    /// plan's first input at half the work a tick with `max_iterations=1`.
    #[pyo3(signature = (x0, guess, dt, goal, q, r, qf, *, t0 = 0.0, reference = None, path = None, limits = None, tolerance = 1e-8, max_iterations = 200, tangent = false, scheme = "rk4", parallel = false, final_gains = true))]
    #[allow(clippy::too_many_arguments)]
    fn ilqr<'py>(
        &self,
        py: Python<'py>,
        x0: &Bound<'py, PyAny>,
        guess: &Bound<'py, PyAny>,
        dt: f64,
        goal: &Bound<'py, PyAny>,
        q: &Bound<'py, PyAny>,
        r: &Bound<'py, PyAny>,
        qf: &Bound<'py, PyAny>,
        t0: f64,
        reference: Option<&Bound<'py, PyAny>>,
        path: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
        limits: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
        tolerance: f64,
        max_iterations: usize,
        tangent: bool,
        scheme: &str,
        parallel: bool,
        final_gains: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let scheme = self.scheme(scheme, tangent, true).map_err(|e| raise(py, &e))?;
        // The plan's states: the model's, or on its variational integrator the discrete state's.
        let d = match (scheme, self.info().discrete) {
            (IlqrScheme::Variational, Some(discrete)) => discrete.state_names.len(),
            _ => self.info().state_dim,
        };
        let k = self.info().inputs.len();
        // The deviations' dimension: the state's, or the charts' 2n (Q's own, checked by routh).
        let c = if tangent { rows(q)?.len() } else { d };
        let weights = (square(py, q, c, "Q")?, square(py, r, k, "R")?, square(py, qf, c, "Q_f")?);
        let mut request = routh::runtime::erased::IlqrRequest::new(vector(x0)?, rows(guess)?, dt, vector(goal)?, weights);
        request.t0 = t0;
        request.reference = optional_vector(reference)?;
        request.path = path.map(|(states, inputs)| Ok::<_, PyErr>((rows(&states)?, rows(&inputs)?))).transpose()?;
        request.limits = limits.map(|(lower, upper)| Ok::<_, PyErr>((vector(&lower)?, vector(&upper)?))).transpose()?;
        request.tolerance = tolerance;
        request.max_iterations = max_iterations;
        request.parallel = parallel;
        request.final_gains = final_gains;
        request.scheme = scheme;
        let inner = Arc::clone(&self.inner);
        let solution = py
            .detach(move || if tangent { inner.ilqr_tangent(&request) } else { inner.ilqr(&request) })
            .map_err(|e| raise(py, &e))?;
        let table = |v: &[Vec<f64>], width: usize| -> PyResult<Bound<'py, PyAny>> {
            Ok(PyArray1::from_vec(py, v.concat()).reshape([v.len(), width])?.into_any())
        };
        let gains: Vec<f64> =
            solution.gains.iter().flat_map(|g| (0..k).flat_map(move |i| (0..c).map(move |j| g[(i, j)]))).collect();
        let out = PyDict::new(py);
        out.set_item("states", table(&solution.states, d)?)?;
        out.set_item("inputs", table(&solution.inputs, k)?)?;
        out.set_item("gains", PyArray1::from_vec(py, gains).reshape([solution.gains.len(), k, c])?)?;
        out.set_item("costs", PyArray1::from_vec(py, solution.costs))?;
        let status = match solution.status {
            routh::runtime::ilqr::IlqrStatus::Converged => "converged".to_owned(),
            routh::runtime::ilqr::IlqrStatus::IterationLimit => "iteration limit".to_owned(),
            routh::runtime::ilqr::IlqrStatus::NoDescent => "no descent".to_owned(),
            other => format!("{other:?}"),
        };
        out.set_item("status", status)?;
        Ok(out)
    }

    /// The discrete state of the model's state `x` at `t` (a model with `discrete(rule = ...)`): its
    /// positions, the momenta p = ∂L/∂q̇ (with orientations each body's in its axes) and, for a
    /// contact integrator, the action — the first node of `simulate_discrete` from `x`, and the
    /// state of `step(..., scheme="variational")` (components: `discrete_state_names`).
    #[pyo3(signature = (x, t = 0.0))]
    fn discrete_state<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>, t: f64) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let state = self.inner.discrete_state(t, &vector(x)?).map_err(|e| raise(py, &e))?;
        Ok(PyArray1::from_vec(py, state))
    }

    /// A run of the model's variational integrator (`discrete(rule = ...)`; routh's
    /// `run_discrete`) from the model's state `x0` at `t0`: `steps` steps of `dt`, the inputs held
    /// at `inputs` (a model with inputs; zeros if not given), Newton to `tolerance` in at most
    /// `max_iterations` iterations a step, with the GIL released. A dict: `t` (steps + 1), `x`
    /// ((steps + 1) × the discrete state: `discrete_state_names`), `iterations` (Newton's, each
    /// step) and with `energies=True` `energy`, the energy at each node (routh's
    /// `discrete_energies`: the velocities from the momenta by the inverse Legendre transform).
    /// With `reduced=True` (a model with a discrete Routh reduction: `discrete_cyclic` names its
    /// cyclic coordinates; routh's `run_discrete(x0)…reduced()`) each step is solved on the
    /// reduced space — the cyclic coordinates of the first node at zero, the unknowns the shape and
    /// the increments — and the cyclic coordinates reconstructed; the dict then has `increments`
    /// (steps × the cyclic coordinates: W_k = g_{k+1} − g_k). A step that cannot be solved raises
    /// `SimulationError` with the nodes before it as its `partial` (the same dict).
    #[pyo3(signature = (x0, dt, steps, *, t0 = 0.0, inputs = None, tolerance = 1e-14, max_iterations = 30, energies = false, reduced = false))]
    #[allow(clippy::too_many_arguments)]
    fn simulate_discrete<'py>(
        &self,
        py: Python<'py>,
        x0: &Bound<'py, PyAny>,
        dt: f64,
        steps: usize,
        t0: f64,
        inputs: Option<&Bound<'py, PyAny>>,
        tolerance: f64,
        max_iterations: usize,
        energies: bool,
        reduced: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut request = DiscreteRequest::new(vector(x0)?, dt, steps);
        (request.t0, request.energies, request.reduced) = (t0, energies, reduced);
        request.inputs = match inputs {
            Some(u) => vector(u)?,
            None => vec![0.0; self.info().inputs.len()],
        };
        request.options = routh::runtime::DiscreteOptions::default().tolerance(tolerance).max_iterations(max_iterations);
        let inner = Arc::clone(&self.inner);
        let width = self.info().discrete.map_or(0, |d| d.state_names.len());
        let groups = self.info().discrete.map_or(0, |d| d.cyclic.len());
        let nodes = |run: FlatDiscreteRun| -> PyResult<Bound<'py, PyDict>> {
            let out = PyDict::new(py);
            out.set_item("t", PyArray1::from_vec(py, run.times))?;
            out.set_item("x", matrix(py, run.states.concat(), width)?)?;
            out.set_item("iterations", PyArray1::from_vec(py, run.iterations.iter().map(|&i| i as u64).collect()))?;
            if energies {
                out.set_item("energy", PyArray1::from_vec(py, run.energies))?;
            }
            if reduced {
                out.set_item("increments", matrix(py, run.increments.concat(), groups)?)?;
            }
            Ok(out)
        };
        match py.detach(move || inner.discrete_run(&request)) {
            Ok(run) => nodes(run),
            Err(RunError { error, partial }) => {
                let partial = partial.map(|p| nodes(*p).map(|d| d.into_any().unbind())).transpose()?;
                Err(exception(py, &error, partial))
            }
        }
    }

    /// A run from `x0` over `t_span = (t0, t1)`: the model's own run (smooth, constrained, hybrid),
    /// with the GIL released while it integrates. `inputs`: a model's inputs — constant values, or a
    /// callable u(t, x) (called with the GIL), or with `feedback = (K, x*)` the constant u₀ of the
    /// linear law u = u₀ − K (x − x*) (evaluated in Rust);
    /// `mode`: the start's mode; `t_eval` (times) or `dt` (a grid step) for where to sample;
    /// `events`: zero crossings to locate, each a dict (`name`; `state` and `value`, or `weights`
    /// and `offset`; `direction`; `terminal`).
    #[pyo3(signature = (x0, t_span, *, rtol = None, atol = None, method = "dopri5", inputs = None, mode = 0, t_eval = None, dt = None, max_steps = None, events = None, feedback = None))]
    #[allow(clippy::too_many_arguments)]
    fn simulate(
        &self,
        py: Python<'_>,
        x0: &Bound<'_, PyAny>,
        t_span: (f64, f64),
        rtol: Option<f64>,
        atol: Option<f64>,
        method: &str,
        inputs: Option<&Bound<'_, PyAny>>,
        mode: usize,
        t_eval: Option<&Bound<'_, PyAny>>,
        dt: Option<f64>,
        max_steps: Option<usize>,
        events: Option<&Bound<'_, PyAny>>,
        feedback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<Solution>> {
        let options =
            RunOptions::new(self.info(), (rtol, atol, method), (t_eval, dt, max_steps), events).map_err(|e| raise(py, &e))?;
        let drive = Drive::new(py, self.info(), inputs, feedback)?;
        let request = Arc::new(self.request(vector(x0)?, t_span, mode, &drive, &options));
        let (inner, shared) = (Arc::clone(&self.inner), Arc::clone(&request));
        let run = py.detach(move || inner.run(&shared));
        if let Some(raised) = drive.raised() {
            return Err(raised);
        }
        outcome(py, &self.inner, &request, run)
    }

    /// Many runs on all cores with the GIL released: one per row of `x0` (a 2-D array; one row is
    /// every member's start) and of `parameters` (rows of the model's parameters in their order;
    /// `None` is this model's). Returns a list in the rows' order of `Solution`s, or for a member
    /// that failed the exception it would raise (not raised: the others are kept).
    #[pyo3(signature = (x0, t_span, *, parameters = None, rtol = None, atol = None, method = "dopri5", inputs = None, mode = 0, t_eval = None, dt = None, max_steps = None, events = None, feedback = None, threads = None))]
    #[allow(clippy::too_many_arguments)]
    fn ensemble<'py>(
        &self,
        py: Python<'py>,
        x0: &Bound<'py, PyAny>,
        t_span: (f64, f64),
        parameters: Option<&Bound<'py, PyAny>>,
        rtol: Option<f64>,
        atol: Option<f64>,
        method: &str,
        inputs: Option<&Bound<'py, PyAny>>,
        mode: usize,
        t_eval: Option<&Bound<'py, PyAny>>,
        dt: Option<f64>,
        max_steps: Option<usize>,
        events: Option<&Bound<'py, PyAny>>,
        feedback: Option<&Bound<'py, PyAny>>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let options =
            RunOptions::new(self.info(), (rtol, atol, method), (t_eval, dt, max_steps), events).map_err(|e| raise(py, &e))?;
        let starts = rows(x0)?;
        let parameters = parameters.map(rows).transpose()?;
        if starts.is_empty() || parameters.as_ref().is_some_and(Vec::is_empty) {
            return Ok(PyList::empty(py));
        }
        let count = match &parameters {
            Some(p) if starts.len() == 1 => p.len(),
            Some(p) if p.len() != 1 && p.len() != starts.len() => {
                let error = SimError::InvalidArgument(format!("{} starts but {} rows of parameters", starts.len(), p.len()));
                return Err(raise(py, &error));
            }
            _ => starts.len(),
        };
        let drive = Drive::new(py, self.info(), inputs, feedback)?;
        let members: Vec<(usize, Arc<RunRequest>)> = (0..count)
            .map(|i| (i, Arc::new(self.request(starts[i.min(starts.len() - 1)].clone(), t_span, mode, &drive, &options))))
            .collect();
        let requests: Vec<Arc<RunRequest>> = members.iter().map(|(_, r)| Arc::clone(r)).collect();
        let inner = Arc::clone(&self.inner);
        let ensemble_options = EnsembleOptions::default().progress(false).threads(threads);
        type Member = (Arc<dyn DynModel>, Result<FlatRun, RunError<FlatRun>>);
        let results = py.detach(move || {
            let run = |_: usize, (i, request): &(usize, Arc<RunRequest>)| -> Member {
                let model: Arc<dyn DynModel> = match &parameters {
                    Some(rows) => match inner.with_parameters(&rows[(*i).min(rows.len() - 1)]) {
                        Ok(model) => Arc::from(model),
                        Err(error) => return (Arc::clone(&inner), Err(error.into())),
                    },
                    None => Arc::clone(&inner),
                };
                let run = model.run(request);
                (model, run)
            };
            ensemble(&members, run, &ensemble_options)
        });
        let results = results.map_err(|e| raise(py, &e))?;
        if let Some(raised) = drive.raised() {
            return Err(raised);
        }
        let list = PyList::empty(py);
        for (result, request) in results.into_iter().zip(&requests) {
            let (model, run) = result.unwrap_or_else(|error| (Arc::clone(&self.inner), Err(RunError { error, partial: None })));
            match outcome(py, &model, request, run) {
                Ok(solution) => list.append(solution)?,
                Err(error) => list.append(error.value(py))?,
            }
        }
        Ok(list)
    }

    fn __repr__(&self) -> String {
        let info = self.info();
        let values = self.inner.parameter_values();
        let parameters: Vec<String> = info.parameters.iter().zip(values).map(|(p, v)| format!("{p}={v:?}")).collect();
        format!("{}({})", info.name, parameters.join(", "))
    }

    /// Pickling (Dask, multiprocessing): the class and the parameters' values.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let class = slf.get_type();
        let module = slf.py().import(class.getattr("__module__")?.extract::<String>()?)?;
        Ok((module.getattr("_rebuild")?, (class.into_any(), slf.get().inner.parameter_values())))
    }
}

/// What a model pickles as: `_rebuild` and its arguments (the class, the parameters' values).
type Reduced<'py> = (Bound<'py, PyAny>, (Bound<'py, PyAny>, Vec<f64>));

/// `_rebuild(cls, values)`: the model of class `cls` with these parameter values (unpickling).
#[pyfunction]
fn _rebuild<'py>(cls: &Bound<'py, PyType>, values: Vec<f64>) -> PyResult<Bound<'py, PyAny>> {
    let names: Vec<String> = cls.getattr("parameters")?.extract()?;
    let kwargs = PyDict::new(cls.py());
    for (name, value) in names.iter().zip(values) {
        kwargs.set_item(name, value)?;
    }
    cls.call((), Some(&kwargs))
}

/// The result of a run: times `t`, states `x` (one row per sample), the mode of each sample,
/// outputs by name, events and impacts, and how it ended. The arrays are made from the run's
/// samples when first read (an ensemble's results cost nothing until used).
#[pyclass(frozen, module = "routh", name = "Solution")]
pub struct Solution {
    model: Arc<dyn DynModel>,
    request: Arc<RunRequest>,
    run: FlatRun,
    t: PyOnceLock<Py<PyAny>>,
    x: PyOnceLock<Py<PyAny>>,
    modes: PyOnceLock<Py<PyAny>>,
    outputs: PyOnceLock<Py<PyAny>>,
    events: PyOnceLock<Py<PyAny>>,
    impacts: PyOnceLock<Py<PyAny>>,
}

impl Solution {
    fn new(model: Arc<dyn DynModel>, request: Arc<RunRequest>, run: FlatRun) -> Self {
        Solution {
            model,
            request,
            run,
            t: PyOnceLock::new(),
            x: PyOnceLock::new(),
            modes: PyOnceLock::new(),
            outputs: PyOnceLock::new(),
            events: PyOnceLock::new(),
            impacts: PyOnceLock::new(),
        }
    }

    /// The cached value of `cell`, made by `make` on first use.
    fn cached<'py>(
        py: Python<'py>,
        cell: &PyOnceLock<Py<PyAny>>,
        make: impl FnOnce() -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Ok(cell.get_or_try_init(py, || make().map(Bound::unbind))?.bind(py).clone())
    }
}

#[pymethods]
impl Solution {
    /// The sample times (1-D array).
    #[getter]
    fn t<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::cached(py, &self.t, || Ok(PyArray1::from_slice(py, &self.run.times).into_any()))
    }

    /// The states, one row per sample (2-D array).
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::cached(py, &self.x, || matrix(py, self.run.states.clone(), self.run.dim))
    }

    /// The mode of each sample (1-D integer array; zeros for a model with one mode).
    #[getter]
    fn modes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::cached(py, &self.modes, || {
            let modes: Vec<i64> = self.run.modes.iter().map(|&m| m as i64).collect();
            Ok(PyArray1::from_vec(py, modes).into_any())
        })
    }

    /// The outputs at each sample by name (`output(...)`).
    #[getter]
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::cached(py, &self.outputs, || {
            let names = self.model.info().outputs;
            let mut columns = vec![Vec::with_capacity(self.run.len()); names.len()];
            if !names.is_empty() {
                for k in 0..self.run.len() {
                    let (t, x) = (self.run.times[k], self.run.state(k));
                    let u = if self.model.info().inputs.is_empty() { Vec::new() } else { self.request.inputs_at(t, x) };
                    let row = self.model.outputs(self.run.modes[k], t, x, &u).map_err(|e| raise(py, &e))?;
                    for (column, value) in columns.iter_mut().zip(row) {
                        column.push(value);
                    }
                }
            }
            let outputs = PyDict::new(py);
            for (name, column) in names.iter().zip(columns) {
                outputs.set_item(name, PyArray1::from_vec(py, column))?;
            }
            Ok(outputs.into_any())
        })
    }

    /// The events located: (name, t, state).
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::cached(py, &self.events, || {
            let events = PyList::empty(py);
            for e in &self.run.events {
                events.append((e.name.clone(), e.t, PyArray1::from_slice(py, &e.state)))?;
            }
            Ok(events.into_any())
        })
    }

    /// The impacts: dicts of t, guard, mode_before, mode_after, pre, post.
    #[getter]
    fn impacts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Self::cached(py, &self.impacts, || {
            let impacts = PyList::empty(py);
            for i in &self.run.impacts {
                let record = PyDict::new(py);
                record.set_item("t", i.t)?;
                record.set_item("guard", i.guard)?;
                record.set_item("mode_before", i.modes.0)?;
                record.set_item("mode_after", i.modes.1)?;
                record.set_item("pre", PyArray1::from_slice(py, &i.pre))?;
                record.set_item("post", PyArray1::from_slice(py, &i.post))?;
                impacts.append(record)?;
            }
            Ok(impacts.into_any())
        })
    }

    /// The names of the state's components (the columns of `x`).
    #[getter]
    fn state_names<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.model.info().state_names)
    }

    /// Whether the run reached the end of its span.
    #[getter]
    fn finished(&self) -> bool {
        self.run.finished
    }

    /// How it ended, in words.
    #[getter]
    fn stop(&self) -> &str {
        &self.run.stop
    }

    /// Accepted steps.
    #[getter]
    fn steps(&self) -> usize {
        self.run.stats.steps
    }

    /// Rejected step attempts.
    #[getter]
    fn rejected(&self) -> usize {
        self.run.stats.rejected
    }

    /// Field evaluations.
    #[getter]
    fn evaluations(&self) -> usize {
        self.run.stats.evaluations
    }

    fn __len__(&self) -> usize {
        self.run.len()
    }

    fn __repr__(&self) -> String {
        format!("Solution({} samples, stop = {})", self.run.len(), self.run.stop)
    }
}
