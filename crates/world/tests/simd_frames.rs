//! Every AVX2 routine of carom's crates realigns its stack frame first
//! (`carom_narrowphase::lanes::align_stack_frame`), so that its 256-bit
//! spills never straddle cache lines or pages, whatever the caller's
//! stack depth (see the README's "Stack depth"; `examples/stack_depth.rs`
//! measures it). A routine added without it would still give the same
//! results, only slower at some depths, so no other test would notice:
//! this one reads the sources.

use std::fs;
use std::path::{Path, PathBuf};

/// The attribute that makes a routine an AVX2 one.
const AVX2: &str = "#[target_feature(enable = \"avx2\")]";

#[test]
fn every_avx2_routine_realigns_its_frame_first() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut routines = 0;
    let mut missing = Vec::new();
    for file in rust_files(&crates.join("narrowphase/src"))
        .into_iter()
        .chain(rust_files(&crates.join("world/src")))
    {
        let text = fs::read_to_string(&file).expect("a readable source file");
        // A file's unit tests, at its end, may have AVX2 helpers of their
        // own; only the code before them is carom's.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        // The attribute on a line of its own (not quoted in a comment).
        let lines: Vec<&str> = code.lines().collect();
        for (at, _) in lines.iter().enumerate().filter(|(_, l)| l.trim() == AVX2) {
            routines += 1;
            if !realigns_first(&lines[at + 1..].join("\n")) {
                missing.push(format!("{}:{}", file.display(), at + 1));
            }
        }
    }
    // The passes, preparing, both integrations and the capsule batches.
    assert!(routines >= 5, "found only {routines} AVX2 routines");
    assert!(
        missing.is_empty(),
        "AVX2 routines that do not realign their frames first: {missing:?}"
    );
}

/// Whether the function that follows an attribute starts its body with
/// the call that realigns its frame.
fn realigns_first(after_attribute: &str) -> bool {
    let Some(body) = after_attribute.split_once('{') else {
        return false;
    };
    body.1
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("//"))
        .is_some_and(|first| first.ends_with("align_stack_frame();"))
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).expect("a readable source folder") {
        let path = entry.expect("a readable folder entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}
