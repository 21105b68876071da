"""The instructors' side of the course: build notebooks from the single source and grade submissions.

Command line: ``python -m autograder --help``.
"""
