//! The one driver contract in a message type: every input a runtime feeds a [`Connection`]
//! ([`Input`]) and everything it must act on ([`Output`]).

use std::time::Instant;

use serde_json::Value;

use crate::connection::Connection;
use crate::error::AnswerError;
use crate::event::Event;
#[cfg(feature = "http")]
use crate::handle::ExchangeId;
use crate::handle::{Epoch, ServerRequestHandle};
#[cfg(feature = "http")]
use crate::io::HttpHead;
use crate::io::{ExitInfo, Io};

/// Every input a runtime feeds a [`Connection`]: what its IO reports about processes and HTTP
/// exchanges, timers, and host handlers' answers. One message type, passed to
/// [`Connection::handle_input`] (each variant names the `handle_*` method it stands for). The
/// HTTP inputs exist with the `http` feature.
#[derive(Debug)]
#[non_exhaustive]
pub enum Input {
    /// The process for this epoch started (`handle_process_started`).
    Started(Epoch),
    /// The process for this epoch could not be started, with the operating system's error
    /// (`handle_spawn_failed`).
    SpawnFailed(Epoch, std::io::Error),
    /// Bytes from stdout.
    Stdout(Epoch, Vec<u8>),
    /// Stdout reached end of file.
    StdoutEof(Epoch),
    /// Bytes from stderr.
    Stderr(Epoch, Vec<u8>),
    /// Stderr reached end of file.
    StderrEof(Epoch),
    /// The process exited.
    Exited(Epoch, ExitInfo),
    /// A host handler's answer to a server-to-client request.
    ServerAnswer(ServerRequestHandle, Result<Value, crate::types::HandlerError>),
    /// The status and headers of an HTTP exchange's response.
    #[cfg(feature = "http")]
    HttpHead(ExchangeId, HttpHead),
    /// A chunk of an HTTP response body, raw (not decompressed).
    #[cfg(feature = "http")]
    HttpBody(ExchangeId, Vec<u8>),
    /// The HTTP response body ended normally.
    #[cfg(feature = "http")]
    HttpEnd(ExchangeId),
    /// The HTTP exchange failed (connect, TLS, reset, timeout...): the operating system's
    /// error, or one the runtime made to describe it (`io::Error::other`).
    #[cfg(feature = "http")]
    HttpFailed(ExchangeId, std::io::Error),
    /// The runtime refused the HTTP exchange before connecting: its host resolved only to
    /// addresses outside the request's [`crate::Destination`].
    #[cfg(feature = "http")]
    HttpRefused(ExchangeId, crate::UnsafeAddress),
    /// The deadline of [`Connection::poll_timeout`] passed (`handle_timeout`).
    Timeout,
}

/// The next thing a runtime must act on: IO to perform, or an event to route.
#[derive(Debug)]
pub enum Output {
    /// Perform this IO.
    Io(Io),
    /// Route this event.
    Event(Event),
}

#[cfg(feature = "http")]
impl crate::ExchangeFailure {
    /// The input that reports this failure of `exchange` to the core.
    pub fn into_input(self, exchange: ExchangeId) -> Input {
        match self {
            Self::Transport(detail) => Input::HttpFailed(exchange, detail),
            Self::Refused(refusal) => Input::HttpRefused(exchange, refusal),
        }
    }
}

impl Connection {
    /// The work of [`Connection::handle_input`].
    pub(super) fn dispatch_input(&mut self, now: Instant, input: Input) {
        match input {
            Input::Started(epoch) => self.handle_process_started(now, epoch),
            Input::SpawnFailed(epoch, error) => self.handle_spawn_failed(now, epoch, error),
            Input::Stdout(epoch, bytes) => self.handle_stdout_owned(now, epoch, bytes),
            Input::StdoutEof(epoch) => self.handle_stdout_eof(now, epoch),
            Input::Stderr(epoch, bytes) => self.handle_stderr(now, epoch, &bytes),
            Input::StderrEof(epoch) => self.handle_stderr_eof(now, epoch),
            Input::Exited(epoch, status) => self.handle_process_exited(now, epoch, status),
            Input::ServerAnswer(handle, outcome) => {
                // A handler's elicitation answer that breaks the form is not sent: the server
                // gets an error and the host a HandlerFailed warning naming the problem.
                if let Err(AnswerError::InvalidAnswer(e)) = self.respond_to_server(now, handle, outcome) {
                    let _ = self.respond_to_server(now, handle, Err(e.to_string().into()));
                }
            }
            #[cfg(feature = "http")]
            Input::HttpHead(exchange, head) => self.handle_http_head(now, exchange, head),
            #[cfg(feature = "http")]
            Input::HttpBody(exchange, bytes) => self.handle_http_body(now, exchange, &bytes),
            #[cfg(feature = "http")]
            Input::HttpEnd(exchange) => self.handle_http_end(now, exchange),
            #[cfg(feature = "http")]
            Input::HttpFailed(exchange, error) => self.handle_http_failed(now, exchange, error),
            #[cfg(feature = "http")]
            Input::HttpRefused(exchange, refusal) => self.handle_http_refused(now, exchange, refusal),
            Input::Timeout => self.handle_timeout(now),
        }
    }

    /// The work of [`Connection::poll_output`].
    pub(super) fn next_output(&mut self) -> Option<Output> {
        if let Some(io) = self.poll_io() {
            return Some(Output::Io(io));
        }
        self.poll_event().map(Output::Event)
    }
}
