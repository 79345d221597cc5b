//! Serde for the runtime's results that reads back what it wrote, non-finite values included.
//!
//! JSON has no number for NaN or ±∞ (serde_json writes `null`, which does not read back as an
//! `f64`). In human-readable formats (JSON, YAML, TOML, …) every float of a result is therefore
//! written as a number when it is finite and as the string `"NaN"`, `"inf"` or `"-inf"` when it is
//! not; `null` reads back as NaN (what earlier versions wrote). Binary formats carry the `f64`
//! itself. Used as `#[serde(with = "crate::serde_floats")]` on fields of any shape of [`Floats`].
//!
//! Names (`&'static str`: guards, constraint rows, parameters) read back are interned: each
//! distinct name is allocated once for the life of the process, however often it is read. (Such
//! fields are spelled `&'static core::primitive::str`, the same type: serde's derive would take
//! `&'static str` for a borrow of the input and demand input that lives forever.)

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use nalgebra::{DMatrix, DVector, SMatrix};
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

/// A field type whose floats are written finite-or-named (see the [module docs](self)).
pub(crate) trait Floats: Sized {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error>;
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
}

/// `serialize_with` for any [`Floats`] field.
pub(crate) fn serialize<T: Floats, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    value.write(s)
}

/// `deserialize_with` for any [`Floats`] field.
pub(crate) fn deserialize<'de, T: Floats, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    T::read(d)
}

/// A value written through its [`Floats`] impl.
struct W<'a, T>(&'a T);

impl<T: Floats> Serialize for W<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.write(s)
    }
}

/// A value read through its [`Floats`] impl.
struct R<T>(T);

impl<'de, T: Floats> Deserialize<'de> for R<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::read(d).map(R)
    }
}

impl Floats for f64 {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() && !self.is_finite() {
            s.serialize_str(if self.is_nan() {
                "NaN"
            } else if *self > 0.0 {
                "inf"
            } else {
                "-inf"
            })
        } else {
            s.serialize_f64(*self)
        }
    }

    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() { d.deserialize_any(FloatVisitor) } else { d.deserialize_f64(FloatVisitor) }
    }
}

/// A number, a non-finite value by name, or `null` (NaN).
struct FloatVisitor;

impl Visitor<'_> for FloatVisitor {
    type Value = f64;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a number, or \"NaN\", \"inf\" or \"-inf\"")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        match v {
            "NaN" | "nan" => Ok(f64::NAN),
            "inf" | "+inf" | "infinity" | "Infinity" => Ok(f64::INFINITY),
            "-inf" | "-infinity" | "-Infinity" => Ok(f64::NEG_INFINITY),
            other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
        }
    }
    fn visit_unit<E: de::Error>(self) -> Result<f64, E> {
        Ok(f64::NAN)
    }
    fn visit_none<E: de::Error>(self) -> Result<f64, E> {
        Ok(f64::NAN)
    }
}

impl Floats for usize {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.serialize(s)
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        usize::deserialize(d)
    }
}

/// A fixed-size vector (`C = 1`: a state) as a list of its components; a fixed-size matrix as a
/// list of its rows.
impl<const NR: usize, const NC: usize> Floats for SMatrix<f64, NR, NC> {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if NC == 1 { s.collect_seq(self.iter().map(W)) } else { rows(self.nrows(), self.ncols(), |i, j| self[(i, j)]).write(s) }
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if NC == 1 {
            let values = Vec::<f64>::read(d)?;
            if values.len() != NR {
                return Err(de::Error::invalid_length(values.len(), &format!("a state of {NR} components").as_str()));
            }
            return Ok(SMatrix::from_iterator(values));
        }
        let rows = Vec::<Vec<f64>>::read(d)?;
        if rows.len() != NR || rows.iter().any(|r| r.len() != NC) {
            return Err(de::Error::invalid_length(rows.len(), &format!("{NR} rows of {NC} entries").as_str()));
        }
        Ok(SMatrix::from_fn(|i, j| rows[i][j]))
    }
}

/// The rows of an `r × c` matrix given by its entries.
fn rows(r: usize, c: usize, entry: impl Fn(usize, usize) -> f64) -> Vec<Vec<f64>> {
    (0..r).map(|i| (0..c).map(|j| entry(i, j)).collect()).collect()
}

/// A vector of any length as a list of its components.
impl Floats for DVector<f64> {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(W))
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(DVector::from_vec(Vec::<f64>::read(d)?))
    }
}

/// A matrix of any shape as `{"shape": [rows, columns], "rows": [[…], …]}` (the shape kept
/// for matrices without rows or columns, such as the input matrix of a model without inputs).
impl Floats for DMatrix<f64> {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Matrix", 2)?;
        st.serialize_field("shape", &[self.nrows(), self.ncols()])?;
        st.serialize_field("rows", &W(&rows(self.nrows(), self.ncols(), |i, j| self[(i, j)])))?;
        st.end()
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        struct Matrix {
            shape: [usize; 2],
            #[serde(with = "self")]
            rows: Vec<Vec<f64>>,
        }
        let m = Matrix::deserialize(d)?;
        let [r, c] = m.shape;
        if m.rows.len() != r || m.rows.iter().any(|row| row.len() != c) {
            return Err(de::Error::custom(format!("a {r} × {c} matrix needs {r} rows of {c} entries")));
        }
        Ok(DMatrix::from_fn(r, c, |i, j| m.rows[i][j]))
    }
}

impl<T: Floats> Floats for Vec<T> {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(W))
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<R<T>>::deserialize(d)?.into_iter().map(|r| r.0).collect())
    }
}

impl<T: Floats> Floats for Option<T> {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_ref().map(W).serialize(s)
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Option::<R<T>>::deserialize(d)?.map(|r| r.0))
    }
}

impl<A: Floats, B: Floats> Floats for (A, B) {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (W(&self.0), W(&self.1)).serialize(s)
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (a, b) = <(R<A>, R<B>)>::deserialize(d)?;
        Ok((a.0, b.0))
    }
}

impl<A: Floats, B: Floats, C: Floats> Floats for (A, B, C) {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (W(&self.0), W(&self.1), W(&self.2)).serialize(s)
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (a, b, c) = <(R<A>, R<B>, R<C>)>::deserialize(d)?;
        Ok((a.0, b.0, c.0))
    }
}

impl Floats for &'static str {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(intern)
    }
}

/// The process-wide pool of names read back.
fn pool() -> &'static Mutex<HashSet<&'static str>> {
    static POOL: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    POOL.get_or_init(|| Mutex::new(HashSet::new()))
}

/// The interned `&'static str` equal to `name`.
fn intern(name: String) -> &'static str {
    let mut pool = pool().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(&known) = pool.get(name.as_str()) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    pool.insert(leaked);
    leaked
}

/// Serde for `&'static str` names: written as strings, read back interned.
pub(crate) mod name {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(value: &&'static str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        String::deserialize(d).map(intern)
    }
}

/// Serde for `&'static [&'static str]` lists of names: read back interned, the list too.
pub(crate) mod names {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(value: &&'static [&'static str], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(value.iter())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static [&'static str], D::Error> {
        static LISTS: OnceLock<Mutex<HashSet<&'static [&'static str]>>> = OnceLock::new();
        let list: Vec<&'static str> = Vec::<String>::deserialize(d)?.into_iter().map(intern).collect();
        let mut lists =
            LISTS.get_or_init(|| Mutex::new(HashSet::new())).lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&known) = lists.get(list.as_slice()) {
            return Ok(known);
        }
        let leaked: &'static [&'static str] = Box::leak(list.into_boxed_slice());
        lists.insert(leaked);
        Ok(leaked)
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use nalgebra::{DMatrix, DVector, SMatrix, SVector};
    use serde::Serialize;
    use serde::de::DeserializeOwned;

    use crate::analysis::continuation::{Branch, BranchStop, ContinuationError, ContinuationOptions, Point, Special};
    use crate::analysis::equilibrium::{FixedPoint, FixedPointOptions};
    use crate::analysis::linearize::{ConstrainedLinearization, Mechanical};
    use crate::analysis::periodic::{PeriodicOrbit, ShootingOptions};
    use crate::discrete::{DiscreteOptions, DiscreteTrajectory, ReducedDiscreteTrajectory};
    use crate::ensemble::EnsembleOptions;
    use crate::input::Linearization;

    /// Writes `x`, reads it back and writes that again: the same text (every float bit for bit
    /// through serde_json's exact round trip, NaN and ±∞ by name); values without NaN also compare
    /// equal.
    fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(x: &T) -> String {
        let text = serde_json::to_string(x).unwrap();
        let back: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        if !text.contains("\"NaN\"") {
            assert_eq!(&back, x);
        }
        text
    }

    const NAN: f64 = f64::NAN;
    const INF: f64 = f64::INFINITY;

    #[test]
    fn every_result_and_options_type_reads_back_what_it_wrote() {
        let third = 1.0 / 3.0;
        let orbit = PeriodicOrbit::<2> {
            state: SVector::from([NAN, third]),
            period: INF,
            xi: 1e-300,
            energy: -INF,
            monodromy: SMatrix::<f64, 2, 2>::new(1.0, third, -2.5, 0.1),
            iterations: 3,
            turning_point: true,
            bifurcation: false,
        };
        let text = round_trip(&orbit);
        assert!(text.contains(r#""monodromy":[[1.0,0.3333333333333333],[-2.5,0.1]]"#), "{text}");
        round_trip(&FixedPoint::<2> {
            state: SVector::from([0.5, -0.5]),
            residual: 1e-17,
            iterations: 4,
            jacobian: SMatrix::identity(),
        });
        round_trip(&Linearization::<2, 1> {
            a: SMatrix::<f64, 2, 2>::new(0.0, 1.0, -9.81, -0.1),
            b: SMatrix::<f64, 2, 1>::new(0.0, 1.0),
        });
        // Matrices keep their shape, also without rows or columns (a model without inputs).
        let lin = ConstrainedLinearization {
            states: vec!["x".into(), "dot(x)".into()],
            a: DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -4.0, NAN]),
            b: DMatrix::zeros(2, 0),
            embedding: DMatrix::from_fn(4, 2, |i, j| (i + 3 * j) as f64 * third),
            mechanical: Some(Mechanical {
                mass: DMatrix::from_element(1, 1, 2.0),
                damping: DMatrix::zeros(1, 1),
                stiffness: DMatrix::from_element(1, 1, INF),
                input: DMatrix::zeros(1, 0),
            }),
        };
        let text = round_trip(&lin);
        assert!(
            text.contains(r#""b":{"shape":[2,0],"rows":[[],[]]}"#) && text.contains(r#""input":{"shape":[1,0],"rows":[[]]}"#),
            "{text}"
        );
        let back: ConstrainedLinearization = serde_json::from_str(&text).unwrap();
        assert_eq!((back.b.shape(), back.mechanical.unwrap().input.shape()), ((2, 0), (1, 0)));
        // A matrix without rows keeps its shape too: no states left, three inputs.
        let none = ConstrainedLinearization {
            states: Vec::new(),
            a: DMatrix::zeros(0, 0),
            b: DMatrix::zeros(0, 3),
            embedding: DMatrix::zeros(4, 0),
            mechanical: None,
        };
        let empty = round_trip(&none);
        assert!(empty.contains(r#""b":{"shape":[0,3],"rows":[]}"#), "{empty}");
        assert_eq!(serde_json::from_str::<ConstrainedLinearization>(&empty).unwrap().b.shape(), (0, 3));
        let point = Point {
            u: DVector::from_vec(vec![1.0, third, -0.0]),
            direction: DVector::from_vec(vec![0.0, 1.0, 0.0]),
            determinant: NAN,
            monitor: Some(INF),
            iterations: 2,
            step: 1e-2,
            special: Some(Special::TurningPoint),
        };
        let failed = BranchStop::Failed {
            parameter: 0.7,
            error: ContinuationError::Inadmissible { reason: "below the floor".into(), u: DVector::from_vec(vec![NAN]) },
        };
        round_trip(&Branch { points: vec![point.clone(), point], stop: failed, rejected: 5 });
        round_trip(&BranchStop::StepTooSmall { parameter: -INF, reason: "Newton".into() });
        let discrete = DiscreteTrajectory::<2> {
            times: vec![0.0, 0.1],
            positions: vec![SVector::from([1.0, 2.0]), SVector::from([third, NAN])],
            momenta: vec![SVector::zeros(), SVector::from([INF, 0.0])],
            iterations: vec![3],
            actions: vec![],
        };
        round_trip(&discrete);
        round_trip(&ReducedDiscreteTrajectory::<2> { trajectory: discrete, increments: vec![SVector::from([0.0, 0.25])] });
        // With an orientation: four positions (a quaternion) for three momenta.
        round_trip(&DiscreteTrajectory::<3, 4> {
            times: vec![0.0, 0.1],
            positions: vec![SVector::from([1.0, 0.0, 0.0, 0.0]), SVector::from([third, NAN, 0.5, -INF])],
            momenta: vec![SVector::zeros(), SVector::from([INF, 0.0, -third])],
            iterations: vec![2],
            actions: vec![],
        });
        // A wrong shape is an error, not a truncated or padded matrix.
        let bad = text.replacen(r#""shape":[2,0]"#, r#""shape":[3,0]"#, 1);
        assert!(serde_json::from_str::<ConstrainedLinearization>(&bad).is_err());
        let bad = serde_json::json!({"a": [[0.0, 1.0], [2.0]], "b": [[0.0], [1.0]]});
        assert!(serde_json::from_value::<Linearization<2, 1>>(bad).is_err());

        // The options of every analysis, the infinite bounds included.
        round_trip(&ContinuationOptions::default());
        round_trip(&FixedPointOptions::default());
        round_trip(&DiscreteOptions::default());
        round_trip(&ShootingOptions::default());
        round_trip(&EnsembleOptions::default().threads(Some(3)));
    }
}
