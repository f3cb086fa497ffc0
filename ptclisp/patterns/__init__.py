"""PTC regular expressions.

    engine.py  patterns compiled within the size limit and run with timeouts
    size.py    how large a pattern becomes once its repeat counts are written out (a leaf)
"""
