// A mistake in the model is one error: the calls of the model's API below add none of their own.
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(
    coordinates(theta),
    lagrangian = m / 2 * dot(theta).powi(2) + m * g * thta.cos(),
)]
struct Pendulum {
    m: f64,
    g: f64,
}

fn main() {
    let p = Pendulum { m: 1.0, g: 9.81 };
    let x0 = p.state([0.1], [0.0]);
    let sol = p.run(x0).span(0.0..1.0).go().unwrap();
    let (t, x) = sol.last().unwrap();
    println!("{} {}", p.energy(t, x), p.mass_matrix(t, x)[(0, 0)]);
}
