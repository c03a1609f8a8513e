"""Blank ballots drawn from the layout: kept here for older imports.

The renderer lives in `tabulate.election.render`, so that detection can draw
the blank page it compares against without loading the voter and scanner
simulator.
"""

from ..election.render import pdf_bytes, png_bytes, render_page, render_sheet, style_code_text, write_pdf

__all__ = ["pdf_bytes", "png_bytes", "render_page", "render_sheet", "style_code_text", "write_pdf"]
