//! The exchanges in flight on an HTTP link, by id.

use std::collections::BTreeMap;

use super::exchange::{Exchange, Role};
use super::kept_request::KeptRequest;
use crate::config::Limits;
use crate::handle::{Counter, Epoch, ExchangeId};
use crate::jsonrpc::WireId;

/// The exchanges in flight.
#[derive(Debug, Default)]
pub(super) struct Exchanges {
    map: BTreeMap<ExchangeId, Exchange>,
    ids: Counter,
}

impl Exchanges {
    /// An id for an exchange the link does not keep here (an authorization fetch).
    #[cfg(feature = "oauth")]
    pub(super) fn reserve_id(&mut self) -> ExchangeId {
        ExchangeId::new(self.ids.next())
    }

    pub(super) fn start(
        &mut self,
        epoch: Epoch,
        role: Role,
        kept: KeptRequest,
        limits: &Limits,
    ) -> ExchangeId {
        let exchange = ExchangeId::new(self.ids.next());
        self.map.insert(exchange, Exchange::new(epoch, role, kept, limits));
        exchange
    }

    pub(super) fn get(&self, exchange: ExchangeId) -> Option<&Exchange> {
        self.map.get(&exchange)
    }

    pub(super) fn get_mut(&mut self, exchange: ExchangeId) -> Option<&mut Exchange> {
        self.map.get_mut(&exchange)
    }

    pub(super) fn remove(&mut self, exchange: ExchangeId) -> Option<Exchange> {
        self.map.remove(&exchange)
    }

    /// The exchanges carrying the response to `id`, with whether each went out as modern.
    pub(super) fn for_request(&self, id: &WireId) -> Vec<(ExchangeId, bool)> {
        self.map
            .iter()
            .filter(|(_, x)| x.role.request_id() == Some(id))
            .map(|(ex, x)| (*ex, x.role.is_modern()))
            .collect()
    }

    /// Drops the exchanges carrying the response to `id`; returns them.
    pub(super) fn remove_for_request(&mut self, id: &WireId) -> Vec<ExchangeId> {
        let found = self.for_request(id);
        found.into_iter().filter_map(|(ex, _)| self.map.remove(&ex).map(|_| ex)).collect()
    }

    /// The exchanges of an epoch, but `keep`.
    pub(super) fn of_epoch(&self, epoch: Epoch, keep: Option<ExchangeId>) -> Vec<ExchangeId> {
        self.map.iter().filter(|(ex, x)| x.epoch == epoch && Some(**ex) != keep).map(|(ex, _)| *ex).collect()
    }
}
