use proptest::prelude::*;

use super::*;

fn id(json: &str) -> Option<WireId> {
    Some(WireId::from_value(&serde_json::from_str(json).unwrap()))
}

fn response(json: &str) -> Peek {
    Peek { id: id(json), response: true, call: false }
}

#[test]
fn reads_the_id_of_a_response_cut_by_the_budget() {
    let mut msg = br#"{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":""#.to_vec();
    msg.extend(std::iter::repeat_n(b'x', 3 * HEAD_BYTES));
    let peek = scan_head(&msg);
    assert_eq!(peek, response("42"));
    assert_eq!(peek.answers(), id("42").as_ref());
}

#[test]
fn reads_the_id_at_the_end_when_the_result_comes_first() {
    let mut msg = br#"{"result":{"content":[{"type":"text","text":""#.to_vec();
    msg.extend(std::iter::repeat_n(b'y', 3 * HEAD_BYTES));
    msg.extend_from_slice(br#"\"}]},"jsonrpc":"2.0","id":"req-7"}"#);
    msg.extend_from_slice(b"\r\n");
    let head = scan_head(&msg);
    assert_eq!(head, Peek { id: None, response: true, call: false });
    let tail = scan_tail(&msg);
    assert_eq!(tail.id, id(r#""req-7""#));
    assert_eq!(head.merge(tail).answers(), id(r#""req-7""#).as_ref());
}

#[test]
fn string_ids_keep_their_escapes_decoded() {
    for msg in [r#"{"id":"a\"b\\","error":{}}"#, r#"{"error":{},"id":"a\"b\\"}"#] {
        assert_eq!(scan_head(msg.as_bytes()).answers(), id(r#""a\"b\\""#).as_ref(), "{msg}");
        assert_eq!(scan_tail(msg.as_bytes()).answers(), id(r#""a\"b\\""#).as_ref(), "{msg}");
    }
}

#[test]
fn nested_ids_and_lookalikes_are_not_the_id() {
    let msg = br#"{"result":{"id":1,"s":"\"id\":2,"},"x":["id",{"id":3}],"id":4}"#;
    assert_eq!(scan_head(msg), response("4"));
    assert_eq!(scan_tail(msg), response("4"));
}

#[test]
fn a_server_request_is_not_an_answer() {
    let msg = br#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"x":1}}"#;
    let peek = scan_head(msg);
    assert_eq!(peek, Peek { id: id("3"), response: false, call: true });
    assert_eq!(peek.answers(), None);
    assert_eq!(scan_tail(msg), peek);
}

#[test]
fn null_and_structured_ids_name_nothing() {
    for msg in [r#"{"id":null,"error":{"code":1}}"#, r#"{"id":[1],"result":1}"#, r#"{"id":true,"result":1}"#]
    {
        assert_eq!(scan_head(msg.as_bytes()).id, None, "{msg}");
        assert_eq!(scan_tail(msg.as_bytes()).id, None, "{msg}");
    }
}

#[test]
fn an_id_cut_by_the_budget_is_not_read() {
    let mut msg = vec![b' '; HEAD_BYTES - 8];
    msg.extend_from_slice(br#"{"id":123456789,"result":1}"#);
    assert_eq!(scan_head(&msg).id, None, "the number does not end within the budget");
    let mut msg = br#"{"id":1234567,"result":"#.to_vec();
    msg.extend(vec![b' '; HEAD_BYTES]);
    msg.extend_from_slice(b"1}");
    assert_eq!(scan_tail(&msg).id, None, "the tail scan does not reach it");
    assert!(scan_head(&msg).answers().is_some());
}

#[test]
fn not_json_rpc_gives_nothing() {
    for msg in [&b""[..], b"[]", b"[{\"id\":1,\"result\":1}]", b"hello", b"{", b"}", b"{\"id\"", b"\"id\":1}"]
    {
        assert_eq!(scan_head(msg).answers(), None, "{msg:?}");
        assert_eq!(scan_tail(msg).answers(), None, "{msg:?}");
    }
}

#[test]
fn a_bom_and_whitespace_around_are_tolerated() {
    let msg = b"\xEF\xBB\xBF \t{ \"id\" : 9 , \"result\" : { } }\r\n";
    assert_eq!(scan_head(msg), response("9"));
    assert_eq!(scan_tail(msg), response("9"));
}

#[test]
fn escaped_member_names_are_decoded() {
    let msg = br#"{"\u0069d":5,"r\u0065sult":1}"#;
    assert_eq!(scan_head(msg), response("5"));
    assert_eq!(scan_tail(msg), response("5"));
}

#[test]
fn the_last_duplicate_id_wins_as_in_a_full_decode() {
    let msg = br#"{"id":1,"result":2,"id":3}"#;
    assert_eq!(scan_head(msg).id, id("3"));
    assert_eq!(scan_tail(msg).id, id("3"));
    fuzz_head(msg);
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        "[a-z\"\\\\{}\\[\\]:, \u{e9}]{0,12}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            prop::collection::vec(("[a-hj-z\"]{0,5}", inner), 0..4)
                .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn wire_id_value() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        any::<u32>().prop_map(|n| serde_json::json!(n)),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        "[ -~]{0,20}".prop_map(serde_json::Value::String),
    ]
}

/// A response whose members are written in the given order, with a result of `pad` bytes.
fn render(members: &[(String, serde_json::Value)]) -> Vec<u8> {
    let parts: Vec<String> =
        members.iter().map(|(k, v)| format!("{}:{}", serde_json::Value::from(k.as_str()), v)).collect();
    format!("{{{}}}", parts.join(",")).into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_any_bytes(data in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = scan_head(&data);
        let _ = scan_tail(&data);
        fuzz_head(&data);
    }

    #[test]
    fn agrees_with_a_full_decode(
        members in prop::collection::vec(
            (prop::sample::select(vec!["id", "result", "error", "method", "jsonrpc", "params", "x"]),
             prop_oneof![json_value(), wire_id_value()]),
            0..8,
        ),
        pretty in any::<bool>(),
    ) {
        let members: Vec<(String, serde_json::Value)> = members.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        let msg = render(&members);
        let msg = if pretty {
            // Whitespace everywhere JSON allows it.
            let v: serde_json::Value = serde_json::from_slice(&msg).unwrap();
            if members.iter().map(|(k, _)| k).collect::<std::collections::BTreeSet<_>>().len() == members.len() {
                serde_json::to_vec_pretty(&v).unwrap()
            } else {
                msg
            }
        } else {
            msg
        };
        prop_assume!(msg.len() <= HEAD_BYTES);
        // Panics (with the difference) if either scan disagrees with serde_json.
        fuzz_head(&msg);
    }

    #[test]
    fn finds_the_id_wherever_it_sits_within_the_budget(
        others in prop::collection::vec(("[a-z]{1,6}", json_value()), 0..6),
        at in any::<prop::sample::Index>(),
        id_value in wire_id_value(),
        pad in 0usize..3 * HEAD_BYTES,
        result_first in any::<bool>(),
    ) {
        let others: Vec<_> = others.into_iter().filter(|(k, _)| !["id", "result", "error", "method"].contains(&k.as_str())).collect();
        let big = serde_json::Value::String("z".repeat(pad));
        let mut members = others;
        let slot = at.index(members.len() + 1);
        members.insert(slot, ("id".to_owned(), id_value.clone()));
        if result_first {
            members.insert(0, ("result".to_owned(), big));
        } else {
            members.push(("result".to_owned(), big));
        }
        let msg = render(&members);
        let expected = WireId::from_value(&id_value);
        let id_text = format!("\"id\":{id_value}");
        let starts = msg.windows(id_text.len()).position(|w| w == id_text.as_bytes()).unwrap();
        let ends = starts + id_text.len();
        let peek = scan_head(&msg).merge(scan_tail(&msg));
        if ends < HEAD_BYTES {
            // Within the head's budget (followed by at least one more byte).
            prop_assert_eq!(scan_head(&msg).id, Some(expected.clone()));
        }
        if msg.len() - starts <= HEAD_BYTES {
            prop_assert_eq!(scan_tail(&msg).id, Some(expected.clone()));
        }
        if ends < HEAD_BYTES || msg.len() - starts <= HEAD_BYTES {
            prop_assert_eq!(peek.answers(), Some(&expected));
        }
        if msg.len() <= HEAD_BYTES {
            fuzz_head(&msg);
        }
    }
}
