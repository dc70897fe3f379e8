"""The operator console's pages, one module each. Django's admin autodiscovery imports
``console.admin``; importing the pages here registers them."""

from console.admin import enduser, schema_editor

__all__ = ["enduser", "schema_editor"]
