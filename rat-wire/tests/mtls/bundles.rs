//! Bundles: generation, the profile of what is generated, and each of the seven checks of
//! loading failing with its own error on a crafted case (`docs/design/bundles.md`).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::common::{Ca, bundle, copy, expired, redact, valid_now};
use rat_wire::mtls::{
    self, Check, ClientSide, GenerateError, LoadError, LoadedSide, Role, ServerSide,
};
use rcgen::ExtendedKeyUsagePurpose;
use x509_parser::prelude::{FromDer, X509Certificate};

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn generated_bundle_loads_on_every_side() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("missing/parents/prod");
    let report = mtls::generate("prod", &["alice", "bob"], &out).unwrap();
    assert_eq!(report.tenant, "prod");
    assert_eq!(report.server_dir, out.join("server"));
    assert_eq!(
        report.clients,
        vec![
            ("alice".to_owned(), out.join("clients/alice")),
            ("bob".to_owned(), out.join("clients/bob")),
        ]
    );
    // 10 years from a day before now
    let left = report.not_after.duration_since(SystemTime::now()).unwrap();
    let days = left.as_secs() / 86_400;
    assert!((3650..=3652).contains(&days), "{days} days left");

    let server = mtls::load_server(&out.join("server")).unwrap();
    assert_eq!(server.tenant(), "prod");
    assert_eq!(server.ca_fingerprint(), report.ca_fingerprint);
    assert_eq!(server.not_after(), report.not_after);
    for name in ["alice", "bob"] {
        let client = mtls::load_client(&out.join("clients").join(name)).unwrap();
        assert_eq!(client.tenant(), "prod");
        assert_eq!(client.client_name(), name);
        assert_eq!(client.ca_fingerprint(), report.ca_fingerprint);
        assert_eq!(client.not_after(), report.not_after);
        match mtls::load(&out.join("clients").join(name)).unwrap() {
            LoadedSide::Client(c) => assert_eq!(c.client_name(), name),
            LoadedSide::Server(_) => panic!("a client directory loaded as the server"),
        }
    }
    // the fingerprint is openssl's form: 32 colon separated uppercase bytes
    assert_eq!(report.ca_fingerprint.len(), 32 * 3 - 1);
    assert!(report.ca_fingerprint.split(':').all(|b| {
        b.len() == 2
            && b.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase())
    }));

    // keys and their directories owner-only
    for dir in [
        out.clone(),
        out.join("server"),
        out.join("clients"),
        out.join("clients/alice"),
    ] {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    }
    assert_eq!(mode(&out.join("server/server.key")), 0o600);
    assert_eq!(mode(&out.join("clients/bob/client.key")), 0o600);
    let names = |dir: &Path| {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&out), ["clients", "server"]);
    assert_eq!(
        names(&out.join("server")),
        ["ca.crt", "server.crt", "server.key"]
    );
    assert_eq!(names(&out.join("clients")), ["alice", "bob"]);
    assert_eq!(
        names(&out.join("clients/alice")),
        ["ca.crt", "client.crt", "client.key"]
    );
    // the CA key is written nowhere: the same CA in every directory, no other file
    assert_eq!(
        fs::read(out.join("server/ca.crt")).unwrap(),
        fs::read(out.join("clients/bob/ca.crt")).unwrap()
    );
}

fn parse(pem_path: &Path) -> Vec<u8> {
    crate::common::der(pem_path).to_vec()
}

#[test]
fn generated_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let out = bundle(tmp.path(), "b", "prod", &["alice"]);
    let ca_der = parse(&out.join("server/ca.crt"));
    let (_, ca) = X509Certificate::from_der(&ca_der).unwrap();
    assert_eq!(ca.subject().to_string(), "O=rat CA, CN=prod");
    assert_eq!(ca.issuer().to_string(), "O=rat CA, CN=prod");
    let bc = ca.basic_constraints().unwrap().unwrap().value;
    assert!(bc.ca);
    assert_eq!(bc.path_len_constraint, Some(0));
    let ku = ca.key_usage().unwrap().unwrap().value;
    assert!(ku.key_cert_sign() && !ku.digital_signature());

    for (file, cn, server_auth) in [
        ("server/server.crt", "prod", true),
        ("clients/alice/client.crt", "alice", false),
    ] {
        let der = parse(&out.join(file));
        let (_, cert) = X509Certificate::from_der(&der).unwrap();
        assert_eq!(cert.subject().to_string(), format!("CN={cn}"), "{file}");
        assert_eq!(cert.issuer().to_string(), "O=rat CA, CN=prod");
        assert!(
            cert.subject_alternative_name().unwrap().is_none(),
            "{file} has a SAN"
        );
        let eku = cert.extended_key_usage().unwrap().unwrap().value;
        assert_eq!(
            (eku.server_auth, eku.client_auth, eku.any),
            (server_auth, !server_auth, false)
        );
        assert!(eku.other.is_empty());
        let ku = cert.key_usage().unwrap().unwrap().value;
        assert!(ku.digital_signature() && !ku.key_cert_sign() && !ku.key_encipherment());
        assert!(!cert.is_ca());
        // ECDSA P-256, signed with ECDSA SHA-256
        assert_eq!(
            cert.public_key().algorithm.algorithm.to_id_string(),
            "1.2.840.10045.2.1"
        );
        assert_eq!(
            cert.public_key()
                .algorithm
                .parameters
                .as_ref()
                .unwrap()
                .as_oid()
                .unwrap()
                .to_id_string(),
            "1.2.840.10045.3.1.7"
        );
        assert_eq!(
            cert.signature_algorithm.algorithm.to_id_string(),
            "1.2.840.10045.4.3.2"
        );
        // valid from a day before, for 10 years
        let nb = cert.validity().not_before.timestamp();
        let na = cert.validity().not_after.timestamp();
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        assert!(
            (now - 86_400 - 60..=now - 86_400 + 1).contains(&nb),
            "not before {nb}, now {now}"
        );
        let days = (na - nb) / 86_400;
        assert!((3652..=3653).contains(&days), "{days} days");
        assert_eq!(
            (nb, na),
            (
                ca.validity().not_before.timestamp(),
                ca.validity().not_after.timestamp()
            )
        );
    }
}

#[test]
fn generate_at_a_fixed_time() {
    let tmp = tempfile::tempdir().unwrap();
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_262_304_000); // 2010-01-01
    let report = mtls::generate_at("prod", &["alice"], &tmp.path().join("b"), at).unwrap();
    assert_eq!(
        mtls::format_time(report.not_after),
        "2019-12-31 00:00:00 UTC"
    );
}

#[test]
fn generate_refusals() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let file = tmp.path().join("file");
    fs::write(&file, "x").unwrap();
    let fresh = tmp.path().join("fresh");
    let cases: Vec<(&str, Result<_, GenerateError>)> = vec![
        (
            "existing empty directory",
            mtls::generate("prod", &["alice"], &empty),
        ),
        ("existing file", mtls::generate("prod", &["alice"], &file)),
        (
            "bad tenant",
            mtls::generate("prod.example", &["alice"], &fresh),
        ),
        (
            "bad client",
            mtls::generate("prod", &["alice", "b o b"], &fresh),
        ),
        (
            "long client",
            mtls::generate("prod", &[&"x".repeat(33)], &fresh),
        ),
        ("no client", mtls::generate("prod", &[], &fresh)),
        (
            "duplicate client",
            mtls::generate("prod", &["alice", "bob", "alice"], &fresh),
        ),
    ];
    let mut text = String::new();
    for (case, result) in cases {
        let err = result.expect_err(case);
        text += &format!("{case}: {err}\n");
    }
    insta::assert_snapshot!(redact(&text, tmp.path()));
    // nothing written, nothing removed
    assert!(fs::read_dir(&empty).unwrap().next().is_none());
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
    assert!(!fresh.exists());
}

#[test]
fn a_client_named_server_does_not_collide() {
    let tmp = tempfile::tempdir().unwrap();
    let out = bundle(tmp.path(), "b", "prod", &["server"]);
    assert_eq!(
        mtls::load_client(&out.join("clients/server"))
            .unwrap()
            .client_name(),
        "server"
    );
    assert_eq!(
        mtls::load_server(&out.join("server")).unwrap().tenant(),
        "prod"
    );
}

/// Loads `dir`, expecting the failure of `check`; returns the message.
fn fails(dir: &Path, check: Check) -> String {
    let err = mtls::load(dir).expect_err("loading should fail");
    assert_eq!(err.check(), check, "{err}");
    err.to_string()
}

/// Each check fails with its own error on a crafted case, in the order of the checks.
#[test]
fn each_check_fails_with_its_own_error() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let b = bundle(tmp.path(), "b", "prod", &["alice"]);
    let other_tenant = bundle(tmp.path(), "c", "staging", &["alice"]);
    let mut lines = Vec::new();
    let mut case = |name: &str, dir: &Path, check: Check| {
        let msg = fails(dir, check);
        lines.push(format!(
            "{name}\n  {}: {}",
            check.title(),
            redact(&msg, tmp.path())
        ));
    };

    // 1. files: two PEM blocks in ca.crt
    let d = tmp.path().join("two-blocks");
    fs::create_dir(&d).unwrap();
    for f in ["ca.crt", "client.crt", "client.key"] {
        copy(&a.join("clients/alice").join(f), &d.join(f));
    }
    fs::set_permissions(d.join("client.key"), fs::Permissions::from_mode(0o600)).unwrap();
    let two = fs::read_to_string(a.join("server/ca.crt")).unwrap()
        + &fs::read_to_string(b.join("server/ca.crt")).unwrap();
    fs::write(d.join("ca.crt"), two).unwrap();
    case("two PEM blocks in ca.crt", &d, Check::Files);

    // 2. key 0644
    let d = tmp.path().join("a-0644");
    copy_side(&a.join("clients/alice"), &d, "client");
    fs::set_permissions(d.join("client.key"), fs::Permissions::from_mode(0o644)).unwrap();
    case("key 0644", &d, Check::KeyPermissions);

    // 3. the key of another bundle
    let d = tmp.path().join("other-key");
    copy_side(&a.join("clients/alice"), &d, "client");
    copy(&b.join("clients/alice/client.key"), &d.join("client.key"));
    case("key of another bundle", &d, Check::KeyMatch);

    // 4. the certificate (and its key) of another CA: same tenant, then another tenant
    let d = tmp.path().join("other-ca");
    copy_side(&a.join("clients/alice"), &d, "client");
    copy(&b.join("clients/alice/client.crt"), &d.join("client.crt"));
    copy(&b.join("clients/alice/client.key"), &d.join("client.key"));
    case(
        "certificate of another bundle of the tenant",
        &d,
        Check::SignedByCa,
    );
    let d = tmp.path().join("other-tenant");
    copy_side(&a.join("clients/alice"), &d, "client");
    copy(
        &other_tenant.join("clients/alice/client.crt"),
        &d.join("client.crt"),
    );
    copy(
        &other_tenant.join("clients/alice/client.key"),
        &d.join("client.key"),
    );
    case("certificate of another tenant", &d, Check::SignedByCa);

    // 5. a server certificate in a client directory
    let d = tmp.path().join("server-as-client");
    copy_side(&a.join("clients/alice"), &d, "client");
    copy(&a.join("server/server.crt"), &d.join("client.crt"));
    copy(&a.join("server/server.key"), &d.join("client.key"));
    case("server certificate in a client directory", &d, Check::Role);
    let d = tmp.path().join("client-as-server");
    copy_side(&a.join("server"), &d, "server");
    copy(&a.join("clients/alice/client.crt"), &d.join("server.crt"));
    copy(&a.join("clients/alice/client.key"), &d.join("server.key"));
    case(
        "client certificate in the server directory",
        &d,
        Check::Role,
    );

    // 6. expired (a whole bundle generated 11 years ago), not valid yet (in 2100)
    let old = tmp.path().join("old");
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_262_304_000); // 2010-01-01
    mtls::generate_at("prod", &["alice"], &old, at).unwrap();
    case(
        "expired bundle",
        &old.join("clients/alice"),
        Check::ValidNow,
    );
    let future = tmp.path().join("future");
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(4_102_444_800); // 2100-01-01
    mtls::generate_at("prod", &["alice"], &future, at).unwrap();
    case(
        "bundle not valid yet",
        &future.join("server"),
        Check::ValidNow,
    );
    // a client expired under a valid CA (crafted with rcgen)
    let ca = Ca::new("prod");
    let d = tmp.path().join("expired-client");
    ca.write_side(
        &d,
        "client",
        &ca.issue("alice", ExtendedKeyUsagePurpose::ClientAuth, expired()),
    );
    let msg = fails(&d, Check::ValidNow);
    assert!(msg.starts_with("client.crt expired on "), "{msg}");

    // 7. bad names (crafted with rcgen: generate refuses them)
    let d = tmp.path().join("bad-name");
    ca.write_side(
        &d,
        "client",
        &ca.issue(
            "alice.example",
            ExtendedKeyUsagePurpose::ClientAuth,
            valid_now(),
        ),
    );
    case("client named alice.example", &d, Check::Names);
    let bad_ca = Ca::new("prod example");
    let d = tmp.path().join("bad-tenant");
    bad_ca.write_side(
        &d,
        "server",
        &bad_ca.issue("prod", ExtendedKeyUsagePurpose::ServerAuth, valid_now()),
    );
    case("CA naming the tenant \"prod example\"", &d, Check::Names);

    insta::assert_snapshot!(lines.join("\n"));
}

/// Copies the three files of a side, the key 0600.
fn copy_side(from: &Path, to: &Path, role: &str) {
    fs::create_dir(to).unwrap();
    for f in [
        "ca.crt".to_owned(),
        format!("{role}.crt"),
        format!("{role}.key"),
    ] {
        copy(&from.join(&f), &to.join(&f));
    }
    fs::set_permissions(
        to.join(format!("{role}.key")),
        fs::Permissions::from_mode(0o600),
    )
    .unwrap();
}

#[test]
fn directories_that_are_not_a_side() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let both = tmp.path().join("both");
    copy_side(&a.join("clients/alice"), &both, "client");
    copy(&a.join("server/server.crt"), &both.join("server.crt"));
    let missing_key = tmp.path().join("missing-key");
    copy_side(&a.join("server"), &missing_key, "server");
    fs::remove_file(missing_key.join("server.key")).unwrap();
    let mut text = String::new();
    for (case, err) in [
        (
            "missing directory",
            mtls::load(&tmp.path().join("nope")).unwrap_err(),
        ),
        ("bundle root", mtls::load(&a).unwrap_err()),
        ("both certificates", mtls::load(&both).unwrap_err()),
        ("missing key", mtls::load(&missing_key).unwrap_err()),
        (
            "server directory as a client",
            mtls::load_client(&a.join("server")).unwrap_err(),
        ),
        (
            "client directory as the server",
            mtls::load_server(&a.join("clients/alice")).unwrap_err(),
        ),
    ] {
        assert_eq!(err.check(), Check::Files, "{case}");
        assert!(matches!(err, LoadError::Files { .. }));
        text += &format!("{case}: {err}\n");
    }
    insta::assert_snapshot!(redact(&text, tmp.path()));
}

#[test]
fn the_same_checks_from_contents() {
    let tmp = tempfile::tempdir().unwrap();
    let a = bundle(tmp.path(), "a", "prod", &["alice"]);
    let b = bundle(tmp.path(), "b", "prod", &["alice"]);
    let read = |p: &Path| fs::read(p).unwrap();
    let (ca, cert, key) = (
        read(&a.join("clients/alice/ca.crt")),
        read(&a.join("clients/alice/client.crt")),
        read(&a.join("clients/alice/client.key")),
    );
    let client = ClientSide::from_pem(&ca, &cert, &key).unwrap();
    assert_eq!((client.tenant(), client.client_name()), ("prod", "alice"));
    let server = ServerSide::from_pem(
        &read(&a.join("server/ca.crt")),
        &read(&a.join("server/server.crt")),
        &read(&a.join("server/server.key")),
    )
    .unwrap();
    assert_eq!(server.tenant(), "prod");
    assert_eq!(server.ca_fingerprint(), client.ca_fingerprint());

    let two = [ca.clone(), read(&b.join("server/ca.crt"))].concat();
    let b_key = read(&b.join("clients/alice/client.key"));
    let b_cert = read(&b.join("clients/alice/client.crt"));
    let s_cert = read(&a.join("server/server.crt"));
    let s_key = read(&a.join("server/server.key"));
    let mut text = String::new();
    for (case, err, check) in [
        (
            "two PEM blocks",
            ClientSide::from_pem(&two, &cert, &key).unwrap_err(),
            Check::Files,
        ),
        (
            "key as certificate",
            ClientSide::from_pem(&ca, &key, &key).unwrap_err(),
            Check::Files,
        ),
        (
            "empty key",
            ClientSide::from_pem(&ca, &cert, b"").unwrap_err(),
            Check::Files,
        ),
        (
            "key of another bundle",
            ClientSide::from_pem(&ca, &cert, &b_key).unwrap_err(),
            Check::KeyMatch,
        ),
        (
            "another CA",
            ClientSide::from_pem(&ca, &b_cert, &b_key).unwrap_err(),
            Check::SignedByCa,
        ),
        (
            "server certificate",
            ClientSide::from_pem(&ca, &s_cert, &s_key).unwrap_err(),
            Check::Role,
        ),
        (
            "client certificate",
            ServerSide::from_pem(&ca, &cert, &key).unwrap_err(),
            Check::Role,
        ),
    ] {
        assert_eq!(err.check(), check, "{case}: {err}");
        text += &format!("{case}: {err}\n");
    }
    insta::assert_snapshot!(text);
}

#[test]
fn checks_are_listed_in_order() {
    let titles: Vec<_> = Check::ALL.iter().map(|c| c.title()).collect();
    assert_eq!(
        titles,
        [
            "files of a side",
            "key readable by its owner only",
            "key matching the certificate",
            "certificate signed by the CA",
            "certificate of its role only",
            "certificates valid now",
            "plain names",
        ]
    );
    assert_eq!(Role::Server.cert_file(), "server.crt");
    assert_eq!(Role::Client.key_file(), "client.key");
}
