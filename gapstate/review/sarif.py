"""SARIF 2.1.0 for `gapstate check --format sarif`: what code-scanning tools upload.

One reporting rule per finding kind of the catalogue (its id is the kind,
its descriptions come from the finding's class, its help and `helpUri`
point to docs/findings.md, installed with gapstate), and one result per finding at its spec line and column.
A finding's extra data (a `rule` finding's rule id and counterexample
trace, a `not_total` valuation...) go into the result's `properties`.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from gapstate import pages
from gapstate.errors import GapstateError

if TYPE_CHECKING:
    from gapstate.proof.check import CheckResult

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
CATALOGUE_PAGE = pages.name(pages.FINDINGS)


def _summary(cls: type) -> str:
    """The first paragraph of the class docstring: what the finding says is wrong (the rest is for developers)."""
    doc = inspect.getdoc(cls) or cls.__name__
    return " ".join(doc.split("\n\n")[0].split())


def reporting_rule(cls: Any) -> dict[str, Any]:
    """The SARIF reportingDescriptor of one finding kind."""
    summary = _summary(cls)
    return {
        "id": cls.kind,
        "name": cls.__name__,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": f"{summary} Reported by `gapstate check` at the spec line concerned; exit status 1."},
        "help": {
            "text": f"See {CATALOGUE_PAGE}, section `{cls.kind}`: what it checks, why it matters, a minimal example, the message and the fix.",
            "markdown": f"See [{CATALOGUE_PAGE}]({CATALOGUE_PAGE}#{cls.kind}), section `{cls.kind}`: what it checks, why it matters, a minimal example, the message and the fix.",
        },
        "helpUri": pages.uri(pages.FINDINGS, cls.kind),  # SARIF wants an absolute URI: the installed page
        "defaultConfiguration": {"level": "error"},
    }


def artifact(path: str) -> dict[str, Any]:
    """Where the spec is: a file URI for an absolute path, else relative to the checkout (%SRCROOT%).

    The URI percent-encodes the name's bytes as the file system holds them,
    so a name that is not UTF-8 is still a valid URI naming that file.
    """
    pure = PurePath(path)
    if pure.is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(os.fsencode(pure.as_posix())), "uriBaseId": "%SRCROOT%"}


def _location(path: str, line: int | None, column: int | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": artifact(path)}
    if line is not None:
        physical["region"] = {"startLine": line, "startColumn": column or 1}
    return {"physicalLocation": physical}


def _result(finding: Any, result: CheckResult, index: dict[str, int]) -> dict[str, Any]:
    record = result.finding_dict(finding)
    extra = {k: v for k, v in record.items() if k not in ("kind", "line", "column", "message")}
    entry: dict[str, Any] = {
        "ruleId": finding.kind,
        "ruleIndex": index[finding.kind],
        "level": "error" if result.root_of(finding) is None else "note",  # a consequence is fixed by fixing its root
        "message": {"text": record["message"]},
        "locations": [_location(result.spec, finding.line, finding.column)],
    }
    if extra:
        entry["properties"] = extra
    return entry


def _notification(error: Any) -> dict[str, Any]:
    """A spec that could not be read at all: a tool execution notification, not a result."""
    note: dict[str, Any] = {"level": "error", "message": {"text": error.message}}
    if error.file is not None:
        note["locations"] = [_location(error.file, error.line, error.column)]
    return note


def check_sarif(outcomes: Iterable[CheckResult | GapstateError], catalogue: tuple[Any, ...], version: str) -> dict[str, Any]:
    """One SARIF run for the specs checked: `outcomes` holds each one's check result or the GapstateError that stopped it.

    `catalogue` is the finding classes, in their stable order; a kind missing
    from it still gets its rule, after the catalogue's.
    """
    checked = [o for o in outcomes if not isinstance(o, GapstateError)]
    failed = [o for o in outcomes if isinstance(o, GapstateError)]
    kinds = list(dict.fromkeys([*catalogue, *(type(f) for r in checked for f in r.findings)]))
    index = {cls.kind: i for i, cls in enumerate(kinds)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gapstate",
                        "version": version,
                        "rules": [reporting_rule(cls) for cls in kinds],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not failed,
                        "toolExecutionNotifications": [
                            *(_notification(error) for error in failed),
                            *({"level": "note", "message": {"text": r.untested_note(rule)},
                               "locations": [_location(r.spec, None, None)]} for r in checked for rule in r.untested()),
                        ],
                    }
                ],
                "results": [_result(f, r, index) for r in checked for f in r.findings],
                "properties": {"specs": [{"spec": r.spec, "stats": dict(r.stats)} for r in checked]},
            }
        ],
    }
