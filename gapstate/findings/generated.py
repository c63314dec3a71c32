"""The drift finding: a file listed in the `generated` setting that is not what `gapstate gen` writes from this spec."""

from __future__ import annotations

from enum import Enum

from gapstate.findings.record import Cause, Finding, record
from gapstate.words import shell_word


class GeneratedProblem(Enum):
    """Why a generated file is stale; each value is its message template."""

    CHANGED = ("{path} was generated from another version of this spec (sha256 {recorded:.12}, the spec's is now "
               "{sha256:.12}); run `{command}` to regenerate it")
    MISSING = "{path} is listed in `generated` but is not there; run `{command}` to generate it"
    FOREIGN = ("{path} is listed in `generated` but carries no stamp of `gapstate gen`: write it with "
               "`gapstate gen`, or take it off the list")


@record
class StaleGenerated(Finding):
    """A decider generated from the spec whose stamp names another version of it, or none."""

    kind = "stale_generated"
    exported = ("path", "target")

    reason: GeneratedProblem
    path: str  # the generated file or crate folder, as the setting lists it
    target: str  # python or rust
    spec: str  # the spec's path, for the command that mends it
    recorded: str  # the sha256 the file's stamp names ("" without one)
    sha256: str  # the spec's, now

    def describe(self, cause: Cause | None = None) -> str:
        return self.reason.value.format(
            path=self.path, recorded=self.recorded, sha256=self.sha256,
            command=f"gapstate check --fix {shell_word(self.spec)}",
        )
