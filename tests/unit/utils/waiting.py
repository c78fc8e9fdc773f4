"""Wait for what a test expects to happen, instead of sleeping a fixed time that a loaded machine may overrun."""

import os
import time

# How much longer than on an idle machine a wait may take: the load average per CPU (a CI machine running the suite
# beside other work, a laptop building something), at least 1, at most this.
MAX_STRETCH = 10


def stretch() -> float:
    """The factor waits are stretched by on this machine now: its load average per CPU, between 1 and MAX_STRETCH."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # not available: assume the worst
        return float(MAX_STRETCH)
    return min(float(MAX_STRETCH), max(1.0, load / (os.cpu_count() or 1)))


def patient(seconds) -> float:
    """A deadline (time.time()) `seconds` from now on an idle machine, stretched by this machine's load."""
    return time.time() + seconds * stretch()


def wait_for(condition, deadline, interval=0.1):
    """Call condition() until it returns a true value or time.time() passes deadline; return its last value."""
    while True:
        value = condition()
        if value or time.time() >= deadline:
            return value
        time.sleep(interval)
