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
//! `impacts`) and its API as methods: `field`, `energy`, `momenta`, `outputs`, `linearize`,
//! `simulate` and `ensemble` (all cores, the GIL released). The numbers are the Rust model's to the
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
use pyo3::types::{PyDict, PyList, PyModule, PyTuple, PyType};
use routh::runtime::ensemble::{EnsembleOptions, ensemble};
use routh::runtime::erased::{DynModel, FlatRun, ModelInfo, RunRequest};
use routh::runtime::{HybridOptions, Output, RunError, Scheme, SimError};

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
    let base = py.get_type::<Model>();
    let class = py.get_type::<PyType>().call1((info.name, (base,), namespace))?;
    module.add(info.name, class)
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

/// The Python exception of `error`, with the partial result `partial` (a `Solution`) if any.
fn exception(py: Python<'_>, error: &SimError, partial: Option<Py<Solution>>) -> PyErr {
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
fn instance(py: Python<'_>, class: &str, message: &str, kind: &str, partial: Option<Py<Solution>>) -> PyErr {
    let made = errors(py).and_then(|m| m.getattr(class)).and_then(|c| c.call1((message, kind, partial)));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    }
}

fn raise(py: Python<'_>, error: &SimError) -> PyErr {
    exception(py, error, None)
}

/// A state, inputs or parameters from Python: a 1-D NumPy array of floats (read in place) or any
/// sequence of numbers.
fn vector(value: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    if let Ok(array) = value.cast::<PyArray1<f64>>() {
        let read = array.readonly();
        if let Ok(slice) = read.as_slice() {
            return Ok(slice.to_vec());
        }
    }
    value.extract::<Vec<f64>>()
}

fn optional_vector(value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<f64>> {
    value.map_or(Ok(Vec::new()), vector)
}

/// Rows of a 2-D array (or a sequence of sequences); a 1-D one is one row.
fn rows(value: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<f64>>> {
    if let Ok(array) = value.cast::<PyArray2<f64>>() {
        let read = array.readonly();
        let [n, d] = [read.shape()[0], read.shape()[1]];
        let flat: Vec<f64> = read.as_array().iter().copied().collect();
        return Ok((0..n).map(|i| flat[i * d..(i + 1) * d].to_vec()).collect());
    }
    if let Ok(one) = vector(value) {
        return Ok(vec![one]);
    }
    value.extract::<Vec<Vec<f64>>>()
}

/// The options of a run from Python's keyword arguments.
struct RunOptions {
    options: HybridOptions,
}

impl RunOptions {
    #[allow(clippy::too_many_arguments)]
    fn new(
        rtol: Option<f64>,
        atol: Option<f64>,
        method: &str,
        t_eval: Option<&Bound<'_, PyAny>>,
        dt: Option<f64>,
        max_steps: Option<usize>,
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
        Ok(RunOptions { options })
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

    fn request(&self, x0: Vec<f64>, t_span: (f64, f64), mode: usize, inputs: Vec<f64>, options: &RunOptions) -> RunRequest {
        RunRequest::new(x0, t_span.0..t_span.1).mode(mode).options(options.options.clone()).inputs(inputs)
    }
}

/// `values` (a row per sample of `width`) as a 2-D NumPy array.
fn matrix<'py>(py: Python<'py>, values: Vec<f64>, width: usize) -> PyResult<Bound<'py, PyAny>> {
    let n = values.len().checked_div(width).unwrap_or(0);
    Ok(PyArray1::from_vec(py, values).reshape([n, width])?.into_any())
}

/// A run's result as a `Solution`.
fn solution(py: Python<'_>, info: &ModelInfo, run: FlatRun) -> PyResult<Py<Solution>> {
    let outputs = PyDict::new(py);
    let k = info.outputs.len();
    if k > 0 {
        for (j, name) in info.outputs.iter().enumerate() {
            let column: Vec<f64> = run.outputs.iter().skip(j).step_by(k).copied().collect();
            outputs.set_item(name, PyArray1::from_vec(py, column))?;
        }
    }
    let events = PyList::empty(py);
    for e in &run.events {
        events.append((e.name.clone(), e.t, PyArray1::from_slice(py, &e.state)))?;
    }
    let impacts = PyList::empty(py);
    for i in &run.impacts {
        let record = PyDict::new(py);
        record.set_item("t", i.t)?;
        record.set_item("guard", i.guard)?;
        record.set_item("mode_before", i.modes.0)?;
        record.set_item("mode_after", i.modes.1)?;
        record.set_item("pre", PyArray1::from_slice(py, &i.pre))?;
        record.set_item("post", PyArray1::from_slice(py, &i.post))?;
        impacts.append(record)?;
    }
    let modes: Vec<i64> = run.modes.iter().map(|&m| m as i64).collect();
    Py::new(
        py,
        Solution {
            t: PyArray1::from_vec(py, run.times).into_any().unbind(),
            x: matrix(py, run.states, run.dim)?.unbind(),
            modes: PyArray1::from_vec(py, modes).into_any().unbind(),
            outputs: outputs.into_any().unbind(),
            events: events.into_any().unbind(),
            impacts: impacts.into_any().unbind(),
            state_names: PyTuple::new(py, info.state_names)?.into_any().unbind(),
            finished: run.finished,
            stop: run.stop,
            steps: run.stats.steps,
            rejected: run.stats.rejected,
            evaluations: run.stats.evaluations,
        },
    )
}

/// A run's result, or its failure as the exception to raise (with the partial run).
fn outcome(py: Python<'_>, info: &ModelInfo, run: Result<FlatRun, RunError<FlatRun>>) -> PyResult<Py<Solution>> {
    match run {
        Ok(run) => solution(py, info, run),
        Err(RunError { error, partial }) => {
            let partial = match partial {
                Some(p) => Some(solution(py, info, *p)?),
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
        let value = match x.cast::<PyArray1<f64>>().ok().map(|a| a.readonly()) {
            Some(read) if read.as_slice().is_ok() => self.inner.field(mode, t, read.as_slice()?, &u),
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
        let dense = |m: &routh::nalgebra::DMatrix<f64>| -> PyResult<Bound<'py, PyAny>> {
            let rows: Vec<f64> = (0..m.nrows()).flat_map(|i| (0..m.ncols()).map(move |j| m[(i, j)])).collect();
            Ok(PyArray1::from_vec(py, rows).reshape([m.nrows(), m.ncols()])?.into_any())
        };
        Ok((dense(&lin.a)?, dense(&lin.b)?))
    }

    /// A run from `x0` over `t_span = (t0, t1)`: the model's own run (smooth, constrained, hybrid),
    /// with the GIL released while it integrates. `inputs`: constant values of a model's inputs;
    /// `mode`: the start's mode; `t_eval` (times) or `dt` (a grid step) for where to sample.
    #[pyo3(signature = (x0, t_span, *, rtol = None, atol = None, method = "dopri5", inputs = None, mode = 0, t_eval = None, dt = None, max_steps = None))]
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
    ) -> PyResult<Py<Solution>> {
        let options = RunOptions::new(rtol, atol, method, t_eval, dt, max_steps).map_err(|e| raise(py, &e))?;
        let request = self.request(vector(x0)?, t_span, mode, optional_vector(inputs)?, &options);
        let inner = Arc::clone(&self.inner);
        let run = py.detach(move || inner.run(&request));
        outcome(py, self.info(), run)
    }

    /// Many runs on all cores with the GIL released: one per row of `x0` (a 2-D array; one row is
    /// every member's start) and of `parameters` (rows of the model's parameters in their order;
    /// `None` is this model's). Returns a list in the rows' order of `Solution`s, or for a member
    /// that failed the exception it would raise (not raised: the others are kept).
    #[pyo3(signature = (x0, t_span, *, parameters = None, rtol = None, atol = None, method = "dopri5", inputs = None, mode = 0, t_eval = None, dt = None, max_steps = None, threads = None))]
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
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let options = RunOptions::new(rtol, atol, method, t_eval, dt, max_steps).map_err(|e| raise(py, &e))?;
        let starts = rows(x0)?;
        let parameters = parameters.map(rows).transpose()?;
        let count = match &parameters {
            Some(p) if starts.len() == 1 => p.len(),
            Some(p) if p.len() != 1 && p.len() != starts.len() => {
                let error = SimError::InvalidArgument(format!("{} starts but {} rows of parameters", starts.len(), p.len()));
                return Err(raise(py, &error));
            }
            _ => starts.len(),
        };
        let inputs = optional_vector(inputs)?;
        let members: Vec<(usize, RunRequest)> = (0..count)
            .map(|i| (i, self.request(starts[i.min(starts.len() - 1)].clone(), t_span, mode, inputs.clone(), &options)))
            .collect();
        let inner = Arc::clone(&self.inner);
        let ensemble_options = EnsembleOptions::default().progress(false).threads(threads);
        let results = py.detach(move || {
            let run = |_: usize, (i, request): &(usize, RunRequest)| -> Result<FlatRun, RunError<FlatRun>> {
                match &parameters {
                    Some(rows) => {
                        let model = inner.with_parameters(&rows[(*i).min(rows.len() - 1)])?;
                        model.run(request)
                    }
                    None => inner.run(request),
                }
            };
            ensemble(&members, run, &ensemble_options)
        });
        let results = results.map_err(|e| raise(py, &e))?;
        let list = PyList::empty(py);
        for result in results {
            let run = result.unwrap_or_else(|error| Err(RunError { error, partial: None }));
            match outcome(py, self.info(), run) {
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
/// outputs by name, events and impacts, and how it ended.
#[pyclass(frozen, get_all, module = "routh", name = "Solution")]
pub struct Solution {
    /// The sample times (1-D array).
    t: Py<PyAny>,
    /// The states, one row per sample (2-D array).
    x: Py<PyAny>,
    /// The mode of each sample (1-D integer array; zeros for a model with one mode).
    modes: Py<PyAny>,
    /// The outputs at each sample by name (`output(...)`).
    outputs: Py<PyAny>,
    /// The events located: (name, t, state).
    events: Py<PyAny>,
    /// The impacts: dicts of t, guard, mode_before, mode_after, pre, post.
    impacts: Py<PyAny>,
    /// The names of the state's components (the columns of `x`).
    state_names: Py<PyAny>,
    /// Whether the run reached the end of its span.
    finished: bool,
    /// How it ended, in words.
    stop: String,
    /// Accepted steps.
    steps: usize,
    /// Rejected step attempts.
    rejected: usize,
    /// Field evaluations.
    evaluations: usize,
}

#[pymethods]
impl Solution {
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.t.bind(py).len()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Solution({} samples, stop = {})", self.t.bind(py).len()?, self.stop))
    }
}
