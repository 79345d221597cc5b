use std::time::Instant;
fn main() {
    std::thread::Builder::new().stack_size(1 << 30).spawn(run).unwrap().join().unwrap();
}
fn run() {
    let src = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let ts: proc_macro2::TokenStream = src.parse().unwrap();
    let t0 = Instant::now();
    match routh_macros_core::try_expand(ts) {
        Ok(out) => println!("{:.2} s, {} KB tokens", t0.elapsed().as_secs_f64(), out.to_string().len() / 1024),
        Err(e) => println!("error after {:.2} s: {}", t0.elapsed().as_secs_f64(), e),
    }
}
