"""darkguard: reproducible defenses for web agents against deceptive interfaces."""

import os

__version__ = "0.1.0"

# The same tables on every x86 machine: torch's own kernels (softmax, layer norm, ...) and MKL
# pick their vector width from the CPU, and AVX-512 and AVX2 kernels round differently; one
# borderline greedy judgement then flips and every table after it moves. Pinned here, before
# anything imports torch, to the width every x86 machine of the last decade has. A user's own
# setting wins (`ATEN_CPU_CAPABILITY=default` ...); GPUs are not affected.
CPU_KERNELS = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
for _name, _value in CPU_KERNELS.items():
    os.environ.setdefault(_name, _value)
