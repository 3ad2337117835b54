//! What the transport hands the client in the op list: stdout bytes split at a random point,
//! process start, spawn failure, EOF and exit, HTTP heads (any status, JSON or SSE) and bodies,
//! exchange ends and failures.

use super::*;

impl World {
    pub(super) fn stdout(&mut self, r: &mut Reader<'_>, bytes: &[u8]) {
        let Some((epoch, true)) = self.spawn else { return };
        let glued = self.stdout_partial == Some(epoch);
        match bytes.iter().rposition(|&b| b == b'\n') {
            Some(last) => self.stdout_partial = (last + 1 < bytes.len()).then_some(epoch),
            None if !bytes.is_empty() => self.stdout_partial = Some(epoch),
            None => {}
        }
        if glued {
            // The first line is garbage to the client: an answer in it never arrives, so no
            // pace it announced holds (as after raw bytes).
            self.tasks.not_before.clear();
        }
        let split = r.pick(bytes.len() + 1);
        self.conn.handle_stdout(self.now, epoch, &bytes[..split]);
        self.drain();
        self.conn.handle_stdout(self.now, epoch, &bytes[split..]);
    }

    pub(super) fn body(&mut self, r: &mut Reader<'_>, x: ExchangeId, bytes: &[u8]) {
        let split = r.pick(bytes.len() + 1);
        self.conn.handle_http_body(self.now, x, &bytes[..split]);
        self.drain();
        if self.open.contains_key(&x) {
            self.conn.handle_http_body(self.now, x, &bytes[split..]);
        }
    }

    pub(super) fn head(&mut self, x: ExchangeId, status: u16, sse: bool) {
        let content_type = if sse { "text/event-stream" } else { "application/json" };
        let mut headers = vec![("content-type".to_owned(), content_type.to_owned())];
        if status == 200 && !self.open[&x].get {
            headers.push(("mcp-session-id".to_owned(), "fuzz-session".to_owned()));
        }
        if let Some(e) = self.open.get_mut(&x) {
            e.head = Some(sse);
        }
        if matches!(status, 401 | 403) {
            self.refused(x);
        }
        self.conn.handle_http_head(self.now, x, HttpHead { status, headers });
        self.drain();
    }

    /// Exchange `x` is refused (401 or 403): what it carried is answered under new ids or not
    /// at all, so answers to its ids tell the invariants nothing.
    pub(super) fn refused(&mut self, x: ExchangeId) {
        for sent in self.sent.iter_mut().filter(|s| s.exchange == Some(x)) {
            sent.refused = true;
        }
    }

    pub(super) fn http_head(&mut self, r: &mut Reader<'_>) {
        let Some(x) = self.any_open(r) else { return };
        if self.open[&x].head.is_some() {
            return;
        }
        let status = [200u16, 202, 400, 401, 404, 405, 500, 503][r.pick(8)];
        let sse = r.pick(2) == 1;
        self.head(x, status, sse);
        if status != 200 && self.open.contains_key(&x) {
            let body = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#;
            self.body(r, x, body);
            if self.open.contains_key(&x) {
                self.finish(x, true);
            }
        }
    }

    pub(super) fn transport_event(&mut self, r: &mut Reader<'_>) {
        if self.http {
            if let Some(x) = self.any_open(r) {
                let ended_well = r.pick(2) == 0;
                self.finish(x, ended_well);
            }
            return;
        }
        match (self.spawn, r.pick(4)) {
            (Some((epoch, false)), 0) => {
                self.conn.handle_spawn_failed(
                    self.now,
                    epoch,
                    std::io::Error::new(std::io::ErrorKind::NotFound, "no such program"),
                );
                self.spawn = None;
            }
            (Some((epoch, false)), _) => {
                self.conn.handle_process_started(self.now, epoch);
                self.spawn = Some((epoch, true));
            }
            (Some((epoch, true)), 0) => self.conn.handle_stdout_eof(self.now, epoch),
            (Some((epoch, true)), _) => {
                self.conn.handle_process_exited(self.now, epoch, ExitInfo { code: Some(1), signal: None });
                self.spawn = None;
            }
            (None, _) => {}
        }
    }

    /// Ends an exchange (`HttpEnd` or `HttpFailed`).
    pub(super) fn finish(&mut self, x: ExchangeId, ended_well: bool) {
        self.open.remove(&x);
        self.finished.insert(x);
        if ended_well {
            self.conn.handle_http_end(self.now, x);
        } else {
            self.conn.handle_http_failed(self.now, x, std::io::ErrorKind::ConnectionReset.into());
        }
        self.drain();
    }

    pub(super) fn any_open(&self, r: &mut Reader<'_>) -> Option<ExchangeId> {
        let keys: Vec<ExchangeId> = self.open.keys().copied().collect();
        pick(r, &keys).copied()
    }
}
