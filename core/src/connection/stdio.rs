//! The stdio transport: the process's stdout (JSON-RPC lines) and stderr (diagnostics), and
//! how the end of a process is noticed (stdout EOF and the exit report, in either order).

use std::collections::VecDeque;
use std::time::Instant;

use super::{Connection, Proc, Transport};
use crate::config::{Limits, StdioCommand};
use crate::error::Warning;
use crate::event::Event;
use crate::framing::{Frame, LineFramer};
use crate::handle::Epoch;
use crate::io::ExitInfo;
use crate::jsonrpc::{self, DecodeError};
use crate::jsonrpc_head::{scan_head, scan_tail, HEAD_BYTES};
use crate::text::sanitize_bytes;
use crate::timers::Timer;

/// The stdio side of a connection: what to run, and the current process's output.
#[derive(Debug)]
pub(super) struct StdioLink {
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
pub(super) enum StreamEnd {
    /// Both have ended: the process is gone, for this reason.
    Lost(String),
    /// The other has not ended yet: keep reading briefly (its last output may still be in the
    /// pipe, or its exit report on its way).
    Drain,
}

impl StdioLink {
    pub(super) fn new(command: &StdioCommand, limits: &Limits) -> Self {
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
    pub(super) fn restart(&mut self, limits: &Limits) {
        *self = Self::new(&self.command, limits);
    }

    /// Whether the process can still be written to and read from.
    pub(super) fn is_open(&self) -> bool {
        !self.stdout_eof && self.exited.is_none()
    }

    /// What to run.
    pub(super) fn command(&self) -> &StdioCommand {
        &self.command
    }

    /// Whether the current process exited.
    pub(super) fn has_exited(&self) -> bool {
        self.exited.is_some()
    }

    /// Whether stdout is still read.
    fn is_reading(&self) -> bool {
        !self.stdout_eof
    }

    /// The process exited; `None` when that was known already.
    fn note_exit(&mut self, status: ExitInfo) -> Option<StreamEnd> {
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
    fn note_stdout_eof(&mut self) -> StreamEnd {
        self.stdout_eof = true;
        match self.exited {
            Some(status) => StreamEnd::Lost(format!("the server process exited ({status})")),
            None => StreamEnd::Drain,
        }
    }

    /// The drain after one end is over: why the process is gone, and whether it is because
    /// only stdout closed (the process still runs).
    fn drain_over(&self) -> (String, bool) {
        match self.exited {
            Some(status) => (format!("the server process exited ({status})"), false),
            None => ("the server closed its stdout".into(), true),
        }
    }

    /// The last stderr lines, joined, if there are any.
    pub(super) fn stderr_summary(&self) -> Option<String> {
        if self.stderr_tail.is_empty() {
            return None;
        }
        let tail: Vec<_> = self.stderr_tail.iter().cloned().collect();
        Some(tail.join(" | "))
    }

    /// The next complete stderr line, sanitised and kept in the tail.
    fn next_stderr_line(&mut self, limits: &Limits) -> Option<String> {
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

impl Connection {
    fn stdio_mut(&mut self) -> Option<&mut StdioLink> {
        self.transport.stdio_mut()
    }

    /// Acts on the end of one of the process's signs of life.
    fn on_stream_end(&mut self, now: Instant, epoch: Epoch, end: StreamEnd) {
        match end {
            // Losing the process clears its drain timer too.
            StreamEnd::Lost(detail) => self.lose(now, epoch, detail, false),
            StreamEnd::Drain => self.timers.set(Timer::ExitDrain(epoch), now + self.cfg.timeouts.exit_drain),
        }
    }

    /// The work of [`Connection::handle_stdout`].
    pub(super) fn read_stdout(&mut self, now: Instant, epoch: Epoch, bytes: &[u8]) {
        let now = self.tick(now);
        if !self.is_current_reader(epoch) {
            return;
        }
        if let Some(link) = self.stdio_mut() {
            link.stdout.push(bytes);
        }
        self.drain_stdout(now, epoch);
    }

    /// [`Connection::handle_stdout`] with the bytes handed over (`Input::Stdout`): a read that
    /// is one whole line is framed without a copy.
    pub(super) fn handle_stdout_owned(&mut self, now: Instant, epoch: Epoch, bytes: Vec<u8>) {
        let now = self.tick(now);
        if !self.is_current_reader(epoch) {
            return;
        }
        if let Some(link) = self.stdio_mut() {
            link.stdout.push_owned(bytes);
        }
        self.drain_stdout(now, epoch);
    }

    /// The work of [`Connection::handle_stdout_eof`].
    pub(super) fn end_stdout(&mut self, now: Instant, epoch: Epoch) {
        let now = self.tick(now);
        if !self.is_current_reader(epoch) {
            return;
        }
        if let Some(link) = self.stdio_mut() {
            link.stdout.finish();
        }
        self.drain_stdout(now, epoch);
        self.on_stdout_closed(now, epoch);
    }

    /// The work of [`Connection::handle_stderr`].
    pub(super) fn read_stderr(&mut self, now: Instant, epoch: Epoch, bytes: &[u8]) {
        self.tick(now);
        if self.current_epoch() != Some(epoch) {
            return;
        }
        if let Some(link) = self.stdio_mut() {
            link.stderr.push(bytes);
        }
        self.drain_stderr();
    }

    /// The work of [`Connection::handle_stderr_eof`].
    pub(super) fn end_stderr(&mut self, now: Instant, epoch: Epoch) {
        self.tick(now);
        if self.current_epoch() != Some(epoch) {
            return;
        }
        if let Some(link) = self.stdio_mut() {
            link.stderr.finish();
        }
        self.drain_stderr();
    }

    /// The work of [`Connection::handle_process_exited`].
    pub(super) fn process_exited(&mut self, now: Instant, epoch: Epoch, status: ExitInfo) {
        let now = self.tick(now);
        if self.tracing_wire() {
            self.trace_wire(crate::WireRecord::ProcessExit { epoch, status });
        }
        if self.reaping.remove(&epoch).is_some() {
            self.timers.clear(Timer::Reap(epoch));
            self.maybe_closed();
            return;
        }
        if !matches!(self.proc, Proc::Running { epoch: e, .. } if e == epoch) {
            return;
        }
        if let Some(end) = self.stdio_mut().and_then(|link| link.note_exit(status)) {
            self.on_stream_end(now, epoch, end);
        }
    }

    fn is_current_reader(&self, epoch: Epoch) -> bool {
        let running = matches!(self.proc, Proc::Running { epoch: e, .. } if e == epoch);
        running && matches!(&self.transport, Transport::Stdio(link) if link.is_reading())
    }

    fn drain_stderr(&mut self) {
        loop {
            let Some(link) = self.transport.stdio_mut() else { return };
            let Some(line) = link.next_stderr_line(&self.cfg.limits) else { return };
            self.emit(Event::Stderr(line));
        }
    }

    fn drain_stdout(&mut self, now: Instant, epoch: Epoch) {
        while let Some(frame) = self.stdio_mut().and_then(|l| l.stdout.next_frame()) {
            match frame {
                // Past the limit: if its start names the request it answers, fail it now.
                Frame::OversizeStart { head } => {
                    let limit = self.cfg.limits.max_message_bytes;
                    let answered = self.fail_oversize_answer(now, &scan_head(&head), limit + 1);
                    if let Some(link) = self.stdio_mut() {
                        link.oversize_answered = answered;
                    }
                }
                Frame::Oversize { len, head, tail } => {
                    let limit = self.cfg.limits.max_message_bytes;
                    self.warn(Warning::OversizeMessage { len, limit });
                    let answered = self.stdio_mut().is_some_and(|l| std::mem::take(&mut l.oversize_answered));
                    if !answered {
                        // Some servers name the id only at the end (`"result"` first).
                        self.fail_oversize_answer(now, &scan_head(&head).merge(scan_tail(&tail)), len);
                    }
                }
                Frame::Line(line) if line.iter().all(u8::is_ascii_whitespace) => {}
                Frame::Line(line) => self.on_stdout_line(now, epoch, line),
            }
            // A message may have ended the process's usefulness (e.g. a failed handshake).
            if !self.is_current_reader(epoch) {
                return;
            }
        }
    }

    /// One line of the current process's stdout: a message or a batch of them.
    fn on_stdout_line(&mut self, now: Instant, epoch: Epoch, line: Vec<u8>) {
        self.trace_received(epoch, &line);
        // The common answer first: a plain tool call's, decoded in one pass.
        let Err(line) = self.on_call_answer_line(line) else { return };
        for msg in jsonrpc::decode(&line) {
            // A batch element may end the process's usefulness: skip the rest.
            if !self.is_current_reader(epoch) {
                return;
            }
            match msg {
                Ok(m) => self.on_message(now, epoch, m),
                Err(DecodeError::NotJson(_)) => {
                    let excerpt = sanitize_bytes(&line[..line.len().min(200)], 200);
                    self.warn(Warning::NonJsonLine { excerpt });
                }
                Err(DecodeError::Invalid(reason)) => {
                    self.warn(Warning::InvalidMessage { reason: reason.into() })
                }
            }
        }
    }

    /// The current process's stdout ended.
    fn on_stdout_closed(&mut self, now: Instant, epoch: Epoch) {
        if !matches!(self.proc, Proc::Running { .. }) {
            return;
        }
        if let Some(end) = self.stdio_mut().map(StdioLink::note_stdout_eof) {
            self.on_stream_end(now, epoch, end);
        }
    }

    pub(super) fn on_exit_drain(&mut self, now: Instant, epoch: Epoch) {
        if !matches!(self.proc, Proc::Running { epoch: e, .. } if e == epoch) {
            return;
        }
        let Some((detail, stdout_closed)) = self.stdio_mut().map(|link| link.drain_over()) else { return };
        self.lose(now, epoch, detail, stdout_closed);
    }
}
