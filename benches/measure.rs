//! What the benchmarks share: a wall-clock time per call measured in the benchmark's own process
//! (for the ratios they print beside criterion's numbers), and the source of a model written in a
//! file of the repository (for timing its expansion).

use std::hint::black_box;

/// Seconds per call of `f`, over `reps` calls.
pub fn per_call<T>(reps: usize, f: impl Fn() -> T) -> f64 {
    let start = std::time::Instant::now();
    for _ in 0..reps {
        black_box(f());
    }
    start.elapsed().as_secs_f64() / reps as f64
}

/// The `#[mechanics(...)]` attribute and the struct `name` of a model in `file`.
#[allow(dead_code)]
pub fn model_source(file: &str, name: &str) -> String {
    let struct_at = file.find(&format!("pub struct {name} ")).expect("the struct");
    let start = file[..struct_at].rfind("#[mechanics(").expect("the model's attribute");
    let end = struct_at + file[struct_at..].find("\n}\n").expect("the struct's end") + 3;
    file[start..end].to_owned()
}
