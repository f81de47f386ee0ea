"""The conformance battery (``rpcspy conform``): cases as data, judged without I/O.

:mod:`.script` holds the steps a case performs and the transcript the runner hands back;
:mod:`.cases` the battery itself; :mod:`.report` the text, JSON and JUnit output. The
runner that starts agents and executes the steps is :mod:`rpcspy.pump.commands.conform_runner`.
"""
