//! A tool missing a piece does not compile (`docs/design/tools.md`, Adding a tool): a
//! [`rat_core::tool::Tool`] without its run fails with the compiler's error recorded beside it
//! (`tests/ui/*.stderr`); a complete one compiles and runs. A tool file not in the table, or
//! the table not written to rat-wire, fails `tests/wire.rs`. Refresh the recorded errors with
//! `TRYBUILD=overwrite cargo test -p rat-core --test tool`.

#[test]
fn a_tool_missing_a_piece_does_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/complete.rs");
    cases.compile_fail("tests/ui/run_missing.rs");
}
