//! The file tools' integration tests, one binary: read_file's and write_file's, the set-up they
//! share (`common`: temporary trees, modes, the umask) built once; `links`: both through
//! symbolic links from the home directory, as an agent meets them.

mod common;

mod links;
mod read;
mod write;
