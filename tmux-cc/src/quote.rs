//! Quoting any argument into a control-mode command line, byte for byte. Under construction (issue 2).
