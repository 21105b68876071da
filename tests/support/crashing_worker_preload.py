"""``dask worker --preload`` for tests/grading/test_cluster.py: a submission that takes its worker down.

A student's code runs in a sandboxed kernel and cannot reach the Dask worker, but the worker process can
still die while it grades (a segfault in a library, the kernel's OOM killer choosing the worker). This
preload stands in for that: the worker exits at once when it is given the submission of the student
named ``CRASHING_STUDENT``. With ``COURSE_WORKER_NEVER_STARTS`` set, the worker exits before it joins
the scheduler: a worker that never starts.
"""
import os

import autograder.cluster

CRASHING_STUDENT = "crashes_its_worker"


def dask_setup(worker):
    if os.environ.get("COURSE_WORKER_NEVER_STARTS"):
        os._exit(71)
    graded_as_usual = autograder.cluster.grade_on_worker

    def grade_or_crash(plugin_name, grade_one, task):
        if task.student_id == CRASHING_STUDENT:
            os._exit(70)
        return graded_as_usual(plugin_name, grade_one, task)

    autograder.cluster.grade_on_worker = grade_or_crash  # the client's tasks name it: they find this one
