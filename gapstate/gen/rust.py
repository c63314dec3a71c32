"""`gapstate gen rust`: the table written out as a Cargo crate with no dependency outside the standard library.

`src/lib.rs` holds the decider: `State`, `Event` and `Action` enums, a
`Session`, and `Session::step`, one `match` over (state, event, every
guard's value) with one arm per row and no catch-all arm, so that rustc
proves the table total again (a missing arm does not compile) and, with
`#![deny(unreachable_patterns)]`, that no arm is covered by the arms before
it. An `Effects` trait has one method per action, called in order by
`Session::apply`. `src/main.rs` speaks `gapstate conform`'s line protocol;
`tests/vectors.rs` replays the `gapstate vectors` suite. As for Python,
what each row does was decided by `decider.plan`; this module spells it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from gapstate.gen.decider import Plan, RowPlan, header
from gapstate.table.vocabulary import AFTER, BELOW_CAP, FLAG, SEEN
from gapstate.words import escape

TARGET = "rust"

_KEYWORDS = frozenset(
    ["as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "gen"]
)
# Crate names rustc or cargo would take for something else.
_TAKEN_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test", "self", "crate", "super"})


def crate_name(folder: str) -> str:
    """The crate's name (and its binary's) from the folder it is written into: `[a-z0-9_]`, starting with a letter."""
    name = re.sub(r"[^a-z0-9_]", "_", folder.lower()).lstrip("_0123456789")
    if not name:
        return "gap_state"
    return name + "_decider" if name in _TAKEN_CRATES or name in _KEYWORDS else name


def literal(text: str) -> str:
    """`text` as a Rust string literal: quotes, backslashes and every character outside printable ASCII escaped."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif " " <= char <= "~":
            out.append(char)
        else:
            out.append(f"\\u{{{ord(char):x}}}" if not 0xD800 <= ord(char) <= 0xDFFF else "\\u{fffd}")
    return '"' + "".join(out) + '"'


def _camel(name: str) -> str:
    camel = "".join(part[:1].upper() + part[1:].lower() for part in name.split("_") if part) or "X"
    return camel + "_" if camel == "Self" else camel


def _variants(names: Sequence[str]) -> dict[str, str]:
    """Each name's enum variant: CamelCase, numbered when two names would meet."""
    out: dict[str, str] = {}
    for name in names:
        variant = _camel(name)
        while variant in out.values():
            variant += "_"
        out[name] = variant
    return out


def _ident(name: str) -> str:
    return f"r#{name}" if name in _KEYWORDS else name


def _cap(counter: str) -> str:
    return f"CAP_{counter.upper()}"


class _Names:
    def __init__(self, plan: Plan):
        self.states = _variants(plan.states)
        self.events = _variants(plan.events)
        self.actions = _variants(plan.actions)

    def state(self, name: str) -> str:
        return f"State::{self.states[name]}"

    def event(self, name: str, fields: str = "..") -> str:
        return f"Event::{self.events[name]} {{ {fields} }}"

    def actions_slice(self, actions: Sequence[str]) -> str:
        return "&[" + ", ".join(f"Action::{self.actions[a]}" for a in actions) + "]"


def _payload_fields(plan: Plan, event: str) -> list[tuple[str, str]]:
    """The event's fields and their Rust types: `t`, and its payload field."""
    fields = [("t", "u64")]
    if event == plan.seen_event:
        fields.append((plan.seen_field, "String"))
    if event == plan.after_event:
        fields.append((plan.after_field, "u64"))
    return fields


def _guards(plan: Plan, names: _Names) -> list[str]:
    """The statements giving each guard its value, as `run.machine` derives it."""
    out = ["        // the flags as the event itself reports them, which the guards read"]
    flags = sorted({g.what for g in plan.guards if g.how == FLAG})
    for flag in flags:
        setting = plan.flags_set_by(flag)
        if not setting:
            out.append(f"        let now_{flag} = self.{flag};")
            continue
        arms = " ".join(f"{names.event(e)} => {str(v).lower()}," for e, v in setting)
        out.append(f"        let now_{flag} = match event {{ {arms} _ => self.{flag} }};")
    for guard in plan.guards:
        event = guard.event or ""
        if guard.how == FLAG:
            expr = f"now_{guard.what}"
        elif guard.how == BELOW_CAP:
            expr = f"self.{guard.what} < {_cap(guard.what)}"
        elif guard.how == SEEN:
            pattern = names.event(event, f"{guard.what}, ..")
            out.append(f"        let probe = match event {{ {pattern} => self.seen.probe({guard.what}), _ => Probe::NONE }};")
            expr = "probe.found()"
        elif guard.how == AFTER:
            pattern = names.event(event, f"{guard.what}, ..")
            expr = f"match event {{ {pattern} => matches!(self.horizon(), Some(h) if *{guard.what} > h), _ => false }}"
        else:  # pragma: no cover - decider.plan knows no other form
            raise AssertionError(guard.how)
        out.append(f"        let {guard.name} = {expr};")
    return out


def _arm(plan: Plan, names: _Names, row: RowPlan) -> list[str]:
    values = dict(row.literals)
    state = "_" if row.state == "*" else names.state(row.state)
    binds = f"{plan.seen_field}, .." if row.remembers != "never" else ".."
    columns = [state, names.event(row.event, binds)]
    columns += [str(values[g.name]).lower() if g.name in values else "_" for g in plan.guards]
    out = [f"            // line {row.line}: {escape(row.text)}", f"            ({', '.join(columns)}) => {{"]
    if row.refuses:
        out.append(f"                Err(Refusal::InvalidEvent {{ row: {row.line} }})")
        out.append("            }")
        return out
    dup = next(g.name for g in plan.guards if g.how == SEEN)
    if row.remembers == "always":
        out.append(f"                self.remember(probe, {plan.seen_field}, event.t());")
    elif row.remembers == "unless_seen":
        out.append(f"                if !{dup} {{ self.remember(probe, {plan.seen_field}, event.t()); }}")
    for assign in row.assigns:
        value = str(assign.value).lower() if isinstance(assign.value, bool) else str(assign.value)
        out.append(f"                self.{assign.field} {'+=' if assign.add else '='} {value};")
    if row.commits:
        out.append("                self.last_commit = Some(event.t());")
    if row.next is not None:
        out.append(f"                self.state = {names.state(row.next)};")
    out.append(f"                Ok(self.decide({row.line}, {names.actions_slice(row.actions)}))")
    out.append("            }")
    return out


def _enum(kind: str, doc: str, variants: dict[str, str], derive: str) -> list[str]:
    out = [f"/// {doc}", f"#[derive({derive})]", f"pub enum {kind} {{"]
    out += [f"    {variant}," for variant in variants.values()]
    out += ["}", "", f"impl {kind} {{", "    /// The name the table gives it.", "    pub const fn name(self) -> &'static str {", "        match self {"]
    out += [f"            {kind}::{variant} => {literal(name)}," for name, variant in variants.items()]
    out += ["        }", "    }", "}", ""]
    return out


def lib(plan: Plan, regenerate: str) -> str:
    """src/lib.rs: the decider."""
    names = _Names(plan)
    lines = ["// " + escape(line) for line in header(plan, TARGET, regenerate)]
    lines += [
        "",
        "//! The gap-state table as a decider: `Session::step` answers as `gapstate replay` steps.",
        "//!",
        "//! `step` returns a `Decision` (the spec line of the row that fired, the next state, the",
        "//! actions in order, the counters, whether the reply is owed) or a `Refusal`; it has no",
        "//! clock and does no I/O, and allocates only to remember a new interval id.",
        "//! `Session::apply` calls an `Effects` method for each action of a decision, in order:",
        "//! the room loop writes the effects, never the transitions.",
        "",
        "#![deny(unreachable_patterns)]",
        "#![forbid(unsafe_code)]",
        "",
        "use std::collections::hash_map::RandomState;",
        "use std::hash::{BuildHasher, Hasher};",
        "",
        "/// The spec this crate was generated from, relative to the crate's folder.",
        f"pub const SPEC: &str = {literal(plan.spec)};",
        "/// The sha256 of the spec's bytes.",
        f"pub const SPEC_SHA256: &str = {literal(plan.sha256)};",
        "/// The gapstate that generated this crate.",
        f"pub const GAPSTATE_VERSION: &str = {literal(plan.version)};",
    ]
    for counter, limit in plan.caps:
        lines += [f"/// `@cap {counter} {limit}`", f"pub const {_cap(counter)}: u32 = {limit};"]
    lines.append("")
    lines += _enum("State", "A state of the table; the first is where every session starts.", names.states,
                   "Clone, Copy, Debug, PartialEq, Eq, Hash")
    lines += ["/// An event, with what its payload carries.", "#[derive(Clone, Debug, PartialEq, Eq)]", "pub enum Event {"]
    for event, variant in names.events.items():
        fields = ", ".join(f"{name}: {kind}" for name, kind in _payload_fields(plan, event))
        lines.append(f"    {variant} {{ {fields} }},")
    lines += ["}", "", "impl Event {", "    /// The event's time, in ms.", "    pub fn t(&self) -> u64 {", "        match self {"]
    lines += [f"            {names.event(e, 't, ..')} => *t," for e in plan.events]
    lines += ["        }", "    }", "", "    /// The name the table gives it.", "    pub fn name(&self) -> &'static str {", "        match self {"]
    lines += [f"            {names.event(e)} => {literal(e)}," for e in plan.events]
    lines += ["        }", "    }", "", "    /// The event named `name` at `t`; `text` and `time` fill the payload of the events that carry one.",
              "    pub fn named(name: &str, t: u64, text: Option<String>, time: Option<u64>) -> Result<Event, String> {",
              "        Ok(match name {"]
    for event in plan.events:
        given = ["t"]
        if event == plan.seen_event:
            given.append(f"{plan.seen_field}: text.ok_or({literal(f'{event} needs a {plan.seen_field!r}')})?")
        if event == plan.after_event:
            given.append(f"{plan.after_field}: time.ok_or({literal(f'{event} needs a {plan.after_field!r}')})?")
        lines.append(f"            {literal(event)} => Event::{names.events[event]} {{ {', '.join(given)} }},")
    lines += ["            _ => return Err(format!(\"unknown event {:?}\", name)),", "        })", "    }", "}", ""]
    lines += _enum("Action", "An action a row names, in the order the rows first name them.", names.actions,
                   "Clone, Copy, Debug, PartialEq, Eq, Hash")
    lines += [
        "/// The counters after a step.",
        "#[derive(Clone, Copy, Debug, PartialEq, Eq)]",
        "pub struct Counters {",
        *[f"    pub {c}: u32," for c in plan.counters],
        "}",
        "",
        "/// What the row that fired decided.",
        "#[derive(Clone, Copy, Debug, PartialEq, Eq)]",
        "pub struct Decision {",
        "    /// The spec line of the row.",
        "    pub row: u32,",
        "    pub state: State,",
        "    /// The row's actions, in order.",
        "    pub actions: &'static [Action],",
        "    pub counters: Counters,",
        "    /// Whether the interviewer's reply is owed.",
        "    pub debt_owed: bool,",
        "}",
        "",
        "/// An event that cannot be taken; the session is left as it was.",
        "#[derive(Clone, Copy, Debug, PartialEq, Eq)]",
        "pub enum Refusal {",
        "    /// The row at spec line `row` marks the event `invalid` here.",
        "    InvalidEvent { row: u32 },",
        "    /// The session has ended: nothing follows `session_end`.",
        "    AfterSessionEnd,",
        "}",
        "",
        "impl Refusal {",
        "    /// The refusal's name, as `gapstate replay` gives it.",
        "    pub const fn kind(self) -> &'static str {",
        "        match self {",
        '            Refusal::InvalidEvent { .. } => "invalid_event",',
        '            Refusal::AfterSessionEnd => "after_session_end",',
        "        }",
        "    }",
        "}",
        "",
        "/// What the room loop implements: one method per action, called by `Session::apply` in the row's order.",
        "pub trait Effects {",
    ]
    lines += [f"    fn {_ident(a)}(&mut self, decision: &Decision);" for a in plan.actions]
    lines += [
        "}",
        "",
        *_SEEN.splitlines(),
        "",
        "/// One session: the configuration and the history its guards read.",
        "#[derive(Clone, Debug, PartialEq, Eq)]",
        "pub struct Session {",
        "    pub state: State,",
        *[f"    pub {c}: u32," for c in plan.counters],
        *[f"    pub {f}: bool," for f in plan.flags],
        "    /// The interval ids given this session.",
        "    pub seen: Seen,",
        "    /// t of the event that last committed a request.",
        "    pub last_commit: Option<u64>,",
        "    /// t of the last loss with an unseen id.",
        "    pub last_loss: Option<u64>,",
        "}",
        "",
        "impl Default for Session {",
        "    fn default() -> Self {",
        "        Session::new()",
        "    }",
        "}",
        "",
        "impl Session {",
        "    /// A fresh session, in the state every session starts in.",
        "    pub fn new() -> Session {",
        "        Session {",
        f"            state: {names.state(plan.states[0])},",
        *[f"            {c}: 0," for c in plan.counters],
        *[f"            {f}: false," for f in plan.flags],
        "            seen: Seen::new(),",
        "            last_commit: None,",
        "            last_loss: None,",
        "        }",
        "    }",
        "",
        "    /// The counters now.",
        "    pub fn counters(&self) -> Counters {",
        "        Counters { " + ", ".join(f"{c}: self.{c}" for c in plan.counters) + " }",
        "    }",
        "",
        "    /// What evidence must begin strictly after: the last commit, and the last unseen loss after it.",
        "    #[inline]",
        "    pub fn horizon(&self) -> Option<u64> {",
        "        match (self.last_commit, self.last_loss) {",
        "            (Some(commit), Some(loss)) if loss >= commit => Some(loss),",
        "            (commit, _) => commit,",
        "        }",
        "    }",
        "",
        "    /// Called only with an id not seen yet (a row guarded by `!dup`, or under `if !dup`), with the probe",
        "    /// that found it missing: the id is not hashed again.",
        "    #[inline]",
        "    fn remember(&mut self, probe: Probe, id: &str, t: u64) {",
        "        self.seen.put(probe, id);",
        "        self.last_loss = Some(t);",
        "    }",
        "",
        "    #[inline]",
        "    fn decide(&self, row: u32, actions: &'static [Action]) -> Decision {",
        "        Decision { row, state: self.state, actions, counters: self.counters(), debt_owed: self.debt_owed }",
        "    }",
        "",
        "    /// The table's answer to `event`: the row that fires, its effects on the session made.",
        "    #[inline]",
        "    pub fn step(&mut self, event: &Event) -> Result<Decision, Refusal> {",
        "        if self.ended {",
        "            return Err(Refusal::AfterSessionEnd);",
        "        }",
    ]
    lines += _guards(plan, names)
    scrutinee = ", ".join(["self.state", "event", *(g.name for g in plan.guards)])
    lines += [f"        // one arm per row: ({scrutinee})", f"        match ({scrutinee}) {{"]
    for row in plan.rows:
        lines += _arm(plan, names, row)
    lines += [
        "        }",
        "    }",
        "",
        "    /// Call `effects`' method for each action of `decision`, in order.",
        "    pub fn apply<E: Effects + ?Sized>(&self, decision: &Decision, effects: &mut E) {",
        "        for action in decision.actions {",
        "            match action {",
        *[f"                Action::{v} => effects.{_ident(a)}(decision)," for a, v in names.actions.items()],
        "            }",
        "        }",
        "    }",
        "}",
    ]
    return "\n".join(lines) + "\n"


_SEEN = r"""/// The interval ids a session has seen: a set of strings, open addressing with linear probing.
///
/// A slot is a tag byte (0 when empty, else 0x80 and 7 bits of the id's hash) in one array and
/// 8 bytes in another: the id itself when it is 1 to 8 bytes long (its bytes, then 0xff, which
/// UTF-8 never holds), else 0xff and where it is in `long`. A new id is told from the tags alone,
/// which are small enough to stay in the cache; a seen one reads its slot once more. At most 3/4
/// of the slots are full. Each id is hashed once a step, with a keyed multiply-fold hash (an id
/// of up to 8 bytes is read as one word) whose key comes from `RandomState`, so that ids chosen
/// to collide must be chosen knowing the key.
#[derive(Clone)]
pub struct Seen {
    key: [u64; 2],
    tags: Vec<u8>,
    slots: Vec<[u8; 8]>,
    /// The other ids (empty or longer than 8 bytes), each after its length as eight bytes, end to end.
    long: Vec<u8>,
    len: usize,
}

/// Where an id is, or would go, in a `Seen`, found by `Seen::probe` and used by `Seen::put`.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    hash: u64,
    slot: usize,
    found: bool,
    /// The id as its slot holds it, when it is short.
    entry: [u8; 8],
}

impl Probe {
    /// The probe of an event that carries no id.
    pub const NONE: Probe = Probe { hash: 0, slot: 0, found: false, entry: [0; 8] };

    /// Whether the id was seen.
    pub fn found(self) -> bool {
        self.found
    }
}

/// The slots the first id allocates (1,152 bytes): room for 96 ids before the set grows.
const FIRST: usize = 128;
/// The longest id a slot holds itself.
const SHORT: usize = 8;
/// The first byte of a slot that holds where another id is (a short id's first byte is never 0xff).
const LONG: u8 = 0xff;

#[inline]
fn fold(a: u64, b: u64) -> u64 {
    let product = (a as u128).wrapping_mul(b as u128);
    (product as u64) ^ ((product >> 64) as u64)
}

#[inline]
fn read8(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

#[inline]
fn read4(bytes: &[u8], at: usize) -> u64 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as u64
}

/// An id of 1 to 8 bytes as its slot holds it: its bytes, then 0xff bytes.
#[inline]
fn inline(bytes: &[u8]) -> [u8; 8] {
    let n = bytes.len();
    let word = if n == 8 {
        read8(bytes, 0)
    } else if n >= 4 {
        read4(bytes, 0) | read4(bytes, n - 4) << (8 * (n - 4))
    } else {
        (bytes[0] as u64) | (bytes[n / 2] as u64) << (8 * (n / 2)) | (bytes[n - 1] as u64) << (8 * (n - 1))
    };
    (if n == 8 { word } else { word | u64::MAX << (8 * n) }).to_le_bytes()
}

#[inline]
fn tag(hash: u64) -> u8 {
    0x80 | (hash >> 57) as u8
}

impl Default for Seen {
    fn default() -> Self {
        Seen::new()
    }
}

impl Seen {
    /// An empty set (it allocates `FIRST` slots at the first id), keyed afresh.
    pub fn new() -> Seen {
        let state = RandomState::new();
        let key = |salt: u64| {
            let mut hasher = state.build_hasher();
            hasher.write_u64(salt);
            hasher.finish() | 1
        };
        Seen { key: [key(0), key(1)], tags: Vec::new(), slots: Vec::new(), long: Vec::new(), len: 0 }
    }

    /// How many ids were seen.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no id was seen.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `id` was seen.
    pub fn contains(&self, id: &str) -> bool {
        self.probe(id).found
    }

    /// Remember `id`; false when it was seen already.
    pub fn insert(&mut self, id: &str) -> bool {
        let probe = self.probe(id);
        self.put(probe, id)
    }

    /// The ids seen, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.tags.iter().zip(&self.slots).filter(|(tag, _)| **tag != 0).map(|(_, slot)| {
            let bytes = if slot[0] == LONG { self.long_id(slot) } else { &slot[..slot.iter().position(|&b| b == 0xff).unwrap_or(8)] };
            std::str::from_utf8(bytes).expect("an id was a str")
        })
    }

    /// The hash of a short id, from its slot.
    #[inline]
    fn short_hash(&self, entry: [u8; 8]) -> u64 {
        let [k0, k1] = self.key;
        fold(u64::from_le_bytes(entry) ^ k0, k1)
    }

    /// The hash of an id kept in `long`.
    fn long_hash(&self, bytes: &[u8]) -> u64 {
        let [k0, k1] = self.key;
        let n = bytes.len();
        let mut hash = k0 ^ n as u64;
        let mut at = 0;
        while at + 16 < n {
            hash = fold(read8(bytes, at) ^ k1, read8(bytes, at + 8) ^ hash);
            at += 16;
        }
        if n >= 16 {
            hash = fold(read8(bytes, n - 16) ^ k1, read8(bytes, n - 8) ^ hash);
        } else if n > 8 {
            hash = fold(read8(bytes, 0) ^ k1, read8(bytes, n - 8) ^ hash);
        }
        fold(hash ^ k0, k1.rotate_left(29))
    }

    /// The bytes of the longer id a slot says where to find.
    fn long_id(&self, slot: &[u8; 8]) -> &[u8] {
        let start = (u64::from_le_bytes(*slot) >> 8) as usize;
        let n = read8(&self.long, start) as usize;
        &self.long[start + 8..start + 8 + n]
    }

    /// Where `id` is, or the empty slot where it would go: one hash.
    #[inline]
    pub fn probe(&self, id: &str) -> Probe {
        let bytes = id.as_bytes();
        let short = (1..=SHORT).contains(&bytes.len());
        let entry = if short { inline(bytes) } else { [0; 8] };
        let hash = if short { self.short_hash(entry) } else { self.long_hash(bytes) };
        let mut probe = Probe { hash, slot: 0, found: false, entry };
        if self.tags.is_empty() {
            return probe;
        }
        let mask = self.tags.len() - 1;
        let tag = tag(hash);
        let mut slot = hash as usize & mask;
        loop {
            let there = self.tags[slot];
            if there == 0 {
                break;
            }
            if there == tag && if short { self.slots[slot] == entry } else { self.slots[slot][0] == LONG && self.long_id(&self.slots[slot]) == bytes } {
                probe.found = true;
                break;
            }
            slot = (slot + 1) & mask;
        }
        probe.slot = slot;
        probe
    }

    /// Remember `id` where `probe` (this set's probe of `id`, nothing put since) found it missing.
    #[inline]
    fn put(&mut self, probe: Probe, id: &str) -> bool {
        if probe.found {
            return false;
        }
        let mut slot = probe.slot;
        if (self.len + 1) * 4 > self.tags.len() * 3 {
            self.grow();
            slot = self.vacant(probe.hash);
        }
        self.slots[slot] = if (1..=SHORT).contains(&id.len()) {
            probe.entry
        } else {
            let entry = ((self.long.len() as u64) << 8 | LONG as u64).to_le_bytes();
            self.long.extend_from_slice(&(id.len() as u64).to_le_bytes());
            self.long.extend_from_slice(id.as_bytes());
            entry
        };
        self.tags[slot] = tag(probe.hash);
        self.len += 1;
        true
    }

    fn vacant(&self, hash: u64) -> usize {
        let mask = self.tags.len() - 1;
        let mut slot = hash as usize & mask;
        while self.tags[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        slot
    }

    fn grow(&mut self) {
        let size = (self.tags.len() * 2).max(FIRST);
        let tags = std::mem::replace(&mut self.tags, vec![0; size]);
        let slots = std::mem::replace(&mut self.slots, vec![[0; 8]; size]);
        for (tag, entry) in tags.into_iter().zip(slots) {
            if tag != 0 {
                let hash = if entry[0] == LONG { self.long_hash(self.long_id(&entry)) } else { self.short_hash(entry) };
                let slot = self.vacant(hash);
                self.tags[slot] = tag;
                self.slots[slot] = entry;
            }
        }
    }
}

impl PartialEq for Seen {
    fn eq(&self, other: &Seen) -> bool {
        self.len == other.len && self.iter().all(|id| other.contains(id))
    }
}

impl Eq for Seen {}

impl std::fmt::Debug for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}"""


def cargo_toml(plan: Plan, name: str) -> str:
    return "\n".join([
        f"# Generated by gapstate {plan.version}: do not edit by hand (see src/lib.rs).",
        "[package]",
        f'name = "{name}"',
        'version = "0.1.0"',
        'edition = "2021"',
        "publish = false",
        "",
        "[lib]",
        'path = "src/lib.rs"',
        "",
        "[[bin]]",
        f'name = "{name}"',
        'path = "src/main.rs"',
        "",
        "[dependencies]",
        "",
        "[profile.release]",
        "codegen-units = 1",
        'panic = "abort"',
        "",
    ])


def main_rs(plan: Plan, name: str) -> str:
    """src/main.rs: the line protocol (docs/conformance.md) over stdin and stdout, with a small JSON reader of its own."""
    flags = ", ".join(f'\\"{f}\\":{{}}' for f in plan.flags)
    flag_args = ", ".join(f"s.{f}" for f in plan.flags)
    counters = ",".join(f'\\"{c}\\":{{}}' for c in plan.counters)
    counter_args = ", ".join(f"d.counters.{c}" for c in plan.counters)
    return _MAIN.replace("CRATE", name).replace("SEEN_FIELD", plan.seen_field).replace("AFTER_FIELD", plan.after_field) \
        .replace("FLAGS_FORMAT", flags).replace("FLAG_ARGS", flag_args) \
        .replace("COUNTERS_FORMAT", counters).replace("COUNTER_ARGS", counter_args)


_MAIN = r'''// Generated by gapstate: do not edit by hand (see src/lib.rs).
//! `gapstate conform`'s line protocol over stdin and stdout: a reset starts a fresh session, each event is stepped.

use std::io::{self, BufRead, Write};

use CRATE::{Event, Session};

enum Value {
    Text(String),
    Number(u64),
    Flag(bool),
    Other,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn space(&mut self) {
        while self.at < self.bytes.len() && matches!(self.bytes[self.at], b' ' | b'\t' | b'\r' | b'\n') {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.space();
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", byte as char, self.at))
        }
    }

    fn text(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let byte = *self.bytes.get(self.at).ok_or("unterminated string")?;
            self.at += 1;
            match byte {
                b'"' => return String::from_utf8(out).map_err(|_| "a string that is not UTF-8".to_string()),
                b'\\' => {
                    let kind = *self.bytes.get(self.at).ok_or("unterminated escape")?;
                    self.at += 1;
                    match kind {
                        b'"' | b'\\' | b'/' => out.push(kind),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let mut code = self.hex()?;
                            if (0xD800..0xDC00).contains(&code) && self.bytes[self.at..].starts_with(b"\\u") {
                                self.at += 2;
                                let low = self.hex()?;
                                code = 0x10000 + ((code - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                            }
                            let c = char::from_u32(code).unwrap_or('\u{fffd}');
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                        _ => return Err("an unknown escape".into()),
                    }
                }
                _ => out.push(byte),
            }
        }
    }

    fn hex(&mut self) -> Result<u32, String> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or("a short \\u escape")?;
        self.at += 4;
        u32::from_str_radix(std::str::from_utf8(digits).map_err(|e| e.to_string())?, 16).map_err(|e| e.to_string())
    }

    fn value(&mut self) -> Result<Value, String> {
        self.space();
        match self.bytes.get(self.at) {
            Some(b'"') => Ok(Value::Text(self.text()?)),
            Some(b't') if self.bytes[self.at..].starts_with(b"true") => {
                self.at += 4;
                Ok(Value::Flag(true))
            }
            Some(b'f') if self.bytes[self.at..].starts_with(b"false") => {
                self.at += 5;
                Ok(Value::Flag(false))
            }
            Some(b'n') if self.bytes[self.at..].starts_with(b"null") => {
                self.at += 4;
                Ok(Value::Other)
            }
            Some(b'0'..=b'9') => {
                let start = self.at;
                while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_digit() {
                    self.at += 1;
                }
                if matches!(self.bytes.get(self.at), Some(b'.' | b'e' | b'E')) {
                    return Err("a number that is not a whole number of ms".into());
                }
                let digits = std::str::from_utf8(&self.bytes[start..self.at]).map_err(|e| e.to_string())?;
                digits.parse().map(Value::Number).map_err(|_| "a number too large".to_string())
            }
            _ => Err(format!("a value this protocol does not send at byte {}", self.at)),
        }
    }

    fn object(&mut self) -> Result<Vec<(String, Value)>, String> {
        self.expect(b'{')?;
        let mut fields = Vec::new();
        self.space();
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(fields);
        }
        loop {
            self.space();
            let key = self.text()?;
            self.expect(b':')?;
            fields.push((key, self.value()?));
            self.space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(fields);
                }
                _ => return Err(format!("expected ',' or '}}' at byte {}", self.at)),
            }
        }
    }
}

fn answer(session: &mut Session, fields: Vec<(String, Value)>) -> Result<String, String> {
    let (mut name, mut t, mut text, mut time) = (None, 0, None, None);
    for (key, value) in fields {
        match (key.as_str(), value) {
            ("reset", Value::Flag(true)) => {
                *session = Session::new();
                return Ok("{\"ok\":true}".into());
            }
            ("event", Value::Text(v)) => name = Some(v),
            ("t", Value::Number(v)) => t = v,
            ("SEEN_FIELD", Value::Text(v)) => text = Some(v),
            ("AFTER_FIELD", Value::Number(v)) => time = Some(v),
            (other, _) => return Err(format!("an unexpected field {:?}", other)),
        }
    }
    let event = Event::named(&name.ok_or("a message with no event")?, t, text, time)?;
    Ok(match session.step(&event) {
        Err(refusal) => format!("{{\"refused\":\"{}\"}}", refusal.kind()),
        Ok(d) => {
            let actions: Vec<String> = d.actions.iter().map(|a| format!("\"{}\"", a.name())).collect();
            let s = &*session;
            let last = |v: Option<u64>| v.map_or("null".to_string(), |v| v.to_string());
            format!(
                concat!(
                    "{{\"state\":\"{}\",\"actions\":[{}],\"counters\":{{COUNTERS_FORMAT}},\"debt_owed\":{},\"row\":{},",
                    "\"flags\":{{FLAGS_FORMAT}},\"history\":{{\"last_commit\":{},\"last_loss\":{},\"ids\":{}}}}}"
                ),
                d.state.name(), actions.join(","), COUNTER_ARGS, d.debt_owed, d.row,
                FLAG_ARGS, last(s.last_commit), last(s.last_loss), s.seen.len()
            )
        }
    })
}

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut session = Session::new();
    for (number, line) in stdin.lock().lines().enumerate() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                eprintln!("CRATE: cannot read line {}: {}", number + 1, error);
                std::process::exit(2);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let mut reader = Reader { bytes: line.as_bytes(), at: 0 };
        match reader.object().and_then(|fields| answer(&mut session, fields)) {
            Ok(reply) => {
                if writeln!(out, "{}", reply).and_then(|_| out.flush()).is_err() {
                    return; // the reader went away
                }
            }
            Err(why) => {
                eprintln!("CRATE: line {}: {}", number + 1, why);
                std::process::exit(2);
            }
        }
    }
}
'''


def _event_expr(plan: Plan, names: _Names, item: dict[str, Any]) -> str:
    event = item["event"]
    fields = [f"t: {item['t']}"]
    if event == plan.seen_event:
        fields.append(f"{plan.seen_field}: {literal(item[plan.seen_field])}.to_string()")
    if event == plan.after_event:
        fields.append(f"{plan.after_field}: {item[plan.after_field]}")
    return f"Event::{names.events[event]} {{ {', '.join(fields)} }}"


def vectors_rs(plan: Plan, name: str, vectors: Sequence[Any]) -> str:
    """tests/vectors.rs: every trace of the `gapstate vectors` suite, each a test replaying it against the decider.

    `vectors` are `conformance.vectors.Vector`s: a trace, and the table's replay of it.
    """
    names = _Names(plan)
    lines = [
        f"// Generated by gapstate {plan.version} from {escape(plan.spec)}: do not edit by hand.",
        "//! The `gapstate vectors` suite of the table: `cargo test` replays every trace against the decider.",
        "",
        f"use {name}::{{Action, Counters, Decision, Event, Session, State}};",
        "",
        "fn took(session: &mut Session, event: Event, row: u32, state: State, actions: &[Action], counters: (u32, u32), debt_owed: bool) {",
        "    let expected = Decision {",
        "        row,",
        "        state,",
        "        actions: &[],",
        "        counters: Counters { " + ", ".join(f"{c}: counters.{i}" for i, c in enumerate(plan.counters)) + " },",
        "        debt_owed,",
        "    };",
        "    match session.step(&event) {",
        "        Ok(decision) => {",
        "            assert_eq!(decision.actions, actions, \"actions for {:?}\", event);",
        "            assert_eq!(Decision { actions: &[], ..decision }, expected, \"for {:?}\", event);",
        "        }",
        "        Err(refusal) => panic!(\"{:?} refused ({:?}); expected row {}\", event, refusal, row),",
        "    }",
        "}",
        "",
        "fn refused(session: &mut Session, event: Event, kind: &str) {",
        "    match session.step(&event) {",
        "        Err(refusal) => assert_eq!(refusal.kind(), kind, \"for {:?}\", event),",
        "        Ok(decision) => panic!(\"{:?} taken ({:?}); expected {}\", event, decision, kind),",
        "    }",
        "}",
    ]
    assert len(plan.counters) == 2, "the vectors' helper takes the two counters as a pair"
    for vector in vectors:
        lines += ["", "#[test]", f"fn {re.sub(r'[^a-z0-9_]', '_', vector.name.lower())}() {{", "    let mut s = Session::new();"]
        result = vector.result
        steps = result.steps or ()
        for item, step in zip(vector.trace, steps, strict=False):  # a refused last event has no step
            config = step.outcome.config
            counters = ", ".join(str(getattr(config, c)) for c in plan.counters)
            lines.append(
                f"    took(&mut s, {_event_expr(plan, names, item)}, {step.row}, {names.state(config.state)}, "
                f"{names.actions_slice(step.actions)}, ({counters}), {str(config.debt_owed).lower()});"
            )
        if result.error is not None:
            item = vector.trace[result.error.index]
            lines.append(f"    refused(&mut s, {_event_expr(plan, names, item)}, {literal(result.error.kind)});")
        lines.append("}")
    return "\n".join(lines) + "\n"


def files(plan: Plan, name: str, regenerate: str, vectors: Sequence[Any]) -> dict[str, str]:
    """The crate's files, by path inside its folder."""
    return {
        "Cargo.toml": cargo_toml(plan, name),
        "src/lib.rs": lib(plan, regenerate),
        "src/main.rs": main_rs(plan, name),
        "tests/vectors.rs": vectors_rs(plan, name, vectors),
        ".gitignore": "/target\n/Cargo.lock\n",
    }
