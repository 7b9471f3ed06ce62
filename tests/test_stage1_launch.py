"""Stage 1 under `accelerate launch`: the config written from `stage1.launch`, and the tiny GRPO
run in two processes (gloo on CPU) — every step logged once, the adapter saved once, loadable."""

from __future__ import annotations

import json

import pytest
import yaml

from darkguard.config import LaunchParams
from darkguard.io import InputError
from darkguard.training.dude.launch import CONFIG_FILE, JOB_FILE, GRPOJob, accelerate_config, train
from darkguard.training.dude.stage1 import grpo_rows, vllm_settings
from tests.grpo_fixtures import completion_length, small_grpo
from tests.test_stage1 import REWARD, fixture_clicks

VLLM_OFF = {"enabled": False, "mode": "colocate", "server_base_url": None}


def launch(n: int, distributed: str = "ddp", **vllm) -> LaunchParams:
    return LaunchParams(
        num_processes=n,
        distributed=distributed,
        main_process_port=29519,
        vllm={**VLLM_OFF, "gpu_memory_utilization": 0.3, **vllm},
    )


def test_the_accelerate_config_follows_params() -> None:
    ddp = accelerate_config(launch(4), "cuda", bf16=True)
    assert ddp["distributed_type"] == "MULTI_GPU" and ddp["num_processes"] == 4
    assert ddp["mixed_precision"] == "bf16" and ddp["main_process_ip"] == "127.0.0.1"
    zero = accelerate_config(launch(2, "deepspeed_zero2"), "cuda", bf16=True)
    assert zero["distributed_type"] == "DEEPSPEED"
    assert zero["deepspeed_config"]["zero_stage"] == 2
    with pytest.raises(InputError, match="deepspeed_zero2 needs GPUs"):
        accelerate_config(launch(2, "deepspeed_zero2"), "cpu", bf16=False)
    one = accelerate_config(launch(1), "cpu", bf16=False)  # launched only for vLLM
    assert one["distributed_type"] == "MULTI_GPU" and one["num_processes"] == 1


def test_vllm_switches_reach_trl_only_when_enabled() -> None:
    assert vllm_settings(None) == {} and vllm_settings(launch(1).vllm) == {}
    served = launch(1, enabled=True, mode="server", server_base_url="http://127.0.0.1:8010")
    assert vllm_settings(served.vllm) == {
        "use_vllm": True,
        "vllm_mode": "server",
        "vllm_gpu_memory_utilization": 0.3,
        "vllm_server_base_url": "http://127.0.0.1:8010",
    }
    from trl import GRPOConfig

    known = set(GRPOConfig.__dataclass_fields__)
    assert set(vllm_settings(served.vllm)) <= known  # trl's own names


@pytest.mark.slow
def test_grpo_under_accelerate_launch_with_two_processes(release, tiny_model, tmp_path) -> None:
    from darkguard.models.backends.hf import HFBackend
    from darkguard.models.spec import ModelSpec

    clicks, records = fixture_clicks(release)
    rows = grpo_rows(clicks, records, release, 128 * 128)
    job = GRPOJob(
        str(tiny_model),
        rows,
        tmp_path / "adapter",
        tmp_path / "ckpt",
        small_grpo(per_device=2, steps=3),  # x 2 processes: 4 completions per step
        REWARD,
        42,
        "cpu",
        [completion_length],
    )
    work = tmp_path / "launch"
    log = train(job, launch(2), work)
    steps = [e for e in log if "reward" in e]
    assert [e["step"] for e in steps] == [1, 2, 3]  # one line per step, not one per process
    assert all(e["reward"] > 0 for e in steps)
    config = yaml.safe_load((work / CONFIG_FILE).read_text())
    assert config["num_processes"] == 2
    assert not (work / JOB_FILE).exists()  # the rows are not left behind
    saved = sorted(p.name for p in (tmp_path / "adapter").iterdir())
    assert "adapter_config.json" in saved and "adapter_model.safetensors" in saved
    assert not (tmp_path / "ckpt").exists()
    assert json.loads((work / "log_history.json").read_text()) == log
    spec = ModelSpec("tuned", path=str(tiny_model), adapter=str(tmp_path / "adapter"))
    assert len(HFBackend(spec).generate([[{"role": "user", "content": "hi"}]], 4)) == 1
