"""fairdp's build: pyproject.toml holds the configuration; this file adds one build step, ``build_pth``.

``build_pth`` installs ``fairdp_diffprivlib_hook.pth`` at the root of site-packages; at start-up it registers the
lazy import hook of ``_fairdp_diffprivlib_hook`` (why: that module's docstring). No pyproject setting of setuptools
places a file there, and an editable wheel (``pip install -e .``) contains no built modules, only the files setuptools
installs as they are. So the step writes the ``.pth`` into ``build_lib`` for a regular wheel (installed with the
modules, at the root of site-packages) and into the editable wheel's root for an editable install (the ``install``
command's ``install_lib``, where setuptools puts those files). tests/test_packaging.py checks both wheels.
"""

import os

from setuptools import Command, setup
from setuptools.command.build import build

PTH_NAME = "fairdp_diffprivlib_hook.pth"
#: One line; site.py executes lines that start with "import". It swallows every error: a broken hook must never
#: break the start-up of other Python programs.
PTH_LINE = "import sys; exec(\"try: __import__('_fairdp_diffprivlib_hook').install()\\nexcept Exception: pass\")\n"


class build_pth(Command):
    """Write :data:`PTH_NAME` where it ends up at the root of site-packages."""

    description = "write fairdp's diffprivlib import hook (.pth) for the root of site-packages"
    user_options = []

    def initialize_options(self):
        self.build_lib = None
        self.editable_mode = False

    def finalize_options(self):
        self.set_undefined_options("build_py", ("build_lib", "build_lib"))

    def _target_dir(self):
        if self.editable_mode:
            return self.get_finalized_command("install").install_lib
        return self.build_lib

    def run(self):
        target = self._target_dir()
        self.mkpath(target)
        path = os.path.join(target, PTH_NAME)
        self.execute(_write_pth, (path,), f"writing {path}")

    def get_outputs(self):
        # In editable mode the file is not in build_lib (setuptools would otherwise try to link it from there).
        return [] if self.editable_mode else [os.path.join(self.build_lib, PTH_NAME)]

    def get_output_mapping(self):
        return {}

    def get_source_files(self):
        return []


def _write_pth(path):
    with open(path, "w", encoding="utf-8") as file:
        file.write(PTH_LINE)


class build_with_pth(build):
    sub_commands = [*build.sub_commands, ("build_pth", None)]


setup(cmdclass={"build": build_with_pth, "build_pth": build_pth})
