"""A local web page to watch and play the games: ``cardzoo serve`` (the ``web`` extra: Starlette
and uvicorn).

:mod:`cardzoo.web.app` is the Starlette application, :mod:`cardzoo.web.sessions` the games kept in
the server's memory, :mod:`cardzoo.web.replays` the recorded matches it serves, and ``static/``
the page itself (plain HTML, CSS and JavaScript, no build step).

Layer: the table (with :mod:`cardzoo.table` and :mod:`cardzoo.recording`); only the command line
imports it.
"""
