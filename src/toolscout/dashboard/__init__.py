"""The dashboard: a local web page to tune tool search by looking (`toolscout dashboard`).

`Dashboard` holds the settings being tuned and answers the page's questions; `dashboard_app`
serves it as a JSON API and the page. The web parts need the `toolscout[dashboard]` extra.
"""

from toolscout.dashboard.checks import LabelledQuery, read_labelled_queries
from toolscout.dashboard.config_file import ConfigFile
from toolscout.dashboard.dashboard import Dashboard, GatewayAttachment

__all__ = [
    "ConfigFile",
    "Dashboard",
    "GatewayAttachment",
    "LabelledQuery",
    "read_labelled_queries",
]
