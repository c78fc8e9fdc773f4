"""Wait for what a test expects to happen, instead of sleeping a fixed time that a loaded machine may overrun."""

import time


def wait_for(condition, deadline, interval=0.1):
    """Call condition() until it returns a true value or time.time() passes deadline; return its last value."""
    while True:
        value = condition()
        if value or time.time() >= deadline:
            return value
        time.sleep(interval)
