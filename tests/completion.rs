//! Zeno completion and release by a multiplier: a bouncing ball that comes to rest on the floor as
//! a held contact, and a block that lifts off when the contact force vanishes.

#[macro_use]
mod common;

use routh::prelude::*;
use routh::runtime::{VectorField, ZenoOptions};

/// A ball over the floor y = 0 under gravity and an upward push c·t. In flight the floor is an
/// impact with restitution e; when the bounces accumulate the ball settles into `rest`, where the
/// contact is a holonomic constraint, and lifts off when its multiplier (the normal force) falls
/// through zero.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = c * t),
    mode(flight, impact(name = floor, guard = y, law = restitution(e))),
    mode(rest, holonomic(contact = y)),
    transition(flight -> rest, name = settle, zeno = floor, law = project),
    transition(rest -> flight, name = liftoff, guard = multiplier(contact), law = map()),
    output(height = y, energy = m / 2 * dot(y).powi(2) + m * g * y),
)]
struct Ball {
    m: f64,
    g: f64,
    e: f64,
    c: f64,
}

fn tight() -> HybridOptions {
    HybridOptions::default().rtol(1e-12).atol(1e-13)
}

#[test]
fn bouncing_ball_is_completed_past_its_zeno_time_and_rests() {
    let ball = Ball { m: 2.0, g: 9.81, e: 0.8, c: 0.0 };
    let h0: f64 = 1.0;
    let sol = ball.run(ball.flight_state([h0], [0.0])).span(0.0..10.0).options(tight()).go().unwrap();
    assert_eq!(sol.stop, HybridStop::Finished, "completed, not stopped");
    assert_eq!(sol.mode_sequence(), vec![Ball::FLIGHT, Ball::REST]);
    let settle = sol.impacts.last().unwrap();
    assert_eq!(settle.guard, "settle");
    let t1 = (2.0 * h0 / ball.g).sqrt();
    let zeno = t1 * (1.0 + ball.e) / (1.0 - ball.e);
    assert!((settle.t - zeno).abs() < 1e-6, "completed at {} vs the accumulation time {zeno}", settle.t);
    // At rest on the floor afterwards: h and ḣ zero, the normal force λ = m g.
    let (t, mode, x) = sol.last().unwrap();
    assert_eq!((t, mode), (10.0, Ball::REST));
    assert!(x[0].abs() < 1e-12 && x[1].abs() < 1e-12, "y = {}, ẏ = {}", x[0], x[1]);
    let lam = ball.rest().constraint_forces(t, x).unwrap()[0];
    assert!((lam - ball.m * ball.g).abs() < 1e-12, "λ = {lam}");
    // The Zeno stop stays available.
    let opts = tight().zeno(ZenoOptions::default().complete(false));
    let stopped = ball.run(ball.flight_state([h0], [0.0])).span(0.0..10.0).options(&opts).go().unwrap();
    let HybridStop::Zeno { t_accumulation, .. } = stopped.stop else { panic!("{:?}", stopped.stop) };
    assert!((t_accumulation - zeno).abs() < 1e-6);
}

#[test]
fn a_block_lifts_off_when_the_contact_force_vanishes() {
    // At rest on the floor the normal force is λ = m g − c t: it vanishes at t* = m g / c, where the
    // block lifts off; then m ÿ = c t − m g, so y = c (t − t*)³ / (6 m).
    let ball = Ball { m: 2.0, g: 9.81, e: 0.8, c: 3.0 };
    let t_star = ball.m * ball.g / ball.c;
    let sol = ball.run(ball.rest_state([0.0], [0.0])).span(0.0..8.0).options(tight()).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![Ball::REST, Ball::FLIGHT]);
    let liftoff = &sol.impacts[0];
    assert_eq!(liftoff.guard, "liftoff");
    assert!((liftoff.t - t_star).abs() < 1e-9, "liftoff at {} vs {t_star}", liftoff.t);
    assert_eq!(liftoff.post, liftoff.pre, "released with no impulse");
    let (t, _, x) = sol.last().unwrap();
    let y = ball.c * (t - t_star).powi(3) / (6.0 * ball.m);
    assert!((x[0] - y).abs() < 1e-8 * y, "y({t}) = {} vs {y}", x[0]);
}

/// The same ball with its floor written once as a unilateral constraint: the derive generates the
/// modes `free` and `floor` and the settle and release transitions.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) - m * g * y,
    force(y = c * t),
    unilateral(name = floor, guard = y, law = restitution(e)),
)]
struct Bouncer {
    m: f64,
    g: f64,
    e: f64,
    c: f64,
}

#[test]
fn a_unilateral_floor_gives_arrival_settling_and_liftoff() {
    assert_eq!(Bouncer::MODES, ["free", "floor"]);
    // Bounces (e = 0.8) accumulate after about 4 s (the push c t weakens gravity a little); the
    // push lifts the resting ball off at t* = m g / c = 19.62 s.
    let b = Bouncer { m: 2.0, g: 9.81, e: 0.8, c: 1.0 };
    let sol = b.run(b.free_state([1.0], [0.0])).span(0.0..25.0).options(tight()).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![Bouncer::FREE, Bouncer::FLOOR, Bouncer::FREE]);
    let names: Vec<&str> = sol.impacts.iter().map(|i| i.guard).filter(|g| *g != "floor").collect();
    assert_eq!(names, ["settle_floor", "release_floor"]);
    let release = sol.impacts.last().unwrap();
    assert!((release.t - b.m * b.g / b.c).abs() < 1e-9, "liftoff at {}", release.t);
    // A plastic landing (e = 0) holds the contact at once, at t₁ = √(2h/g).
    let p = Bouncer { e: 0.0, c: 0.0, ..b };
    let sol = p.run(p.free_state([1.0], [0.0])).span(0.0..3.0).options(tight()).go().unwrap();
    assert_eq!(sol.mode_sequence(), vec![Bouncer::FREE, Bouncer::FLOOR]);
    let settle = sol.impacts.iter().find(|i| i.guard == "settle_floor").unwrap();
    assert!((settle.t - (2.0 / p.g).sqrt()).abs() < 1e-9, "held from {}", settle.t);
    let (_, _, x) = sol.last().unwrap();
    // Positions never jump at a reset: y keeps the landing's location error, |ẏ⁻| times the event
    // tolerance (about 4e-12 here); the velocity is projected exactly.
    assert!(x[0].abs() < 1e-11 && x[1].abs() < 1e-12, "y = {:e}, ẏ = {:e}", x[0], x[1]);
}

#[test]
fn a_hybrid_run_started_off_its_mode_constraint_is_projected_and_reported() {
    // Resting on the floor from y = 0.5: the start is projected onto y = 0 (the first sample is on
    // the floor, no jump between the first two samples) and the report says how far off it was.
    let b = Bouncer { m: 2.0, g: 9.81, e: 0.8, c: 0.0 };
    let x0 = b.floor_state([0.5], [0.3]);
    let sol = b.run(x0).span(0.0..1.0).options(tight()).go().unwrap();
    assert!(sol.states[0][0].abs() < 1e-15 && sol.states[0][1].abs() < 1e-15, "first sample {}", sol.states[0]);
    assert!(sol.states.iter().all(|x| x[0].abs() < 1e-12), "the ball stays on the floor");
    let report = sol.constraints.expect("a constrained mode reports its constraints");
    assert_eq!(report.initial, (0.5, 0.3));
    assert!(report.worst.0 < 1e-12 && report.worst.1 < 1e-12 && report.projections > 0, "{report:?}");
    // Without projection the start is kept as given, and the report shows it.
    let raw = b.run(x0).span(0.0..1.0).options(tight().ode(tight().ode.projection(false))).go().unwrap();
    assert_eq!(raw.states[0], x0.state);
    assert!(raw.constraints.unwrap().worst.0 >= 0.5);
    // A run that never enters a constrained mode has no report.
    let free = b.run(b.free_state([1.0], [0.0])).span(0.0..0.2).options(tight()).go().unwrap();
    assert!(free.constraints.is_none());
}

/// A particle pushed up by a, over the floor y = 0 with restitution e.
#[derive(Mechanics)]
#[mechanics(
    coordinates(y),
    lagrangian = m / 2 * dot(y).powi(2) + m * a * y,
    impact(name = floor, guard = y, law = restitution(e)),
)]
struct Skimmer {
    m: f64,
    a: f64,
    e: f64,
}

#[test]
fn a_tangential_touch_is_grazing_not_an_impact() {
    // y = y₀ + v t + a t²/2 with y₀ = v²/(2a) touches the floor tangentially at t* = −v/a and
    // leaves it. The numerical solution dips below zero by round-off, and the double zero, located
    // with an error δ in y, gave a rate of √δ: an impact with ḣ ≈ −4e-8 was recorded (and its
    // reset applied) at every tolerance. Such a crossing is grazing now; a shallow crossing whose
    // dip (1e-6) is well beyond the contact tolerance is still an impact, at the exact rate.
    for (a, v) in [(2.0, -2.0), (1.0, -1.0), (3.0, -3.3), (0.7, -0.9), (9.81, -9.81 * 1.3)] {
        let s = Skimmer { m: 1.0, a, e: 0.5 };
        let y0 = v * v / (2.0 * a);
        for opts in [tight(), HybridOptions::default(), HybridOptions::default().rtol(1e-6).atol(1e-9)] {
            let sol = s.run(s.state([y0], [v])).span(0.0..3.0).options(&opts).go().unwrap();
            assert!(sol.impacts.is_empty(), "a = {a}: {:?}", sol.impacts.iter().map(|i| i.rate).collect::<Vec<_>>());
            let (t, _, x) = sol.last().unwrap();
            let exact = y0 + v * t + a * t * t / 2.0;
            assert!((x[0] - exact).abs() < 1e-4 * (1.0 + exact), "a = {a}: y(3) = {} against {exact}", x[0]);
        }
        // Released on the floor with the rate a release leaves, zero up to the velocity error
        // (−7.7e-13 was reported as an arrival impact): it only leaves.
        let sol = s.run(s.state([0.0], [-7.7e-13])).span(0.0..1.0).options(tight()).go().unwrap();
        assert!(sol.impacts.is_empty(), "a = {a}: released and arrived again at {:?}", sol.impacts.first().map(|i| i.rate));
        let dip = 1e-6;
        let sol = s.run(s.state([y0 - dip], [v])).span(0.0..3.0).options(tight()).go().unwrap();
        assert_eq!(sol.impacts.len(), 1, "a = {a}");
        let rate = -(2.0 * a * dip).sqrt();
        assert!((sol.impacts[0].rate - rate).abs() < 1e-6 * rate.abs(), "a = {a}: {} against {rate}", sol.impacts[0].rate);
    }
}

#[test]
fn hybrid_csv_names_the_modes() {
    // The mode column by name (it was only the index): a ball that settles goes from `flight` to
    // `rest`.
    let ball = Ball { m: 2.0, g: 9.81, e: 0.5, c: 0.0 };
    let sol = ball.run(ball.flight_state([1.0], [0.0])).span(0.0..3.0).options(tight()).go().unwrap();
    let mut csv = Vec::new();
    sol.write_csv_with_mode_names(&mut csv, &["y", "dot(y)"], &Ball::MODES).unwrap();
    let text = String::from_utf8(csv).unwrap();
    let modes: Vec<&str> = text.lines().skip(1).map(|l| l.split(',').nth(1).unwrap()).collect();
    assert_eq!(text.lines().next(), Some("t,mode,y,dot(y)"));
    assert_eq!((modes.first(), modes.last()), (Some(&"flight"), Some(&"rest")));
    assert!(sol.write_csv_with_mode_names(Vec::new(), &["y", "dot(y)"], &["flight"]).is_err());
    // The trajectory knows its modes' names: plain `write_csv` writes them too, and they survive
    // a round trip through JSON; a file without them (written before) falls back to indices.
    assert_eq!(sol.mode_names, Ball::MODES);
    let mut plain = Vec::new();
    sol.write_csv(&mut plain, &["y", "dot(y)"]).unwrap();
    assert_eq!(String::from_utf8(plain).unwrap(), text);
    let json = serde_json::to_value(&sol).unwrap();
    assert_eq!(json["mode_names"], serde_json::json!(["flight", "rest"]));
    let mut old = json.clone();
    old.as_object_mut().unwrap().remove("mode_names");
    let old: routh::runtime::HybridTrajectory<2> = serde_json::from_value(old).unwrap();
    let mut indices = Vec::new();
    old.write_csv(&mut indices, &["y", "dot(y)"]).unwrap();
    let indices = String::from_utf8(indices).unwrap();
    assert_eq!(indices.lines().last().unwrap().split(',').nth(1), Some("1"));
    // Outputs of a multi-mode model, each sample in its mode: the height is y in flight and at rest,
    // and the energy at rest is the resting ball's, zero.
    assert_eq!(Ball::OUTPUTS, ["height", "energy"]);
    let obs = ball.observe(&sol);
    let (height, energy) = (obs.column("height").unwrap(), obs.column("energy").unwrap());
    for (k, (_, mode, x)) in sol.iter().enumerate() {
        assert_eq!(height[k], x[0]);
        if mode == Ball::REST {
            assert!(energy[k].abs() < 1e-9, "{}", energy[k]);
        }
    }
}

/// A bead of a non-diagonal kinetic metric over a parabolic floor y ≥ x² and a wall x + z ≥ 0,
/// both unilateral and plastic. Landing on one contact while the other is held projects onto both,
/// as the settling into the mode that holds both does: that mode generates the projection once for
/// every transition into it, and with the literal coefficient 0 the landing calls it too (the
/// derive proves the rows the same).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) + k * dot(x) * dot(y) + k / 2 * dot(y) * dot(z)
        - m * g * y,
    unilateral(name = floor, guard = y - x.powi(2), law = restitution(0)),
    unilateral(name = wall, guard = x + z, law = restitution(0)),
)]
struct PlasticBead {
    m: f64,
    k: f64,
    g: f64,
}

/// The same bead with its coefficient a parameter: each landing solves its own law (a parameter is
/// not proved zero).
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) + k * dot(x) * dot(y) + k / 2 * dot(y) * dot(z)
        - m * g * y,
    unilateral(name = floor, guard = y - x.powi(2), law = restitution(e)),
    unilateral(name = wall, guard = x + z, law = restitution(e)),
)]
struct Bead {
    m: f64,
    k: f64,
    g: f64,
    e: f64,
}

#[test]
fn a_plastic_settling_is_its_landings_projection_onto_both_contacts() {
    let (m, k, g) = (1.3, 0.4, 9.81);
    let (plastic, bead) = (PlasticBead { m, k, g }, Bead { m, k, g, e: 0.0 });
    // On the floor (y = x², its velocity row held), approaching the wall.
    let (x, xd) = (0.3, 0.7);
    let q = [x, x * x, -x + 0.05];
    let v = [xd, 2.0 * x * xd, -1.9];
    let s = plastic.floor_state(q, v).state;
    assert_eq!(s, bead.floor_state(q, v).state);
    let t = 0.0;
    let settle = plastic.floor().settle_wall_reset(t, &s).unwrap();
    // The kinetic-metric projection onto both rows, by hand: q̇⁺ = q̇⁻ − M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹A q̇⁻.
    let mass = SMatrix::<f64, 3, 3>::new(m, k, 0.0, k, m, k / 2.0, 0.0, k / 2.0, m);
    let a = SMatrix::<f64, 2, 3>::new(-2.0 * x, 1.0, 0.0, 1.0, 0.0, 1.0);
    let minv = mass.try_inverse().unwrap();
    let vm = SVector::<f64, 3>::from(v);
    let vp = vm - minv * a.transpose() * (a * minv * a.transpose()).try_inverse().unwrap() * (a * vm);
    let (positions, velocities) = (settle.fixed_rows::<3>(0), settle.fixed_rows::<3>(3));
    assert_eq!(positions, s.fixed_rows::<3>(0), "positions do not jump");
    assert!((velocities - vp).norm() < 1e-13, "settled {velocities} vs the projection {vp}");
    assert!((a * velocities).norm() < 1e-13, "both contacts held after it");
    // The landing on the wall is the same map, and so is the landing whose law the parameter's
    // model solves itself (e = 0 at run time: no proof, a law of its own), and the settling there.
    assert_eq!(plastic.floor().wall_reset(t, &s).unwrap(), settle);
    let own = bead.floor().wall_reset(t, &s).unwrap();
    assert!((own - settle).norm() < 1e-13, "{own} vs {settle}");
    assert!((bead.floor().settle_wall_reset(t, &s).unwrap() - settle).norm() < 1e-13);
    // In flight, each landing and settling projects onto its own contact alone (not the other's).
    let free = plastic.free_state(q, v).state;
    for (row, reset) in [
        (a.row(0).into_owned(), plastic.free().settle_floor_reset(t, &free).unwrap()),
        (a.row(1).into_owned(), plastic.free().settle_wall_reset(t, &free).unwrap()),
        (a.row(0).into_owned(), plastic.free().floor_reset(t, &free).unwrap()),
        (a.row(1).into_owned(), plastic.free().wall_reset(t, &free).unwrap()),
    ] {
        let vp = vm - minv * row.transpose() * ((row * vm)[0] / (row * minv * row.transpose())[0]);
        assert!((reset.fixed_rows::<3>(3) - vp).norm() < 1e-13, "settled in flight {reset} vs {vp}");
    }
    // Its Jacobian: against the parameter's landing's own and central differences of the reset.
    let jac = plastic.floor().settle_wall_reset_jacobian(t, &s).unwrap();
    let theirs = bead.floor().wall_reset_jacobian(t, &s).unwrap();
    assert!((jac - theirs).norm() < 1e-12 * jac.norm(), "{jac} vs {theirs}");
    let h = 1e-6;
    for j in 0..6 {
        let (mut up, mut down) = (s, s);
        up[j] += h;
        down[j] -= h;
        let column = (plastic.floor().settle_wall_reset(t, &up).unwrap() - plastic.floor().settle_wall_reset(t, &down).unwrap())
            / (2.0 * h);
        assert!((jac.column(j) - column).norm() < 1e-7, "column {j}: {} vs {column}", jac.column(j));
    }
}

/// The bead held on the floor and the wall as a model of one mode: its saddle point's Jacobian is
/// derived whole, where the contact modes derive it by constraint and sum the parts.
#[derive(Mechanics)]
#[mechanics(
    coordinates(x, y, z),
    lagrangian = m / 2 * (dot(x).powi(2) + dot(y).powi(2) + dot(z).powi(2)) + k * dot(x) * dot(y) + k / 2 * dot(y) * dot(z)
        - m * g * y,
    holonomic(floor = y - x.powi(2)),
    holonomic(wall = x + z),
    jacobian,
)]
struct HeldBead {
    m: f64,
    k: f64,
    g: f64,
}

/// A mode's field Jacobian, its saddle point's Jacobian summed from the forces' part and each held
/// constraint's (generated once, in the mode that holds the constraint alone), is the one-mode twin's, whose
/// Jacobian is derived whole, and central differences of the field; the multipliers' rates (the
/// release guards' rates) likewise.
#[test]
fn a_modes_jacobian_summed_by_constraint_is_the_whole_ones() {
    let (m, k, g) = (1.3, 0.4, 9.81);
    let (plastic, held) = (PlasticBead { m, k, g }, HeldBead { m, k, g });
    let mut rng = common::Rng::new(5);
    let (mut worst, mut worst_fd, mut worst_rates) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..8 {
        let x: SVector<f64, 6> = rng.vector(-1.0, 1.0);
        let t = 0.0;
        let (mode, whole) = (plastic.floor_wall().jacobian(t, &x).unwrap(), held.jacobian(t, &x).unwrap());
        let scale = 1.0 + whole.amax();
        worst = worst.max((mode - whole).amax() / scale);
        let fd = common::jacobian_fd(&plastic.floor_wall(), t, &x, 1e-6).unwrap();
        worst_fd = worst_fd.max((mode - fd).amax() / scale);
        assert_eq!(plastic.floor_wall().field(t, &x).unwrap(), held.field(t, &x).unwrap());
        let ((gm, rm), (gw, rw)) =
            (plastic.floor_wall().constraint_force_rates(t, &x).unwrap(), held.constraint_force_rates(t, &x).unwrap());
        worst_rates = worst_rates.max((gm - gw).amax() / (1.0 + gw.amax())).max((rm - rw).amax() / (1.0 + rw.amax()));
        // The constraints' Jacobian on the state (the manifold linearisation's), copied from each
        // constraint's rows (the floor's and the wall's, generated in the modes that hold each
        // alone), is the twin's.
        let (rows, whole) = (plastic.floor_wall().constraint_jacobian(t, &x), held.constraint_jacobian(t, &x));
        assert!((rows - whole).amax() <= 1e-14 * (1.0 + whole.amax()), "{rows} vs {whole}");
        // One constraint held: the floor's part alone.
        let fd = common::jacobian_fd(&plastic.floor(), t, &x, 1e-6).unwrap();
        let own = plastic.floor().jacobian(t, &x).unwrap();
        worst_fd = worst_fd.max((own - fd).amax() / (1.0 + fd.amax()));
    }
    eprintln!(
        "mode's Jacobian by constraint vs whole: {worst:.1e}, vs central differences {worst_fd:.1e}, rates {worst_rates:.1e}"
    );
    assert!(worst < 1e-12, "{worst:e}");
    assert!(worst_fd < 1e-7, "{worst_fd:e}");
    assert!(worst_rates < 1e-12, "{worst_rates:e}");
}
