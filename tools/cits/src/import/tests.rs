//! Import tests (filled below).
