//! write_file and read_file through symbolic links as an agent meets them: paths
//! given from its home (`~/...`), links leading out of it, dangling, relative and chained. Each
//! answer names the file really written or read, then the link as the agent's path reaches it;
//! what landed where is checked on disk.

use std::fs;
use std::os::unix::fs::symlink;

use crate::common::*;

/// Removes the directory made in the home directory, even when the test fails.
struct Cleanup(std::path::PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn through_links_from_home_the_file_really_written_or_read_is_named() {
    // `elsewhere` stands for a place out of the home directory (`/nonexistent` in the issue:
    // the root is not the tests' to write).
    let elsewhere = tempfile::tempdir().unwrap();
    // A name of fixed length: the headers (and so the byte counts told) hold it.
    let name = format!(".rat-links-test-{:07}", std::process::id());
    let home = std::env::home_dir().unwrap().join(&name);
    let _cleanup = Cleanup(home.clone());
    let files = home.join("files");
    fs::create_dir_all(&files).unwrap();
    file(&files.join("big.txt"), "x".repeat(2_000_000));
    let out = elsewhere.path().join("nonexistent");
    symlink(&out, files.join("dangling")).unwrap();
    symlink("big.txt", files.join("link.txt")).unwrap();
    symlink("link.txt", files.join("chained")).unwrap();
    symlink(files.join("chained"), files.join("chained-twice")).unwrap();
    symlink("../made/here.txt", files.join("relative-dangling")).unwrap();
    symlink("relative-dangling", files.join("chained-dangling")).unwrap();
    symlink("../missing/x.txt", files.join("nowhere")).unwrap();
    let at = |link: &str| format!("~/{name}/files/{link}");
    let mut t = Transcript::new(elsewhere.path());

    let written = write(&at("dangling"), "made by link\n").await;
    // Unredacted: the link as the agent wrote it, `~/` and all; the file it led to by its
    // real path.
    let real = fs::canonicalize(&out).unwrap();
    assert_eq!(
        written.text,
        format!(
            "Created {} (13 B, through the link ~/{name}/files/dangling).",
            real.display()
        )
    );
    t.add("write ~/NAME/files/dangling", &written);
    assert_eq!(fs::read_to_string(&out).unwrap(), "made by link\n");
    age(&out);
    let read_back = read(&at("dangling")).await;
    assert!(
        read_back.text.starts_with(&format!(
            "[{} (through the link ~/{name}/files/dangling): 1 line, ",
            real.display()
        )),
        "{}",
        read_back.text
    );
    // Given absolute, the link is named by its absolute path.
    let absolute = files.join("dangling");
    let again = write(absolute.to_str().unwrap(), "made by link\n").await;
    assert_eq!(
        again.text,
        format!(
            "Replaced {} (13 B, 13 B before, through the link {}).",
            real.display(),
            absolute.display()
        )
    );
    age(&out);
    t.add("read ~/NAME/files/dangling", &read_back);

    t.add(
        "write ~/NAME/files/link.txt",
        &write(&at("link.txt"), "replaced\n").await,
    );
    assert_eq!(
        fs::read_to_string(files.join("big.txt")).unwrap(),
        "replaced\n"
    );
    age(&files.join("big.txt"));
    t.add("read ~/NAME/files/chained", &read(&at("chained")).await);
    t.add(
        "read ~/NAME/files/chained-twice line 1",
        &read_range(&at("chained-twice"), Some(1), Some(1), Some(true)).await,
    );
    t.add(
        "write ~/NAME/files/chained-twice",
        &write(&at("chained-twice"), "twice\n").await,
    );
    assert_eq!(
        fs::read_to_string(files.join("big.txt")).unwrap(),
        "twice\n"
    );

    t.add(
        "read ~/NAME/files/chained-dangling",
        &read(&at("chained-dangling")).await,
    );
    fs::create_dir(home.join("made")).unwrap();
    t.add(
        "write ~/NAME/files/chained-dangling",
        &write(&at("chained-dangling"), "at last\n").await,
    );
    assert_eq!(
        fs::read_to_string(home.join("made/here.txt")).unwrap(),
        "at last\n"
    );
    t.add(
        "write ~/NAME/files/nowhere",
        &write(&at("nowhere"), "lost\n").await,
    );
    assert!(!home.join("missing").exists());
    for link in [
        "dangling",
        "link.txt",
        "chained",
        "chained-twice",
        "relative-dangling",
        "chained-dangling",
        "nowhere",
    ] {
        let meta = fs::symlink_metadata(files.join(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} still a link");
    }
    insta::assert_snapshot!(t.finish().replace(&name, "NAME"), @r"
    > write ~/NAME/files/dangling
    ok path=~/NAME/files/dangling bytes=13 created=true former_size=0 directories_created=0
    Created [DIR]/nonexistent (13 B, through the link ~/NAME/files/dangling).

    > read ~/NAME/files/dangling
    ok path=~/NAME/files/dangling lines=1 bytes=134 cut=false counted=true size=13
    [[DIR]/nonexistent (through the link ~/NAME/files/dangling): 1 line, 13 B, modified 3h ago]
    made by link


    > write ~/NAME/files/link.txt
    ok path=~/NAME/files/link.txt bytes=9 created=false former_size=2000000 directories_created=0
    Replaced ~/NAME/files/big.txt (9 B, 1.9 MiB before, through the link ~/NAME/files/link.txt).

    > read ~/NAME/files/chained
    ok path=~/NAME/files/chained lines=1 bytes=144 cut=false counted=true size=9
    [~/NAME/files/big.txt (through the link ~/NAME/files/chained): 1 line, 9 B, modified 3h ago]
    replaced


    > read ~/NAME/files/chained-twice line 1
    ok path=~/NAME/files/chained-twice lines=1 bytes=162 cut=false counted=true size=9
    [~/NAME/files/big.txt (through the link ~/NAME/files/chained-twice): line 1 of 1, 9 B, modified 3h ago]
         1	replaced


    > write ~/NAME/files/chained-twice
    ok path=~/NAME/files/chained-twice bytes=6 created=false former_size=9 directories_created=0
    Replaced ~/NAME/files/big.txt (6 B, 9 B before, through the link ~/NAME/files/chained-twice).

    > read ~/NAME/files/chained-dangling
    refused (ENOENT: No such file or directory (os error 2)) path=~/NAME/files/chained-dangling
    Reading ~/NAME/files/chained-dangling failed: no such file or directory. It is a symbolic link to ~/NAME/made/here.txt, which does not exist.

    > write ~/NAME/files/chained-dangling
    ok path=~/NAME/files/chained-dangling bytes=8 created=true former_size=0 directories_created=0
    Created ~/NAME/made/here.txt (8 B, through the link ~/NAME/files/chained-dangling).

    > write ~/NAME/files/nowhere
    refused (ENOENT: No such file or directory (os error 2)) path=~/NAME/files/nowhere bytes=5
    Writing ~/NAME/files/nowhere failed: no such file or directory. It is a symbolic link to ~/NAME/missing/x.txt, whose directory does not exist.
    ");
}
