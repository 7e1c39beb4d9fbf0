"""``referee serve``: tournaments in the browser, live (see docs/serve.md).

- :mod:`~referee.web.journal`: a journal followed as it grows, authenticated line by line;
- :mod:`~referee.web.index`: what the pages show, kept in memory per folder, and the
  catalog of the folders under the served one;
- :mod:`~referee.web.app`: the Starlette app (pages, JSON, server-sent events, replays);
- :mod:`~referee.web.server`: running it with uvicorn, alone or beside a tournament.

The pages' script is ``static/serve.js``; the charts are Chart.js, vendored in
``static/vendor/chartjs`` (see its ``VENDOR.md``), so nothing is loaded from
the network.
"""

from referee.web.app import create_app
from referee.web.index import Catalog

__all__ = ["Catalog", "create_app"]
