"""Tools and what a host hands in.

    tools.py         ToolSet, tool specs, calling a tool from an evaluation and recording it
    tool_threads.py  the pooled threads tool calls run on (a blocking call is abandoned at the deadline)
    calling.py       how a plain Python callable is called as a tool, and its argument schema
    inputs.py        the check of what a host hands the embedding API
"""
