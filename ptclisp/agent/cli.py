"""Placeholder; replaced below."""
def cli_main(argv=None):
    raise NotImplementedError
