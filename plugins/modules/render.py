#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: render
short_description: Render every configuration file and the fabric documentation of a fabric intent
version_added: 1.0.0
description:
  - Designs the fabric once on the controller and writes the configuration files of every switch and GPU server
    (or only of O(devices)) to C(<dest>/configs/<device>/<file>), one device after the other.
  - Also writes people-facing documentation to C(<dest>/docs/) unless O(docs=false). C(index.md) is the fabric README
    with the summary, the lossless profile and links to the other documents. C(cabling.md) and C(cabling.csv) hold
    every link with both ends, ports, speed, cable length, link role and rail. C(addressing.md) holds the pools,
    loopbacks, VTEPs, point-to-point /31s and server rail addresses. C(asn.md) holds the ASN scheme and every
    switch's ASN. C(devices.md) has one row per device and C(devices/<device>.md) one page per rendered device.
    C(overlay.md) lists the VRFs and networks with VLAN, VNI and route targets. C(topology.svg) is a picture of
    the tiers with rails colour-coded.
  - Also writes the fabric's NetBox import bundle to C(<dest>/netbox/) on whole-fabric renders unless O(netbox=false),
    one CSV file per NetBox object type (site, manufacturers, platforms, device types, device roles, RIRs, ASNs,
    route targets, VRFs, VLAN group, VLANs, prefixes, devices, interfaces, cables, IP addresses), numbered in the
    order NetBox must import them, with the field names of NetBox's bulk import forms (NetBox 4.6), and
    C(bundle.json) listing them with the import view of each.
  - A file is written only when its content differs from what O(dest) holds; the task reports C(changed) only then.
  - Files are written into a staging generation next to O(dest) (C(.<name>.generations/)) and switched into place
    atomically when the render is complete; O(dest) is then a symlink to the complete generation. A render that fails
    or is killed leaves the previous complete output in place. Each device's directory (C(configs/<device>)) is written
    once, under C(.<name>.generations/store/), and linked from every generation until the device changes; other
    unchanged files are hard links to the previous generation. C(<dest>/manifest.json) lists the sha256 of every
    rendered file and marks the generation complete.
  - Prints, for the person running it, the result line and where the configurations, the fabric README and the
    NetBox bundle are.
  - One render at a time per O(dest) (a lock file C(.<name>.lock) next to it); a second one waits up to
    O(lock_timeout) seconds, then fails naming the running one.
  - Runs on the controller only; nothing is sent to any device. Run it once per play (C(run_once), or a play on
    C(localhost)), not once per device.
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description:
      - Path of the fabric intent YAML file.
      - Defaults to the C(aifabric_intent) variable that the P(aifabric.fabric.fabric#inventory) inventory plugin sets.
    type: path
  dest:
    description:
      - Output directory. Configuration files go to C(<dest>/configs/), documentation to C(<dest>/docs/).
      - A relative path is relative to the current directory of C(ansible-playbook).
      - Exactly one of O(dest) and O(out) is required.
    type: path
  out:
    description:
      - Base directory; the output directory is C(<out>/<fabric name>), the name taken from the validated intent.
      - Exactly one of O(dest) and O(out) is required.
    type: path
  devices:
    description:
      - Render only these devices (names as in the inventory). Default is every device of the fabric.
      - The fabric-wide documents are always about the whole fabric; device pages are written for the rendered devices.
      - A list naming every device is a whole-fabric render. A subset (a C(--limit) or an AWX job slice) writes the
        same bytes for its devices as a whole-fabric render and removes nothing; the fabric-wide Kubernetes files
        come with whole-fabric renders only.
    type: list
    elements: str
  docs:
    description:
      - Also write the fabric documentation to C(<dest>/docs/).
    type: bool
    default: true
  netbox:
    description:
      - Also write the NetBox import bundle to C(<dest>/netbox/). Whole-fabric renders only; a render of O(devices)
        keeps the bundle an earlier render wrote.
    type: bool
    default: true
  netbox_status:
    description:
      - The status of the bundle's objects. V(planned) for a fabric still to be built (sites, devices and cables
        planned; prefixes, VLANs and IP addresses reserved), V(active) for one that runs (active; cables connected).
    type: str
    choices: [planned, active]
    default: planned
  prune:
    description:
      - Remove files under C(<dest>/configs/), C(<dest>/docs/), C(<dest>/k8s/) and C(<dest>/netbox/) that an earlier
        render wrote (its C(manifest.json) lists them) and the intent no longer produces (devices that left the
        fabric, renamed files). Only when every device is rendered (no O(devices)) and rendering succeeded.
      - Nothing else is ever removed. Files the collection did not write (validation reports, notes of your own) are
        carried into each new generation and never listed in the manifest.
    type: bool
    default: true
  take_over:
    description:
      - An existing, non-empty directory that no render made is refused as O(dest), so that a mistyped path never
        turns your files into a render's. To render into it anyway, name it again here (the same path as the output
        directory); its files are kept, carried into every generation and never removed.
      - A directory that holds an inventory source, or that Ansible reads as inventory, is refused whatever this says.
    type: path
  allow_system_dir:
    description:
      - A system directory is refused as O(dest) or O(out) unless this is true. That is anything under C(/etc), C(/usr),
        C(/boot), C(/dev), C(/proc), C(/sys), C(/run), C(/bin), C(/sbin) or C(/lib*), and the directories that hold
        everyone's directories themselves (C(/), C(/home), C(/var), C(/var/lib), C(/tmp), C(/opt), C(/srv), the user's
        home, ...), through symbolic links.
      - The playbooks set it from the variable C(aifabric_allow_system_dir).
    type: bool
    default: false
  diff_max_files:
    description:
      - With C(--diff), show at most this many distinct changes; the rest are counted. Files whose change is the same
        (a fabric-wide change on every leaf) are one change, shown once with the files it is in.
    type: int
    default: 10
  diff_max_lines:
    description:
      - With C(--diff), show at most this many lines of each change; the rest are counted.
      - A diff shows only what changes, whatever the size of the file. A JSON configuration (SONiC's C(config_db.json))
        is compared entry by entry, each changed entry headed by its table and key (C(@@ WRED_PROFILE|ROCE_400G @@));
        other files as a unified diff whose hunk headers name the enclosing sections (C(router bgp 65001 >
        address-family ipv4 unicast)).
    type: int
    default: 400
  max_nodes_per_tier:
    description:
      - The topology picture draws at most this many devices per tier (the first and the last ones around a
        C(+N more) box) and only the links between drawn devices, so big fabrics stay readable and small.
    type: int
    default: 16
  lock_timeout:
    description:
      - Seconds to wait for another render into the same O(dest) to finish before failing.
    type: int
    default: 300
  progress_interval:
    description:
      - Seconds between progress lines (devices rendered out of the total, elapsed time) on long renders; nothing
        is shown for a render that ends sooner.
    type: float
    default: 2.0
  stats:
    description:
      - When the render succeeds, also publish its counts as custom stats, as M(ansible.builtin.set_stats) does with
        its defaults (aggregated, for the whole run); AWX keeps them as the job's artifacts. The data is
        C(aifabric_render.<fabric>) with RV(devices), RV(files), RV(written), RV(unchanged), RV(removed), RV(dest),
        RV(index), RV(netbox), RV(msg) and C(failed=false); the renders of several fabrics (a loop) add up to one
        dictionary.
      - Ansible takes custom stats from a task that did not fail only. The render playbook publishes the same of a
        failed render, with C(failed=true) and RV(render_errors), from the registered result.
    type: bool
    default: false
  workers:
    description:
      - Processes that render devices in parallel and write their files into the new output generation; the result
        is a serial render's, file for file and byte for byte. V(0) uses every CPU this process may run on; fabrics
        under 256 devices render in one process. V(1) renders serially.
    type: int
    default: 0
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details: Renders and compares everything, reports what would be written or removed, writes nothing.
  diff_mode:
    support: full
    details: Shows what changes in each changed file, by table entry or section, bounded by O(diff_max_files) and
      O(diff_max_lines).
  platform:
    platforms: all
notes:
  - The intent is validated before anything is written; every problem is reported at once with its path.
  - A device whose platform has no renderer, or whose rendering fails, fails the task after every other device has
    been tried; nothing is changed in O(dest) then (the previous complete output stays).
  - The design computed by the P(aifabric.fabric.fabric#inventory) inventory plugin is reused (same controller process),
    so the fabric is designed once per run.
seealso:
  - plugin: aifabric.fabric.fabric
    plugin_type: inventory
  - module: aifabric.fabric.device_info
"""

EXAMPLES = r"""
- name: Render the whole fabric and its documentation
  aifabric.fabric.render:
    dest: "{{ aifabric_output_dir }}"
  run_once: true
  delegate_to: localhost

- name: Render two devices of a given intent, configurations only
  aifabric.fabric.render:
    intent: fabrics/pod1k.yml
    dest: out/pod1k
    devices: [leaf001, spine001]
    docs: false
"""

RETURN = r"""
dest:
  description: Absolute output directory.
  returned: always
  type: str
  sample: /srv/fabric/out/lab
fabric:
  description: Fabric name.
  returned: always
  type: str
  sample: lab
devices:
  description: Number of devices rendered.
  returned: always
  type: int
  sample: 10
files:
  description: Number of files the intent produces in this run (configurations and documents).
  returned: always
  type: int
  sample: 38
written:
  description: Files written because their content changed or they were new (in check mode, that would be written).
  returned: always
  type: int
  sample: 2
unchanged:
  description: Files whose content was already up to date.
  returned: always
  type: int
  sample: 36
removed:
  description: Stale files removed by O(prune) (in check mode, that would be removed).
  returned: always
  type: int
  sample: 0
changed_files:
  description: Paths relative to O(dest) of the written files, at most the first 100.
  returned: always
  type: list
  elements: str
  sample: [configs/leaf001/frr.conf, docs/devices/leaf001.md]
configs:
  description: Directory holding C(<device>/<file>) configuration files.
  returned: always
  type: str
manifest:
  description: Path of C(manifest.json) of the new output generation; null when nothing changed or in check mode.
  returned: always
  type: str
  sample: /srv/fabric/out/lab/manifest.json
index:
  description: Path of the fabric README (C(docs/index.md)); null when O(docs=false).
  returned: always
  type: str
netbox:
  description: Directory of the NetBox import bundle (C(<dest>/netbox)); null when O(netbox=false) or O(devices) is set.
  returned: always
  type: str
  sample: /srv/fabric/out/lab/netbox
summary:
  description: Fabric summary (GPUs, hosts, leaves, spines, super-spines, tiers, pods, rails, links, oversubscription, platforms).
  returned: always
  type: dict
timings:
  description:
    - Seconds spent getting the design (near 0 when the inventory plugin already designed this intent in the same run),
      rendering and writing the devices (with their pages), writing the fabric documents, and in total.
  returned: always
  type: dict
  sample: {design: 0.0, devices: 1.52, fabric_docs: 0.31, total: 1.83}
msg:
  description: What was rendered and written, or why rendering failed.
  returned: always
  type: str
  sample: "Fabric lab: rendered 10 device(s) into /srv/fabric/out/lab; wrote 2 file(s), 36 unchanged, 0 removed"
ansible_stats:
  description: The custom stats Ansible publishes (see O(stats)).
  returned: when O(stats=true) and the render succeeded
  type: dict
  sample: {data: {aifabric_render: {lab: {devices: 10, files: 38, written: 2, unchanged: 36, removed: 0, failed: false,
           dest: /srv/fabric/out/lab, index: /srv/fabric/out/lab/docs/index.md, netbox: /srv/fabric/out/lab/netbox,
           msg: "Fabric lab: rendered 10 device(s) ..."}}}, per_host: false, aggregate: true}
render_errors:
  description: Devices that could not be rendered, with the reason.
  returned: when rendering failed
  type: list
  elements: str
"""
