"""Collections of problems (issue #20, item 2): `retrologic solve FILE_OR_DIR...` walks
directories, solves every problem (in parallel processes with `-j N`), prints the records in input
order, then a table, a CSV file and the summary line.

walk: the problems a command line names; records: one problem's record and the batch's counts;
pool: worker processes (a crash is one problem's error); report: table, CSV, progress bars;
run: the `solve` subcommand that ties them together.
"""
