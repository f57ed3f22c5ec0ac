//! Why a command failed, and the exit status that says so.

use std::fmt;
use std::process::ExitCode;

use carom::scene::SceneError;

/// A failed command.
#[derive(Debug)]
pub enum Failure {
    /// The scene or an argument is unusable: exit status 2.
    BadInput(String),
    /// Something went wrong while working: exit status 1.
    Runtime(String),
    /// Whoever read the output stopped reading (`carom run --json | head`):
    /// nothing more to say, and not an error of ours.
    OutputClosed,
}

impl Failure {
    /// A runtime failure while writing `what`.
    pub fn writing(what: &str, error: std::io::Error) -> Failure {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            return Failure::OutputClosed;
        }
        Failure::Runtime(format!("cannot write {what}: {error}"))
    }

    /// A failure while writing `what` as JSON.
    pub fn writing_json(what: &str, error: serde_json::Error) -> Failure {
        match error.io_error_kind() {
            Some(kind) => Failure::writing(what, std::io::Error::from(kind)),
            None => Failure::Runtime(format!("cannot write {what}: {error}")),
        }
    }

    /// The process exit status for this failure.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Failure::BadInput(_) => ExitCode::from(2),
            Failure::Runtime(_) => ExitCode::from(1),
            Failure::OutputClosed => ExitCode::SUCCESS,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::BadInput(message) | Failure::Runtime(message) => f.write_str(message),
            Failure::OutputClosed => f.write_str("the output was closed"),
        }
    }
}

impl From<SceneError> for Failure {
    fn from(error: SceneError) -> Failure {
        Failure::BadInput(error.to_string())
    }
}
