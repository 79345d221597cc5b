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

use nalgebra::SVector;
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

impl<const N: usize> Floats for SVector<f64, N> {
    fn write<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(W))
    }
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let values = Vec::<R<f64>>::deserialize(d)?;
        if values.len() != N {
            return Err(de::Error::invalid_length(values.len(), &format!("a state of {N} components").as_str()));
        }
        Ok(SVector::from_iterator(values.into_iter().map(|r| r.0)))
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
