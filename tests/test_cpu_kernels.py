"""The CPU kernel width is pinned before torch loads, so x86 machines of either vector width
compute the same tables (`darkguard.CPU_KERNELS`)."""

import os
import platform
import subprocess
import sys

import pytest

import darkguard

CAPABILITY = "import darkguard, torch; print(torch.backends.cpu.get_cpu_capability())"


def _capability(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CAPABILITY], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the pin concerns x86 vector widths")
def test_importing_darkguard_pins_torch_to_avx2() -> None:
    env = {k: v for k, v in os.environ.items() if k not in darkguard.CPU_KERNELS}
    assert _capability(env) == "AVX2"


def test_a_users_own_setting_wins() -> None:
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default"}
    assert _capability(env) == "DEFAULT"
