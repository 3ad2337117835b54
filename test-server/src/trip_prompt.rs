//! The `trip` prompt (flag `--trip-prompt`): two arguments, `country` and `city`, where the
//! completions of `city` follow the `country` the client already chose (`context.arguments`,
//! 2025-06-18 and later). Without a country in the context, every known city is offered.

use serde_json::{json, Value};

use crate::protocol::{Reply, RpcError};
use crate::server::Request;

/// Cities per country, in the order they are offered.
const CITIES: [(&str, &[&str]); 3] = [
    ("France", &["Paris", "Lyon", "Lille"]),
    ("Italy", &["Rome", "Milan", "Pisa"]),
    ("Peru", &["Lima", "Cusco"]),
];

/// The prompt's `prompts/list` entry.
pub fn definition() -> Value {
    json!({
        "name": "trip",
        "description": "Plans a trip",
        "arguments": [
            {"name": "country", "description": "Where to go", "required": true},
            {"name": "city", "description": "Which city of that country", "required": true}
        ]
    })
}

/// `prompts/get` of `trip`.
pub fn get(req: &Request) -> Reply {
    let arguments = req.param("arguments");
    let arg = |name: &str| arguments.and_then(|a| a.get(name)).and_then(Value::as_str);
    let (Some(country), Some(city)) = (arg("country"), arg("city")) else {
        return Err(RpcError::invalid_params("Missing required arguments: country and city"));
    };
    Ok(json!({
        "description": "Plans a trip",
        "messages": [{"role": "user", "content": {"type": "text", "text": format!("Plan a trip to {city}, {country}.")}}]
    }))
}

/// The completions of `argument` starting with `prefix`, given the request's context.
pub fn complete(req: &Request, argument: &str, prefix: &str) -> Reply {
    let chosen = req.param("context").and_then(|c| c.pointer("/arguments/country")).and_then(Value::as_str);
    let candidates: Vec<&str> = match argument {
        "country" => CITIES.iter().map(|(country, _)| *country).collect(),
        "city" => CITIES
            .iter()
            .filter(|(country, _)| chosen.is_none_or(|c| c == *country))
            .flat_map(|(_, cities)| cities.iter().copied())
            .collect(),
        other => return Err(RpcError::invalid_params(format!("Unknown argument of trip: {other}"))),
    };
    let values: Vec<&str> = candidates.into_iter().filter(|v| v.starts_with(prefix)).collect();
    Ok(json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Era;

    fn completion(context: Value) -> Value {
        let mut params = json!({"ref": {"type": "ref/prompt", "name": "trip"}, "argument": {"name": "city", "value": "L"}});
        if !context.is_null() {
            params["context"] = context;
        }
        let req = Request { id: json!(1), method: "completion/complete".into(), params, era: Era::Legacy };
        complete(&req, "city", "L").expect("completes")["completion"]["values"].clone()
    }

    #[test]
    fn city_completions_follow_the_chosen_country() {
        assert_eq!(completion(json!({"arguments": {"country": "France"}})), json!(["Lyon", "Lille"]));
        assert_eq!(completion(json!({"arguments": {"country": "Peru"}})), json!(["Lima"]));
        assert_eq!(completion(Value::Null), json!(["Lyon", "Lille", "Lima"]));
    }
}
