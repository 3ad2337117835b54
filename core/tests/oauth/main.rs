//! The OAuth flow against a scripted fake authorization server (`harness.rs`): complete
//! exchanges, driven the way a host drives them, with fake time and fixed entropy.

mod callback;
mod discovery;
mod dpop;
mod grants;
mod harness;
mod issuer_binding;
mod jws;
mod mutations;
mod registration;
mod scopes;
mod set_aside;
mod tokens;
