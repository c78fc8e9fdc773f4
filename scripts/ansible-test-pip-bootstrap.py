"""Stand-in for ansible-test's pip bootstrap script (get-pip.py).

ansible-test downloads that script from ci-files.testing.ansible.com, which these machines cannot reach;
it also looks in ~/.ansible/test/cache/get_pip_<version>.py first, where `make` puts this file.
It does the same job: put pip into the new virtual environment (the interpreter's bundled wheel via
ensurepip), then `pip install` the packages ansible-test asked for, from PyPI.
"""

import subprocess
import sys

GET_PIP_ONLY_FLAGS = {'--no-setuptools', '--no-wheel'}

arguments = [argument for argument in sys.argv[1:] if argument not in GET_PIP_ONLY_FLAGS]
subprocess.check_call([sys.executable, '-m', 'ensurepip', '--default-pip'], stdout=subprocess.DEVNULL)
subprocess.check_call([sys.executable, '-m', 'pip', 'install'] + arguments)
