#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 aifabric contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

DOCUMENTATION = r"""
---
module: lab_topology
short_description: Generate the containerlab topology of a fabric's digital twin from its intent
version_added: 1.0.0
description:
  - Designs the fabric from its intent (once per controller process) and returns the containerlab
    topology of its lab twin, the lab's node list and a static Ansible inventory of it.
  - Every GPU server, and every switch of a platform that runs on the lab image (its containerlab kind is
    C(linux)), becomes a Linux node of the lab image, wired as the design's links
    with the design's port names (MTU = the switch MTU of the intent); each node's static management address
    is its design C(management_ip) on a lab-private management network (the intent's C(management.pool)).
  - The other switches become nodes of the containerlab kinds their platform lists (for example C(ceos),
    C(sonic-vm) or C(sonic-vs), C(cvx) or C(nvidia_cumulusvx)), running the images named in O(vendor_images).
    Rendered port names are mapped onto each image's interfaces as the platform's kind says (for example a cEOS
    C(EosIntfMapping.json) per node, returned in RV(node_files)); a port the kind cannot represent is an error
    naming the switch and the port.
  - Lab-image nodes are unprivileged with the capabilities C(NET_ADMIN), C(NET_RAW) and C(SYS_ADMIN); images are
    never pulled (containerlab C(image-pull-policy) C(never)).
  - Runs on the controller only; fails with every problem listed when the intent cannot make a lab
    (no C(management.pool), a vendor platform without an image or with a kind that cannot run it, a port the
    kind cannot wire, management addresses outside the pool).
author:
  - aifabric contributors (@aifabric)
options:
  intent:
    description:
      - Path of the fabric intent YAML file. Defaults to the C(aifabric_intent) variable.
    type: path
  image:
    description:
      - The node image (built locally by the M(aifabric.fabric.lab) role).
    type: str
    required: true
  workdir:
    description:
      - The lab's work directory; the topology file, SSH key and lab directory live there.
      - Refused inside an inventory source and, unless O(allow_system_dir), in a system directory.
    type: path
    required: true
  allow_system_dir:
    description:
      - Allow O(workdir) to be a system directory. That is anything under C(/etc), C(/usr), C(/boot), C(/dev),
        C(/proc), C(/sys), C(/run), C(/bin), C(/sbin) or C(/lib*), and the directories that hold everyone's
        directories themselves (C(/), C(/home), C(/var), C(/var/lib), C(/tmp), C(/opt), C(/srv), the user's home, ...).
      - The lab role sets it from the variable C(aifabric_allow_system_dir).
    type: bool
    default: false
  prefix:
    description:
      - Prefix of container and management network names (C(<prefix>-<fabric>-<node>)).
    type: str
    default: aifabric
  vendor_images:
    description:
      - Switch platform to the image of its containerlab kind, already loaded into Docker (for example the
        platform C(eos) to C(ceos:4.32.0F)). Required for every platform of the intent whose kind is not the lab image.
    type: dict
    default: {}
  vendor_kinds:
    description:
      - Switch platform to the containerlab kind it runs as, one of the kinds the platform lists; default the
        first it lists (docs/lab.md has the table).
    type: dict
    default: {}
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: all
    support: full
seealso:
  - module: aifabric.fabric.device_info
"""

EXAMPLES = r"""
- name: Generate the lab topology
  aifabric.fabric.lab_topology:
    intent: fabrics/lab.yml
    image: aifabric/lab-node:0123456789ab
    workdir: build/labs/lab
  register: lab

- name: Generate the twin of a mixed fabric on vendor images
  aifabric.fabric.lab_topology:
    intent: inventories/vendor/intent.yml
    image: aifabric/lab-node:0123456789ab
    workdir: build/labs/vendor
    vendor_images:
      eos: ceos:4.32.0F
      sonic: vrnetlab/sonic_sonic-vs:202405
      nvue: networkop/cx:5.4.0
"""

RETURN = r"""
name:
  description: containerlab lab name (the intent name).
  returned: always
  type: str
network:
  description: Docker network of the lab's management network.
  returned: always
  type: str
subnet:
  description: Management subnet (the intent's management.pool).
  returned: always
  type: str
topology:
  description: The containerlab topology, to be written as YAML.
  returned: always
  type: dict
topology_file:
  description: Where the topology file belongs (in O(workdir)).
  returned: always
  type: str
nodes:
  description:
    - Lab nodes with role, platform, management address, container name and C(lab_image) (the node runs the lab's own
      image, where Ansible logs in with Python).
  returned: always
  type: list
  elements: dict
node_image:
  description: The lab image of the GPU servers and of the switches that run on it (the O(image) option).
  returned: always
  type: str
vendor_images:
  description: The vendor images the lab's nodes run, each to be present in Docker (never pulled).
  returned: always
  type: list
  elements: str
node_files:
  description: Files the vendor nodes bind (cEOS C(EosIntfMapping.json)), each with C(path) and C(content).
  returned: always
  type: list
  elements: dict
inventory:
  description: Static YAML inventory of the lab (hosts, groups by role, the lab SSH key on lab-image nodes).
  returned: always
  type: dict
private_key:
  description: Path of the lab's SSH private key.
  returned: always
  type: str
public_key:
  description: Path of the lab's SSH public key (bound into every node as root's authorized_keys).
  returned: always
  type: str
workdir:
  description: The work directory, as an absolute path.
  returned: always
  type: str
setup_script:
  description: The collection's host preparation script (C(scripts/setup-host.sh)).
  returned: always
  type: str
image_script:
  description: The collection's node image build script (the lab role's C(files/build-node-image.sh)).
  returned: always
  type: str
"""
