//! The stdio link: what to run, and the current process's stdout (JSON-RPC lines), stderr
//! (diagnostics, with a tail kept to explain a crash) and end (stdout EOF and the exit report,
//! in either order). The connection ([`super`]) feeds it and acts on what it returns.

use std::collections::VecDeque;

use crate::config::{Limits, StdioCommand};
use crate::framing::{Frame, LineFramer};
use crate::io::ExitInfo;
use crate::jsonrpc_head::HEAD_BYTES;
use crate::text::sanitize_bytes;

/// The stdio side of a connection: what to run, and the current process's output.
#[derive(Debug)]
pub(in crate::connection) struct StdioLink {
    /// What to run.
    command: StdioCommand,
    stdout: LineFramer,
    stderr: LineFramer,
    /// The last stderr lines, to explain a crash.
    stderr_tail: VecDeque<String>,
    /// The current process's stdout reached end of file.
    stdout_eof: bool,
    /// The current process exited (its last output may still be in the pipe).
    exited: Option<ExitInfo>,
    /// The oversize stdout line being discarded already failed the request it answers.
    oversize_answered: bool,
}

/// What the end of one of the process's two signs of life (stdout, the process itself) means.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::connection) enum StreamEnd {
    /// Both have ended: the process is gone, for this reason.
    Lost(String),
    /// The other has not ended yet: keep reading briefly (its last output may still be in the
    /// pipe, or its exit report on its way).
    Drain,
}

impl StdioLink {
    pub(in crate::connection) fn new(command: &StdioCommand, limits: &Limits) -> Self {
        // Stderr lines over the limit are shown truncated (their start kept), not dropped.
        let max = limits.max_stderr_line_bytes;
        Self {
            command: command.clone(),
            // An oversize line's start and end are kept to fail the request it answers.
            stdout: LineFramer::capturing(limits.max_message_bytes, HEAD_BYTES),
            stderr: LineFramer::keeping_head(max, max),
            stderr_tail: VecDeque::new(),
            stdout_eof: false,
            exited: None,
            oversize_answered: false,
        }
    }

    /// A new process is being started: nothing of the last one is kept.
    pub(in crate::connection) fn restart(&mut self, limits: &Limits) {
        *self = Self::new(&self.command, limits);
    }

    /// Whether the process can still be written to and read from.
    pub(in crate::connection) fn is_open(&self) -> bool {
        !self.stdout_eof && self.exited.is_none()
    }

    /// What to run.
    pub(in crate::connection) fn command(&self) -> &StdioCommand {
        &self.command
    }

    /// Whether the current process exited.
    pub(in crate::connection) fn has_exited(&self) -> bool {
        self.exited.is_some()
    }

    /// Bytes read from stdout.
    pub(in crate::connection) fn push_stdout(&mut self, bytes: &[u8]) {
        self.stdout.push(bytes);
    }

    /// Bytes read from stdout, handed over (a read that is one whole line is framed without
    /// a copy).
    pub(in crate::connection) fn push_stdout_owned(&mut self, bytes: Vec<u8>) {
        self.stdout.push_owned(bytes);
    }

    /// Stdout reached end of file: what is left is the last frame.
    pub(in crate::connection) fn finish_stdout(&mut self) {
        self.stdout.finish();
    }

    /// The next frame of stdout: a line, or an oversize line's start or end.
    pub(in crate::connection) fn next_stdout_frame(&mut self) -> Option<Frame> {
        self.stdout.next_frame()
    }

    /// Whether the oversize line being discarded already failed the request it answers.
    pub(in crate::connection) fn set_oversize_answered(&mut self, answered: bool) {
        self.oversize_answered = answered;
    }

    /// Whether the oversize line that just ended already failed its request (and forgets it).
    pub(in crate::connection) fn take_oversize_answered(&mut self) -> bool {
        std::mem::take(&mut self.oversize_answered)
    }

    /// Bytes read from stderr.
    pub(in crate::connection) fn push_stderr(&mut self, bytes: &[u8]) {
        self.stderr.push(bytes);
    }

    /// Stderr reached end of file.
    pub(in crate::connection) fn finish_stderr(&mut self) {
        self.stderr.finish();
    }

    /// Whether stdout is still read.
    pub(in crate::connection) fn is_reading(&self) -> bool {
        !self.stdout_eof
    }

    /// The process exited; `None` when that was known already.
    pub(in crate::connection) fn note_exit(&mut self, status: ExitInfo) -> Option<StreamEnd> {
        if self.exited.is_some() {
            return None;
        }
        self.exited = Some(status);
        Some(match self.stdout_eof {
            true => StreamEnd::Lost(format!("the server process exited ({status})")),
            false => StreamEnd::Drain,
        })
    }

    /// Stdout reached end of file.
    pub(in crate::connection) fn note_stdout_eof(&mut self) -> StreamEnd {
        self.stdout_eof = true;
        match self.exited {
            Some(status) => StreamEnd::Lost(format!("the server process exited ({status})")),
            None => StreamEnd::Drain,
        }
    }

    /// The drain after one end is over: why the process is gone, and whether it is because
    /// only stdout closed (the process still runs).
    pub(in crate::connection) fn drain_over(&self) -> (String, bool) {
        match self.exited {
            Some(status) => (format!("the server process exited ({status})"), false),
            None => ("the server closed its stdout".into(), true),
        }
    }

    /// The last stderr lines, joined, if there are any.
    pub(in crate::connection) fn stderr_summary(&self) -> Option<String> {
        if self.stderr_tail.is_empty() {
            return None;
        }
        let tail: Vec<_> = self.stderr_tail.iter().cloned().collect();
        Some(tail.join(" | "))
    }

    /// The next complete stderr line, sanitised and kept in the tail.
    pub(in crate::connection) fn next_stderr_line(&mut self, limits: &Limits) -> Option<String> {
        let max_chars = limits.max_stderr_line_bytes;
        let line = loop {
            match self.stderr.next_frame()? {
                Frame::Line(l) => break sanitize_bytes(&l, max_chars),
                Frame::Oversize { len, head, .. } => {
                    break format!("{}…[line of {len} bytes truncated]", sanitize_bytes(&head, max_chars))
                }
                // Not announced by this framer; the line is shown when it ends.
                Frame::OversizeStart { .. } => {}
            }
        };
        self.stderr_tail.push_back(line.clone());
        while self.stderr_tail.len() > limits.stderr_tail_lines {
            self.stderr_tail.pop_front();
        }
        Some(line)
    }
}
