//! What a result must satisfy to be one, checked where it enters from outside: every
//! `Deserialize` of a result type (a trajectory, a discrete run, sampled inputs, observables)
//! checks its invariants — lengths that agree, finite times in order, mode indices in range — and
//! fails with a message naming the field. A file edited or cut by hand is an error, not a result
//! that pairs a time with another time's state.
//!
//! Each such type derives serde with `remote = "Self"` (serde's generated functions become
//! inherent) and [`validated`] implements the traits through them, the deserializer checking
//! [`Invariants::invariants`] after reading.
#![cfg_attr(not(feature = "serde"), allow(dead_code))]

/// The invariants of a result type; `Err` names the field and what is wrong with it.
pub(crate) trait Invariants {
    fn invariants(&self) -> Result<(), String>;
}

/// `Ok` when `field` has as many entries as `times` (`what` names both).
pub(crate) fn same_length(field: &str, len: usize, times: usize) -> Result<(), String> {
    if len == times { Ok(()) } else { Err(format!("`{field}` has {len} entries but `times` has {times}")) }
}

/// The direction of `times` (`1.0` forward, `-1.0` backward, `0.0` undecided: fewer than two
/// distinct times), or an error if one is not finite or they go both ways.
pub(crate) fn direction(field: &str, times: &[f64]) -> Result<f64, String> {
    if let Some(k) = times.iter().position(|t| !t.is_finite()) {
        return Err(format!("`{field}[{k}]` = {} is not a finite time", times[k]));
    }
    let mut sign = 0.0;
    for (k, w) in times.windows(2).enumerate() {
        let s = (w[1] - w[0]).signum() * f64::from(u8::from(w[1] != w[0]));
        if s != 0.0 {
            if sign != 0.0 && s != sign {
                return Err(format!(
                    "`{field}` are not in order: {} at {k}, {} at {}, after running the other way",
                    w[0],
                    w[1],
                    k + 1
                ));
            }
            sign = s;
        }
    }
    Ok(sign)
}

/// `Ok` when `times` never decrease (a hybrid run, sample times of a hold).
pub(crate) fn forward(field: &str, times: &[f64]) -> Result<(), String> {
    if direction(field, times)? < 0.0 {
        return Err(format!("`{field}` decrease: this result runs forward in time"));
    }
    Ok(())
}

/// Implements `Serialize` and `Deserialize` for a type deriving them with `remote = "Self"`, the
/// deserializer checking its [`Invariants`].
macro_rules! validated {
    ($ty:ident $(< $(const $d:ident : usize),+ >)?) => {
        #[cfg(feature = "serde")]
        impl<$($(const $d: usize),+)?> serde::Serialize for $ty$(<$($d),+>)? {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $ty::serialize(self, serializer)
            }
        }
        #[cfg(feature = "serde")]
        impl<'de, $($(const $d: usize),+)?> serde::Deserialize<'de> for $ty$(<$($d),+>)? {
            fn deserialize<De: serde::Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
                let value = $ty::deserialize(deserializer)?;
                $crate::invariants::Invariants::invariants(&value).map_err(<De::Error as serde::de::Error>::custom)?;
                Ok(value)
            }
        }
    };
}
pub(crate) use validated;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_run_one_way() {
        assert_eq!(direction("times", &[0.0, 0.5, 0.5, 1.0]), Ok(1.0));
        assert_eq!(direction("times", &[1.0, 0.5, 0.0]), Ok(-1.0));
        assert_eq!(direction("times", &[2.0]), Ok(0.0));
        assert!(direction("times", &[0.0, 1.0, 0.5]).unwrap_err().contains("not in order"));
        assert!(direction("times", &[0.0, f64::NAN]).unwrap_err().contains("`times[1]`"));
        assert!(forward("times", &[1.0, 0.0]).is_err());
        assert!(same_length("states", 2, 3).unwrap_err().contains("`states` has 2 entries but `times` has 3"));
    }

    /// A trajectory written by a run reads back; the same file with a time dropped, its times
    /// reversed or out of order, or a sample's mode out of range does not, and says which field.
    #[cfg(feature = "serde")]
    #[test]
    fn a_result_file_is_read_only_if_it_is_one() {
        use crate::{FieldError, Flow, Options, Output, Simulate, Trajectory};
        use nalgebra::Vector2;
        use serde_json::Value;

        let field = |_t: f64, x: &Vector2<f64>| -> Result<Vector2<f64>, FieldError> { Ok(Vector2::new(x[1], -x[0])) };
        let options = Options::default().output(Output::Interval(0.5));
        let run = Flow(&field).run(Vector2::new(1.0, 0.0)).span(0.0..1.0).options(&options).go().unwrap();
        let text = serde_json::to_string(&run).unwrap();
        let back: Trajectory<2> = serde_json::from_str(&text).unwrap();
        assert_eq!(back.times, run.times);
        let edited = |edit: &dyn Fn(&mut Value)| {
            let mut v: Value = serde_json::from_str(&text).unwrap();
            edit(&mut v);
            serde_json::from_value::<Trajectory<2>>(v).unwrap_err().to_string()
        };
        let short = edited(&|v| {
            v["states"].as_array_mut().unwrap().pop();
        });
        assert!(short.contains("`states` has 2 entries but `times` has 3"), "{short}");
        let reversed = edited(&|v| v["times"].as_array_mut().unwrap().reverse());
        assert!(reversed.contains("`end`"), "{reversed}");
        let shuffled = edited(&|v| v["times"].as_array_mut().unwrap().swap(0, 1));
        assert!(shuffled.contains("not in order"), "{shuffled}");

        // A hybrid run: its samples' modes must be among its modes.
        let hybrid = crate::HybridTrajectory::<2> {
            times: vec![0.0, 1.0],
            states: vec![Vector2::zeros(); 2],
            modes: vec![0, 1],
            mode_names: vec!["flight", "stance"],
            impacts: Vec::new(),
            stop: crate::HybridStop::Finished,
            stats: crate::Stats::default(),
            initial_mode: 0,
            segments: Vec::new(),
            events: Vec::new(),
            constraints: None,
            end: (1.0, 1, Vector2::zeros()),
        };
        let text = serde_json::to_string(&hybrid).unwrap();
        assert_eq!(serde_json::from_str::<crate::HybridTrajectory<2>>(&text).unwrap().modes, [0, 1]);
        let mut v: Value = serde_json::from_str(&text).unwrap();
        v["modes"][1] = Value::from(2);
        let err = serde_json::from_value::<crate::HybridTrajectory<2>>(v).unwrap_err().to_string();
        assert!(err.contains("mode 2 does not exist"), "{err}");

        // A backward run's times decrease: that is a trajectory too.
        let back_run = Flow(&field).run(Vector2::new(1.0, 0.0)).span(1.0..0.0).options(&options).go().unwrap();
        let text = serde_json::to_string(&back_run).unwrap();
        assert_eq!(serde_json::from_str::<Trajectory<2>>(&text).unwrap().times, back_run.times);
    }
}
