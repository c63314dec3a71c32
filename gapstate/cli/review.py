"""Reviewing a change: `gapstate diff`."""

from __future__ import annotations


import click

from gapstate.cli.base import (
    FORMAT,
    main,
    reports_errors,
)


@main.command()
@click.argument("paths", nargs=-1, metavar="OLD NEW | --git REV PATH")
@click.option("--git", "revision", metavar="REV", default=None, help="Compare PATH as it was at git revision REV with PATH in the working tree.")
@FORMAT
@reports_errors
def diff(paths: tuple[str, ...], revision: str | None, fmt: str) -> int:
    """Show what a change to the table does to behaviour, per (state, event, guard valuation).

    Also caps, names, the allow-list and rows whose reachability changed.
    Reordering, reformatting and splitting a row into rows with the same
    outcome is no change. Exit 0 when nothing changed, 1 when something did,
    2 when either table cannot be used (the message names the file).
    """
    from gapstate.cli.render import to_json
    from gapstate.cli.render.review import diff_text
    from gapstate.review.diff import diff as compare
    from gapstate.spec.load import load_spec, parse_spec
    from gapstate.spec.source import read_revision

    wanted = 1 if revision is not None else 2
    if len(paths) != wanted:
        usage = "--git REV PATH takes one PATH" if revision is not None else "diff takes OLD and NEW (or --git REV PATH)"
        raise click.UsageError(f"{usage}; got {len(paths)} path{'s' if len(paths) != 1 else ''}")
    if revision is not None:
        name, text = read_revision(revision, paths[0])
        old, new = parse_spec(text, name), load_spec(paths[0])
    else:
        old, new = load_spec(paths[0]), load_spec(paths[1])
    result = compare(old, new)
    click.echo(to_json(result.to_dict()) if fmt == "json" else diff_text(result))
    return 0 if result.same else 1
