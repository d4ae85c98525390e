"""``omensim desk``: the designer's desk, a local web application over the CLI.

It sits at the top layer beside :mod:`sim.cli` and :mod:`sim.api`: it reads card
tables and answer folders through the data and analysis layers, and plays every
question by running the ``omensim`` command line in a worker process, so each
answer is the folder that command writes and the page shows the command that
reproduces it. The web framework (Starlette, served by uvicorn) is the optional
extra ``pip install -e '.[desk]'``; nothing here imports it until the desk starts.

Modules, one job each: :mod:`~sim.desk.workspace` (the folder the desk may touch),
:mod:`~sim.desk.changesets` (named card edits saved as TOML),
:mod:`~sim.desk.questions` (a form to the command line that answers it),
:mod:`~sim.desk.jobs` (worker processes, their progress, cancel),
:mod:`~sim.desk.answers` (what an answer folder says), :mod:`~sim.desk.charts`
(its charts), :mod:`~sim.desk.app` (the pages), :mod:`~sim.desk.server` (serving them).
"""
