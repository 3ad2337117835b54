//! What the fault proxy does to each connection: a [`Fault`] per connection, drawn from a
//! [`Plan`] (a fixed script, or a seeded random mix), so a failing run can be replayed.

use std::collections::VecDeque;
use std::time::Duration;

use crate::sim::Rng;

/// One connection's fault. Byte counts (`at`) are counted on the response stream (server to
/// client) across every exchange of the connection, except for [`Fault::HalfCloseToServer`],
/// whose count is on the request stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Relay faithfully.
    Pass,
    /// Accept, then close at once (a FIN, or an RST if the client's bytes arrived first),
    /// without ever reaching the server.
    AcceptThenClose,
    /// After `at` response bytes, reset the connection (an RST to the client, no FIN first).
    Reset {
        /// Response bytes relayed before the reset.
        at: usize,
    },
    /// After `at` response bytes, relay nothing more for `stall`, then reset.
    Stall {
        /// Response bytes relayed before the stall.
        at: usize,
        /// How long no byte reaches the client.
        stall: Duration,
    },
    /// After `at` response bytes, shut down the proxy's write half towards the client (a FIN:
    /// the client reads the end of the stream) and drop the rest of the response; the client
    /// may still write.
    HalfCloseToClient {
        /// Response bytes relayed before the FIN.
        at: usize,
    },
    /// After `at` request bytes, shut down the proxy's write half towards the server (the
    /// server reads the end of the stream, maybe in the middle of a request) and drop the rest
    /// of what the client sends; the server's answers are still relayed.
    HalfCloseToServer {
        /// Request bytes relayed before the FIN.
        at: usize,
    },
    /// Relay the response one byte per write, `pause` between bytes.
    Drip {
        /// The pause after each byte.
        pause: Duration,
    },
    /// Hold the first response bytes for `delay` before relaying anything.
    DelayHead {
        /// How long the head is held.
        delay: Duration,
    },
    /// Relay the first HTTP response whole, then reset the connection at once: a kept-alive
    /// connection dropped between two exchanges with no FIN reaching the client first.
    ResetAfterFirstResponse,
}

impl Fault {
    /// A short name, for counts and reports (`pass`, `reset`, `stall`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Fault::Pass => "pass",
            Fault::AcceptThenClose => "accept-close",
            Fault::Reset { .. } => "reset",
            Fault::Stall { .. } => "stall",
            Fault::HalfCloseToClient { .. } => "half-close-client",
            Fault::HalfCloseToServer { .. } => "half-close-server",
            Fault::Drip { .. } => "drip",
            Fault::DelayHead { .. } => "delay-head",
            Fault::ResetAfterFirstResponse => "reset-after-response",
        }
    }

    /// The same fault with its byte count drawn from `0..=at` (faults without one unchanged).
    fn jittered(&self, rng: &mut Rng) -> Fault {
        let mut draw = |at: usize| rng.below(at as u64 + 1) as usize;
        match *self {
            Fault::Reset { at } => Fault::Reset { at: draw(at) },
            Fault::Stall { at, stall } => Fault::Stall { at: draw(at), stall },
            Fault::HalfCloseToClient { at } => Fault::HalfCloseToClient { at: draw(at) },
            Fault::HalfCloseToServer { at } => Fault::HalfCloseToServer { at: draw(at) },
            ref other => other.clone(),
        }
    }
}

/// Which fault each new connection gets, in accept order.
#[derive(Debug, Clone)]
pub struct Plan {
    script: VecDeque<Fault>,
    random: Option<Random>,
}

#[derive(Debug, Clone)]
struct Random {
    rng: Rng,
    percent: u64,
    menu: Vec<Fault>,
}

impl Plan {
    /// Every connection relayed faithfully.
    pub fn pass() -> Self {
        Plan { script: VecDeque::new(), random: None }
    }

    /// The next connections get these faults, one each, in order; later ones pass.
    pub fn script(faults: impl IntoIterator<Item = Fault>) -> Self {
        Plan { script: faults.into_iter().collect(), random: None }
    }

    /// Each connection gets a fault with probability `percent` %, drawn evenly from `menu`,
    /// byte counts drawn from `0..=at` (see [`Fault`]); the same seed gives the same sequence.
    pub fn seeded(seed: u64, percent: u8, menu: Vec<Fault>) -> Self {
        let random = Random { rng: Rng::new(seed), percent: u64::from(percent.min(100)), menu };
        Plan { script: VecDeque::new(), random: Some(random) }
    }

    /// The fault of the next connection.
    pub fn next_fault(&mut self) -> Fault {
        if let Some(fault) = self.script.pop_front() {
            return fault;
        }
        let Some(random) = self.random.as_mut() else { return Fault::Pass };
        if random.menu.is_empty() || random.rng.below(100) >= random.percent {
            return Fault::Pass;
        }
        let pick = random.rng.below(random.menu.len() as u64) as usize;
        random.menu[pick].clone().jittered(&mut random.rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_runs_out_into_passing() {
        let mut plan = Plan::script([Fault::AcceptThenClose, Fault::Reset { at: 3 }]);
        assert_eq!(plan.next_fault(), Fault::AcceptThenClose);
        assert_eq!(plan.next_fault(), Fault::Reset { at: 3 });
        assert_eq!(plan.next_fault(), Fault::Pass);
        assert_eq!(Plan::pass().next_fault(), Fault::Pass);
    }

    #[test]
    fn a_seed_replays_the_same_faults_at_about_the_rate_asked() {
        let menu =
            vec![Fault::Reset { at: 100 }, Fault::AcceptThenClose, Fault::HalfCloseToServer { at: 10 }];
        let draw = |seed| {
            let mut plan = Plan::seeded(seed, 25, menu.clone());
            (0..1000).map(|_| plan.next_fault()).collect::<Vec<_>>()
        };
        let (a, b) = (draw(7), draw(7));
        assert_eq!(a, b);
        assert_ne!(a, draw(8));
        let faulty = a.iter().filter(|f| **f != Fault::Pass).count();
        assert!((150..350).contains(&faulty), "{faulty} faults in 1000 at 25 %");
        for fault in &a {
            match fault {
                Fault::Reset { at } => assert!(*at <= 100),
                Fault::HalfCloseToServer { at } => assert!(*at <= 10),
                Fault::Pass | Fault::AcceptThenClose => {}
                other => panic!("{other:?} is not on the menu"),
            }
        }
        let mut never = Plan::seeded(1, 0, menu);
        assert!((0..100).all(|_| never.next_fault() == Fault::Pass));
    }
}
