//! Ensembles on all cores and trajectories as data: a batch of pendulum runs in parallel equals
//! the same runs one by one, bit for bit; parameter sweeps through `ensemble`; trajectories
//! (smooth and hybrid) serialize to JSON with their samples, events, impacts and stop reason.

use routh::nalgebra::SVector;
use routh::prelude::*;
use routh::runtime::ensemble::{EnsembleOptions, ensemble};
use routh::runtime::{Direction, Event, HybridOptions, StopReason};

/// A plane pendulum.
#[derive(Mechanics)]
#[mechanics(
    coordinates(th),
    lagrangian = m * l.powi(2) / 2 * dot(th).powi(2) + m * g * l * th.cos(),
)]
struct Pendulum {
    m: f64,
    l: f64,
    g: f64,
}

#[allow(dead_code)]
mod models {
    use routh::prelude::*;
    include!("../benches/periodic_models.rs");
}
use models::Ball;

fn opts() -> Options {
    Options::default().rtol(1e-10).atol(1e-12)
}

#[test]
fn a_parallel_batch_equals_the_runs_one_by_one() {
    let p = Pendulum { m: 1.0, l: 1.0, g: 9.81 };
    let starts: Vec<_> = (0..200).map(|k| p.state([0.015 * k as f64], [0.0])).collect();
    let run = |_, x0: &SVector<f64, 2>| p.run(*x0).span(0.0..5.0).options(opts()).go();
    let all = ensemble(&starts, run, &EnsembleOptions::default().progress(false)).unwrap();
    let one = ensemble(&starts, run, &EnsembleOptions::default().threads(Some(1)).progress(false)).unwrap();
    assert_eq!(all.len(), starts.len());
    for ((x0, a), b) in starts.iter().zip(&all).zip(&one) {
        // Each entry: the run's result, or its panic as `SimError::Panicked`.
        let (a, b) = (a.as_ref().unwrap().as_ref().unwrap(), b.as_ref().unwrap().as_ref().unwrap());
        let direct = p.run(*x0).span(0.0..5.0).options(opts()).go().unwrap();
        assert_eq!(a.times, direct.times);
        assert_eq!(a.states, direct.states);
        assert_eq!(b.states, direct.states);
        // Physics, not just bookkeeping: each run keeps its energy.
        let (t, end) = a.last().unwrap();
        assert!((p.energy(t, end) - p.energy(0.0, x0)).abs() < 1e-8);
    }
    // A parameter sweep over lengths: a quarter period of a small swing (θ₀ = 0.01) is the
    // first downward zero of θ, (π/2)√(l/g) (1 + θ₀²/16) to O(θ₀⁴).
    let lengths: Vec<f64> = (1..=16).map(|k| 0.25 * f64::from(k)).collect();
    let quarters = ensemble(
        &lengths,
        |_, &l| {
            let p = Pendulum { m: 1.0, l, g: 9.81 };
            let zero = Event::new("zero", |_t, x: &SVector<f64, 2>| x[0]).direction(Direction::Falling).terminal(true);
            let run = p.run(p.state([0.01], [0.0])).span(0.0..10.0).events(&[zero]).options(opts()).go()?;
            Ok::<_, routh::runtime::SimError>(run.events.first().map(|e| e.t))
        },
        &EnsembleOptions::default().progress(false),
    )
    .unwrap();
    for (l, quarter) in lengths.iter().zip(quarters) {
        let t = quarter.unwrap().unwrap().expect("the pendulum passes the bottom");
        let expected = 0.5 * std::f64::consts::PI * (l / 9.81).sqrt() * (1.0 + 1e-4 / 16.0);
        assert!((t - expected).abs() < 1e-9, "l = {l}: {t} vs {expected}");
    }
}

#[test]
fn trajectories_serialize_with_their_samples_events_and_impacts() {
    let p = Pendulum { m: 1.0, l: 1.0, g: 9.81 };
    let run = p.run(p.state([0.5], [0.0])).span(0.0..1.0).options(opts().output(Output::Interval(0.25))).go().unwrap();
    let json: serde_json::Value = serde_json::to_value(&run).unwrap();
    let times: Vec<f64> = json["times"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(times, run.times);
    let states = json["states"].as_array().unwrap();
    assert_eq!(states.len(), run.states.len());
    for (s, x) in states.iter().zip(&run.states) {
        let v: Vec<f64> = s.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(v, x.as_slice());
    }
    assert_eq!(json["stop"], serde_json::json!("Finished"));
    assert_eq!(run.stop, StopReason::Finished);
    assert_eq!(json["stats"]["steps"].as_u64().unwrap() as usize, run.stats.steps);
    // A hybrid run: every impact with its guard's name, states and energies.
    let ball = Ball { m: 1.0, g: 9.81, e: 0.8 };
    let hybrid = ball.run(ball.state([1.0], [0.0])).span(0.0..2.0).rtol(1e-10).atol(1e-12).go().unwrap();
    assert!(hybrid.impacts.len() >= 2);
    let json: serde_json::Value = serde_json::to_value(&hybrid).unwrap();
    let impacts = json["impacts"].as_array().unwrap();
    assert_eq!(impacts.len(), hybrid.impacts.len());
    for (j, imp) in impacts.iter().zip(&hybrid.impacts) {
        assert_eq!(j["guard"], "floor");
        assert_eq!(j["t"].as_f64().unwrap(), imp.t);
        assert_eq!(j["post"][1].as_f64().unwrap(), imp.post[1]);
        // e = 0.8: the rebound speed is 0.8 of the impact speed.
        assert!((imp.post[1] + 0.8 * imp.pre[1]).abs() < 1e-9);
    }
    assert_eq!(json["modes"].as_array().unwrap().len(), hybrid.times.len());
}

#[test]
fn results_read_back_what_they_wrote_non_finite_values_and_names_included() {
    // Trajectories were write-only, and a NaN was written as `null`, which reads back as nothing.
    let p = Pendulum { m: 1.0, l: 1.0, g: 9.81 };
    let mut run = p.run(p.state([0.5], [0.0])).span(0.0..1.0).options(opts().output(Output::Interval(0.25))).go().unwrap();
    // Values a failing model produces: a NaN and infinities in the samples, a NaN parameter in the
    // error that ended the run.
    run.states[1][0] = f64::NAN;
    run.states[2][1] = f64::INFINITY;
    run.end.1[1] = f64::NEG_INFINITY;
    run.stop =
        StopReason::Failed(routh::runtime::SimError::InvalidParameter { name: "g", value: f64::NAN, reason: "it is not finite" });
    let json = serde_json::to_string(&run).unwrap();
    assert!(
        json.contains("\"NaN\"") && json.contains("\"inf\"") && json.contains("\"-inf\"") && json.matches("null").count() == 1,
        "{json}"
    );
    let back: routh::runtime::Trajectory<2> = serde_json::from_str(&json).unwrap();
    let bits = |xs: &[SVector<f64, 2>]| xs.iter().flat_map(|x| x.iter().map(|v| v.to_bits())).collect::<Vec<_>>();
    assert_eq!(bits(&back.states), bits(&run.states));
    assert_eq!(back.times, run.times);
    assert_eq!((back.end.0, back.end.1[0], back.end.1[1]), (run.end.0, run.end.1[0], f64::NEG_INFINITY));
    assert_eq!(back.stats, run.stats);
    let StopReason::Failed(routh::runtime::SimError::InvalidParameter { name: "g", value, .. }) = back.stop else {
        panic!("{:?}", back.stop)
    };
    assert!(value.is_nan());
    // What earlier versions wrote, `null` for a NaN (the one `null` above is the absent constraint
    // report), reads back as NaN.
    let old = json.replacen("\"NaN\"", "null", 1);
    let back: routh::runtime::Trajectory<2> = serde_json::from_str(&old).unwrap();
    assert!(back.states[1][0].is_nan());
    // A state of the wrong size is an error, not a truncated state.
    let short = serde_json::json!({"times": [0.0], "states": [[1.0]], "events": [], "stop": "Finished",
        "stats": {"steps": 0, "rejected": 0, "evaluations": 0}, "constraints": null, "end": [0.0, [1.0, 0.0]]});
    assert!(serde_json::from_value::<routh::runtime::Trajectory<2>>(short).is_err());

    // A hybrid run: impacts with their guards' names, modes, the constraint report and the end.
    let ball = Ball { m: 1.0, g: 9.81, e: 0.8 };
    let hybrid = ball.run(ball.state([1.0], [0.0])).span(0.0..2.0).rtol(1e-10).atol(1e-12).go().unwrap();
    let back: routh::runtime::HybridTrajectory<2> = serde_json::from_str(&serde_json::to_string(&hybrid).unwrap()).unwrap();
    assert_eq!(back.impacts, hybrid.impacts);
    assert!(back.impacts.iter().all(|i| i.guard == "floor"));
    assert_eq!((back.times, back.states, back.modes), (hybrid.times, hybrid.states, hybrid.modes));
    assert_eq!((back.stop, back.end), (hybrid.stop, hybrid.end));
}

#[test]
fn options_read_back_what_they_wrote() {
    // Options travel with the results they produced (a sweep's record, a resumed job): every field
    // round-trips through JSON, the infinite default step bound included; the monitor is not data.
    let ode = Options::default()
        .rtol(1e-11)
        .atol(1e-13)
        .initial_step(1e-3)
        .output(Output::Times(vec![0.5, 1.0]))
        .scheme(routh::runtime::Scheme::Rodas4)
        .dense(true);
    let text = serde_json::to_string(&ode).unwrap();
    assert!(text.contains("\"max_step\":\"inf\"") && text.contains("Rodas4"), "{text}");
    assert_eq!(serde_json::from_str::<Options>(&text).unwrap(), ode);
    let hybrid = HybridOptions::default().rtol(1e-10).max_impacts(17);
    let back: HybridOptions = serde_json::from_str(&serde_json::to_string(&hybrid).unwrap()).unwrap();
    assert_eq!(back, hybrid);
}

#[test]
fn a_record_carries_its_provenance_and_reads_back() {
    // A result written to a file said nothing of the model, parameters or options that made it.
    let p = Pendulum { m: 1.5, l: 0.75, g: 9.81 };
    let options = opts().output(Output::Interval(0.5));
    let run = p.run(p.state([0.5], [0.0])).span(0.0..1.0).options(&options).go().unwrap();
    let record = p.record(run.clone(), options.clone());
    assert_eq!(record.provenance.parameters, vec![("m".into(), 1.5), ("l".into(), 0.75), ("g".into(), 9.81)]);
    let json: serde_json::Value = serde_json::to_value(&record).unwrap();
    let provenance = &json["provenance"];
    assert_eq!(provenance["routh"], env!("CARGO_PKG_VERSION"));
    assert_eq!(provenance["model"], "Pendulum");
    // The parameters as a map, in declaration order.
    let text = serde_json::to_string(&record).unwrap();
    assert!(text.contains(r#""parameters":{"m":1.5,"l":0.75,"g":9.81}"#), "{text}");
    assert_eq!(provenance["options"]["rtol"], 1e-10);
    let back: Record<routh::runtime::Trajectory<2>, Options> = serde_json::from_str(&text).unwrap();
    assert_eq!(back.provenance, record.provenance);
    assert_eq!((back.result.times, back.result.states), (run.times, run.states));
    // The options read back are the run's: the same run again gives the same samples, bit for bit.
    let again = p.run(p.state([0.5], [0.0])).span(0.0..1.0).options(&back.provenance.options).go().unwrap();
    assert_eq!(again.states, record.result.states);
    // A non-finite parameter (a model that failed its check) is kept by name.
    let bad = Pendulum { m: f64::NAN, l: f64::INFINITY, g: 9.81 }.provenance(());
    let text = serde_json::to_string(&bad).unwrap();
    assert!(text.contains(r#"{"m":"NaN","l":"inf","g":9.81}"#), "{text}");
    let back: routh::runtime::Provenance<()> = serde_json::from_str(&text).unwrap();
    assert!(back.parameter("m").unwrap().is_nan() && back.parameter("l") == Some(f64::INFINITY));
}
