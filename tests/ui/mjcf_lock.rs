use routh::prelude::*;

// `lock` holds a hinge or a slide: this joint is a ball.
#[derive(Mechanics)]
#[mechanics(mjcf(path = "../../../../tests/robots/ball.xml", lock = [hang]), gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
