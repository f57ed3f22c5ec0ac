//! carom world
