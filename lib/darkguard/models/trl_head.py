"""trl's fused LM head, projecting only the positions that carry a label, on every device.

trl 1.16 patches every model it trains with a fused LM head (`trl.trainer.utils.add_fused_lm_head`)
that returns per-token log-probabilities instead of logits. On Triton devices (CUDA, XPU) it
projects only the positions whose next-token label is not -100; elsewhere it projects every
position, so that tile shapes stay fixed for graph compilers (Neuron). On a CPU in eager mode that
buys nothing and costs much: a tiny evaluator's warm-up row is a few hundred prompt tokens (the
image's included) and a dozen completion tokens, so the head computed the softmax over the whole
vocabulary for every prompt token and then masked it away. `label_positions_only` makes trl take
its own compact path everywhere: the same per-token computation on the labelled rows only (the
losses agree with the full path to float rounding, ~1e-7), and a warm-up ~20% faster on this
2-core machine (40 steps: 27 s against 33-37 s; `benchmarks/bench_trl_head.py`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def label_positions_only() -> Iterator[None]:
    """Within the block, trl's fused LM head projects only the labelled positions (its compact
    path) on every device; outside it, trl's own choice is back."""
    import trl.trainer.utils as trl_utils

    own = getattr(trl_utils, "_use_triton", None)
    if own is None:  # trl decides differently: nothing to patch, trl's own choice stands
        yield
        return
    trl_utils._use_triton = lambda device: True
    try:
        yield
    finally:
        trl_utils._use_triton = own
