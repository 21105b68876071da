"""The white-box red team's folder: its hostile notebooks must never be collected or run by pytest (or nbval).

build_attacks.py writes them into the runner's --out folder only (it refuses a folder inside the repository);
should one land here anyway, nothing in this folder but the test file is collected.
"""
collect_ignore = ["build_attacks.py", "run_attacks.py"]
collect_ignore_glob = ["*.ipynb", "*/*.ipynb", "*/**/*.ipynb", "attacks*", "out*"]
