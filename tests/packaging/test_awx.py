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
import stat

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


@pytest.mark.parametrize('name', ['render', 'validate'])
def test_surveys_are_valid_and_feed_documented_variables(name):
    with open(os.path.join(EXAMPLE_PROJECT, 'surveys', name + '.json'), encoding='utf-8') as handle:
        survey = json.load(handle)
    assert survey['name'] and survey['description'] and survey['spec']
    if name == 'render':
        with open(os.path.join(ROOT, 'playbooks', 'render.yml'), encoding='utf-8') as handle:
            documented = set(re.findall(r'^#   (aifabric_render_\w+) ', handle.read(), re.M))
    else:
        with open(os.path.join(ROOT, 'roles', 'validate', 'meta', 'argument_specs.yml'), encoding='utf-8') as handle:
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


def injected_extra_vars(inputs):
    """The extra variables AWX injects for a credential of the example's type: every string of the injector's
    extra_vars rendered as a Jinja template of the credential's inputs, nested mappings kept (ansible/awx pull request
    13267, AWX 21.10+)."""
    import jinja2.sandbox  # pylint: disable=import-outside-toplevel
    environment = jinja2.sandbox.ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)

    def render(node):
        if isinstance(node, dict):
            return {render(key): render(value) for key, value in node.items()}
        return environment.from_string(node).render(**inputs) if isinstance(node, str) else node
    return render(credential_type()['injectors']['extra_vars'])


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

    def launch(playbook, survey_answers, credential=True):
        env = ansible_env(collections_path=installed)
        # As AWX runs a job template with the "aifabric switch users" credential attached: its injected extra
        # variables, under the survey's answers.
        extravars = dict(injected_extra_vars({'admin_password_hash': TEST_PASSWORD_HASH}) if credential else {},
                         **survey_answers)
        # ansible-runner runs ansible-playbook in <private>/project with the envvars on top of its own environment.
        return ansible_runner.run(private_data_dir=str(private), playbook=playbook, inventory=str(private / 'inventory' / 'hosts'),
                                  extravars=extravars, envvars={'ANSIBLE_COLLECTIONS_PATH': installed, 'PATH': env['PATH']},
                                  quiet=True)
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
