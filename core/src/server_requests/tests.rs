use serde_json::{json, Value};

use super::*;

fn features() -> ClientFeatures {
    ClientFeatures { sampling: true, elicitation_form: true, elicitation_url: true, ..Default::default() }
}

fn url_params(id: Option<Value>) -> Value {
    let mut p = json!({"mode": "url", "url": "https://example.com/auth", "message": "Sign in"});
    if let Some(id) = id {
        p["elicitationId"] = id;
    }
    p
}

fn form_params() -> Value {
    json!({"message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}})
}

fn user(content: Value) -> Value {
    json!({"role": "user", "content": content})
}

fn assistant(content: Value) -> Value {
    json!({"role": "assistant", "content": content})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "weather", "input": {}})
}

fn tool_result(id: &str) -> Value {
    json!({"type": "tool_result", "toolUseId": id, "content": [text("18C")]})
}

// ----- elicitation requests -----------------------------------------------------------------

#[test]
fn the_mode_picks_the_handler() {
    let p = prepare(ServerRequestKind::Elicitation, form_params(), Era::Legacy, &features()).unwrap();
    assert_eq!(p.kind, ServerRequestKind::Elicitation);
    assert!(p.form.is_some() && p.adjustments.is_empty());
    let p = prepare(ServerRequestKind::Elicitation, url_params(Some(json!("e-1"))), Era::Legacy, &features())
        .unwrap();
    assert_eq!(p.kind, ServerRequestKind::ElicitationUrl);
    assert!(p.form.is_none() && p.adjustments.is_empty());
    assert_eq!(p.elicitation_id.as_deref(), Some("e-1"));
    assert_eq!(p.params["elicitationId"], json!("e-1"), "legacy keeps the id");
}

#[test]
fn a_mode_without_a_handler_is_refused() {
    let form_only = ClientFeatures { elicitation_form: true, ..Default::default() };
    let err = prepare(ServerRequestKind::Elicitation, url_params(None), Era::Legacy, &form_only).unwrap_err();
    assert_eq!(err, Refusal::UnsupportedMode { mode: "url" });
    let url_only = ClientFeatures { elicitation_url: true, ..Default::default() };
    for params in [form_params(), json!({"mode": "form", "requestedSchema": {"type": "object"}})] {
        let err = prepare(ServerRequestKind::Elicitation, params, Era::Modern, &url_only).unwrap_err();
        assert_eq!(err, Refusal::UnsupportedMode { mode: "form" });
    }
    let err = prepare(ServerRequestKind::Elicitation, json!({"mode": "telepathy"}), Era::Legacy, &features())
        .unwrap_err();
    assert!(matches!(err, Refusal::Elicitation(ElicitationError::InvalidSchema { .. })), "{err:?}");
}

#[test]
fn modern_url_requests_lose_their_elicitation_id() {
    let p = prepare(ServerRequestKind::Elicitation, url_params(Some(json!("e-1"))), Era::Modern, &features())
        .unwrap();
    assert_eq!(p.kind, ServerRequestKind::ElicitationUrl);
    assert!(p.params.get("elicitationId").is_none(), "{}", p.params);
    assert_eq!(p.params["url"], json!("https://example.com/auth"));
    assert_eq!(p.adjustments, vec![Adjustment::ElicitationIdRemoved]);
    assert_eq!(p.elicitation_id, None);
}

#[test]
fn url_requests_need_a_url_and_a_bounded_id() {
    let no_url = json!({"mode": "url", "message": "go"});
    let err = prepare(ServerRequestKind::Elicitation, no_url, Era::Legacy, &features()).unwrap_err();
    assert_eq!(err, Refusal::MissingUrl);
    let long = "x".repeat(MAX_ELICITATION_ID_BYTES + 1);
    for id in [json!(long), json!(7)] {
        let err = prepare(ServerRequestKind::Elicitation, url_params(Some(id)), Era::Legacy, &features())
            .unwrap_err();
        assert_eq!(err, Refusal::InvalidElicitationId);
    }
    let p = prepare(ServerRequestKind::Elicitation, url_params(None), Era::Legacy, &features()).unwrap();
    assert_eq!(p.elicitation_id, None, "an id is not required");
}

// ----- elicitation answers ------------------------------------------------------------------

#[test]
fn a_url_answer_is_consent_only() {
    let kind = ServerRequestKind::ElicitationUrl;
    let answer = json!({"action": "accept", "content": {"secret": "x"}, "_meta": {"k": 1}});
    assert_eq!(
        shape_answer(kind, answer),
        (json!({"action": "accept", "_meta": {"k": 1}}), Some(Adjustment::UrlContentDropped))
    );
    assert_eq!(shape_answer(kind, json!({"action": "decline"})), (json!({"action": "decline"}), None));
    assert_eq!(shape_answer(kind, json!(true)), (json!({"action": "accept"}), None));
    for other in [json!({"action": "maybe"}), json!({"content": {}}), json!("yes"), json!(false)] {
        let (value, adjustment) = shape_answer(kind, other);
        assert_eq!(value, json!({"action": "cancel"}));
        assert!(matches!(adjustment, Some(Adjustment::AnswerCancelled { .. })));
    }
}

#[test]
fn a_form_answer_may_be_bare_content_and_an_unknown_action_cancels() {
    let kind = ServerRequestKind::Elicitation;
    assert_eq!(
        shape_answer(kind, json!({"name": "Ada"})),
        (json!({"action": "accept", "content": {"name": "Ada"}}), None)
    );
    let full = json!({"action": "accept", "content": {"name": "Ada"}});
    assert_eq!(shape_answer(kind, full.clone()), (full, None));
    let (value, adjustment) = shape_answer(kind, json!({"action": "later", "content": {}}));
    assert_eq!(value, json!({"action": "cancel"}));
    assert_eq!(adjustment, Some(Adjustment::AnswerCancelled { got: "action \"later\"".into() }));
    let (value, adjustment) = shape_answer(kind, json!(["Ada"]));
    assert_eq!(value, json!({"action": "cancel"}));
    assert_eq!(adjustment, Some(Adjustment::AnswerCancelled { got: "an array answer".into() }));
    // Other kinds pass untouched.
    let sample = json!({"role": "assistant", "content": text("hi"), "model": "m"});
    assert_eq!(shape_answer(ServerRequestKind::Sampling, sample.clone()), (sample, None));
}

// ----- sampling -----------------------------------------------------------------------------

fn sampling(messages: Value) -> Value {
    json!({"messages": messages, "maxTokens": 10})
}

#[test]
fn valid_histories_pass() {
    let histories = [
        json!([user(text("hi"))]),
        json!([user(json!([text("a"), text("b")])), assistant(text("hello")), user(text("more"))]),
        json!([
            user(text("weather in Paris and London?")),
            assistant(json!([tool_use("a"), tool_use("b")])),
            user(json!([tool_result("b"), tool_result("a")])),
            assistant(text("Paris is warmer")),
        ]),
        json!([assistant(json!([text("checking"), tool_use("a")])), user(tool_result("a"))]),
        json!([]),
    ];
    for h in histories {
        assert_eq!(check_messages(&h), Ok(()), "{h}");
    }
}

#[test]
fn invalid_histories_are_named() {
    let cases = [
        (json!({"role": "user"}), SamplingViolation::NotAList),
        (
            json!([json!({"role": "system", "content": text("x")})]),
            SamplingViolation::Role { index: 0, role: "system".into() },
        ),
        (json!([json!({"content": text("x")})]), SamplingViolation::Role { index: 0, role: "(none)".into() }),
        (
            json!([assistant(tool_use("a")), user(json!([text("here:"), tool_result("a")]))]),
            SamplingViolation::MixedToolResults { index: 1 },
        ),
        (
            json!([assistant(json!([tool_use("a"), tool_use("b")])), user(tool_result("a"))]),
            SamplingViolation::ToolResultMissing { index: 0, id: "b".into() },
        ),
        (
            json!([assistant(tool_use("a")), user(text("never mind"))]),
            SamplingViolation::ToolResultMissing { index: 0, id: "a".into() },
        ),
        (
            json!([user(text("q")), assistant(tool_use("a"))]),
            SamplingViolation::ToolResultMissing { index: 1, id: "a".into() },
        ),
        (
            json!([assistant(tool_use("a")), assistant(text("done"))]),
            SamplingViolation::ToolResultMissing { index: 0, id: "a".into() },
        ),
        (
            json!([user(tool_result("z"))]),
            SamplingViolation::UnexpectedToolResult { index: 0, id: "z".into() },
        ),
        (
            json!([assistant(tool_use("a")), user(json!([tool_result("a"), tool_result("q")]))]),
            SamplingViolation::UnexpectedToolResult { index: 1, id: "q".into() },
        ),
    ];
    for (messages, expected) in cases {
        assert_eq!(check_messages(&messages), Err(expected), "{messages}");
    }
    for (messages, detail) in [
        (json!(["hi"]), "a message must be an object"),
        (json!([json!({"role": "user"})]), "content must be a block or an array of blocks"),
        (json!([user(json!(["x"]))]), "a content block must be an object with a type"),
        (json!([assistant(json!({"type": "tool_use", "name": "w"}))]), "a tool_use needs an id string"),
        (json!([user(json!({"type": "tool_result"}))]), "a tool_result needs a toolUseId string"),
        (json!([assistant(tool_result("a"))]), "tool results belong in a user message"),
    ] {
        assert_eq!(
            check_messages(&messages),
            Err(SamplingViolation::Malformed { index: 0, detail }),
            "{messages}"
        );
    }
}

#[test]
fn sampling_refusals_and_the_tools_opt_in() {
    let bad = sampling(json!([assistant(tool_use("a"))]));
    let err = prepare(ServerRequestKind::Sampling, bad, Era::Legacy, &features()).unwrap_err();
    assert!(matches!(err, Refusal::Sampling(SamplingViolation::ToolResultMissing { .. })), "{err:?}");
    let mut with_tools = sampling(json!([user(text("weather?"))]));
    with_tools["tools"] = json!([{"name": "weather", "inputSchema": {"type": "object"}}]);
    let err = prepare(ServerRequestKind::Sampling, with_tools.clone(), Era::Modern, &features()).unwrap_err();
    assert_eq!(err, Refusal::ToolsNotDeclared);
    let mut choice_only = sampling(json!([user(text("q"))]));
    choice_only["toolChoice"] = json!({"mode": "none"});
    let err = prepare(ServerRequestKind::Sampling, choice_only, Era::Legacy, &features()).unwrap_err();
    assert_eq!(err, Refusal::ToolsNotDeclared);
    let opted = ClientFeatures { sampling_tools: true, ..features() };
    let p = prepare(ServerRequestKind::Sampling, with_tools.clone(), Era::Modern, &opted).unwrap();
    assert_eq!(p.params, with_tools);
    assert!(p.adjustments.is_empty());
}

#[test]
fn include_context_needs_the_context_opt_in() {
    let mut params = sampling(json!([user(text("q"))]));
    params["includeContext"] = json!("thisServer");
    let p = prepare(ServerRequestKind::Sampling, params.clone(), Era::Legacy, &features()).unwrap();
    assert_eq!(p.params["includeContext"], json!("none"));
    assert_eq!(p.adjustments, vec![Adjustment::IncludeContextIgnored { value: "\"thisServer\"".into() }]);
    let opted = ClientFeatures { sampling_context: true, ..features() };
    let p = prepare(ServerRequestKind::Sampling, params, Era::Legacy, &opted).unwrap();
    assert_eq!(p.params["includeContext"], json!("thisServer"));
    let mut none = sampling(json!([user(text("q"))]));
    none["includeContext"] = json!("none");
    let p = prepare(ServerRequestKind::Sampling, none, Era::Legacy, &features()).unwrap();
    assert!(p.adjustments.is_empty());
}

// ----- URL elicitation completions ----------------------------------------------------------

#[test]
fn completions_are_passed_on_once_for_known_ids() {
    let mut open = UrlElicitations::default();
    open.open("e-1");
    open.open_from_error(Some(&json!({"elicitations": [
        {"mode": "url", "elicitationId": "e-2", "url": "https://x", "message": "m"},
        {"mode": "form", "elicitationId": "e-3"},
        {"mode": "url", "elicitationId": 4}
    ]})));
    open.open_from_error(None);
    assert!(open.complete("e-2"));
    assert!(!open.complete("e-2"), "already completed");
    assert!(!open.complete("e-3"), "not a URL elicitation");
    assert!(open.complete("e-1"));
    assert!(!open.complete("unknown"));
    // Bounded: the oldest is forgotten; over-long ids are never remembered.
    for i in 0..=MAX_OPEN_URL_ELICITATIONS {
        open.open(&format!("id-{i}"));
    }
    assert!(!open.complete("id-0"));
    assert!(open.complete(&format!("id-{MAX_OPEN_URL_ELICITATIONS}")));
    let long = "y".repeat(MAX_ELICITATION_ID_BYTES + 1);
    open.open(&long);
    assert!(!open.complete(&long));
}

#[test]
fn refusals_and_adjustments_read_well() {
    assert_eq!(
        Refusal::Sampling(SamplingViolation::ToolResultMissing { index: 1, id: "b".into() }).to_string(),
        "invalid sampling messages: message 1: tool result missing in request for tool use \"b\""
    );
    assert_eq!(
        Refusal::UnsupportedMode { mode: "url" }.to_string(),
        "elicitation mode \"url\" is not supported by this client"
    );
    assert_eq!(
        Adjustment::ElicitationIdRemoved.to_string(),
        "removed elicitationId from a 2026-07-28 URL elicitation"
    );
}
