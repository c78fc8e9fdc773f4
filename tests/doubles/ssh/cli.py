"""Entry point of the commands on an SSH double's PATH: `python -m tests.doubles.ssh.cli <command> <args...>`.

The wrappers in <state>/bin call this with DOUBLE_STATE set to the device's state directory.
"""

from __future__ import annotations

import importlib
import os
import sys

from tests.doubles.faults import Faults
from tests.doubles.ssh import state


def table(headers, rows):
    """Tabulate's "simple" format, as SONiC's show commands print (numbers right-aligned)."""
    columns = [[str(header)] + [str(row[index]) for row in rows] for index, header in enumerate(headers)]
    widths = [max(len(cell) for cell in column) for column in columns]

    def numeric(index):
        return all(str(row[index]).replace('-', '').replace('/', '').replace(',', '').isdigit() for row in rows) if rows else False

    def line(cells):
        return '  '.join(cell.rjust(width) if numeric(index) else cell.ljust(width)
                         for index, (cell, width) in enumerate(zip(cells, widths))).rstrip()
    out = [line([str(header) for header in headers]), '  '.join('-' * width for width in widths)]
    out.extend(line([str(cell) for cell in row]) for row in rows)
    return '\n'.join(out) + '\n'


def drop_my_session():
    """The management connection dies: kill the sshd processes serving this session (fault knob).

    Both the session process (`sshd: user@pts/N`) and its privileged monitor (`sshd: user [priv]`) go, so the
    TCP connection closes at once, as when a link or the management plane goes away; the listener stays.
    """
    pid, doomed = os.getppid(), []
    while pid > 1:
        try:
            with open('/proc/%d/cmdline' % pid, 'rb') as handle:
                command = handle.read().replace(b'\0', b' ').decode(errors='replace')
            with open('/proc/%d/stat' % pid, encoding='utf-8') as handle:
                parent = int(handle.read().rsplit(')', 1)[1].split()[1])
        except OSError:
            break
        if command.startswith('sshd: ') and '[listener]' not in command:
            doomed.append(pid)
        pid = parent
    import signal  # pylint: disable=import-outside-toplevel  # a fault knob's; not every command's
    for victim in reversed(doomed):
        os.kill(victim, signal.SIGKILL)


def drop_all_sessions():
    """The management interface restarts: every SSH session of this switch ends (its sshd session processes, found in
    this mount namespace: each switch has its own); the listener stays."""
    mine = os.readlink('/proc/self/ns/mnt')
    import signal  # pylint: disable=import-outside-toplevel
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            if os.readlink('/proc/%s/ns/mnt' % entry) != mine:
                continue
            with open('/proc/%s/cmdline' % entry, 'rb') as handle:
                command = handle.read().replace(b'\0', b' ').decode(errors='replace')
        except OSError:
            continue
        if command.startswith('sshd: ') and '[listener]' not in command:
            try:
                os.kill(int(entry), signal.SIGKILL)
            except OSError:
                pass


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    directory = os.environ.get('DOUBLE_STATE')
    if not directory or not argv:
        sys.stderr.write('tests.doubles.ssh.cli: DOUBLE_STATE and a command are required\n')
        return 2
    command, args = argv[0], argv[1:]
    kind = state.device(directory).get('kind')
    faults = Faults(directory, reread=False)
    if command in ('systemd-run', 'systemctl'):
        from tests.doubles.ssh import jobs
        return jobs.main(directory, command, args)
    if kind == 'sonic' and command in ('useradd', 'chpasswd', 'getent', 'id'):
        from tests.unit.platforms.sonic.double import accounts
        return accounts.COMMANDS[command](directory, args)
    # The NOS's own commands: its double's shell, in its platform's test folder (tests/unit/platforms/<kind>/double).
    shell = importlib.import_module('tests.unit.platforms.%s.double.shell' % kind)
    return shell.main(directory, faults, command, args)


if __name__ == '__main__':
    sys.exit(main())
