# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""File and command access for the host modules, relative to a root and a tool search path.

`root` prefixes every absolute path (/sys, /proc, /etc, /lib/modules), `bin_path` restricts where tools are
looked up. Production runs use root '/' and the normal PATH; the role tests point both at a fake sysfs/proc
tree and stub executables, so the real module logic runs without hardware.
"""

from __future__ import annotations

import os
import shlex


# Options of every module that reads the host through HostAccess (documented by the aifabric.fabric.host_access
# doc fragment).
HOST_ACCESS_OPTIONS = dict(root=dict(type='path', default='/'), bin_path=dict(type='list', elements='path'))


def host_access(module):
    """The HostAccess of a module whose argument spec includes HOST_ACCESS_OPTIONS."""
    return HostAccess(module, module.params['root'], module.params['bin_path'])


class HostAccess:
    def __init__(self, module, root='/', bin_path=None):
        self.module = module
        self.root = root or '/'
        self.bin_path = list(bin_path or [])
        self.calls = []

    # ------------------------------------------------------------------ files
    def path(self, path):
        if self.root in ('', '/'):
            return path
        return os.path.join(self.root, path.lstrip('/'))

    def exists(self, path):
        return os.path.exists(self.path(path))

    def isdir(self, path):
        return os.path.isdir(self.path(path))

    def read(self, path, default=None):
        """File content, or `default` when it is missing or unreadable (sysfs EINVAL, EACCES)."""
        try:
            with open(self.path(path), 'r', encoding='utf-8', errors='replace') as handle:
                return handle.read()
        except (OSError, IOError):
            return default

    def listdir(self, path):
        try:
            return sorted(os.listdir(self.path(path)))
        except (OSError, IOError):
            return []

    def link_name(self, path):
        """Basename of a symlink's target (sysfs device/driver links), None when absent."""
        try:
            return os.path.basename(os.readlink(self.path(path)).rstrip('/'))
        except (OSError, IOError):
            return None

    def write(self, path, value):
        """Write a sysfs/configfs value; returns None on success or the error text."""
        try:
            with open(self.path(path), 'w', encoding='utf-8') as handle:
                handle.write(str(value))
            return None
        except (OSError, IOError) as exc:
            return '%s: %s' % (path, exc.strerror or exc)

    def mkdir(self, path):
        try:
            os.mkdir(self.path(path))
            return None
        except FileExistsError:
            return None
        except (OSError, IOError) as exc:
            return '%s: %s' % (path, exc.strerror or exc)

    # ------------------------------------------------------------------ tools
    def which(self, tool):
        if self.bin_path:
            for directory in self.bin_path:
                candidate = os.path.join(directory, tool)
                if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                    return candidate
            return None
        return self.module.get_bin_path(tool, required=False)

    def run(self, argv):
        """Run argv[0] found by which(); returns (rc, stdout, stderr); rc 127 when the tool is missing."""
        executable = self.which(argv[0])
        if executable is None:
            return 127, '', '%s: command not found' % argv[0]
        self.calls.append(argv)
        rc, out, err = self.module.run_command([executable] + list(argv[1:]),
                                               environ_update={'LC_ALL': 'C', 'LANG': 'C'})
        return rc, out, err


def command_text(argv):
    return ' '.join(shlex.quote(str(part)) for part in argv)


def kernel_release(host):
    """Kernel release of the (possibly fake) root: /proc/sys/kernel/osrelease, else os.uname()."""
    text = host.read('/proc/sys/kernel/osrelease')
    if text and text.strip():
        return text.strip()
    if host.root in ('', '/'):
        return os.uname().release
    return None
