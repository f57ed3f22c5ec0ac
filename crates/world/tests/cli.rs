//! The `carom` binary: outputs, exit statuses and determinism, on small
//! fixture scenes.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use common::binary::{carom, fixture, stderr, stdout, temp_file};
use serde_json::Value;

/// Bodies in `small.ron`: 2 static, 1 kinematic, 223 dynamic.
const SMALL_BODIES: usize = 226;
const SMALL_MOVING: usize = 224;

/// Runs carom, expects success, and parses its standard output as JSON.
fn carom_json(args: &[&str]) -> Value {
    let output = carom(args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("standard output is one JSON object")
}

#[test]
fn check_prints_counts_by_kind() {
    let small = fixture("small.ron");
    let output = carom(&["check", &small]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains(
            "226 bodies (static 2, kinematic 1, dynamic 223); \
             shapes: circle 200, segment 4, stadium 20, sector 4"
        ),
        "{text}"
    );
    assert!(text.contains("120 steps"), "{text}");
}

#[test]
fn a_bad_scene_exits_2_with_its_place_on_stderr() {
    let path = fixture("negative_radius.ron");
    for command in ["check", "run", "bench"] {
        let output = carom(&[command, &path]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        assert!(output.stdout.is_empty(), "{command}");
        let message = stderr(&output);
        assert!(
            message.contains(
                "negative_radius.ron: bodies[1].shapes[0]: circle radius must be > 0, got -0.5"
            ),
            "{command}: {message}"
        );
    }
}

#[test]
fn a_syntax_error_exits_2_with_line_and_column() {
    let output = carom(&["check", &fixture("missing_comma.ron")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("missing_comma.ron:4:5: "),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_missing_file_exits_2_and_is_named() {
    let output = carom(&["run", "no-such-scene.ron"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no-such-scene.ron"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn usage_errors_exit_2() {
    let small = fixture("small.ron");
    for args in [
        vec!["run", &small, "--frobnicate"],
        vec!["run"],
        vec!["launch", &small],
        vec!["run", &small, "--threads", "0"],
        vec!["run", &small, "--steps", "-3"],
        vec!["run", &small, "--every", "2"],
        vec!["run", &small, "--trace", "t.csv", "--every", "0"],
        vec!["bench", &small, "--trace", "t.csv"],
    ] {
        let output = carom(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(carom(&["--help"]).status.code(), Some(0));
}

#[test]
fn run_json_holds_the_final_state() {
    let state = carom_json(&["run", &fixture("small.ron"), "--steps", "30", "--json"]);
    assert_eq!(state["steps"], 30);
    let time = state["time"].as_f64().unwrap();
    assert!((time - 0.5).abs() < 1e-5, "{time}");
    let hash = state["hash"].as_str().unwrap();
    assert!(
        hash.len() == 16
            && hash
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );

    let bodies = state["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), SMALL_BODIES);
    assert_eq!(bodies[0]["name"], "box");
    assert_eq!(bodies[0]["kind"], "static");
    assert_eq!(bodies[2]["kind"], "kinematic");
    for (index, body) in bodies.iter().enumerate() {
        assert_eq!(body["index"], index);
        assert_eq!(body["position"].as_array().unwrap().len(), 2);
        assert_eq!(body["velocity"].as_array().unwrap().len(), 2);
        assert!(body["angle"].is_number() && body["angular_velocity"].is_number());
    }
    assert!(
        bodies[3].get("name").is_none(),
        "unnamed bodies carry no name"
    );
    assert_eq!(bodies[3]["kind"], "dynamic");
}

#[test]
fn run_without_json_prints_a_summary() {
    let output = carom(&["run", &fixture("small.ron"), "--steps", "20"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    for part in [
        "226 bodies",
        "20 steps",
        "contact points",
        "at rest",
        "hash ",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
}

/// Reads a trace and returns its rows, checking the header.
fn read_trace(path: &PathBuf) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).expect("the trace was written");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("step,time,index,x,y,angle,vx,vy,angular_velocity")
    );
    lines
        .map(|line| line.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn trace_rows_cover_step_0_every_kth_step_and_the_last() {
    for (every, expected_steps) in [("4", vec![0, 4, 8, 10]), ("5", vec![0, 5, 10])] {
        let path = temp_file(&format!("trace-every-{every}.csv"));
        let trace = path.to_str().unwrap();
        let small = fixture("small.ron");
        let args = [
            "run", &small, "--steps", "10", "--trace", trace, "--every", every,
        ];
        assert_eq!(carom(&args).status.code(), Some(0));
        let rows = read_trace(&path);
        std::fs::remove_file(&path).ok();

        assert_eq!(
            rows.len(),
            expected_steps.len() * SMALL_MOVING,
            "every {every}"
        );
        assert!(rows.iter().all(|r| r.len() == 9));
        let steps: BTreeSet<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
        assert_eq!(steps.into_iter().collect::<Vec<_>>(), expected_steps);
        let indices: BTreeSet<usize> = rows.iter().map(|r| r[2].parse().unwrap()).collect();
        assert!(
            !indices.contains(&0) && !indices.contains(&1),
            "static bodies are not traced"
        );
        assert_eq!(indices.len(), SMALL_MOVING);
        for row in &rows {
            for number in &row[1..] {
                assert!(number.parse::<f32>().is_ok(), "{number}");
            }
        }
    }
}

#[test]
fn trace_matches_the_json_state_at_the_last_step() {
    let path = temp_file("trace-last.csv");
    let trace = path.to_str().unwrap();
    let small = fixture("small.ron");
    let state = carom_json(&[
        "run", &small, "--steps", "7", "--trace", trace, "--every", "3", "--json",
    ]);
    let rows = read_trace(&path);
    std::fs::remove_file(&path).ok();
    let last = rows.iter().find(|r| r[0] == "7" && r[2] == "10").unwrap();
    let body = &state["bodies"][10];
    let x: f32 = last[3].parse().unwrap();
    assert_eq!(x, body["position"][0].as_f64().unwrap() as f32);
}

#[test]
fn bench_json_has_every_figure() {
    let report = carom_json(&[
        "bench",
        &fixture("small.ron"),
        "--steps",
        "20",
        "--threads",
        "1",
        "--json",
    ]);
    assert_eq!(report["steps"], 20);
    assert_eq!(report["bodies"], SMALL_BODIES);
    assert_eq!(report["threads"], 1);
    assert!(report["total_s"].as_f64().unwrap() >= 0.0);
    for figure in ["mean", "median", "p95", "max"] {
        assert!(
            report["ms_per_step"][figure].as_f64().unwrap() >= 0.0,
            "{figure}"
        );
    }
    let ms = &report["ms_per_step"];
    assert!(
        ms["median"].as_f64() <= ms["max"].as_f64() && ms["p95"].as_f64() <= ms["max"].as_f64()
    );
    assert!(report["contacts_max"].is_u64());
    assert!(report["max_penetration"].is_number());
    assert_eq!(report["hash"].as_str().unwrap().len(), 16);
}

#[test]
fn bench_and_run_reach_the_same_state() {
    let small = fixture("small.ron");
    let bench = carom_json(&["bench", &small, "--steps", "25", "--json"]);
    let run = carom_json(&["run", &small, "--steps", "25", "--json"]);
    assert_eq!(bench["hash"], run["hash"]);
}

#[test]
fn results_are_identical_across_runs_and_thread_counts() {
    let small = fixture("small.ron");
    let run = |threads: &str| {
        let output = carom(&[
            "run",
            &small,
            "--steps",
            "100",
            "--threads",
            threads,
            "--json",
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        output.stdout
    };
    let first = run("1");
    assert_eq!(run("1"), first, "two runs differ");
    assert_eq!(run("2"), first, "one and two threads differ");
    assert_eq!(run("3"), first, "one and three threads differ");
}

#[test]
fn no_arguments_runs_the_demo() {
    let output = carom(&[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("carom demo"), "{text}");
    assert!(text.contains("bodies") && text.contains("hash "), "{text}");
}

#[test]
fn a_reader_that_stops_early_ends_the_run_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    // The hopper's JSON state (about 1.5 MB) is far larger than a pipe
    // holds, so carom is still writing when the reader goes away.
    let hopper = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes/hopper.ron");
    let mut child = Command::new(env!("CARGO_BIN_EXE_carom"))
        .args(["run", hopper.to_str().unwrap(), "--steps", "1", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the carom binary runs");
    let mut start = [0u8; 16];
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_exact(&mut start)
        .expect("the state begins");
    let output = child.wait_with_output().expect("carom finishes");
    assert!(start.starts_with(b"{\"steps\":1"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
}

#[test]
fn no_sleep_keeps_every_body_awake() {
    let small = fixture("small.ron");
    let args = |extra: &[&'static str]| {
        let mut args = vec!["bench", small.as_str(), "--steps", "240", "--json"];
        args.extend_from_slice(extra);
        carom_json(&args)
    };
    let awake = args(&["--no-sleep"]);
    assert_eq!(awake["sleep"], false);
    assert_eq!(awake["sleeping_at_end"], 0);
    let default = args(&[]);
    assert_eq!(default["sleep"], true);
    assert!(default["sleeping_at_end"].is_u64());
    let run = carom_json(&["run", &small, "--steps", "240", "--no-sleep", "--json"]);
    assert_eq!(run["hash"], awake["hash"]);
}
