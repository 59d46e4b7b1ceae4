#!/bin/sh
# Smoke test of the bench root: the real clients start on this kernel.
echo "@@RUN hello"
uname -a
python3 -c 'import numpy, sqlite3, sys; print("python", sys.version.split()[0], "numpy", numpy.__version__, "sqlite", sqlite3.sqlite_version)' || exit 1
sqlite3 -version || exit 1
ls /mnt 2>/dev/null
exit 0
