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

/// The derive's expansion of each named model source: prints its generated tokens' size and its
/// time per expansion measured here (returned, in seconds, for the ratios the benchmark prints),
/// and adds `expand/<name>` to criterion's `group`.
#[allow(dead_code)]
pub fn expansions(
    label: &str,
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    sources: &[(&str, proc_macro2::TokenStream)],
) -> Vec<f64> {
    let mut times = Vec::new();
    for (name, src) in sources {
        let tokens = routh_macros_core::try_expand(src.clone()).unwrap().to_string().len();
        let t = per_call(5, || routh_macros_core::try_expand(black_box(src.clone())).unwrap());
        println!("{label} {name}: {tokens} bytes of generated tokens, expanded in {:.0} ms", 1e3 * t);
        times.push(t);
    }
    group.sample_size(10);
    for (name, src) in sources {
        group.bench_function(format!("expand/{name}"), |b| {
            b.iter(|| routh_macros_core::try_expand(black_box(src.clone())).unwrap())
        });
    }
    times
}
