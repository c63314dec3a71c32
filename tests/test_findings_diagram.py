"""The diagram finding: the fix it gives names the spec's own file, quoted for the shell."""

from __future__ import annotations

import pytest

from gapstate.findings import DiagramProblem, StaleDiagram


@pytest.mark.parametrize("reason", list(DiagramProblem))
def test_the_fix_names_the_spec_quoted_for_the_shell(reason):
    message = StaleDiagram(12, 1, reason, "my spec.md").message
    assert "gapstate check --fix 'my spec.md'" in message
    assert message.endswith("(or `gapstate graph --update --spec 'my spec.md'`)")
