use routh::prelude::*;

// A joint whose class gives it a spring and damper by `springdamper`: not read.
#[derive(Mechanics)]
#[mechanics(mjcf = "../../../../tests/ui/robots/springdamper.xml", gravity = [0, 0, -9.81])]
struct Robot;

fn main() {}
