//! Running the `carom` binary on the fixture scenes.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The path of a fixture scene in `tests/scenes`.
pub fn fixture(name: &str) -> String {
    format!("{}/tests/scenes/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary with `args` and collects what it did.
pub fn carom(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_carom"))
        .args(args)
        .output()
        .expect("the carom binary runs")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A path in the temporary directory, unique to this test process.
pub fn temp_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("carom-test-{}-{name}", std::process::id()))
}
