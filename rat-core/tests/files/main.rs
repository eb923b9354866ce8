//! The file tools' integration tests, one binary: read_file's and write_file's, the set-up they
//! share (`common`: temporary trees, modes, the umask) built once.

mod common;

mod read;
mod write;
