use super::*;

/// The identity of a socket file: a file of the same device and inode born at another time
/// (ext4 gives a new file the inode of one just deleted) is another server's, left alone.
#[test]
fn a_socket_file_born_again_is_left_alone() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("socket");
    std::fs::write(&path, b"").unwrap();
    let meta = std::fs::symlink_metadata(&path).unwrap();
    let older = SocketFile {
        path: path.clone(),
        dev: meta.dev(),
        ino: meta.ino(),
        born: Some(std::time::UNIX_EPOCH),
    };
    older.remove_if_unchanged();
    assert!(path.exists(), "another file's socket was removed");
    let own = SocketFile::of(path.clone()).unwrap();
    own.remove_if_unchanged();
    assert!(!path.exists(), "its own socket file was left");
}
