"""Wheel tagging for the cardgym package (all other metadata lives in pyproject.toml).

A wheel built by ``npm run build:wheel`` carries the bundled server with onnxruntime's native
library for one platform (``cardgym/_server``), so it is tagged ``py3-none-<platform>``
(``CARDGYM_WHEEL_PLATFORM``, default ``linux_x86_64``). Without that folder (a source checkout,
``pip install -e python``) the package is pure Python and the wheel is ``py3-none-any``.
"""

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel

HAS_SERVER = (Path(__file__).resolve().parent / "cardgym" / "_server" / "dist" / "serve.mjs").is_file()


class PlatformWheel(bdist_wheel):
    def get_tag(self) -> "tuple[str, str, str]":
        if HAS_SERVER:
            return ("py3", "none", os.environ.get("CARDGYM_WHEEL_PLATFORM", "linux_x86_64"))
        return super().get_tag()


setup(cmdclass={"bdist_wheel": PlatformWheel})
