"""What every step of check_dashboards.py shares: the source tree's root,
the failure a check raises, the report lines, and running a tool.

Python 3 standard library only.
"""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Failure(Exception):
    pass


class Report:
    """Prints one line per check; a quiet report only records failure (for
    steps that reuse another step's machinery)."""

    def __init__(self, quiet=False):
        self.failed = False
        self.quiet = quiet

    def ok(self, msg):
        if not self.quiet:
            print(f"ok   {msg}")

    def fail(self, msg):
        self.failed = True
        if not self.quiet:
            print(f"FAIL {msg}")



def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout
