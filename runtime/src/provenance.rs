//! Where a result came from: the crate's version, the model, its parameters and the options of the
//! run, written beside the result so that a file read back months later says how to reproduce it.
//!
//! Every generated model has `provenance(options)` and `record(result, options)`; the runtime's
//! [`Provenance::new`] serves hand-written fields. With the `serde` feature a [`Record`] serializes
//! as
//!
//! ```text
//! { "provenance": { "routh": "0.1.0", "model": "Pendulum",
//!                   "parameters": { "m": 1.0, "l": 2.0 }, "options": { ... } },
//!   "result": { ... } }
//! ```
//!
//! parameters in declaration order, non-finite values by name (as every float of the results), and
//! reads back to an equal value. Nothing in it depends on the clock or the machine, so the same run
//! writes the same bytes.
//!
//! ```
//! use routh_runtime::provenance::{Provenance, Record};
//! use routh_runtime::Options;
//!
//! let p = Provenance::new("Pendulum", &["m", "l"], &[1.0, 2.0], Options::default().rtol(1e-10));
//! assert_eq!(p.parameter("l"), Some(2.0));
//! let record = Record::new(p, vec![0.5, 0.25]);
//! assert_eq!(record.provenance.model, "Pendulum");
//! assert_eq!(record.provenance.routh, routh_runtime::VERSION);
//! ```

/// The version of the runtime (and, pinned to it, of the derive and the facade) that produced a
/// result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The crate's version, the model's name and parameters, and the options `O` of a run.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Provenance<O> {
    /// [`VERSION`] of the crate that ran it.
    pub routh: String,
    /// The model's type name.
    pub model: String,
    /// The parameters (the model's fields) with their values, in declaration order; written as a
    /// map from name to value.
    #[cfg_attr(feature = "serde", serde(with = "parameters"))]
    pub parameters: Vec<(String, f64)>,
    /// The options of the run (any options type: [`crate::Options`], [`crate::HybridOptions`], …).
    pub options: O,
}

impl<O> Provenance<O> {
    /// The provenance of a run of `model` with the named parameter values and `options`, stamped
    /// with this crate's [`VERSION`]. Names beyond the values (or values beyond the names) are
    /// dropped: generated code passes both from the same list.
    pub fn new(model: &str, names: &[&str], values: &[f64], options: O) -> Self {
        Provenance {
            routh: VERSION.to_owned(),
            model: model.to_owned(),
            parameters: names.iter().zip(values).map(|(n, v)| ((*n).to_owned(), *v)).collect(),
            options,
        }
    }

    /// The value of the parameter `name`, if the model has one.
    #[must_use]
    pub fn parameter(&self, name: &str) -> Option<f64> {
        self.parameters.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

/// A result `R` with its [`Provenance`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Record<R, O> {
    /// Where it came from.
    pub provenance: Provenance<O>,
    /// The result (a trajectory, a branch, anything serializable).
    pub result: R,
}

impl<R, O> Record<R, O> {
    /// `result` with its provenance.
    pub fn new(provenance: Provenance<O>, result: R) -> Self {
        Record { provenance, result }
    }
}

/// The parameters as a map from name to value, in order, the values finite-or-named.
#[cfg(feature = "serde")]
mod parameters {
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde::ser::{SerializeMap, Serializer};

    use crate::serde_floats::Floats;

    /// A value written through [`Floats`].
    struct Value(f64);

    impl serde::Serialize for Value {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.write(s)
        }
    }

    impl<'de> serde::Deserialize<'de> for Value {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            f64::read(d).map(Value)
        }
    }

    pub(super) fn serialize<S: Serializer>(params: &[(String, f64)], s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(params.len()))?;
        for (name, value) in params {
            map.serialize_entry(name, &Value(*value))?;
        }
        map.end()
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, f64)>, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Vec<(String, f64)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map from parameter names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((name, Value(v))) = map.next_entry::<String, Value>()? {
                    out.push((name, v));
                }
                Ok(out)
            }
        }
        d.deserialize_map(Ordered)
    }
}
