//! A tool left half-registered does not compile (`docs/design/tools.md`, Adding a tool): an
//! entry of the table missing a field, and a dispatch missing a tool's arm, each fail with the
//! compiler's error recorded beside them (`tests/ui/*.stderr`); a complete table compiles and
//! runs. Refresh the recorded errors with `TRYBUILD=overwrite cargo test -p rat-wire`.

#[test]
fn half_registered_tools_do_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/complete.rs");
    cases.compile_fail("tests/ui/field_missing.rs");
    cases.compile_fail("tests/ui/handler_missing.rs");
}
