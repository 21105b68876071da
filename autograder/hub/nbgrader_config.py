"""nbgrader's settings for a class: the exchange on a shared volume, the course id, the course directory.

Every user's Jupyter server loads this file. On JupyterHub (Zero to JupyterHub, see values.yaml)
it is mounted at /etc/jupyter/nbgrader_config.py with
``--set-file singleuser.extraFiles.nbgrader-config.stringData=autograder/hub/nbgrader_config.py``;
on one machine, copy it to /etc/jupyter/ (every account) or to $JUPYTER_CONFIG_DIR.
tests/grading/test_exchange.py runs release, fetch, submit, collect and grading with this very file.

Environment variables (values.yaml sets them in singleuser.extraEnv):

    NBGRADER_EXCHANGE_ROOT  the exchange, a folder every server can write (mode 1777):
                            the shared volume's mount point         (default /srv/nbgrader/exchange)
    NBGRADER_COURSE_ID      the course                             (default ngrams-to-bert)
    NBGRADER_COURSE_ROOT    the instructor's nbgrader course directory; students never use it
                                                                   (default ~/ngrams-to-bert)
"""
import os
import pwd

c = get_config()  # noqa: F821 (defined by the loader of nbgrader_config.py files)

EXCHANGE_ROOT = os.environ.get("NBGRADER_EXCHANGE_ROOT") or "/srv/nbgrader/exchange"
COURSE_ID = os.environ.get("NBGRADER_COURSE_ID") or "ngrams-to-bert"
COURSE_ROOT = os.path.expanduser(os.environ.get("NBGRADER_COURSE_ROOT") or "~/ngrams-to-bert")

c.Exchange.root = EXCHANGE_ROOT
c.CourseDirectory.course_id = COURSE_ID
c.CourseDirectory.root = COURSE_ROOT

# `nbgrader collect` warns when a submission's owner is not the student it names. On Zero to
# JupyterHub every server runs as the same Unix user (jovyan, uid 1000) and nbgrader takes the
# student's name from JUPYTERHUB_USER, so every submission would be flagged; with one Unix
# account per person (one machine, or per-user uids) the check stays on.
c.CollectApp.check_owner = pwd.getpwuid(os.getuid()).pw_name != "jovyan"
