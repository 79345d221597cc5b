//! Bad models are compile errors with a span on the offending token and a hint.
//! Each file in `tests/ui` is one case; its `.stderr` holds the expected diagnostic.

#[test]
fn bad_models_are_compile_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
