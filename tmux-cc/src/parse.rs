//! The control-mode parser: bytes in, events out, no I/O, never panics. Under construction (issue 2).
