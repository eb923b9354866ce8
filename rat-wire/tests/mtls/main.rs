//! The bundles' integration tests, one binary: generating and loading bundles (`bundles`), and
//! TLS between their sides (`tls`), the test CA they share (`common`) built once.

mod common;

mod bundles;
mod tls;
