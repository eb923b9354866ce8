//! Helpers for rat's end-to-end tests (in `tests/tests/`): rat-tool, ratd and rat run together
//! with real MCP clients. Under construction: no test yet.
#![forbid(unsafe_code)]
