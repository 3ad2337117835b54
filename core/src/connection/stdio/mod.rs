//! The stdio transport: the process's stdout (JSON-RPC lines) and stderr (diagnostics), and
//! how the end of a process is noticed (stdout EOF and the exit report, in either order).

use std::time::Instant;

mod link;

pub(super) use link::{StdioLink, StreamEnd};

use super::{Connection, Proc, Transport};
use crate::error::Warning;
use crate::event::Event;
use crate::framing::Frame;
use crate::handle::Epoch;
use crate::io::ExitInfo;
use crate::jsonrpc::{self, DecodeError};
use crate::jsonrpc_head::{scan_head, scan_tail};
use crate::text::sanitize_bytes;
use crate::timers::Timer;

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
            link.push_stdout(bytes);
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
            link.push_stdout_owned(bytes);
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
            link.finish_stdout();
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
            link.push_stderr(bytes);
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
            link.finish_stderr();
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
        while let Some(frame) = self.stdio_mut().and_then(StdioLink::next_stdout_frame) {
            match frame {
                // Past the limit: if its start names the request it answers, fail it now.
                Frame::OversizeStart { head } => {
                    let limit = self.cfg.limits.max_message_bytes;
                    let answered = self.fail_oversize_answer(now, &scan_head(&head), limit + 1);
                    if let Some(link) = self.stdio_mut() {
                        link.set_oversize_answered(answered);
                    }
                }
                Frame::Oversize { len, head, tail } => {
                    let limit = self.cfg.limits.max_message_bytes;
                    self.warn(Warning::OversizeMessage { len, limit });
                    let answered = self.stdio_mut().is_some_and(StdioLink::take_oversize_answered);
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
