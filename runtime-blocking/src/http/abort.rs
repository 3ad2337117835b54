//! Aborting an exchange whose thread is blocked in ureq.
//!
//! ureq 3 has no per-request abort, but its connectors register a [`ShutdownHandle`] (the
//! shared `TcpStream`) for every socket they open, before any TLS, SOCKS or CONNECT
//! negotiation. [`AbortableConnector`] wraps the whole connector chain, intercepts those
//! registrations, and wraps the finished transport in [`Abortable`], which remembers them.
//!
//! Which exchange a transport is working for is known from the thread it runs on: every
//! exchange has a thread of its own, and ureq performs all of a request's IO on the calling
//! thread. The exchange thread installs its [`AbortCtl`] with [`set_current`]; a transport
//! attaches its sockets to the current control on every IO call (a pooled connection thereby
//! moves to its new exchange) and detaches them when the owner returns it to the pool
//! (ureq probes `is_open` on the owner's thread right before pooling). [`AbortCtl::abort`]
//! shuts the attached sockets down (`shutdown(Both)`), which wakes a blocked read at once,
//! and every later IO call on them fails, so the connection is never pooled again.

use std::cell::RefCell;
use std::sync::{Arc, Mutex, Weak};

use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, NextTimeout, ShutdownHandle, Transport,
};

use mcpwire_host::lock;

/// A registered socket.
type Socket = Weak<dyn ShutdownHandle>;

/// The abort switch of one exchange.
#[derive(Default)]
pub(crate) struct AbortCtl {
    state: Mutex<CtlState>,
}

#[derive(Default)]
struct CtlState {
    aborted: bool,
    /// The exchange delivered its outcome: aborting it now is a no-op.
    finished: bool,
    /// Sockets of the connection(s) the exchange is using now.
    sockets: Vec<Socket>,
}

impl std::fmt::Debug for AbortCtl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = lock(&self.state);
        f.debug_struct("AbortCtl").field("aborted", &s.aborted).field("finished", &s.finished).finish()
    }
}

impl AbortCtl {
    /// Aborts the exchange unless it already finished: shuts down its sockets.
    pub(crate) fn abort(&self) {
        let sockets = {
            let mut s = lock(&self.state);
            if s.finished || s.aborted {
                return;
            }
            s.aborted = true;
            std::mem::take(&mut s.sockets)
        };
        shutdown_all(&sockets);
    }

    /// True once aborted.
    pub(crate) fn is_aborted(&self) -> bool {
        lock(&self.state).aborted
    }

    /// Marks the exchange finished unless it was aborted; true if it was not (the caller may
    /// then deliver the outcome). From now on, aborting is a no-op.
    pub(crate) fn finish(&self) -> bool {
        let mut s = lock(&self.state);
        s.sockets.clear();
        if s.aborted {
            return false;
        }
        s.finished = true;
        true
    }

    /// True once finished or aborted.
    pub(crate) fn is_done(&self) -> bool {
        let s = lock(&self.state);
        s.finished || s.aborted
    }

    /// Adds sockets to the exchange. False (and the sockets are shut down) if it was aborted.
    fn attach(&self, sockets: &[Socket]) -> bool {
        let mut s = lock(&self.state);
        if s.aborted {
            drop(s);
            shutdown_all(sockets);
            return false;
        }
        s.sockets.extend(sockets.iter().cloned());
        true
    }

    /// Removes sockets (their connection goes back to the pool).
    fn detach(&self, sockets: &[Socket]) {
        lock(&self.state).sockets.retain(|mine| !sockets.iter().any(|s| Weak::ptr_eq(mine, s)));
    }
}

fn shutdown_all(sockets: &[Socket]) {
    for socket in sockets.iter().filter_map(Weak::upgrade) {
        socket.shutdown();
    }
}

thread_local! {
    /// The exchange the current thread performs.
    static CURRENT: RefCell<Option<Arc<AbortCtl>>> = const { RefCell::new(None) };
}

/// Makes `ctl` the exchange of the current thread until the guard is dropped (pooled
/// threads go on to other jobs).
pub(crate) fn set_current(ctl: Arc<AbortCtl>) -> CurrentGuard {
    CURRENT.with(|c| *c.borrow_mut() = Some(ctl));
    CurrentGuard(())
}

/// Clears the current thread's exchange when dropped.
pub(crate) struct CurrentGuard(());

impl Drop for CurrentGuard {
    fn drop(&mut self) {
        CURRENT.with(|c| c.borrow_mut().take());
    }
}

fn current() -> Option<Arc<AbortCtl>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// The error IO on an aborted exchange's connection fails with.
fn aborted() -> ureq::Error {
    ureq::Error::Io(std::io::Error::other("exchange aborted"))
}

/// Wraps a connector chain so that every transport it makes can be aborted.
#[derive(Debug)]
pub(crate) struct AbortableConnector<C>(pub(crate) C);

impl<C> Connector<()> for AbortableConnector<C>
where
    C: Connector<(), Out = Box<dyn Transport>>,
{
    type Out = Abortable;

    fn connect(
        &self,
        details: &ConnectionDetails<'_>,
        chained: Option<()>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        let collected: Arc<Mutex<Vec<Socket>>> = Arc::default();
        let forward = details.register_shutdown.clone();
        let sink = collected.clone();
        let register = Arc::new(move |socket: Socket| {
            forward(socket.clone())?;
            // Attached at once, so a TLS handshake or proxy negotiation can be aborted too.
            if let Some(ctl) = current() {
                if !ctl.attach(std::slice::from_ref(&socket)) {
                    return Err(aborted());
                }
            }
            lock(&sink).push(socket);
            Ok(())
        });
        let inner_details = ConnectionDetails {
            uri: details.uri,
            addrs: details.addrs.clone(),
            config: details.config,
            request_level: details.request_level,
            resolver: details.resolver,
            now: details.now,
            timeout: details.timeout,
            current_time: details.current_time.clone(),
            run_connector: details.run_connector.clone(),
            register_shutdown: register,
        };
        let Some(inner) = self.0.connect(&inner_details, chained)? else {
            return Ok(None);
        };
        let sockets = std::mem::take(&mut *lock(&collected));
        let owner = current();
        if owner.as_ref().is_some_and(|o| o.is_aborted()) {
            shutdown_all(&sockets);
            return Err(aborted());
        }
        Ok(Some(Abortable { inner, sockets, owner, unsent: Vec::new() }))
    }
}

/// A transport whose sockets the exchange using it can shut down.
pub(crate) struct Abortable {
    inner: Box<dyn Transport>,
    sockets: Vec<Socket>,
    /// The exchange using it (`None` while pooled).
    owner: Option<Arc<AbortCtl>>,
    /// Output held back so that a request's head and body leave in one write (one trip
    /// through the TCP stack instead of two); sent before any read, or once it is large.
    unsent: Vec<u8>,
}

/// Held-back output is sent once it reaches this size.
const COALESCE_LIMIT: usize = 16 * 1024;

impl std::fmt::Debug for Abortable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Abortable").field("inner", &self.inner).field("owner", &self.owner).finish()
    }
}

impl Abortable {
    /// Sends the held-back output through the inner transport's output buffer.
    fn flush(&mut self, timeout: NextTimeout) -> Result<(), ureq::Error> {
        let mut sent = 0;
        while sent < self.unsent.len() {
            let out = self.inner.buffers().output();
            let n = out.len().min(self.unsent.len() - sent);
            if n == 0 {
                return Err(ureq::Error::Io(std::io::Error::other("transport has no output buffer")));
            }
            out[..n].copy_from_slice(&self.unsent[sent..sent + n]);
            self.inner.transmit_output(n, timeout)?;
            sent += n;
        }
        self.unsent.clear();
        Ok(())
    }

    /// Attaches to the current thread's exchange; fails if that exchange was aborted.
    fn check(&mut self) -> Result<(), ureq::Error> {
        if let Some(ctl) = current() {
            if !self.owner.as_ref().is_some_and(|o| Arc::ptr_eq(o, &ctl)) {
                if let Some(old) = self.owner.take() {
                    old.detach(&self.sockets);
                }
                let attached = ctl.attach(&self.sockets);
                self.owner = Some(ctl);
                if !attached {
                    return Err(aborted());
                }
            }
        }
        match &self.owner {
            Some(o) if o.is_aborted() => Err(aborted()),
            _ => Ok(()),
        }
    }
}

impl Transport for Abortable {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.inner.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.check()?;
        let output = &self.inner.buffers().output()[..amount];
        self.unsent.extend_from_slice(output);
        if self.unsent.len() >= COALESCE_LIMIT {
            self.flush(timeout)?;
        }
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.check()?;
        self.flush(timeout)?;
        self.inner.await_input(timeout)
    }

    /// Called by ureq on the owner's thread right before it returns the connection to the
    /// pool, and on other threads when it looks for an idle connection. The owner's call
    /// detaches the sockets, so a later abort of the finished exchange cannot hit the next
    /// exchange using this connection; it does not probe the socket (the exchange just ended
    /// well on it, and the next user probes it before sending).
    fn is_open(&mut self) -> bool {
        if let Some(owner) = &self.owner {
            if current().is_some_and(|c| Arc::ptr_eq(&c, owner)) {
                owner.detach(&self.sockets);
                let aborted = owner.is_aborted();
                self.owner = None;
                return !aborted;
            } else if owner.is_aborted() {
                return false;
            }
        }
        self.inner.is_open()
    }

    fn is_tls(&self) -> bool {
        self.inner.is_tls()
    }
}
