"""The referee console's static assets (``static/``), served by :mod:`service.docs.console`."""
