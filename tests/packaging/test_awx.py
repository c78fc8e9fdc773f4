# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The example AWX project (examples/awx) the way AWX uses it, without an AWX server:

- its inventory source: `ansible-inventory --list --export -i <source>` in the project directory, as an AWX
  inventory update runs it, with the project's ansible.cfg and with Ansible's defaults;
- its job templates: ansible-runner (what AWX runs jobs with) on a private data directory laid out like AWX's,
  the project copied in, the imported inventory handed over as a script, survey answers as extra variables and
  the collection installed from its tarball, then the runner's artifacts: rc, status, stats and the set_stats
  data of the job events (what AWX shows as the job's artifacts).
"""

import json
import os
import re
import socket
import stat
import tempfile
import time

import pytest
import yaml

from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric.design import design_from_file
from tests.doubles.fleet import TEST_PASSWORD_HASH
from tests.packaging.conftest import EXAMPLE_PROJECT, ROOT, ansible_env, run
from tests.unit.utils.ansible_cli import ansible_cli

PLUGIN_GROUP = re.compile(r'^(all|ungrouped|switches|leaf|spine|super_spine|gpu_servers|fabric_pod1|platform_sonic|'
                          r'rail_\d+|pod_\d+)$')
# Every device of the example fabric, as the design sizes it (servers, rail leaves, spines).
POD1_DEVICES = len(design_from_file(os.path.join(EXAMPLE_PROJECT, 'fabrics', 'pod1.yml')).nodes)
SURVEY_TYPES = {'text': str, 'textarea': str, 'password': str, 'multiplechoice': str, 'multiselect': (str, list),
                'integer': int, 'float': (float, int)}


def inventory_update(project, source, config, installed):
    """`ansible-inventory --list --export` on the source, in the project directory, like an AWX inventory update."""
    env = ansible_env(collections_path=installed, config=config, ANSIBLE_INVENTORY_UNPARSED_FAILED='True',
                      ANSIBLE_INVENTORY_EXPORT='True')
    playbook_dir = source if os.path.isdir(source) else os.path.dirname(source)
    return run(ansible_cli('inventory') + ['--list', '--export', '-i', str(source), '--playbook-dir', str(playbook_dir)],
               env=env, cwd=str(project))


@pytest.mark.parametrize('source', ['inventory/pod1', 'inventory/pod1/pod1.fabric.yml'])
@pytest.mark.parametrize('settings', ['project ansible.cfg', 'Ansible defaults'])
def test_inventory_source_imports_the_fabric_and_nothing_else(project, installed, empty_config, source, settings):
    config = str(project / 'ansible.cfg') if settings == 'project ansible.cfg' else empty_config
    result = inventory_update(project, project / source, config, installed)
    assert result.returncode == 0, result.stderr
    assert 'WARNING' not in result.stderr, result.stderr
    data = json.loads(result.stdout)
    groups = set(data) - {'_meta'}
    assert sorted(group for group in groups if not PLUGIN_GROUP.match(group)) == []
    assert len(data['_meta']['hostvars']) == POD1_DEVICES
    # Plain strings (AWX stores them as they are), the fabric's output directory and the project's group_vars.
    assert data['fabric_pod1']['vars'] == {'aifabric_output_dir': str(project / 'out' / 'pod1'), 'ansible_user': 'admin'}
    assert data['_meta']['hostvars']['leaf001'] == {
        'aifabric_fabric': 'pod1', 'aifabric_intent': str(project / 'fabrics' / 'pod1.yml'), 'aifabric_platform': 'sonic',
        'aifabric_role': 'leaf', 'ansible_host': '172.16.10.10', 'aifabric_deploy_batch': 1}


def test_an_intent_inside_the_inventory_directory_is_read_as_inventory_with_default_settings(project, installed, empty_config):
    """Why the example keeps the intent in fabrics/: next to the plugin file, Ansible's default plugins read it too."""
    inventory = project / 'inventory' / 'pod1'
    os.rename(project / 'fabrics' / 'pod1.yml', inventory / 'intent.yml')
    config = inventory / 'pod1.fabric.yml'
    config.write_text(config.read_text().replace('../../fabrics/pod1.yml', 'intent.yml'))
    result = inventory_update(project, inventory, empty_config, installed)
    assert result.returncode == 0, result.stderr
    # The YAML inventory plugin takes the intent's top-level keys for groups.
    assert "[WARNING]: Skipping 'name' as this is not a valid group definition" in result.stderr
    assert 'Skipping unexpected key (rail_optimized) in group (topology)' in result.stderr


@pytest.mark.parametrize('name', ['render', 'validate', 'deploy'])
def test_surveys_are_valid_and_feed_documented_variables(name):
    with open(os.path.join(EXAMPLE_PROJECT, 'surveys', name + '.json'), encoding='utf-8') as handle:
        survey = json.load(handle)
    assert survey['name'] and survey['description'] and survey['spec']
    if name == 'render':
        with open(os.path.join(ROOT, 'playbooks', 'render.yml'), encoding='utf-8') as handle:
            documented = set(re.findall(r'^#   (aifabric_render_\w+) ', handle.read(), re.M))
    else:
        role = {'validate': 'validate', 'deploy': 'switch_deploy'}[name]
        with open(os.path.join(ROOT, 'roles', role, 'meta', 'argument_specs.yml'), encoding='utf-8') as handle:
            documented = set(yaml.safe_load(handle)['argument_specs']['main']['options'])
    variables = [question['variable'] for question in survey['spec']]
    assert len(set(variables)) == len(variables)
    assert sorted(set(variables) - documented) == []
    for question in survey['spec']:
        assert isinstance(question['question_name'], str) and isinstance(question['required'], bool)
        assert question['type'] in SURVEY_TYPES, question
        if question.get('default', '') != '':
            assert isinstance(question['default'], SURVEY_TYPES[question['type']]), question
        if question['type'] in ('multiplechoice', 'multiselect'):
            choices = question['choices'].split('\n') if isinstance(question['choices'], str) else question['choices']
            # a multiselect's default is the selected choices, one per line, and may select none
            defaults = [item for item in str(question['default']).split('\n') if item] \
                if question['type'] == 'multiselect' else [str(question['default'])]
            assert set(defaults) <= set(choices), question
        for bound in ('min', 'max'):
            assert bound not in question or isinstance(question[bound], int)


def credential_type():
    with open(os.path.join(EXAMPLE_PROJECT, 'credential_types', 'switch_users.yml'), encoding='utf-8') as handle:
        return yaml.safe_load(handle)


def _render_injector(node, inputs):
    """Every string of an injector rendered as a Jinja template of the credential's inputs (and `tower.filename`, the
    files AWX wrote), nested mappings kept (nested extra_vars: ansible/awx pull request 13267, AWX 21.10+)."""
    import jinja2.sandbox  # pylint: disable=import-outside-toplevel
    environment = jinja2.sandbox.ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)
    if isinstance(node, dict):
        return {_render_injector(key, inputs): _render_injector(value, inputs) for key, value in node.items()}
    return environment.from_string(node).render(**inputs) if isinstance(node, str) else node


def injected_extra_vars(inputs):
    """The extra variables AWX injects for a credential of the example's type."""
    return _render_injector(credential_type()['injectors'].get('extra_vars', {}), inputs)


def inject_credential(inputs, private):
    """What AWX gives a job for a credential of the example's type, by each kind of injector it has (AWX's
    CredentialType.inject_credential): `file` templates written to files of the job's private data directory
    (mode 0600; `tower.filename` names the file, `tower.filename.<name>` one of several), then `env` and
    `extra_vars` rendered with the inputs and those names. Returns (envvars, extravars)."""
    injectors = credential_type()['injectors']
    files = {}
    for key, template in sorted((injectors.get('file') or {}).items()):
        descriptor, path = tempfile.mkstemp(prefix='awx-credential-', dir=str(private))
        with os.fdopen(descriptor, 'w', encoding='utf-8') as handle:
            handle.write(_render_injector(template, inputs))
        files[key.split('.', 1)[1] if '.' in key else None] = path
    namespace = dict(inputs)
    if files:
        namespace['tower'] = {'filename': files.get(None) or files}
    return (_render_injector(injectors.get('env') or {}, namespace),
            _render_injector(injectors.get('extra_vars') or {}, namespace))


def test_the_switch_users_credential_type_is_what_awx_takes_and_gives_the_variable_render_and_deploy_read():
    definition = credential_type()
    assert set(definition) == {'name', 'kind', 'inputs', 'injectors'} and definition['kind'] == 'cloud'
    fields = {field['id']: field for field in definition['inputs']['fields']}
    assert definition['inputs']['required'] == list(fields) and all(field['secret'] for field in fields.values())
    with open(os.path.join(EXAMPLE_PROJECT, 'fabrics', 'pod1.yml'), encoding='utf-8') as handle:
        users = [user['name'] for user in yaml.safe_load(handle)['management']['users']]
    assert injected_extra_vars({name: 'x' for name in fields}) == {'aifabric_switch_users': {name: 'x' for name in users}}


def test_the_check_survey_offers_every_check_and_nothing_else():
    """A multiple choice, so a typo cannot fail the job; its choices are the registered checks."""
    from ansible_collections.aifabric.fabric.plugins.plugin_utils.fabric import checks
    with open(os.path.join(EXAMPLE_PROJECT, 'surveys', 'validate.json'), encoding='utf-8') as handle:
        (question,) = [item for item in json.load(handle)['spec'] if item['variable'] == 'validate_checks']
    assert question['type'] == 'multiselect' and question['choices'].split('\n') == list(checks.REGISTRY)


def _script_inventory(path, data):
    """The job's inventory as AWX hands it over: an executable that prints the imported inventory as JSON."""
    path.write_text('#!%s\nimport sys\nsys.stdout.write(%r)\n' % ('/usr/bin/env python3', json.dumps(data)))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def awx_job(tmp_path, project, installed, monkeypatch):
    """Run one job template of the example project with ansible-runner; returns the runner's result object."""
    import ansible_runner
    # As in an AWX job: the project's ansible.cfg, found in the working directory; no PWD of this test run.
    monkeypatch.delenv('ANSIBLE_CONFIG', raising=False)
    monkeypatch.delenv('PWD', raising=False)
    private = tmp_path / 'private'
    private.mkdir()
    os.rename(project, private / 'project')
    imported = inventory_update(private / 'project', private / 'project' / 'inventory' / 'pod1',
                                str(private / 'project' / 'ansible.cfg'), installed)
    assert imported.returncode == 0, imported.stderr
    (private / 'inventory').mkdir()
    _script_inventory(private / 'inventory' / 'hosts', json.loads(imported.stdout))

    def launch(playbook, survey_answers, credential=True, hostvars=None, **runner_options):
        """`credential`: the "aifabric switch users" credential attached (True: the test hash; or its inputs);
        `hostvars`: host variables the job's inventory adds (where the devices are); `runner_options`: what AWX
        passes for the job template's settings (cmdline '--check --diff' for job type Check with Show Changes,
        limit)."""
        env = ansible_env(collections_path=installed)
        inputs = {'admin_password_hash': TEST_PASSWORD_HASH} if credential is True else credential
        envvars, extravars = inject_credential(inputs, private) if inputs else ({}, {})
        if hostvars:
            data = json.loads(imported.stdout)
            for name, variables in hostvars.items():
                data['_meta']['hostvars'].setdefault(name, {}).update(variables)
            _script_inventory(private / 'inventory' / 'hosts', data)
        # As AWX runs a job template with the credential attached: its injected extra variables under the survey's
        # answers, in the private data directory's env/extravars (mode 0600), which ansible-runner passes on as
        # `-e @<file>`; extravars given to ansible_runner.run() itself would be on the command line, in the job's
        # `command` artifact. ansible-runner runs ansible-playbook in <private>/project with the envvars on top of its
        # own environment.
        (private / 'env').mkdir(exist_ok=True)
        descriptor = os.open(private / 'env' / 'extravars', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, 'w', encoding='utf-8') as handle:
            json.dump(dict(extravars, **survey_answers), handle)
        return ansible_runner.run(private_data_dir=str(private), playbook=playbook, inventory=str(private / 'inventory' / 'hosts'),
                                  envvars=dict(envvars, ANSIBLE_COLLECTIONS_PATH=installed, PATH=env['PATH']),
                                  quiet=True, **runner_options)
    launch.private = private
    return launch


def _artifacts(result):
    """The set_stats data as AWX reads it: the artifact_data of the playbook_on_stats event."""
    (stats,) = [event for event in result.events if event.get('event') == 'playbook_on_stats']
    return stats['event_data'].get('artifact_data', {})


def test_render_job_publishes_counts_and_where_the_files_are(awx_job, tmp_path):
    persistent = tmp_path / 'persistent'
    result = awx_job('render.yml', {'aifabric_render_out': str(persistent), 'aifabric_render_devices': '',
                                    'aifabric_render_docs': 'true'})
    assert (result.rc, result.status) == (0, 'successful'), result.stdout.read()
    assert result.stats['failures'] == {} and result.stats['changed'] == {'localhost': 1}
    published = _artifacts(result)['aifabric_render']['pod1']
    assert published['devices'] == POD1_DEVICES and published['failed'] is False
    assert published['written'] == published['files'] > POD1_DEVICES
    assert published['dest'] == str(persistent / 'pod1')
    assert published['index'] == str(persistent / 'pod1' / 'docs' / 'index.md')
    assert len(os.listdir(persistent / 'pod1' / 'configs')) == POD1_DEVICES
    # The runner's own artifacts, as AWX stores them for the job.
    ident = os.path.join(str(awx_job.private), 'artifacts', result.config.ident)
    with open(os.path.join(ident, 'rc'), encoding='utf-8') as rc, open(os.path.join(ident, 'status'), encoding='utf-8') as status:
        assert (rc.read().strip(), status.read().strip()) == ('0', 'successful')


def test_render_job_with_empty_survey_answers_uses_the_inventory_output_dir(awx_job):
    result = awx_job('render.yml', {'aifabric_render_out': '', 'aifabric_render_devices': 'leaf001, spine001\ngpu0001',
                                    'aifabric_render_docs': 'false'})
    assert (result.rc, result.status) == (0, 'successful'), result.stdout.read()
    published = _artifacts(result)['aifabric_render']['pod1']
    out = awx_job.private / 'project' / 'out' / 'pod1'
    assert (published['devices'], published['dest'], published['index']) == (3, str(out), None)
    assert sorted(os.listdir(out / 'configs')) == ['gpu0001', 'leaf001', 'spine001']


def test_failed_render_job_still_publishes_what_failed(awx_job):
    result = awx_job('render.yml', {'aifabric_render_out': '', 'aifabric_render_devices': 'leaf001 leaf999',
                                    'aifabric_render_docs': 'true'})
    assert result.status == 'failed' and result.rc != 0
    assert result.stats['failures'] == {'localhost': 1}
    published = _artifacts(result)['aifabric_render']['pod1']
    assert published['failed'] is True and 'leaf999' in published['msg']
    assert not (awx_job.private / 'project' / 'out').exists()


def test_validate_job_runs_the_checks_a_multiple_choice_answer_selects(awx_job):
    """AWX hands a multiselect answer over as a list."""
    result = awx_job('validate.yml', {'validate_gather': 'false', 'validate_checks': ['lossless_pfc', 'lossless_ecn'],
                                      'validate_out': ''})
    assert (result.rc, result.status) == (0, 'successful'), result.stdout.read()
    with open(_artifacts(result)['aifabric_validate']['pod1']['report'], encoding='utf-8') as handle:
        report = json.load(handle)
    assert {item['check'] for item in report['results']} == {'lossless_pfc', 'lossless_ecn'}


def test_a_validate_job_that_cannot_run_still_publishes_why(awx_job):
    """An answer the role refuses (a check id that does not exist, typed into the API or an old survey)."""
    result = awx_job('validate.yml', {'validate_gather': 'false', 'validate_checks': 'lossless_pfcc', 'validate_out': ''})
    assert result.status == 'failed'
    published = _artifacts(result)['aifabric_validate']['pod1']
    assert published['ok'] is False and published['verdict'] == 'NOT RUN' and 'lossless_pfcc' in published['error']


def test_validate_job_before_deploy_publishes_the_check_summary(awx_job):
    """validate_gather=false (the survey's "Read device state: false"): design checks only, no device contacted."""
    result = awx_job('validate.yml', {'validate_gather': 'false', 'validate_settle_timeout': 60, 'validate_ping_peers': 4,
                                      'validate_checks': '', 'validate_out': ''})
    assert (result.rc, result.status) == (0, 'successful'), result.stdout.read()
    assert result.stats['failures'] == {} and result.stats['dark'] == {}
    published = _artifacts(result)['aifabric_validate']['pod1']
    assert published['ok'] is True and published['failed'] == published['errors'] == published['failures_total'] == 0
    assert published['checks_run'] == published['passed'] > 0 and published['devices'] == POD1_DEVICES
    with open(published['report'], encoding='utf-8') as handle:
        report = json.load(handle)
    assert published['report'] == str(awx_job.private / 'project' / 'out' / 'pod1' / 'validation' / 'report.json')
    assert {key: published[key] for key in report['summary']} == report['summary']
    with open(os.path.join(ROOT, 'docs', 'awx.md'), encoding='utf-8') as handle:  # the page shows this run's figures
        shown = re.search(r'checks_run: (\d+), passed: (\d+), .*, results: (\d+), devices: (\d+)', handle.read())
    expected = (published['checks_run'], published['passed'], published['results'], published['devices'])
    assert tuple(int(value) for value in shown.groups()) == expected


# -- the deploy job template, job type Check with Show Changes, against device doubles of the example's switches ----
DEPLOY_ANSWERS = {'switch_deploy_confirm_timeout': 300, 'switch_deploy_gate_timeout': 120, 'switch_deploy_gate_interval': 5}


def _fresh_password_hash():
    """A SHA-512 crypt hash nobody else uses (what the credential holds): a random salt of a random password."""
    import secrets  # pylint: disable=import-outside-toplevel
    done = run(['openssl', 'passwd', '-6', '-salt', secrets.token_hex(8), '-stdin'], input=secrets.token_urlsafe(16))
    assert done.returncode == 0 and done.stdout.startswith('$6$'), done.stderr
    return done.stdout.strip()


def _deploy_artifacts_documented():
    """The keys docs/awx.md shows under aifabric deploy's published results."""
    with open(os.path.join(ROOT, 'docs', 'awx.md'), encoding='utf-8') as handle:
        text = handle.read()
    block = re.search(r'```yaml\n(switch_deploy_outcomes:.*?)```', text, re.S)
    assert block, 'docs/awx.md shows what the deploy job publishes'
    return set(re.findall(r'^(switch_deploy_\w+):', block.group(1), re.M))


def _running(fleet):
    """What every double runs (CONFIG_DB and FRR's running configuration), and its deploy state directory."""
    from tests.unit.platforms.sonic.double import shell as sonic  # pylint: disable=import-outside-toplevel
    found = {}
    for name in fleet.endpoints:
        directory = fleet.state_dir_of(name)
        with open(os.path.join(directory, 'frr', 'running.conf'), encoding='utf-8') as handle:
            found[name] = json.dumps(sonic.running(directory), sort_keys=True) + handle.read()
    return found


def _every_artifact_file(private):
    for folder, _dirs, names in os.walk(os.path.join(str(private), 'artifacts')):
        for name in names:
            with open(os.path.join(folder, name), 'rb') as handle:
                yield os.path.join(folder, name), handle.read()


@pytest.fixture
def pod1_doubles(tmp_path):
    """A SONiC double for every switch of the example fabric (tests/doubles/fleet.py), converged; yields the fleet
    and the host variables that point the job's inventory at them (the Machine credential's user and key)."""
    import sys  # pylint: disable=import-outside-toplevel
    from tests.doubles import faults  # pylint: disable=import-outside-toplevel
    from tests.doubles.fleet import Fleet, load_design  # pylint: disable=import-outside-toplevel
    fleet = Fleet(load_design(os.path.join(EXAMPLE_PROJECT, 'fabrics', 'pod1.yml')), str(tmp_path / 'fleet')).start()
    try:
        for name in fleet.endpoints:
            faults.write(fleet.state_dir_of(name), convergence_s=0)
        with open(os.path.join(fleet.state_dir, 'inventory.yml'), encoding='utf-8') as handle:
            hosts = yaml.safe_load(handle)['all']['hosts']
        # the execution environment's Python runs the deploy's modules (napalm, netmiko are installed there)
        yield fleet, {name: dict(variables, ansible_python_interpreter=sys.executable) for name, variables in hosts.items()}
    finally:
        fleet.stop()


def test_deploy_job_in_check_mode_shows_every_diff_changes_nothing_and_leaks_no_credential(awx_job, pod1_doubles):
    """The workflow's first nodes as AWX runs them: render (the generation a person reviews), then the deploy job
    template with job type Check and Show Changes (--check --diff), limited to the switches, the switch users
    credential injected by its type's injectors and the deploy survey answered."""
    fleet, hostvars = pod1_doubles
    secret = _fresh_password_hash()
    rendered = awx_job('render.yml', {'aifabric_render_out': '', 'aifabric_render_devices': '', 'aifabric_render_docs': 'false'},
                       credential={'admin_password_hash': secret})
    assert (rendered.rc, rendered.status) == (0, 'successful'), rendered.stdout.read()
    before = _running(fleet)
    result = awx_job('deploy.yml', DEPLOY_ANSWERS, credential={'admin_password_hash': secret}, hostvars=hostvars,
                     cmdline='--check --diff', limit='switches')
    stdout = result.stdout.read()
    assert (result.rc, result.status) == (0, 'successful'), stdout[-6000:]
    published = _artifacts(result)
    assert set(published) == _deploy_artifacts_documented()
    assert published['switch_deploy_outcomes'] == {name: 'would_change' for name in fleet.endpoints}
    assert published['switch_deploy_stopped_at'] is None and published['switch_deploy_errors'] == []
    # every switch's diff is in the job's events (what AWX shows with Show Changes), its password hash not
    diffs = {event['event_data']['host'] for event in result.events
             if event.get('event') == 'runner_on_ok' and event['event_data'].get('res', {}).get('diff')}
    assert diffs == set(fleet.endpoints)
    assert stdout.count('+++ CONFIG_DB (rendered)') == stdout.count('+++ FRR (rendered)') == len(fleet.endpoints)
    assert stdout.count('~user admin: password changes') == len(fleet.endpoints) and '$6$' not in stdout
    # check mode reports what would change as changed (Ansible's convention) and changes nothing
    assert set(result.stats['changed']) == set(fleet.endpoints)
    assert _running(fleet) == before, 'check mode changed a switch'
    # the credential's secret is nowhere in what the runner keeps of the job (events, stdout, command, env)
    digest = secret.rsplit('$', 1)[1]
    leaks = [path for path, data in _every_artifact_file(awx_job.private) if digest.encode() in data]
    assert leaks == [] and secret not in stdout


def test_deploy_job_with_a_wrong_survey_answer_touches_no_switch_and_publishes_why(awx_job):
    """A gate that outlasts the confirm timer (each answer within its survey bounds, their sum not): the job fails
    before any switch is touched (every switch points at a loopback port that counts connections) and publishes its
    outcomes, every switch untouched, and the reason."""
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(64)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    try:
        from tests.doubles.fleet import load_design, plan  # pylint: disable=import-outside-toplevel
        switches = [entry['name'] for entry in plan(load_design(os.path.join(EXAMPLE_PROJECT, 'fabrics', 'pod1.yml')))]
        hostvars = {name: {'ansible_host': '127.0.0.1', 'ansible_port': port} for name in switches}
        answers = dict(DEPLOY_ANSWERS, switch_deploy_gate_timeout=300)
        result = awx_job('deploy.yml', answers, hostvars=hostvars, cmdline='--check --diff', limit='switches')
        stdout = result.stdout.read()
        assert result.status == 'failed' and result.rc != 0
        assert 'switch_deploy_gate_timeout (300 s)' in stdout and 'Nothing was pushed' in stdout
        with pytest.raises(BlockingIOError):
            listener.accept()  # no connection reached a switch
    finally:
        listener.close()
    published = _artifacts(result)
    assert set(published) == _deploy_artifacts_documented()
    assert published['switch_deploy_outcomes'] == {name: 'untouched' for name in switches}
    assert published['switch_deploy_stopped_at'] is None
    (error,) = published['switch_deploy_errors']
    assert 'switch_deploy_gate_timeout (300 s)' in error and 'switch_deploy_confirm_timeout (300 s)' in error


def survey_defaults(job):
    """A job template's survey answered by pressing Next: every question's default, as AWX sends it."""
    with open(os.path.join(EXAMPLE_PROJECT, 'surveys', job + '.json'), encoding='utf-8') as handle:
        return {item['variable']: item.get('default', '') for item in json.load(handle)['spec']}


def test_render_and_deploy_job_templates_run_as_shipped_with_their_survey_defaults(awx_job, pod1_doubles):
    """Issue 38's "done when", the workflow's deploying nodes on device doubles of the example's 10 switches: the
    render job template and then the deploy job template with job type Run, each launched with its survey's defaults
    and the credentials the project documents (a Machine credential for the switches, the switch users credential);
    every double takes its configuration and the confirm timer confirms it; then the validate job template, its survey's
    defaults reading every switch's state, passes on what was deployed. The servers of the example are no containers
    here: the deploy and the validation run with the limit "switches"."""
    fleet, hostvars = pod1_doubles
    rendered = awx_job('render.yml', survey_defaults('render'))
    assert (rendered.rc, rendered.status) == (0, 'successful'), rendered.stdout.read()[-6000:]
    before = _running(fleet)
    deployed = awx_job('deploy.yml', survey_defaults('deploy'), hostvars=hostvars, limit='switches')
    assert (deployed.rc, deployed.status) == (0, 'successful'), deployed.stdout.read()[-6000:]
    published = _artifacts(deployed)
    assert published['switch_deploy_outcomes'] == {name: 'confirmed' for name in fleet.endpoints}
    assert published['switch_deploy_stopped_at'] is None and published['switch_deploy_errors'] == []
    after = _running(fleet)
    assert [name for name in fleet.endpoints if after[name] == before[name]] == [], 'a switch kept its configuration'
    again = awx_job('deploy.yml', survey_defaults('deploy'), hostvars=hostvars, limit='switches')
    assert (again.rc, again.status) == (0, 'successful'), again.stdout.read()[-6000:]
    assert _artifacts(again)['switch_deploy_outcomes'] == {name: 'unchanged' for name in fleet.endpoints}
    # The validate job template as shipped: "Read device state" true, the per-host reader, the settle timeout and the
    # rest of the survey's defaults, on the switches just deployed.
    started = time.monotonic()
    validated = awx_job('validate.yml', survey_defaults('validate'), hostvars=hostvars, limit='switches')
    print('validate job template (survey defaults, %d switches): %.0f s'
          % (len(fleet.endpoints), time.monotonic() - started))
    stdout = validated.stdout.read()
    assert (validated.rc, validated.status) == (0, 'successful'), stdout[-6000:]
    published = _artifacts(validated)['aifabric_validate']['pod1']
    outcome = (published['ok'], published['verdict'], published['errors'], published['failed'])
    assert outcome == (True, 'PASSED', 0, 0), published
    with open(published['report'], encoding='utf-8') as handle:
        report = json.load(handle)
    read = {item['device'] for item in report['results'] if item['check'] in ('interface_state', 'lldp_neighbor')
            and item['status'] == 'pass'}
    assert read == set(fleet.endpoints), "every switch's state was read and judged"
