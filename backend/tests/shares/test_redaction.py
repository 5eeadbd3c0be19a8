"""The redactor alone: pseudonyms one to one and stable, every shape of address found."""

from __future__ import annotations

from rootline.shares.redaction import Known, Redactor, assign


def redactor(hosts: set[str], addresses: set[str], ports: set[str]) -> Redactor:
    return Redactor(assign(Known(hosts, addresses, ports)), key=b"share")


def test_pseudonyms_are_one_to_one_and_never_an_original() -> None:
    # An original that looks like a pseudonym is not handed out as one.
    known = Known(
        hosts={"host-a", "web-1", "web-2"},
        addresses={"10.0.0.1", "10.0.0.2", "192.168.1.9", "2001:db8::1", "fd00::1"},
        ports={"80", "443"},
    )
    names = assign(known)
    assert names["hosts"] == {"host-a": "host-b", "web-1": "host-c", "web-2": "host-d"}
    assert names["addresses"] == {
        "10.0.0.1": "10.0.0.3",
        "10.0.0.2": "10.0.0.4",
        "192.168.1.9": "10.0.0.5",
        "2001:db8::1": "fd00::2",
        "fd00::1": "fd00::3",
    }
    assert names["ports"] == {"443": "port-1", "80": "port-2"}
    for kind in names.values():
        assert len(set(kind.values())) == len(kind)


def test_stable_when_the_incident_gains_names() -> None:
    first = assign(Known({"web-2"}, {"10.1.1.2"}, {"80"}))
    later = assign(Known({"web-1", "web-2"}, {"10.1.1.1", "10.1.1.2"}, {"80", "22"}), first)
    assert later["hosts"] == {"web-2": "host-a", "web-1": "host-b"}
    assert later["addresses"] == {"10.1.1.2": "10.0.0.1", "10.1.1.1": "10.0.0.2"}
    assert later["ports"] == {"80": "port-1", "22": "port-2"}


def test_every_shape_of_address_and_port() -> None:
    r = redactor({"db-7"}, {"10.77.0.1", "2001:db8:10::5", "192.168.7.20"}, {"5001", "8443"})
    cases = {
        "10.77.0.1:5001 -> 10.77.0.9:40000": "10.0.0.1:port-1 -> 10.255.",
        "[2001:db8:10::5]:8443": "[fd00::1]:port-2",
        "2001:DB8:10:0::5 up": "fd00::1 up",
        "[::ffff:192.168.7.20]:5001": "[::ffff:10.0.0.2]:port-1",
        "::ffff:192.168.7.20": "::ffff:10.0.0.2",
        "*:8443 and 0.0.0.0:5001 and [::]:5001 and 127.0.0.1": "*:port-2 and 0.0.0.0:port-1 and [::]:port-1 and 127.0.0.1",
        "db-7, DB-7:8443 and rootline-db-7-2026.tar.gz": "host-a, host-a:port-2 and rootline-host-a-2026.tar.gz",
        "listening port 8443 (port=5001)": "listening port port-2 (port=port-1)",
    }
    for text, expected in cases.items():
        assert r.text(text).startswith(expected), (text, r.text(text))


def test_leaves_what_is_not_an_address() -> None:
    r = redactor({"db-7"}, {"10.77.0.1"}, {"5001"})
    for text in (
        "12:30:45.123",
        "2026-11-24T05:57:03Z",
        "db-70 and db-7x and db_7",
        "gc.pause_ms 5001 ms",
        "std::vector",
        "aa:bb:cc:dd:ee:ff",
        "v1.2.3",
        "receiver_not_reading",
    ):
        assert r.text(text) == text


def test_json_values() -> None:
    r = redactor({"sender"}, {"10.77.0.1"}, {"5001"})
    value = {
        "id": "sender",  # an identifier: kept
        "kind": "sender",
        "summary": "sender at 10.77.0.1:5001",
        "labels": {"local": "10.77.0.1:5001", "port": "5001", "host": "sender"},
        "parameters": {"listen_port": 5001, "threshold": 5001},
        "t": [1, 2, 3],
        "v": [0.5, 5001.0],
        "nested": [{"host": "SENDER"}, ["10.77.0.1"]],
        "flag": True,
        "none": None,
    }
    assert r.value(value) == {
        "id": "sender",
        "kind": "sender",
        "summary": "host-a at 10.0.0.1:port-1",
        "labels": {"local": "10.0.0.1:port-1", "port": "port-1", "host": "host-a"},
        "parameters": {"listen_port": "port-1", "threshold": 5001},
        "t": [1, 2, 3],
        "v": [0.5, 5001.0],
        "nested": [{"host": "host-a"}, ["10.0.0.1"]],
        "flag": True,
        "none": None,
    }


def test_query_parameters_go_back_to_the_originals() -> None:
    r = redactor({"sender", "receiver"}, {"10.77.0.1"}, set())
    assert r.original_query(b"host=host-b&name=tcp.*") == b"host=sender&name=tcp.%2A"
    assert r.original("host-a") == "receiver"
    assert r.original("host-ab") == "host-ab"  # not a pseudonym given out


def test_unknown_addresses_are_stable_per_share() -> None:
    one = Redactor({}, key=b"share-1")
    assert one.text("203.0.113.7") == one.text("203.0.113.7") != "203.0.113.7"
    assert one.text("203.0.113.7").startswith("10.255.")
    assert Redactor({}, key=b"share-2").text("203.0.113.7") != one.text("203.0.113.7")
